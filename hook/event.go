package hook

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Event is a hook. The zero value is invalid.
type Event uint8

// The hooks.
const (
	SessionStart Event = iota + 1
	PromptSubmit
	Stop
	PreCompact
	SessionEnd
	PostToolUse
)

// Events lists the hooks in the order of a session.
var Events = []Event{SessionStart, PromptSubmit, PostToolUse, Stop, PreCompact, SessionEnd}

var eventNames = map[Event][2]string{
	SessionStart: {"SessionStart", "session-start"},
	PromptSubmit: {"UserPromptSubmit", "prompt-submit"},
	Stop:         {"Stop", "stop"},
	PreCompact:   {"PreCompact", "pre-compact"},
	SessionEnd:   {"SessionEnd", "session-end"},
	PostToolUse:  {"PostToolUse", "post-tool-use"},
}

// String returns Claude Code's name of the event (hook_event_name,
// the keys of settings.json "hooks"), "" for an invalid one.
func (e Event) String() string { return eventNames[e][0] }

// Command returns the word of `ctx hook WORD`.
func (e Event) Command() string { return eventNames[e][1] }

// ParseEvent reads an event from its command word or Claude Code's name.
func ParseEvent(s string) (Event, error) {
	for _, e := range Events {
		if s == e.Command() || strings.EqualFold(s, e.String()) {
			return e, nil
		}
	}
	return 0, fmt.Errorf("%w: unknown hook %q", ErrInvalidInput, s)
}

// Input is what Claude Code writes on a hook's standard input. Fields a
// hook does not receive are empty; unknown fields are ignored.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	// Source is SessionStart's: startup, resume, clear or compact.
	Source string `json:"source"`
	// Prompt is UserPromptSubmit's: the user's text.
	Prompt string `json:"prompt"`
	// StopHookActive is Stop's: Claude Code is already continuing
	// because a Stop hook blocked. ctx never blocks, so it only notes it.
	StopHookActive bool `json:"stop_hook_active"`
	// Trigger is PreCompact's: manual or auto.
	Trigger            string `json:"trigger"`
	CustomInstructions string `json:"custom_instructions"`
	// Reason is SessionEnd's: clear, logout, prompt_input_exit, other.
	Reason string `json:"reason"`
	// ToolName, ToolInput, ToolResponse and ToolUseID are PostToolUse's:
	// the tool that ran (Read, Write, Edit, Bash, Grep, …), its arguments
	// and its result as Claude Code gives them.
	ToolName     string          `json:"tool_name"`
	ToolInput    json.RawMessage `json:"tool_input"`
	ToolResponse json.RawMessage `json:"tool_response"`
	ToolUseID    string          `json:"tool_use_id"`
}

// MaxInput bounds the input a hook decodes; the rest is read and
// dropped, so that Claude Code never blocks writing it.
const MaxInput = 32 << 20

// ReadInput reads a hook's whole standard input and decodes it. Empty
// input (a hook run by hand) is an empty Input. Input that is not a JSON
// object is an error wrapping ErrInvalidInput, after reading it all.
func ReadInput(r io.Reader) (Input, error) {
	var in Input
	data, err := io.ReadAll(io.LimitReader(r, MaxInput+1))
	if err != nil {
		return in, fmt.Errorf("hook: read input: %w", err)
	}
	if len(data) > MaxInput {
		_, _ = io.Copy(io.Discard, r)
		return in, fmt.Errorf("%w: input over %d bytes", ErrInvalidInput, MaxInput)
	}
	if strings.TrimSpace(string(data)) == "" {
		return in, nil
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return Input{}, fmt.Errorf("%w: input is not the JSON of a Claude Code hook: %v", ErrInvalidInput, err)
	}
	return in, nil
}

// Output is a hook's answer on standard output. The zero Output is "{}":
// nothing to add.
type Output struct {
	// SystemMessage is a warning shown to the user.
	SystemMessage string `json:"systemMessage,omitempty"`
	// Specific carries context for the agent.
	Specific *Specific `json:"hookSpecificOutput,omitempty"`
}

// Specific is hookSpecificOutput.
type Specific struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext"`
}

// Context returns the additional context of the output, "" if none.
func (o *Output) Context() string {
	if o == nil || o.Specific == nil {
		return ""
	}
	return o.Specific.AdditionalContext
}

// warn adds a line to the system message.
func (o *Output) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if o.SystemMessage == "" {
		o.SystemMessage = "ctx: " + msg
		return
	}
	o.SystemMessage += "; " + msg
}

// JSON encodes the output as one line, HTML characters left as they are.
func (o *Output) JSON() []byte {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(o); err != nil {
		return []byte("{}\n") // cannot happen: strings only
	}
	return []byte(b.String())
}

package hook

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/workset"
)

// postToolUse feeds the agent session's working set (package workset,
// FORMAT.md §21) with what a tool did: a file read (Read) is indexed and
// made active, a file written (Write, Edit, MultiEdit, NotebookEdit) gets
// a new version, and the output of Bash, Grep and Glob is recorded as
// a tool call whose paths become [unread] stubs. Other tools are not
// recorded. The working set is keyed by the hook's session_id; it takes
// its own lock, never the store's, so a tool call never waits for a
// writer. Nothing is injected.
func (h *runner) postToolUse() error {
	in := h.opts.Input
	agent := in.SessionID
	if agent == "" {
		agent = "default"
	}
	op, err := toolOp(in)
	if err != nil || op == nil {
		return err
	}
	ws, err := workset.Open(h.r.Root, workset.Options{Clock: h.r.Clock, LockTimeout: h.opts.LockTimeout})
	if err != nil {
		return err
	}
	return ws.Update(h.ctx, agent, op)
}

// toolInput is the part of a tool's input and response ctx reads.
type toolInput struct {
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	Command      string `json:"command"`
	Pattern      string `json:"pattern"`
	Path         string `json:"path"`
}

// toolOp returns the change of the working set a PostToolUse input asks
// for; nil for a tool the working set does not follow.
func toolOp(in Input) (func(*workset.Session) error, error) {
	var ti toolInput
	if len(in.ToolInput) > 0 {
		if err := json.Unmarshal(in.ToolInput, &ti); err != nil {
			return nil, fmt.Errorf("%w: tool_input of %s: %v", ErrInvalidInput, in.ToolName, err)
		}
	}
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) || in.Cwd == "" {
			return filepath.ToSlash(p)
		}
		return filepath.ToSlash(filepath.Join(in.Cwd, p))
	}
	switch in.ToolName {
	case "Read":
		if ti.FilePath == "" {
			return nil, fmt.Errorf("%w: Read without tool_input.file_path", ErrInvalidInput)
		}
		return func(s *workset.Session) error { _, err := s.ReadFile(abs(ti.FilePath), nil); return err }, nil
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		path := ti.FilePath
		if path == "" {
			path = ti.NotebookPath
		}
		if path == "" {
			return nil, fmt.Errorf("%w: %s without tool_input.file_path", ErrInvalidInput, in.ToolName)
		}
		return func(s *workset.Session) error { _, err := s.WriteFile(abs(path), nil); return err }, nil
	case "Bash", "Grep", "Glob":
		out, failed := toolOutput(in.ToolResponse)
		args := ti.Command
		if in.ToolName != "Bash" {
			args = strings.TrimSpace(ti.Pattern + " " + ti.Path)
		}
		status := workset.StatusOK
		if failed {
			status = workset.StatusFail
		}
		call := workset.ToolInput{Tool: in.ToolName, CallID: in.ToolUseID, Args: args, Status: status, Output: out, Cwd: filepath.ToSlash(in.Cwd)}
		if call.Cwd != "" && !strings.HasPrefix(call.Cwd, "/") {
			call.Cwd = ""
		}
		return func(s *workset.Session) error { _, err := s.Tool(call); return err }, nil
	}
	return nil, nil
}

// toolOutput returns the text of a tool's response: a string as it is;
// of an object, its stdout and stderr (Bash), its content or output, or
// its filenames one per line (Grep, Glob); anything else as its JSON.
// failed reports an error flag or a non-zero exit.
func toolOutput(raw json.RawMessage) ([]byte, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return []byte(str), false
	}
	var r struct {
		Stdout      string   `json:"stdout"`
		Stderr      string   `json:"stderr"`
		Content     string   `json:"content"`
		Output      string   `json:"output"`
		Filenames   []string `json:"filenames"`
		Interrupted bool     `json:"interrupted"`
		IsError     bool     `json:"is_error"`
		ExitCode    *int     `json:"exit_code"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return raw, false
	}
	failed := r.IsError || r.Interrupted || r.ExitCode != nil && *r.ExitCode != 0
	var b strings.Builder
	for _, part := range []string{r.Stdout, r.Content, r.Output} {
		if part != "" {
			b.WriteString(part)
			if !strings.HasSuffix(part, "\n") {
				b.WriteByte('\n')
			}
		}
	}
	for _, f := range r.Filenames {
		b.WriteString(f)
		b.WriteByte('\n')
	}
	if r.Stderr != "" {
		b.WriteString(r.Stderr)
	}
	if b.Len() == 0 {
		return raw, failed
	}
	return []byte(b.String()), failed
}

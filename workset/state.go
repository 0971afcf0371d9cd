package workset

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/fault"
	"github.com/ctx-dev/ctx/internal/regfile"
	"github.com/ctx-dev/ctx/object"
)

// The roles of chat entries.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "toolcall_ref"
)

// The statuses of a tool call.
const (
	StatusOK   = "ok"
	StatusFail = "fail"
)

// Default collapse window (seed §4.3): a tool call's output stays active
// while it is among the last 5 of its turn and its turn among the last 3.
const (
	DefaultPerTurn = 5
	DefaultTurns   = 3
)

// State is the persisted state of one agent session
// (sessions/<key>/state.json).
type State struct {
	Version int    `json:"version"`
	Session string `json:"session"`
	// System is the blob of the system prompt; null for none.
	System *object.ID `json:"system"`
	// Sandbox is set once the session has mounts: paths under no mount
	// are then the sandbox's own and never read from the host.
	Mounts Mounts `json:"mounts"`
	// Index, Pool, Active and Pinned are content object ids. Index and
	// Pool are in the order the session met them; Active in the order of
	// activation.
	Index  []ID   `json:"index"`
	Pool   []ID   `json:"pool"`
	Active []ID   `json:"active"`
	Pinned []ID   `json:"pinned"`
	Turns  []Turn `json:"turns"`
	Calls  []Call `json:"toolcalls"`
	Window Window `json:"window"`
}

// Window is the auto-collapse window of tool outputs.
type Window struct {
	PerTurn int `json:"per_turn"`
	Turns   int `json:"turns"`
}

// Turn is one turn of the chat: a user prompt and what followed.
type Turn struct {
	N       int     `json:"n"`
	Entries []Entry `json:"entries"`
}

// Entry is one chat entry: a message (user, assistant) or a reference to
// a tool call (toolcall_ref).
type Entry struct {
	Role string `json:"role"`
	Text string `json:"text,omitempty"`
	Ref  *ID    `json:"ref,omitempty"`
}

// Call is a tool call object: unsourced, written once.
type Call struct {
	ID     ID     `json:"id"`
	CallID string `json:"call_id"`
	Tool   string `json:"tool"`
	Args   string `json:"args,omitempty"`
	Status string `json:"status"`
	Turn   int    `json:"turn"`
	// Seq counts the calls of its turn from 1.
	Seq       int       `json:"seq"`
	Blob      object.ID `json:"blob"`
	CharCount int       `json:"char_count"`
	// Files are the file objects discovered in its output.
	Files []ID `json:"file_refs,omitempty"`
}

// SessionKey returns the directory name of a session's state: the id
// itself when it is 1-100 of A-Z a-z 0-9 . _ - starting with a letter or
// digit, else "h-" and 32 hex digits of its SHA-256 (as the hooks' state,
// FORMAT.md §20). An empty id is invalid.
func SessionKey(session string) (string, error) {
	if session == "" {
		return "", fmt.Errorf("%w: empty agent session id", ErrInvalid)
	}
	ok := len(session) <= 100 && isAlnum(session[0])
	for i := 0; ok && i < len(session); i++ {
		c := session[i]
		ok = isAlnum(c) || c == '.' || c == '_' || c == '-'
	}
	if ok {
		return session, nil
	}
	sum := sha256.Sum256([]byte(session))
	return "h-" + hex.EncodeToString(sum[:16]), nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func newState(session string) State {
	return State{Version: FormatVersion, Session: session, Window: Window{PerTurn: DefaultPerTurn, Turns: DefaultTurns}}
}

func readState(path, session string) (State, error) {
	b, err := regfile.Read(path, 256<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return newState(session), nil
	}
	if err != nil {
		return State{}, fmt.Errorf("workset: %w", err)
	}
	st, err := DecodeState(b)
	if err != nil {
		return State{}, fmt.Errorf("%s: %w", path, err)
	}
	if st.Session != session {
		return State{}, fmt.Errorf("%w: %s belongs to session %q", ErrState, path, st.Session)
	}
	return st, nil
}

// DecodeState parses and checks a session's state file: its version, and
// that active ⊆ pool ⊆ index, pinned ⊆ index, and every chat reference
// and call is in the index.
func DecodeState(b []byte) (State, error) {
	var st State
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return State{}, fmt.Errorf("%w: %w", ErrState, err)
	}
	if dec.More() {
		return State{}, fmt.Errorf("%w: trailing data", ErrState)
	}
	if st.Version != FormatVersion {
		return State{}, fmt.Errorf("%w: version %d (this ctx reads %d)", ErrState, st.Version, FormatVersion)
	}
	if _, err := SessionKey(st.Session); err != nil {
		return State{}, fmt.Errorf("%w: no session id", ErrState)
	}
	if st.Window.PerTurn < 1 || st.Window.Turns < 1 {
		return State{}, fmt.Errorf("%w: collapse window %d/%d", ErrState, st.Window.PerTurn, st.Window.Turns)
	}
	index := make(map[ID]bool, len(st.Index))
	for _, id := range st.Index {
		if index[id] {
			return State{}, fmt.Errorf("%w: %s twice in the index", ErrState, id.Short())
		}
		index[id] = true
	}
	pool := map[ID]bool{}
	for _, set := range []struct {
		name  string
		ids   []ID
		super map[ID]bool
		into  map[ID]bool
	}{{"pool", st.Pool, index, pool}, {"active set", st.Active, pool, nil}, {"pinned set", st.Pinned, index, nil}} {
		seen := map[ID]bool{}
		for _, id := range set.ids {
			if !set.super[id] || seen[id] {
				return State{}, fmt.Errorf("%w: %s in the %s is repeated or not in the set above it", ErrState, id.Short(), set.name)
			}
			seen[id] = true
			if set.into != nil {
				set.into[id] = true
			}
		}
	}
	for i, c := range st.Calls {
		if !index[c.ID] || CallID(c.CallID) != c.ID || c.Turn < 0 || c.Seq < 1 || (c.Status != StatusOK && c.Status != StatusFail) {
			return State{}, fmt.Errorf("%w: tool call %d is invalid", ErrState, i)
		}
	}
	for i, t := range st.Turns {
		if t.N != i+1 {
			return State{}, fmt.Errorf("%w: turn %d numbered %d", ErrState, i+1, t.N)
		}
		for _, e := range t.Entries {
			switch {
			case e.Role == RoleTool && e.Ref != nil && index[*e.Ref]:
			case (e.Role == RoleUser || e.Role == RoleAssistant) && e.Ref == nil:
			default:
				return State{}, fmt.Errorf("%w: bad chat entry in turn %d", ErrState, t.N)
			}
		}
	}
	return st, nil
}

func writeState(path string, st State) error {
	// Empty sets are written as [], never null.
	for _, p := range []*[]ID{&st.Index, &st.Pool, &st.Active, &st.Pinned} {
		if *p == nil {
			*p = []ID{}
		}
	}
	if st.Mounts == nil {
		st.Mounts = Mounts{}
	}
	if st.Turns == nil {
		st.Turns = []Turn{}
	}
	if st.Calls == nil {
		st.Calls = []Call{}
	}
	b, err := json.MarshalIndent(st, "", " ")
	if err != nil {
		return fmt.Errorf("workset: encode state: %w", err)
	}
	if err := atomicfile.MkdirAll(filepath.Dir(path)); err != nil {
		return err
	}
	fault.Hit("workset.state-writing")
	return atomicfile.Write(path, append(b, '\n'), 0o644)
}

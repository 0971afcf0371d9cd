package staging

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/object"
)

// Mode says what a session is doing.
type Mode string

// The modes of a session. A crash while compacting leaves ModeCompacting
// in the journal; `ctx stage recover` then finishes or undoes the
// compaction.
const (
	ModeRunning    Mode = "running"
	ModeCompacting Mode = "compacting"
	ModeAborted    Mode = "aborted"
)

// Valid reports whether m is a defined mode.
func (m Mode) Valid() bool { return m == ModeRunning || m == ModeCompacting || m == ModeAborted }

// Budgets bound what one step of the session may store (design §11.4).
// Zero means no bound.
type Budgets struct {
	MaxFilesPerStep int   `json:"max_files_per_step"`
	MaxBytesPerStep int64 `json:"max_bytes_per_step"`
	MaxEdgesPerStep int   `json:"max_edges_per_step"`
}

// State is one state of a session: what its journal's lines name. Every
// step writes a new State. Stored under the type name "session_state".
type State struct {
	// SessionID names the session (see ValidID).
	SessionID string `json:"session_id"`
	// Task is what the session is for, as `ctx stage start` was given it.
	Task string `json:"task"`
	// TaskNode is the narrative task the session works on, when Task
	// names one (by ID or exact title); empty otherwise.
	TaskNode string `json:"task_node,omitempty"`
	// Base is the canonical commit the session's steps build on: main's
	// head at the start, or the commit of the last compaction that let
	// the session go on.
	Base object.ID `json:"base"`
	// Head is the session's latest work_commit.
	Head object.ID `json:"head"`
	// CreatedAt is when the session started; SegmentAt when its steps
	// since Base began (the start, or the last compaction); UpdatedAt the
	// time of its latest state. Seconds since the Unix epoch.
	CreatedAt int64 `json:"created_at"`
	SegmentAt int64 `json:"segment_at"`
	UpdatedAt int64 `json:"updated_at"`
	// Mode says what the session is doing.
	Mode Mode `json:"mode"`
	// Budgets bound each step.
	Budgets Budgets `json:"budgets"`
	// Steps counts the steps since Base; Tokens estimates the size of
	// what they staged (new blob bytes / 4).
	Steps  int   `json:"steps"`
	Tokens int64 `json:"tokens"`
	// Reason is why the session was aborted (ModeAborted only).
	Reason string `json:"reason,omitempty"`
	// Target is the commit main is moved to by the compaction under way
	// (ModeCompacting only).
	Target *object.ID `json:"target,omitempty"`
	// Continue says the session goes on after the compaction under way
	// (ModeCompacting only).
	Continue bool `json:"continue,omitempty"`
}

var _ object.Validator = (*State)(nil)

// TypeName returns "session_state".
func (*State) TypeName() string { return "session_state" }

// Links returns the base commit, the head work commit and the target.
func (s *State) Links() []object.Link {
	ls := []object.Link{
		{Field: "base", ID: s.Base, Kind: object.KindTyped, Type: "commit"},
		{Field: "head", ID: s.Head, Kind: object.KindTyped, Type: "work_commit"},
	}
	if s.Target != nil {
		ls = append(ls, object.Link{Field: "target", ID: *s.Target, Kind: object.KindTyped, Type: "commit"})
	}
	return ls
}

// Validate checks the identifiers, the mode and the counters.
func (s *State) Validate() error {
	if err := ValidID(s.SessionID); err != nil {
		return fmt.Errorf("session_id: %w", err)
	}
	if !utf8.ValidString(s.Task) || !utf8.ValidString(s.TaskNode) || !utf8.ValidString(s.Reason) {
		return errors.New("task, task_node or reason is not UTF-8")
	}
	switch {
	case s.Base.IsZero():
		return errors.New("base is the zero id")
	case s.Head.IsZero():
		return errors.New("head is the zero id")
	case !s.Mode.Valid():
		return fmt.Errorf("mode %q is not running, compacting or aborted", s.Mode)
	case s.Steps < 0 || s.Tokens < 0:
		return errors.New("steps and tokens must not be negative")
	case s.Budgets.MaxFilesPerStep < 0 || s.Budgets.MaxBytesPerStep < 0 || s.Budgets.MaxEdgesPerStep < 0:
		return errors.New("budgets must not be negative")
	case (s.Target != nil) != (s.Mode == ModeCompacting):
		return errors.New("target is set exactly when the mode is compacting")
	case s.Continue && s.Mode != ModeCompacting:
		return errors.New("continue is set only when the mode is compacting")
	case s.Reason != "" && s.Mode != ModeAborted:
		return errors.New("reason is set only when the mode is aborted")
	}
	if s.Target != nil && s.Target.IsZero() {
		return errors.New("target is the zero id")
	}
	return nil
}

// Types returns the constructors of the package's typed objects, for a
// registry.
func Types() []func() object.Typed {
	return []func() object.Typed{func() object.Typed { return new(State) }}
}

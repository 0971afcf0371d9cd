package object

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// StepKind says what a work commit records.
type StepKind string

// The step kinds of a staging session. The zero value is invalid.
const (
	StepSessionStart StepKind = "session_start"
	StepFileRead     StepKind = "file_read"
	StepFileWrite    StepKind = "file_write"
	StepCommandRun   StepKind = "command_run"
	StepNote         StepKind = "note"
	StepPlan         StepKind = "plan"
	StepCompact      StepKind = "compact"
)

var stepKinds = []StepKind{StepSessionStart, StepFileRead, StepFileWrite, StepCommandRun, StepNote, StepPlan, StepCompact}

// Valid reports whether k is a defined step kind.
func (k StepKind) Valid() bool {
	for _, s := range stepKinds {
		if k == s {
			return true
		}
	}
	return false
}

// String returns the kind's name.
func (k StepKind) String() string { return string(k) }

// WorkCommit is one step of a staging session. Stored under the type name
// "work_commit".
type WorkCommit struct {
	// Parents are the previous work commits of the session (none for the
	// session's first step).
	Parents []ID `json:"parents"`
	// Base is the canonical commit the session branched from.
	Base ID `json:"base"`
	// SessionID names the session.
	SessionID string `json:"session_id"`
	// CreatedAt is the creation time in seconds since the Unix epoch.
	CreatedAt int64 `json:"created_at"`
	// StepKind says what the step records.
	StepKind StepKind `json:"step_kind"`
	// Payload lists the objects created in this step.
	Payload []ID `json:"payload"`
	// NarrativeRefs snapshot narrative files touched by the step.
	NarrativeRefs []NarrativeRef `json:"narrative_refs"`
}

// TypeName returns "work_commit".
func (*WorkCommit) TypeName() string { return "work_commit" }

// Links returns the parents, the base, the payload and narrative blobs.
func (w *WorkCommit) Links() []Link {
	ls := make([]Link, 0, len(w.Parents)+1+len(w.Payload)+len(w.NarrativeRefs))
	for i, p := range w.Parents {
		ls = append(ls, Link{Field: fmt.Sprintf("parents[%d]", i), ID: p, Kind: KindTyped, Type: "work_commit"})
	}
	ls = append(ls, Link{Field: "base", ID: w.Base, Kind: KindTyped, Type: "commit"})
	for i, p := range w.Payload {
		ls = append(ls, Link{Field: fmt.Sprintf("payload[%d]", i), ID: p})
	}
	for i, n := range w.NarrativeRefs {
		ls = append(ls, Link{Field: fmt.Sprintf("narrative_refs[%d].blob_id", i), ID: n.BlobID, Kind: KindBlob})
	}
	return ls
}

// Validate checks the step kind, the session id and the references.
func (w *WorkCommit) Validate() error {
	if !w.StepKind.Valid() {
		return fmt.Errorf("step_kind %q is not one of %v", w.StepKind, stepKinds)
	}
	if w.SessionID == "" {
		return errors.New("session_id is empty")
	}
	// The encoder writes any Go string as CBOR text, but the decoder
	// rejects text that is not UTF-8, so without this check Encode would
	// produce objects that cannot be read back.
	if !utf8.ValidString(w.SessionID) {
		return errors.New("session_id is not UTF-8")
	}
	if w.Base.IsZero() {
		return errors.New("base is the zero id")
	}
	if err := uniqueIDs("parents", w.Parents); err != nil {
		return err
	}
	if err := uniqueIDs("payload", w.Payload); err != nil {
		return err
	}
	for i := range w.NarrativeRefs {
		if err := w.NarrativeRefs[i].Validate(); err != nil {
			return fmt.Errorf("narrative_refs[%d]: %w", i, err)
		}
	}
	return nil
}

package diag

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/object"
)

// CommandRun records one run of a command (a build, a test, a linter):
// what ran, how it ended, the output worth keeping and what Parse found
// in it. Stored under the type name "command_run"; a staging session's
// command_run step lists it in its payload.
type CommandRun struct {
	// Name is the command as the user gave it: "go test ./...".
	Name string `json:"name"`
	// Argv is the argument vector, when the command was run without a
	// shell; optional.
	Argv []string `json:"argv,omitempty"`
	// ExitCode is the command's exit status.
	ExitCode int `json:"exit_code"`
	// StartedAt is the start time in seconds since the Unix epoch.
	StartedAt int64 `json:"started_at"`
	// DurationMS is how long the command ran, in milliseconds.
	DurationMS int64 `json:"duration_ms"`
	// Output is the blob of the output Keep kept; optional (a run with no
	// output has none).
	Output *object.ID `json:"output,omitempty"`
	// Truncated says Keep left lines of the output out.
	Truncated bool `json:"truncated,omitempty"`
	// Summary is the run in one line.
	Summary Summary `json:"summary"`
	// Diagnostics are what Parse found, in order of first appearance.
	Diagnostics []Diagnostic `json:"diagnostics"`
}

var _ object.Validator = (*CommandRun)(nil)

// TypeName returns "command_run".
func (*CommandRun) TypeName() string { return "command_run" }

// Links returns the output blob, if any.
func (r *CommandRun) Links() []object.Link {
	if r.Output == nil {
		return nil
	}
	return []object.Link{{Field: "output", ID: *r.Output, Kind: object.KindBlob}}
}

// Validate checks the name, the times, the output reference, the summary
// and every diagnostic.
func (r *CommandRun) Validate() error {
	switch {
	case r.Name == "":
		return errors.New("name is empty")
	case !utf8.ValidString(r.Name) || strings.ContainsAny(r.Name, "\n\r"):
		return errors.New("name is not one line of UTF-8")
	case r.DurationMS < 0:
		return fmt.Errorf("duration_ms %d is negative", r.DurationMS)
	case r.Output != nil && r.Output.IsZero():
		return errors.New("output is the zero id")
	case r.Truncated && r.Output == nil:
		return errors.New("truncated without output")
	}
	for i, a := range r.Argv {
		if !utf8.ValidString(a) {
			return fmt.Errorf("argv[%d] is not UTF-8", i)
		}
	}
	if err := r.Summary.Validate(); err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	for i := range r.Diagnostics {
		if err := r.Diagnostics[i].Validate(); err != nil {
			return fmt.Errorf("diagnostics[%d]: %w", i, err)
		}
	}
	return nil
}

// Types returns the constructors of the typed objects this package
// defines, for an object.Registry.
func Types() []func() object.Typed {
	return []func() object.Typed{
		func() object.Typed { return new(CommandRun) },
	}
}

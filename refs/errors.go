package refs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ctx-dev/ctx/object"
)

var (
	// ErrNotFound means the ref does not exist (it has no head).
	ErrNotFound = errors.New("refs: no such ref")
	// ErrChanged means a compare-and-swap update found the ref in another
	// state than the caller expected; see ChangedError.
	ErrChanged = errors.New("refs: ref changed")
	// ErrInvalidName means a string is not a valid ref name.
	ErrInvalidName = errors.New("refs: invalid ref name")
	// ErrCorrupt means a ref file does not hold what its name says.
	ErrCorrupt = errors.New("refs: corrupt ref file")
)

// ChangedError reports a failed compare-and-swap.
type ChangedError struct {
	Name     Name
	Expected string      // what the caller expected, in words
	Actual   []object.ID // the ref's heads now; empty if it does not exist
}

// Error describes the failure.
func (e *ChangedError) Error() string {
	now := "does not exist"
	if len(e.Actual) > 0 {
		hs := make([]string, len(e.Actual))
		for i, h := range e.Actual {
			hs[i] = h.String()
		}
		now = "is " + strings.Join(hs, ", ")
	}
	return fmt.Sprintf("%s: expected %s, but it %s", e.Name, e.Expected, now)
}

// Unwrap returns ErrChanged.
func (e *ChangedError) Unwrap() error { return ErrChanged }

package hook

import (
	"errors"

	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
)

var (
	// ErrInvalidInput means a hook's input or a command's arguments do not
	// make sense.
	ErrInvalidInput = errors.New("hook: invalid input")
	// ErrInvalidState means a file of a session's state does not decode.
	ErrInvalidState = errors.New("hook: invalid session state")
)

// IsCorrupt reports whether err says the store is damaged: the one case
// in which a hook fails instead of answering "{}" (hooks design §5,
// "Critical").
func IsCorrupt(err error) bool {
	return errors.Is(err, object.ErrHashMismatch) || errors.Is(err, object.ErrPackCorrupt) ||
		errors.Is(err, object.ErrInvalidEnvelope) || errors.Is(err, object.ErrDecode) ||
		errors.Is(err, refs.ErrCorrupt)
}

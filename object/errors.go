package object

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrNotFound means no object with the ID is in the store.
	ErrNotFound = errors.New("object: no such object")
	// ErrHashMismatch means the stored bytes do not hash to the object's ID:
	// the file is corrupt and its content is never returned.
	ErrHashMismatch = errors.New("object: content does not match id")
	// ErrInvalidEnvelope means the canonical bytes lack a valid header.
	ErrInvalidEnvelope = errors.New("object: invalid envelope")
	// ErrDecode means a typed payload is not a valid encoding of its type.
	ErrDecode = errors.New("object: cannot decode typed object")
	// ErrInvalidID means a string is not an object ID or ID prefix.
	ErrInvalidID = errors.New("object: invalid id")
	// ErrAmbiguous means an ID prefix matches more than one object.
	ErrAmbiguous = errors.New("object: ambiguous id prefix")
	// ErrInvalidArgument means a caller passed a value the store rejects.
	ErrInvalidArgument = errors.New("object: invalid argument")
	// ErrTooLarge means an object is too large to hold in memory; read it
	// with Store.Open instead.
	ErrTooLarge = errors.New("object: too large to read into memory")
)

// Error records a failed operation on one object, in the style of
// fs.PathError.
type Error struct {
	Op   string // "read", "write", "decode", …
	ID   ID
	Path string // the object's file, relative to the store's parent; may be empty
	Err  error
}

// Error describes the failure.
func (e *Error) Error() string {
	where := e.Path
	if where == "" {
		where = e.ID.String()
	}
	return e.Op + " " + where + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// AmbiguousError lists the objects an ambiguous prefix matches.
type AmbiguousError struct {
	Prefix     string
	Candidates []ID
}

// Error describes the failure.
func (e *AmbiguousError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "prefix %s matches %d objects:", e.Prefix, len(e.Candidates))
	for _, c := range e.Candidates {
		b.WriteString(" ")
		b.WriteString(c.String())
	}
	return b.String()
}

// Unwrap returns ErrAmbiguous.
func (e *AmbiguousError) Unwrap() error { return ErrAmbiguous }

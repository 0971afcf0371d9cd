package table

import (
	"errors"
	"fmt"
)

var (
	// ErrCorrupt means a table file or a postings list is damaged:
	// truncated, overwritten, or not a table at all. Tables are derived
	// data, so the remedy is to rebuild the file.
	ErrCorrupt = errors.New("table: corrupt")
	// ErrVersion means a table file was written in a format version this
	// reader does not know; like ErrCorrupt, the remedy is a rebuild.
	ErrVersion = errors.New("table: unsupported format version")
	// ErrOrder means Writer.Add was given a key that is not greater than the
	// previous one.
	ErrOrder = errors.New("table: keys out of order")
	// ErrInvalidArgument means a kind or a writer option is not valid.
	ErrInvalidArgument = errors.New("table: invalid argument")
	// ErrClosed means a Writer was used after Close.
	ErrClosed = errors.New("table: writer closed")
)

// corruptf returns an error wrapping ErrCorrupt that says what is wrong.
func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// Errors of the postings decoders, made once so that decoding never
// allocates, even when it fails; without fmt, which would cost every
// process that links this package its machinery at start-up.
var (
	errPostingVarint   error = corruption("postings: bad varint")
	errPostingOverflow error = corruption("postings: value overflows uint32")
	errPostingCount    error = corruption("postings: position count exceeds the list")
	errPostingSkip     error = corruption("postings: skip table entry out of order or past the list")
)

// corruption is a fixed corruptf error: "table: corrupt: " and what.
type corruption string

func (c corruption) Error() string { return ErrCorrupt.Error() + ": " + string(c) }
func (c corruption) Unwrap() error { return ErrCorrupt }

func fmtVersion(v int) error {
	return fmt.Errorf("%w %d (this reader knows %d to %d)", ErrVersion, v, ReadMinVersion, ReadMaxVersion)
}

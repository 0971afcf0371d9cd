package workset

import "errors"

var (
	// ErrNotFound is returned when a reference names no content object of
	// the session's index.
	ErrNotFound = errors.New("workset: no such object in the session")
	// ErrAmbiguous is returned when an ID prefix names several objects.
	ErrAmbiguous = errors.New("workset: ambiguous id")
	// ErrInvalid is returned for input that makes no sense: a relative
	// path, a bad session id, an unknown status, a bad mount.
	ErrInvalid = errors.New("workset: invalid argument")
	// ErrUnreadable is returned when a file's source cannot be read: it is
	// gone, not a regular file, too large, or on a file system this
	// process cannot see (a sandbox's own files).
	ErrUnreadable = errors.New("workset: source not readable")
	// ErrBudget is returned by Render when the budget cannot hold the
	// system prompt and the metadata pool.
	ErrBudget = errors.New("workset: budget too small")
	// ErrState is returned when a state file is damaged or of a version
	// this ctx does not know.
	ErrState = errors.New("workset: invalid state file")
)

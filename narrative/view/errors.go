package view

import "errors"

var (
	// ErrInvalidName means a string is not a valid view name.
	ErrInvalidName = errors.New("view: invalid view name")
	// ErrInvalid means a view has an invalid value: an empty or
	// malformed query, a negative budget, a description of several
	// lines, an unknown format.
	ErrInvalid = errors.New("view: invalid view")
	// ErrNotFound means no view has the name.
	ErrNotFound = errors.New("view: no such view")
	// ErrExists means a view of the name exists already.
	ErrExists = errors.New("view: view exists")
	// ErrBuiltin means an operation needs a view file that the built-in
	// default view does not have (deleting it).
	ErrBuiltin = errors.New("view: built-in view")
	// ErrInvalidFile means a view file cannot be read or does not
	// decode; see FileError.
	ErrInvalidFile = errors.New("view: invalid view file")
	// ErrBudget means a budget cannot hold even the rendering of no node
	// (its header and end marker).
	ErrBudget = errors.New("view: budget too small")
)

// FileError is a view file that cannot be read or decoded: what is wrong
// with it and where. It wraps ErrInvalidFile, and the cause if there is
// one.
type FileError struct {
	// Path is the file, as the Store names it.
	Path string
	// Msg says what is wrong.
	Msg string
	// Err is the cause from a lower layer, or nil.
	Err error
}

// Error reads "view file PATH: MSG".
func (e *FileError) Error() string { return "view file " + e.Path + ": " + e.Msg }

// Unwrap returns ErrInvalidFile and the cause.
func (e *FileError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrInvalidFile}
	}
	return []error{ErrInvalidFile, e.Err}
}

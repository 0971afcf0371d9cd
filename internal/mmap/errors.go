package mmap

import "errors"

var (
	// ErrNotRegular is MapFile's error for a path that is not a regular
	// file.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge is MapFile's error for a file that does not fit in
	// memory.
	ErrTooLarge = errors.New("file does not fit in memory")
)

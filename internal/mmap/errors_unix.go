//go:build unix

package mmap

import "errors"

// ErrShrank reports a file shorter than the size asked for (only where
// Map reads instead of mapping).
var ErrShrank = errors.New("mmap: file shrank while read")

//go:build !unix

// Package mmap maps files read-only into memory, so that a reader touches
// only the pages it needs: the index's tables, the object store's pack
// indexes.
package mmap

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrShrank reports a file shorter than the size asked for.
var ErrShrank = errors.New("mmap: file shrank while read")

// Map reads the first size bytes of f into memory, where the platform has
// no syscall.Mmap: lookups then cost a read of the whole file instead of a
// few page faults.
func Map(f *os.File, size int) (data []byte, unmap func() error, err error) {
	data = make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return nil, nil, fmt.Errorf("%w: %s: %v", ErrShrank, f.Name(), err)
		}
		return nil, nil, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	return data, func() error { return nil }, nil
}

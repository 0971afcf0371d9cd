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

// MapFile reads the whole of the regular file at path into memory.
func MapFile(path string) (data []byte, unmap func() error, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, &os.PathError{Op: "map", Path: path, Err: ErrNotRegular}
	}
	if st.Size() > int64(^uint(0)>>1) {
		return nil, nil, &os.PathError{Op: "map", Path: path, Err: ErrTooLarge}
	}
	return Map(f, int(st.Size()))
}

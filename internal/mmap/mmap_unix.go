//go:build unix

// Package mmap maps files read-only into memory, so that a reader touches
// only the pages it needs: the index's tables, the object store's pack
// indexes.
package mmap

import (
	"os"
	"syscall"
)

// Map maps the first size bytes of f read-only. The mapping outlives f's
// descriptor; unmap releases it.
func Map(f *os.File, size int) (data []byte, unmap func() error, err error) {
	if size == 0 {
		return []byte{}, func() error { return nil }, nil
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, &os.PathError{Op: "mmap", Path: f.Name(), Err: err}
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}

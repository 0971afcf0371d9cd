//go:build unix

package table

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only. The mapping outlives
// f's descriptor; unmap releases it.
func mapFile(f *os.File, size int) (data []byte, unmap func() error, err error) {
	data, err = syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, &os.PathError{Op: "mmap", Path: f.Name(), Err: err}
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}

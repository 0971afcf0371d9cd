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

// MapFile maps the whole of the regular file at path read-only, with no
// descriptor left open: four system calls, and none of an os.File's
// (making the descriptor non-blocking, registering it with the poller,
// restoring it), which a process that opens a dozen tables to answer one
// query feels.
func MapFile(path string) (data []byte, unmap func() error, err error) {
	var fd int
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0) // a FIFO does not block
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, nil, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, nil, &os.PathError{Op: "map", Path: path, Err: ErrNotRegular}
	}
	if int64(st.Size) > int64(^uint(0)>>1) {
		return nil, nil, &os.PathError{Op: "map", Path: path, Err: ErrTooLarge}
	}
	size := int(st.Size)
	if size == 0 {
		return []byte{}, func() error { return nil }, nil
	}
	data, err = syscall.Mmap(fd, 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, &os.PathError{Op: "mmap", Path: path, Err: err}
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}

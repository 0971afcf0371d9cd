//go:build !unix

package table

import (
	"fmt"
	"io"
	"os"
)

// mapFile reads the first size bytes of f into memory, where the platform
// has no syscall.Mmap: lookups then cost a read of the whole file at Open
// instead of a few page faults.
func mapFile(f *os.File, size int) (data []byte, unmap func() error, err error) {
	data = make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return nil, nil, corruptf("file shrank while read: %v", err)
		}
		return nil, nil, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	return data, func() error { return nil }, nil
}

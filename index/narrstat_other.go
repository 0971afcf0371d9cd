//go:build !linux

package index

import (
	"os"
	"path/filepath"
)

// statAt returns the size and modification time (Unix nanoseconds) of
// the entry name of the open directory dir, not following a symbolic
// link.
func statAt(dir *os.File, name string) (size, modNano int64, err error) {
	info, err := os.Lstat(filepath.Join(dir.Name(), name))
	if err != nil {
		return 0, 0, err
	}
	return info.Size(), info.ModTime().UnixNano(), nil
}

//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || solaris)

package index

import (
	"os"
	"path/filepath"
)

// statAt returns the size and modification time (Unix nanoseconds) of
// the entry name of the open directory dir, not following a symbolic
// link.
func statAt(dir *os.File, name string) (FileStat, error) {
	info, err := os.Lstat(filepath.Join(dir.Name(), name))
	if err != nil {
		return FileStat{}, err
	}
	return FileStat{Size: info.Size(), ModNano: info.ModTime().UnixNano()}, nil
}

//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || solaris)

package stamp

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// StatAt returns the stat data of the entry name of the open directory
// dir, not following a symbolic link: its size and modification time
// (this system's os.FileInfo has no change time or inode).
func StatAt(dir *os.File, name string) (Stat, error) {
	return Lstat(filepath.Join(dir.Name(), name))
}

// Lstat returns the stat data of path, not following a symbolic link;
// Absent when nothing is there.
func Lstat(path string) (Stat, error) {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Stat{Kind: Absent}, nil
	}
	if err != nil {
		return Stat{}, err
	}
	kind := byte(Other)
	switch {
	case info.Mode().IsRegular():
		kind = File
	case info.IsDir():
		kind = Dir
	}
	return Stat{Kind: kind, Size: info.Size(), ModNano: info.ModTime().UnixNano()}, nil
}

// readFile reads the regular file at path, of at most max bytes.
func readFile(path string, max int64) ([]byte, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() || info.Size() > max {
		return nil, &os.PathError{Op: "read", Path: path, Err: errNotSmallFile}
	}
	return os.ReadFile(path)
}

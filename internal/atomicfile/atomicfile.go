// Package atomicfile writes small files so that readers and crashes see
// either the old content or the new, never a mix or a truncated file.
//
// The protocol is the one every ctx write path follows: create a temporary
// file in the same directory, write it, fsync it, close it, rename it over
// the destination, and fsync the directory so that the rename itself is
// durable. Temporary files end in ".tmp", which .ctx/.gitignore excludes, so
// a crash between the steps never leaves anything git would pick up.
package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ctx-dev/ctx/internal/fault"
)

// Write replaces the file at path with data, atomically and durably.
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteFunc(path, perm, func(*os.File) ([]byte, error) { return data, nil })
}

// ErrSkip, returned by WriteFunc's content function, leaves the file at
// path as it was, and WriteFunc returns nil.
var ErrSkip = errors.New("atomicfile: skip")

// WriteFunc is Write of the content content returns, given the
// temporary file before anything is written to it: content may read the
// file system's time from it (the temporary file's modification time).
func WriteFunc(path string, perm os.FileMode, content func(tmp *os.File) ([]byte, error)) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	data, err := content(f)
	if errors.Is(err, ErrSkip) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("atomicfile: write %s: %w", tmp, err)
	}
	fault.Hit("atomicfile.written")
	if err := f.Sync(); err != nil {
		return fmt.Errorf("atomicfile: sync %s: %w", tmp, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("atomicfile: chmod %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("atomicfile: close %s: %w", tmp, err)
	}
	fault.Hit("atomicfile.synced")
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	ok = true
	fault.Hit("atomicfile.renamed")
	return SyncDir(dir)
}

// SyncDir fsyncs a directory so that entries created, renamed or removed in
// it survive a crash.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("atomicfile: sync dir: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("atomicfile: sync dir %s: %w", dir, err)
	}
	return nil
}

// MkdirAll creates dir and any missing parents, and fsyncs the parent of
// each directory it creates, so that a file later written durably inside
// cannot be lost with a directory entry that was never synced.
func MkdirAll(dir string) error {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	for _, d := range missing {
		if err := SyncDir(filepath.Dir(d)); err != nil {
			return err
		}
	}
	return nil
}

// Remove deletes path and fsyncs its directory. A missing file is not an
// error.
func Remove(path string) error {
	if err := os.Remove(path); err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return fmt.Errorf("atomicfile: %w", err)
	}
	fault.Hit("atomicfile.removed")
	return SyncDir(filepath.Dir(path))
}

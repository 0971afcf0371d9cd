// Package regfile opens and reads files that must be regular files, such
// as refs, HEAD, config.toml and object files, without ever blocking: a
// FIFO or device put where a store file belongs would otherwise hang the
// reader forever (an agent's hook must never hang).
package regfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrNotRegular means the path names a directory, FIFO, device or socket.
var ErrNotRegular = errors.New("regfile: not a regular file")

// ErrTooLarge means the file is larger than the caller's limit.
var ErrTooLarge = errors.New("regfile: file too large")

// Open opens path for reading if it is a regular file. It never blocks on
// a FIFO. Errors wrap fs.ErrNotExist for a missing file and ErrNotRegular
// for anything but a regular file.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil, err
	}
	return regular(f, path)
}

// OpenIn is Open of name inside root: os.Root's refusal of paths that
// leave it, and Open's of anything but a regular file.
func OpenIn(root *os.Root, name string) (*os.File, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil, err
	}
	return regular(f, name)
}

// regular returns f if it is a regular file, else closes it.
func regular(f *os.File, name string) (*os.File, error) {
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, fmt.Errorf("%s: %w (%s)", name, ErrNotRegular, st.Mode().Type())
	}
	return f, nil
}

// Read returns the content of the regular file at path, which must not be
// larger than max bytes (max < 0: no limit).
func Read(path string, max int64) ([]byte, error) { return read(path, max) }

// readFile is Read through an *os.File, for systems without read_unix.go.
func readFile(path string, max int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var r io.Reader = f
	if max >= 0 {
		if st.Size() > max {
			return nil, fmt.Errorf("%s: %w (%d bytes, limit %d)", path, ErrTooLarge, st.Size(), max)
		}
		r = io.LimitReader(f, max+1) // the file may grow while we read
	}
	var buf bytes.Buffer
	buf.Grow(int(st.Size()) + bytes.MinRead)
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, err
	}
	if max >= 0 && int64(buf.Len()) > max {
		return nil, fmt.Errorf("%s: %w (grew past %d bytes)", path, ErrTooLarge, max)
	}
	return buf.Bytes(), nil
}

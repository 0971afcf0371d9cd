//go:build unix

package regfile

import (
	"fmt"
	"io/fs"

	"golang.org/x/sys/unix"
)

// read is Read with raw system calls. Through an *os.File, each read of a
// small file (a ref, a narrative file) also tried to register the file
// with the network poller, switched its blocking mode back and forth, set
// a finalizer and stated it twice: as many system calls again, and on a
// narrative of 1,000 notes half the time of loading it.
func read(path string, max int64) ([]byte, error) {
	var fd int
	err := retry(func() (err error) {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := retry(func() error { return unix.Fstat(fd, &st) }); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if t := uint32(st.Mode) & unix.S_IFMT; t != unix.S_IFREG {
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, typeOf(t))
	}
	size := st.Size
	if max >= 0 && size > max {
		return nil, fmt.Errorf("%s: %w (%d bytes, limit %d)", path, ErrTooLarge, size, max)
	}
	// One byte more than the size, so that the usual read ends at the
	// end of the buffer's first pass with a read of 0 bytes.
	buf := make([]byte, 0, size+1)
	for {
		if len(buf) == cap(buf) {
			if max >= 0 && int64(len(buf)) > max {
				return nil, fmt.Errorf("%s: %w (grew past %d bytes)", path, ErrTooLarge, max)
			}
			buf = append(buf, 0)[:len(buf)] // the file grew while we read
		}
		var n int
		err := retry(func() (err error) {
			n, err = unix.Read(fd, buf[len(buf):cap(buf)])
			return err
		})
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			break
		}
		buf = buf[:len(buf)+n]
	}
	if max >= 0 && int64(len(buf)) > max {
		return nil, fmt.Errorf("%s: %w (grew past %d bytes)", path, ErrTooLarge, max)
	}
	return buf, nil
}

// retry calls f again while a signal interrupts it (the runtime's
// preemption signals interrupt system calls).
func retry(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}

// typeOf names a file type of st_mode as fs.FileMode prints it.
func typeOf(t uint32) fs.FileMode {
	switch t {
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}

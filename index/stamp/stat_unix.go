//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly || solaris

package stamp

import (
	"os"

	"golang.org/x/sys/unix"
)

// StatAt returns the stat data of the entry name of the open directory
// dir, not following a symbolic link: one system call, with no path to
// resolve.
func StatAt(dir *os.File, name string) (Stat, error) {
	var st unix.Stat_t
	var err error
	for {
		err = unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return Stat{}, &os.PathError{Op: "fstatat", Path: dir.Name() + "/" + name, Err: err}
	}
	return statOf(&st), nil
}

// Lstat returns the stat data of path, not following a symbolic link;
// Absent when nothing is there.
func Lstat(path string) (Stat, error) {
	var st unix.Stat_t
	var err error
	for {
		err = unix.Lstat(path, &st)
		if err != unix.EINTR {
			break
		}
	}
	if err == unix.ENOENT || err == unix.ENOTDIR {
		return Stat{Kind: Absent}, nil
	}
	if err != nil {
		return Stat{}, &os.PathError{Op: "lstat", Path: path, Err: err}
	}
	return statOf(&st), nil
}

func statOf(st *unix.Stat_t) Stat {
	kind := byte(Other)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		kind = File
	case unix.S_IFDIR:
		kind = Dir
	}
	mod, change := st.Mtim, st.Ctim
	return Stat{Kind: kind, Size: int64(st.Size), ModNano: mod.Nano(), ChangeNano: change.Nano(), Ino: uint64(st.Ino)}
}

// readFile reads the regular file at path, of at most max bytes, with
// raw system calls (see mmap.MapFile).
func readFile(path string, max int64) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0) // a FIFO does not block
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || int64(st.Size) > max {
		return nil, &os.PathError{Op: "read", Path: path, Err: errNotSmallFile}
	}
	data := make([]byte, st.Size)
	for n := 0; n < len(data); {
		k, err := unix.Read(fd, data[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if k == 0 {
			return nil, &os.PathError{Op: "read", Path: path, Err: errNotSmallFile}
		}
		n += k
	}
	return data, nil
}

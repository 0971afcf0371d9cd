//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly || solaris

package index

import (
	"os"

	"golang.org/x/sys/unix"
)

// statAt returns the size, modification and change times (Unix
// nanoseconds) and inode of the entry name of the open directory dir, not
// following a symbolic link: one system call, with no path to resolve.
func statAt(dir *os.File, name string) (FileStat, error) {
	var st unix.Stat_t
	var err error
	for {
		err = unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return FileStat{}, &os.PathError{Op: "fstatat", Path: dir.Name() + "/" + name, Err: err}
	}
	mod, change := st.Mtim, st.Ctim
	return FileStat{Size: int64(st.Size), ModNano: mod.Nano(), ChangeNano: change.Nano(), Ino: uint64(st.Ino)}, nil
}

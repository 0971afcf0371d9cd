package index

import (
	"os"

	"golang.org/x/sys/unix"
)

// statAt returns the size and modification time (Unix nanoseconds) of
// the entry name of the open directory dir, not following a symbolic
// link: one system call, with no path to resolve.
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
	return FileStat{
		Size: int64(st.Size), ModNano: int64(st.Mtim.Sec)*1e9 + int64(st.Mtim.Nsec),
		ChangeNano: int64(st.Ctim.Sec)*1e9 + int64(st.Ctim.Nsec), Ino: uint64(st.Ino),
	}, nil
}

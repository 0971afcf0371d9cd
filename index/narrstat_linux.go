package index

import (
	"os"

	"golang.org/x/sys/unix"
)

// statAt returns the size and modification time (Unix nanoseconds) of
// the entry name of the open directory dir, not following a symbolic
// link: one system call, with no path to resolve.
func statAt(dir *os.File, name string) (size, modNano int64, err error) {
	var st unix.Stat_t
	for {
		err = unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return 0, 0, &os.PathError{Op: "fstatat", Path: dir.Name() + "/" + name, Err: err}
	}
	return int64(st.Size), int64(st.Mtim.Sec)*1e9 + int64(st.Mtim.Nsec), nil
}

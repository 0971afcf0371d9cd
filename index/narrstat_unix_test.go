//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly || solaris

package index

import "golang.org/x/sys/unix"

// statExtra sets what narrativeStats records beyond the size and the
// modification time of the file at path: here, the change time and the
// inode.
func statExtra(path string, st *FileStat) {
	var s unix.Stat_t
	if unix.Lstat(path, &s) == nil {
		change := s.Ctim
		st.ChangeNano, st.Ino = change.Nano(), uint64(s.Ino)
	}
}

//go:build linux || dragonfly || openbsd || solaris || darwin || netbsd || freebsd

package repo

import (
	"io/fs"
	"syscall"
)

// changeAndInode returns a file's change time (Unix nanoseconds) and
// inode from its stat data.
func changeAndInode(info fs.FileInfo) (int64, uint64) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	ct := changeTime(st)
	sec, nsec := ct.Unix()
	return sec*1e9 + nsec, uint64(st.Ino)
}

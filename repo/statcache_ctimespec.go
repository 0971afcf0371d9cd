//go:build darwin || netbsd || (freebsd && !386)

package repo

import (
	"io/fs"
	"syscall"
)

// changeAndInode returns a file's change time (Unix nanoseconds) and
// inode, where its stat data hold them as this system names them.
func changeAndInode(info fs.FileInfo) (int64, uint64) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	sec, nsec := st.Ctimespec.Unix()
	return sec*1e9 + nsec, uint64(st.Ino)
}

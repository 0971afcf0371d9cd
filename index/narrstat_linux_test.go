package index

import (
	"io/fs"
	"syscall"
)

// statExtra sets what narrativeStats records beyond the size and the
// modification time: on Linux, the change time and the inode.
func statExtra(info fs.FileInfo, st *FileStat) {
	if sys, ok := info.Sys().(*syscall.Stat_t); ok {
		st.ChangeNano, st.Ino = int64(sys.Ctim.Sec)*1e9+int64(sys.Ctim.Nsec), uint64(sys.Ino)
	}
}

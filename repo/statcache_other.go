//go:build !(linux || dragonfly || openbsd || solaris || darwin || netbsd || freebsd)

package repo

import "io/fs"

// changeAndInode returns 0, 0: this system's stat data hold no change time
// and inode that ctx reads. The cache then trusts size and modification
// time alone, with the racy window (statCache.lookup).
func changeAndInode(fs.FileInfo) (int64, uint64) { return 0, 0 }

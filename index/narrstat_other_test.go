//go:build !linux

package index

import "io/fs"

// statExtra sets nothing: narrativeStats records change times and inodes
// on Linux only.
func statExtra(fs.FileInfo, *FileStat) {}

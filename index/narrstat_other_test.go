//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || solaris)

package index

// statExtra sets nothing: narrativeStats records change times and inodes
// on Unix systems only.
func statExtra(string, *FileStat) {}

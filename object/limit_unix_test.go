//go:build unix

package object

import (
	"syscall"
	"testing"
)

// limitFiles lowers the process's limit of open files to n (so that the
// descriptor n and those above it cannot be opened) and returns what
// restores it; it skips the test where the limit cannot be set.
func limitFiles(t *testing.T, n uintptr) (restore func()) {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	low := lim
	setCur(&low.Cur, n)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skip(err)
	}
	return func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			t.Fatal(err)
		}
	}
}

// setCur sets a limit, whose type differs between systems.
func setCur[T ~int64 | ~uint64](cur *T, n uintptr) { *cur = T(n) }

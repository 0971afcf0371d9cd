package prefault

import (
	"runtime"
	"syscall"
	"testing"
)

func minorFaults(t *testing.T) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Skipf("getrusage: %v", err)
	}
	return int64(ru.Minflt) // int32 on 32-bit systems
}

// readThenWrite reads each page of s, then writes it: what a hash table's
// probes and a nil check do to fresh memory.
func readThenWrite(s []uint64) {
	var sum uint64
	step := pageSize / 8
	for i := 0; i < len(s); i += step {
		sum += s[i]
	}
	for i := 0; i < len(s); i += step {
		s[i] = sum + 1
	}
}

// TestFaultsOnce checks the point of the package on Linux: fresh memory
// read and then written faults twice a page, and once when Make wrote it
// first.
func TestFaultsOnce(t *testing.T) {
	const pages = 4096 // 16 MiB: more than the heap keeps around
	n := pages * pageSize / 8
	runtime.GC()
	count := func(mk func() []uint64) int64 {
		before := minorFaults(t)
		readThenWrite(mk())
		return minorFaults(t) - before
	}
	plain := count(func() []uint64 { return make([]uint64, n) })
	written := count(func() []uint64 { return Make[uint64](n) })
	t.Logf("faults for %d pages read, then written: make %d, Make %d", pages, plain, written)
	if plain < pages/2 {
		t.Skipf("this system backed fresh memory without faulting it in (%d faults for %d pages): nothing to compare", plain, pages)
	}
	if written > plain*3/4 {
		t.Errorf("Make: %d faults for %d pages, make: %d; want well under make's", written, pages, plain)
	}
}

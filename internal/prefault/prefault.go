// Package prefault writes fresh memory before it is first read.
//
// The kernel backs a page of fresh anonymous memory that is first read
// with the shared zero page, mapped read-only; the first write to it then
// faults again, copies, and must flush the old mapping from the TLB of
// every core the process runs on: an inter-processor interrupt each,
// which in a virtual machine is an exit to the hypervisor. A page first
// written faults once. Go reads before it writes more often than the code
// shows: a hash table probed before a slot is filled, and the nil check
// the compiler emits as a load when a pointer to a slice element is
// passed on. On a rebuild of the index of Go's source tree that was
// 27,000 pages read and then written, an eighth of the process's CPU
// time (docs/benchmarks.md, eleventh round).
package prefault

import (
	"os"
	"unsafe"
)

var pageSize = os.Getpagesize()

// Slice writes a zero byte into each page of s's memory, so that a page
// not yet backed faults in for writing. s must be zeroed memory (a new
// slice): what is written is the value already there. A page the process
// has written before costs a store.
func Slice[T any](s []T) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if len(s) == 0 || size == 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*size)
	for i := 0; i < len(b); i += pageSize {
		b[i] = 0
	}
	b[len(b)-1] = 0
}

// Make returns make([]T, n), each of its pages written once.
func Make[T any](n int) []T {
	s := make([]T, n)
	Slice(s)
	return s
}

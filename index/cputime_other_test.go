//go:build !unix

package index

import "time"

// cpuTime returns 0: the CPU time is not read on this system, and the
// benchmarks' cpu-ns/op are then 0.
func cpuTime() time.Duration { return 0 }

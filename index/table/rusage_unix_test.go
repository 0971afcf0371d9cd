//go:build unix

package table

import "syscall"

// minorFaults returns the page faults of this process served without I/O.
func minorFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return int64(ru.Minflt)
}

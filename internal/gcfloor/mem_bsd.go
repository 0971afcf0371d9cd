//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package gcfloor

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// memory returns the machine's memory, by sysctl.
func memory() uint64 {
	name := "hw.physmem"
	switch runtime.GOOS {
	case "darwin":
		name = "hw.memsize"
	case "netbsd", "openbsd":
		name = "hw.physmem64"
	}
	n, err := unix.SysctlUint64(name)
	if err != nil {
		return 0
	}
	return n
}

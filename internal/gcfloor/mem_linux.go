package gcfloor

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// memory returns the machine's memory, or the control group's limit
// (cgroup v2 memory.max, v1 memory.limit_in_bytes) when lower.
func memory() uint64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return 0
	}
	mem := uint64(si.Totalram) * uint64(si.Unit)
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if b, err := os.ReadFile(f); err == nil {
			if n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && n < mem {
				mem = n
			}
		}
	}
	return mem
}

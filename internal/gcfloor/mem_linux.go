package gcfloor

import (
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// memory returns the machine's memory, or the lowest limit of the
// process's control group and its ancestors when lower.
func memory() uint64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return 0
	}
	self, _ := os.ReadFile("/proc/self/cgroup")
	return cgroupLimit(uint64(si.Totalram)*uint64(si.Unit), string(self), "/sys/fs/cgroup", readLimit)
}

// readLimit reads a cgroup limit file: a number of bytes, or 0 for none
// ("max", missing, unreadable).
func readLimit(file string) uint64 {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// cgroupLimit returns mem, or the lowest memory limit of the control
// groups that /proc/self/cgroup (self) names and their ancestors, under
// the cgroup file system mounted at root, when lower. A cgroup v2 group
// is the "0::" line (limit file memory.max); a v1 group the line of the
// memory controller (memory/…/memory.limit_in_bytes, whose "unlimited"
// is a number larger than any machine's memory).
func cgroupLimit(mem uint64, self, root string, read func(string) uint64) uint64 {
	lower := func(dir, file string) {
		for {
			if n := read(path.Join(dir, file)); n > 0 && n < mem {
				mem = n
			}
			if dir == root || !strings.HasPrefix(dir, root+"/") {
				return
			}
			dir = path.Dir(dir)
		}
	}
	for _, line := range strings.Split(self, "\n") {
		id, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		controllers, group, ok := strings.Cut(rest, ":")
		if !ok || !strings.HasPrefix(group, "/") {
			continue
		}
		switch {
		case id == "0" && controllers == "":
			// v2: the unified hierarchy, at root or, beside v1, at root/unified.
			lower(path.Join(root, group), "memory.max")
			lower(path.Join(root, "unified", group), "memory.max")
		case slices.Contains(strings.Split(controllers, ","), "memory"):
			lower(path.Join(root, "memory", group), "memory.limit_in_bytes")
		}
	}
	return mem
}

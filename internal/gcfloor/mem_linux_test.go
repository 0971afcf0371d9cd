package gcfloor

import "testing"

func TestCgroupLimit(t *testing.T) {
	const gib = 1 << 30
	for _, tc := range []struct {
		name  string
		self  string
		files map[string]uint64
		want  uint64
	}{
		{"no cgroup", "", nil, 16 * gib},
		{"v2 root, no limit", "0::/\n", nil, 16 * gib},
		{"v2 own group", "0::/user.slice/app.scope\n",
			map[string]uint64{"/sys/fs/cgroup/user.slice/app.scope/memory.max": 2 * gib}, 2 * gib},
		{"v2 parent's limit is lower", "0::/user.slice/app.scope\n",
			map[string]uint64{"/sys/fs/cgroup/user.slice/app.scope/memory.max": 4 * gib, "/sys/fs/cgroup/user.slice/memory.max": gib}, gib},
		{"v2 limit above the machine's memory", "0::/big\n",
			map[string]uint64{"/sys/fs/cgroup/big/memory.max": 64 * gib}, 16 * gib},
		{"v2 beside v1 (unified)", "4:memory:/a\n0::/b\n",
			map[string]uint64{"/sys/fs/cgroup/unified/b/memory.max": 3 * gib}, 3 * gib},
		{"v1 memory controller", "5:cpu,cpuacct:/x\n4:memory:/process_api/abc\n0::/\n",
			map[string]uint64{"/sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes": gib / 2}, gib / 2},
		{"v1 unlimited", "4:memory:/docker/abc\n",
			map[string]uint64{"/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": 9223372036854771712}, 16 * gib},
		{"v1 other controllers only", "5:cpu:/x\n",
			map[string]uint64{"/sys/fs/cgroup/memory/x/memory.limit_in_bytes": gib}, 16 * gib},
		{"garbage lines", "junk\n1:memory\n2:memory:relative\n", map[string]uint64{"/sys/fs/cgroup/memory/memory.limit_in_bytes": gib}, 16 * gib},
		{"a path that climbs out", "0::/../../etc\n", map[string]uint64{"/etc/memory.max": gib}, 16 * gib},
	} {
		read := func(f string) uint64 { return tc.files[f] }
		if got := cgroupLimit(16*gib, tc.self, "/sys/fs/cgroup", read); got != tc.want {
			t.Errorf("%s: cgroupLimit = %d MiB, want %d MiB", tc.name, got>>20, tc.want>>20)
		}
	}
}

//go:build faultinject

package fault

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// Enabled reports whether this binary was built with crash injection.
const Enabled = true

var (
	point string // "" when CTX_FAULT is unset or invalid
	at    int64
	seen  atomic.Int64
)

func init() {
	spec := os.Getenv("CTX_FAULT")
	i := strings.LastIndexByte(spec, ':')
	if i <= 0 {
		return
	}
	n, err := strconv.ParseInt(spec[i+1:], 10, 64)
	if err != nil || n <= 0 {
		return
	}
	point, at = spec[:i], n
}

// Hit marks a crash-injection point: the process kills itself when this is
// the n-th matching point selected by CTX_FAULT.
func Hit(name string) {
	if point == "" || (point != "*" && point != name) {
		return
	}
	if seen.Add(1) == at {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		os.Exit(137) // not reached: SIGKILL to oneself is delivered at once
	}
}

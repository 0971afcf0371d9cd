// Command ctx is the command-line interface of the ctx store: plumbing
// commands over objects and refs, and porcelain built on them. See
// docs/CLI.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"

	"github.com/ctx-dev/ctx/internal/gcfloor"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	interruptible := func() { once.Do(func() { watchSignals(cancel) }) }
	stopProfile := cpuProfile(os.Getenv("CTX_CPUPROFILE"))
	serving := func() {}
	if gcFloor(os.Getenv) {
		serving = gcfloor.SetFor(gcfloor.Memory)
	}
	code := Main(ctx, os.Args[1:], Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Interruptible: interruptible, Serving: serving})
	stopProfile()
	os.Exit(code)
}

// gcFloor reports whether a ctx process puts a floor under the garbage
// collector's heap goal (gcfloor.SetFor the memory it may use): not when
// GOGC or GOMEMLIMIT is set, as the user's settings win. With it a
// rebuild of the index of Go's source tree collects twice instead of 23
// times, and a query not at all instead of ten times (docs/benchmarks.md,
// eighth round).
func gcFloor(getenv func(string) string) bool {
	return getenv("GOGC") == "" && getenv("GOMEMLIMIT") == ""
}

// watchSignals makes SIGINT and SIGTERM ask the command to stop (cancel
// its context). A second signal kills at once, and a command that has
// not stopped in two seconds is ended anyway: every write is crash-safe.
//
// Only commands that write, build or run something call it (through
// Env.Interruptible): the watch costs a goroutine and a thread, a quarter
// of a millisecond, and a command that only reads can die at once.
func watchSignals(cancel context.CancelFunc) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ch
		signal.Stop(ch)
		cancel()
		time.AfterFunc(2*time.Second, func() { os.Exit(130) })
	}()
}

// cpuProfile writes a CPU profile of the run to path when it is set (for
// `go tool pprof`; see bench/ingest/run.sh). Undocumented on purpose.
func cpuProfile(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil || pprof.StartCPUProfile(f) != nil {
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

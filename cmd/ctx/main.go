// Command ctx is the command-line interface of the ctx store: plumbing
// commands over objects and refs, and porcelain built on them. See
// docs/CLI.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// On SIGINT or SIGTERM the command is asked to stop. A second
		// signal kills at once, and a command that has not stopped in two
		// seconds is ended anyway: every write is crash-safe.
		<-ctx.Done()
		stop()
		time.AfterFunc(2*time.Second, func() { os.Exit(130) })
	}()
	stopProfile := cpuProfile(os.Getenv("CTX_CPUPROFILE"))
	code := Main(ctx, os.Args[1:], Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv})
	stopProfile()
	os.Exit(code)
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

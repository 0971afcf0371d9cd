package main

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
)

// BenchmarkMainSearch runs a whole `ctx search` in this process, argument
// parsing to output, on the store named by CTX_BENCH_STORE (a project
// directory with an up-to-date index; bench/index/run.sh keeps one with
// BENCH_KEEP=1). It is the part of a new process's time that is ctx's own:
// start-up (the runtime, package initialisers) is not in it.
func BenchmarkMainSearch(b *testing.B) {
	dir := os.Getenv("CTX_BENCH_STORE")
	if dir == "" {
		b.Skip("CTX_BENCH_STORE is not set")
	}
	for _, q := range []string{"dnsReadConfig", `"deadline exceeded"`, "error"} {
		b.Run(strings.Trim(q, `"`), func(b *testing.B) {
			args := []string{"--dir", dir, "search", "-n", "10", q}
			env := Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}
			for b.Loop() {
				if code := Main(context.Background(), args, env); code != 0 {
					b.Fatalf("ctx search %s: exit %d", q, code)
				}
			}
		})
	}
}

package pack

import (
	"context"
	"os"
	"testing"

	"github.com/ctx-dev/ctx/index"
	"github.com/ctx-dev/ctx/repo"
)

// BenchmarkBuild builds a pack on the store named by CTX_BENCH_STORE (a
// project directory with a fresh index, such as bench/index/run.sh keeps
// with BENCH_KEEP=1); skipped without it.
func BenchmarkBuild(b *testing.B) {
	dir := os.Getenv("CTX_BENCH_STORE")
	if dir == "" {
		b.Skip("CTX_BENCH_STORE is not set")
	}
	root, err := repo.Locate(dir, true)
	if err != nil {
		b.Fatal(err)
	}
	r, err := repo.Open(root, repo.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	ix, _, err := index.Open(ctx, r, index.BuildOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	gx, err := index.OpenGraph(ctx, r)
	if err != nil {
		b.Fatal(err)
	}
	defer gx.Close()
	target, err := r.Refs.Target()
	if err != nil {
		b.Fatal(err)
	}
	heads, err := r.Heads(target)
	if err != nil {
		b.Fatal(err)
	}
	src := Source{Repo: r, Index: ix, Graph: gx, Head: heads[0]}
	for _, q := range []string{
		"How does the HTTP client retry a request when the connection is reset?",
		"dnsReadConfig",
	} {
		b.Run(q[:min(len(q), 20)], func(b *testing.B) {
			for b.Loop() {
				if _, err := Build(ctx, src, q, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package index

import (
	"context"
	"os"
	"testing"

	"github.com/ctx-dev/ctx/repo"
)

// The benchmarks run on the store named by CTX_BENCH_STORE (a project
// directory with a fresh index, such as the one bench/index/run.sh keeps
// with BENCH_KEEP=1), and are skipped without it.
func benchStore(b *testing.B) *repo.Repo {
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
	return r
}

var benchQueries = []string{"dnsReadConfig", "error", "connection timeout", `"deadline exceeded"`}

// BenchmarkSearch is a search in an open index.
func BenchmarkSearch(b *testing.B) {
	r := benchStore(b)
	ix, _, err := Open(context.Background(), r, BuildOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	for _, q := range benchQueries {
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := ix.Search(q, SearchOptions{Limit: 10}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOpenSearch is what `ctx search` does after start-up: open the
// store and the index, check freshness, search, close.
func BenchmarkOpenSearch(b *testing.B) {
	r := benchStore(b)
	for _, q := range benchQueries {
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				r2, err := repo.Open(r.Root, repo.Options{})
				if err != nil {
					b.Fatal(err)
				}
				ix, _, err := Open(context.Background(), r2, BuildOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := ix.Search(q, SearchOptions{Limit: 10}); err != nil {
					b.Fatal(err)
				}
				ix.Close()
			}
		})
	}
}

package index

import (
	"context"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

// BenchmarkCodeGraph builds and writes the code graph segment of the
// store named by CTX_BENCH_STORE, as a rebuild does when it builds the
// code's text too: the file versions are decoded once beforehand and
// shared, so what is measured is the graph's own work (deriving the
// edges, numbering, sorting, writing). Run it with -benchmem and
// -memprofile for its allocations.
func BenchmarkCodeGraph(b *testing.B) {
	r := benchStore(b)
	ctx := context.Background()
	m, err := CurrentManifest(r)
	if err != nil {
		b.Fatal(err)
	}
	vs := newVersions(r, true)
	if err := vs.prefetch(ctx, m.Heads); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		adj, err := collectCodeGraph(ctx, r, m.Heads, vs)
		if err != nil {
			b.Fatal(err)
		}
		pm := &Manifest{Tokenizer: m.Tokenizer, Ref: m.Ref, Heads: m.Heads, CodeGraph: m.CodeGraph, Nodes: uint32(len(adj.nodes))}
		if _, err := writeGraphSegment(filepath.Join(dir, strconv.Itoa(i)), adj, pm); err != nil {
			b.Fatal(err)
		}
		i++
		b.ReportMetric(float64(len(adj.nodes)), "nodes")
		b.ReportMetric(float64(len(adj.out[0])+len(adj.out[1])+len(adj.out[2])), "edges")
	}
	b.StopTimer()
	runtime.KeepAlive(vs)
}

package repo

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/object"
)

// BenchmarkGraphFromStore measures what every graph command pays before
// an index exists (#6): reading a history's edge batches from the store
// and building the graph. The history has 100 commits of 1,000 edges
// (100,000 edges over 20,000 file and item nodes), 1% of them unlinked
// again. It reports time, allocation and edges per second.
func BenchmarkGraphFromStore(b *testing.B) {
	r := NewTestRepo(b)
	w, err := r.Lock(context.Background(), LockOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Unlock()
	const commits, perBatch, nodes = 100, 1000, 20_000
	node := func(i int) graph.NodeID {
		if i%2 == 0 {
			return graph.FileNode("test", fmt.Sprintf("src/pkg%d/file%d.go", i%97, i))
		}
		return graph.ItemNode("test", fmt.Sprintf("pkg%d.Func%d", i%97, i))
	}
	ev := graph.Evidence{Tool: graph.ToolParser, Confidence: graph.High}
	for c := 0; c < commits; c++ {
		batch := &graph.EdgeBatch{CreatedAt: 1}
		for k := 0; k < perBatch; k++ {
			x := c*perBatch + k
			batch.Edges = append(batch.Edges, graph.Edge{From: node(x % nodes), To: node((x*7919 + 13) % nodes), Label: graph.Calls, Evidence: ev})
		}
		if c > 0 {
			for k := 0; k < perBatch/100; k++ {
				x := (c-1)*perBatch + k
				batch.Tombstones = append(batch.Tombstones, graph.Tombstone{From: node(x % nodes), To: node((x*7919 + 13) % nodes), Label: graph.Calls, Evidence: ev})
			}
		}
		if _, err := w.Commit(context.Background(), CommitOptions{Message: "batch", NoNarrative: true, EdgeBatches: []*graph.EdgeBatch{batch}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		g, err := r.Graph(context.Background(), GraphOptions{NoNarrative: true})
		if err != nil {
			b.Fatal(err)
		}
		elapsed := time.Since(start)
		runtime.ReadMemStats(&after)
		if g.Removed == 0 || g.EdgeCount() == 0 {
			b.Fatalf("graph: %d edges, %d removed", g.EdgeCount(), g.Removed)
		}
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), "MB-alloc/op")
		b.ReportMetric(float64(commits*perBatch)/elapsed.Seconds(), "edges/s")
	}
	_ = object.Zero
}

package graph

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkSCCVsTsort compares building a graph and ordering it
// topologically (New + SCC, whose Topo is a topological order of the
// components) with coreutils tsort(1) on the same acyclic graph of a
// million edges over 200,000 nodes, in the same process run. tsort reads
// the edges as text; the ctx side starts from decoded edges, as it does
// after reading edge batches. It reports both times and their ratio
// (ctx/tsort; lower is better). Skipped where tsort is missing.
func BenchmarkSCCVsTsort(b *testing.B) {
	tsort, err := exec.LookPath("tsort")
	if err != nil {
		b.Skip("tsort not found")
	}
	const n, m = 200_000, 1_000_000
	r := rand.New(rand.NewPCG(5, 6))
	nodes := make([]NodeID, n)
	for i := range nodes {
		nodes[i] = ItemNode("t", fmt.Sprint(i))
	}
	edges := make([]Edge, m)
	path := filepath.Join(b.TempDir(), "edges.txt")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range edges {
		a := r.IntN(n - 1)
		c := a + 1 + r.IntN(n-1-a)
		edges[i] = Edge{From: nodes[a], To: nodes[c], Label: Calls, Evidence: Evidence{Tool: ToolParser, Confidence: High}}
		fmt.Fprintf(w, "n%d n%d\n", a, c)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	var ours, theirs []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run := func() {
			start := time.Now()
			g := New(edges)
			c := g.SCC(nil)
			ours = append(ours, time.Since(start))
			if len(c.Topo) != g.Len() {
				b.Fatalf("an acyclic graph of %d nodes has %d components", g.Len(), len(c.Topo))
			}
		}
		peer := func() {
			start := time.Now()
			out, err := exec.Command(tsort, path).Output()
			theirs = append(theirs, time.Since(start))
			if err != nil || len(out) == 0 {
				b.Fatalf("tsort: %v", err)
			}
		}
		if i%2 == 0 { // alternate who goes first
			run()
			peer()
		} else {
			peer()
			run()
		}
	}
	med := func(d []time.Duration) time.Duration {
		s := slices.Clone(d)
		slices.Sort(s)
		return s[len(s)/2]
	}
	b.ReportMetric(med(ours).Seconds(), "ctx-s")
	b.ReportMetric(med(theirs).Seconds(), "tsort-s")
	b.ReportMetric(med(ours).Seconds()/med(theirs).Seconds(), "ratio")
}

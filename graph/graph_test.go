package graph

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/object"
)

// randomGraph makes n nodes and m random edges with random labels.
func randomGraph(r *rand.Rand, n, m int) []Edge {
	nodes := make([]NodeID, n)
	for i := range nodes {
		nodes[i] = ItemNode("t", fmt.Sprint(i))
	}
	edges := make([]Edge, m)
	labels := []Label{Calls, Imports, DependsOn}
	for i := range edges {
		edges[i] = Edge{From: nodes[r.IntN(n)], To: nodes[r.IntN(n)], Label: labels[r.IntN(len(labels))],
			Evidence: Evidence{Tool: ToolParser, Confidence: High}}
	}
	return edges
}

// reach computes reachability by brute force: reach[a][b] when a path
// from a to b (of length ≥ 0) uses only edges with the labels.
func reach(g *Graph, labels []Label) [][]bool {
	n := g.Len()
	r := make([][]bool, n)
	for a := range r {
		r[a] = make([]bool, n)
		r[a][a] = true
		stack := []int32{int32(a)}
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, e := range g.Out(v) {
				if len(labels) > 0 && !slices.Contains(labels, g.Edge(e).Label) {
					continue
				}
				_, w := g.Ends(e)
				if !r[a][w] {
					r[a][w] = true
					stack = append(stack, w)
				}
			}
		}
	}
	return r
}

func TestSCCProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := 1 + r.IntN(30)
		m := r.IntN(3 * n)
		g := New(randomGraph(r, n, m))
		var labels []Label
		if trial%3 == 0 {
			labels = []Label{Calls}
		}
		c := g.SCC(labels)
		rc := reach(g, labels)
		for a := 0; a < g.Len(); a++ {
			for b := 0; b < g.Len(); b++ {
				same := rc[a][b] && rc[b][a]
				if same != (c.Comp[a] == c.Comp[b]) {
					t.Fatalf("trial %d: nodes %d and %d: mutually reachable %v, same component %v", trial, a, b, same, c.Comp[a] == c.Comp[b])
				}
			}
		}
		// The condensation is acyclic and Topo orders it.
		pos := make([]int, len(c.Topo))
		for i, x := range c.Topo {
			pos[x] = i
		}
		for _, d := range c.DAG {
			if d[0] == d[1] || pos[d[0]] >= pos[d[1]] {
				t.Fatalf("trial %d: DAG edge %v against the topological order", trial, d)
			}
		}
		if len(c.Topo) != len(c.Members) {
			t.Fatalf("trial %d: %d components, %d in Topo", trial, len(c.Members), len(c.Topo))
		}
		for comp := range c.Members {
			cyc := len(c.Members[comp]) > 1
			if len(c.Members[comp]) == 1 {
				v := c.Members[comp][0]
				for _, e := range g.Out(v) {
					if _, w := g.Ends(e); w == v && (len(labels) == 0 || slices.Contains(labels, g.Edge(e).Label)) {
						cyc = true
					}
				}
			}
			if cyc != c.Cyclic(int32(comp)) {
				t.Fatalf("trial %d: component %d cyclic %v, want %v", trial, comp, c.Cyclic(int32(comp)), cyc)
			}
		}
	}
}

func TestSCCLongPath(t *testing.T) {
	// A path of a million nodes closed into a cycle: recursion would need
	// a million frames.
	const n = 1_000_000
	edges := make([]Edge, n)
	nodes := make([]NodeID, n)
	for i := range nodes {
		nodes[i] = NodeID{Kind: NodeItem, ID: object.Sum(object.KindBlob, []byte(fmt.Sprint(i)))}
	}
	for i := range edges {
		edges[i] = Edge{From: nodes[i], To: nodes[(i+1)%n], Label: Calls, Evidence: Evidence{Tool: ToolParser, Confidence: High}}
	}
	c := New(edges).SCC(nil)
	if len(c.Members) != 1 || len(c.Members[0]) != n {
		t.Fatalf("%d components", len(c.Members))
	}
}

func TestWalk(t *testing.T) {
	// a -calls-> b -calls-> c -imports-> d ; e -calls-> a
	n := map[string]NodeID{}
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		n[k] = ItemNode("t", k)
	}
	ev := Evidence{Tool: ToolHuman, Confidence: High}
	g := New([]Edge{
		{From: n["a"], To: n["b"], Label: Calls, Evidence: ev},
		{From: n["b"], To: n["c"], Label: Calls, Evidence: ev},
		{From: n["c"], To: n["d"], Label: Imports, Evidence: ev},
		{From: n["e"], To: n["a"], Label: Calls, Evidence: ev},
		{From: n["a"], To: n["b"], Label: Calls, Evidence: Evidence{Tool: ToolLLM, Confidence: Low}}, // a duplicate
	})
	if g.EdgeCount() != 4 {
		t.Fatalf("%d edges, want 4 (the duplicate is one edge)", g.EdgeCount())
	}
	a, _ := g.Lookup(n["a"].ID)
	keys := func(steps []Step) []string {
		var out []string
		for _, s := range steps {
			out = append(out, fmt.Sprintf("%s@%d", g.Node(s.Node).Key, s.Depth))
		}
		return out
	}
	tests := []struct {
		dir    Direction
		depth  int
		labels []Label
		want   []string
	}{
		{Out, 0, nil, []string{"b@1", "c@2", "d@3"}},
		{Out, 2, nil, []string{"b@1", "c@2"}},
		{Out, 0, []Label{Calls}, []string{"b@1", "c@2"}},
		{In, 0, nil, []string{"e@1"}},
		{Both, 1, nil, []string{"b@1", "e@1"}},
		{Both, 0, []Label{Imports}, nil},
	}
	for _, tt := range tests {
		if got := keys(g.Walk(a, tt.dir, tt.depth, tt.labels)); !slices.Equal(got, tt.want) {
			t.Errorf("Walk(a, %v, %d, %v) = %v, want %v", tt.dir, tt.depth, tt.labels, got, tt.want)
		}
	}
}

// BenchmarkBuildAndSCC builds the adjacency and the SCCs of a graph of a
// million edges over 200,000 nodes and reports time and peak heap. The
// goal is under 2 s and 500 MB on a 2-core machine.
func BenchmarkBuildAndSCC(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	edges := randomGraph(r, 200_000, 1_000_000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		g := New(edges)
		c := g.SCC(nil)
		elapsed := time.Since(start)
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), "MB-alloc/op")
		b.ReportMetric(elapsed.Seconds(), "s/op")
		if len(c.Comp) != g.Len() {
			b.Fatal("bad result")
		}
	}
}

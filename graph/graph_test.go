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

func TestNewDedupe(t *testing.T) {
	a, b := ItemNode("t", "a"), ItemNode("t", "b")
	ev := func(tool Tool, c Confidence) Evidence { return Evidence{Tool: tool, Confidence: c} }
	edges := []Edge{
		{From: a, To: b, Label: Calls, Evidence: ev(ToolLLM, Low)},      // 0
		{From: a, To: b, Label: Calls, Evidence: ev(ToolParser, High)},  // 1: kept
		{From: a, To: b, Label: Calls, Evidence: ev(ToolHuman, High)},   // 2: equal to 1, later
		{From: a, To: b, Label: Calls, Evidence: ev(ToolBuild, Medium)}, // 3
		{From: a, To: b, Label: Imports, Evidence: ev(ToolLLM, Low)},    // 4: another label
		{From: b, To: a, Label: Calls, Evidence: ev(ToolLLM, Medium)},   // 5: the other way
		{From: b, To: a, Label: Calls, Evidence: ev(ToolLLM, Medium)},   // 6: equal to 5
		{From: b, To: a, Label: "bogus", Evidence: ev(ToolLLM, High)},   // 7: not an edge
		{From: b, To: b, Label: Calls, Evidence: ev(ToolLLM, "")},       // 8: no confidence
		{From: b, To: b, Label: Calls, Evidence: ev(ToolLLM, Low)},      // 9: beats it
	}
	g := New(edges)
	want := map[EdgeKey]int{
		{a.ID, b.ID, Calls}:   1,
		{a.ID, b.ID, Imports}: 4,
		{b.ID, a.ID, Calls}:   5,
		{b.ID, b.ID, Calls}:   9,
	}
	if g.EdgeCount() != len(want) || g.Len() != 2 {
		t.Fatalf("%d nodes, %d edges; want 2, %d", g.Len(), g.EdgeCount(), len(want))
	}
	for e := int32(0); e < int32(g.EdgeCount()); e++ {
		src := g.Source(e)
		if g.Edge(e) != &edges[src] {
			t.Errorf("Edge(%d) is not &edges[Source(%d)]", e, e)
		}
		k := edges[src].Key()
		if want[k] != src {
			t.Errorf("edge %d %v: kept edges[%d], want edges[%d]", e, k, src, want[k])
		}
		if g.Label(e) != k.Label {
			t.Errorf("Label(%d) = %s, want %s", e, g.Label(e), k.Label)
		}
		from, to := g.Ends(e)
		if g.Node(from).ID != k.From || g.Node(to).ID != k.To {
			t.Errorf("Ends(%d) = %d, %d: not the source edge's nodes", e, from, to)
		}
	}
}

// TestNewProperties checks New against a brute-force dedupe on random
// edges with many duplicates, and the adjacency against the edge list.
func TestNewProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	labels := []Label{Calls, Imports, "bogus"}
	confidences := []Confidence{High, Medium, Low, ""}
	tools := []Tool{ToolHuman, ToolParser, ToolLLM}
	for trial := 0; trial < 300; trial++ {
		n := 1 + r.IntN(6)
		edges := randomGraph(r, n, r.IntN(40))
		for i := range edges {
			edges[i].Label = labels[r.IntN(len(labels))]
			edges[i].Evidence = Evidence{Tool: tools[r.IntN(len(tools))], Confidence: confidences[r.IntN(len(confidences))]}
		}
		g := New(edges)
		// Brute force: the first edge of each key with the best rank.
		best := map[EdgeKey]int{}
		for i := range edges {
			k := edges[i].Key()
			if !k.Label.Valid() {
				continue
			}
			j, ok := best[k]
			if !ok || rank(edges[i].Evidence.Confidence) < rank(edges[j].Evidence.Confidence) {
				best[k] = i
			}
		}
		if g.EdgeCount() != len(best) {
			t.Fatalf("trial %d: %d edges, want %d", trial, g.EdgeCount(), len(best))
		}
		for e := int32(0); e < int32(g.EdgeCount()); e++ {
			src := g.Source(e)
			k := edges[src].Key()
			if best[k] != src {
				t.Fatalf("trial %d: edge %d keeps edges[%d], want edges[%d]", trial, e, src, best[k])
			}
			from, to := g.Ends(e)
			if g.Node(from).ID != k.From || g.Node(to).ID != k.To || g.Label(e) != k.Label {
				t.Fatalf("trial %d: edge %d does not map back to edges[%d]", trial, e, src)
			}
		}
		for k := range best {
			for _, id := range []object.ID{k.From, k.To} {
				if i, ok := g.Lookup(id); !ok || g.Node(i).ID != id {
					t.Fatalf("trial %d: node %s missing", trial, id.Short())
				}
			}
		}
		// Out and In list each edge once, at the right node.
		var outSeen, inSeen int
		for v := int32(0); v < int32(g.Len()); v++ {
			for _, e := range g.Out(v) {
				if from, _ := g.Ends(e); from != v {
					t.Fatalf("trial %d: Out(%d) lists edge %d from %d", trial, v, e, from)
				}
				outSeen++
			}
			for _, e := range g.In(v) {
				if _, to := g.Ends(e); to != v {
					t.Fatalf("trial %d: In(%d) lists edge %d to %d", trial, v, e, to)
				}
				inSeen++
			}
		}
		if outSeen != g.EdgeCount() || inSeen != g.EdgeCount() {
			t.Fatalf("trial %d: Out lists %d edges, In %d, of %d", trial, outSeen, inSeen, g.EdgeCount())
		}
	}
}

// TestNewNodeKey checks the interning of nodes: identity is the id alone,
// the first kind seen stays, and a node without a key takes the first
// non-empty key seen.
func TestNewNodeKey(t *testing.T) {
	id := ItemNode("t", "x").ID
	other := ItemNode("t", "y")
	ev := Evidence{Tool: ToolHuman, Confidence: High}
	tests := []struct {
		name     string
		seen     []NodeID // the node as each edge names it, in order
		wantKind NodeKind
		wantKey  string
	}{
		{"first key kept", []NodeID{{NodeItem, id, "k1"}, {NodeItem, id, "k2"}}, NodeItem, "k1"},
		{"empty key filled", []NodeID{{NodeItem, id, ""}, {NodeItem, id, "k1"}, {NodeItem, id, "k2"}}, NodeItem, "k1"},
		{"never a key", []NodeID{{NodeItem, id, ""}, {NodeItem, id, ""}}, NodeItem, ""},
		{"first kind kept", []NodeID{{NodeTask, id, ""}, {NodeDecision, id, "k"}}, NodeTask, "k"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var edges []Edge
			for i, n := range tt.seen {
				// Alternate ends, so that both From and To are interned.
				e := Edge{From: n, To: other, Label: Calls, Evidence: ev}
				if i%2 == 1 {
					e.From, e.To = other, n
				}
				edges = append(edges, e)
			}
			g := New(edges)
			i, ok := g.Lookup(id)
			if !ok {
				t.Fatal("node missing")
			}
			if got := g.Node(i); got.Kind != tt.wantKind || got.Key != tt.wantKey {
				t.Errorf("node = %s %q, want %s %q", got.Kind, got.Key, tt.wantKind, tt.wantKey)
			}
			if g.Len() != 2 {
				t.Errorf("%d nodes, want 2: one per id", g.Len())
			}
		})
	}
}

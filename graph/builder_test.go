package graph

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// addAll adds edges to b one by one, as a caller without a []Edge does.
func addAll(b *Builder, edges []Edge) {
	for i := range edges {
		e := &edges[i]
		if !e.Label.Valid() {
			b.Add(0, 0, e.Label, e.Evidence.Confidence) // counted, left out
			continue
		}
		from := b.Node(e.From)
		b.Add(from, b.Node(e.To), e.Label, e.Evidence.Confidence)
	}
}

// TestBuilderMatchesNew checks that a graph built edge by edge is the
// one New builds from the same edges: nodes, edges, sources, adjacency
// and confidences.
func TestBuilderMatchesNew(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	labels := []Label{Calls, Imports, "bogus"}
	confidences := []Confidence{High, Medium, Low, ""}
	for trial := 0; trial < 300; trial++ {
		edges := randomGraph(r, 1+r.IntN(8), r.IntN(60))
		for i := range edges {
			edges[i].Label = labels[r.IntN(len(labels))]
			edges[i].Evidence.Confidence = confidences[r.IntN(len(confidences))]
			if r.IntN(4) == 0 {
				edges[i].From.Key = "" // a key filled in later
			}
		}
		want := New(edges)
		for _, src := range [][]Edge{edges, nil} {
			b := NewBuilder(r.IntN(len(edges) + 1))
			addAll(b, edges)
			got := b.Graph(src)
			if got.Len() != want.Len() || got.EdgeCount() != want.EdgeCount() {
				t.Fatalf("trial %d: %d nodes, %d edges; New: %d, %d", trial, got.Len(), got.EdgeCount(), want.Len(), want.EdgeCount())
			}
			for i := range int32(want.Len()) {
				if got.Node(i) != want.Node(i) || !slices.Equal(got.Out(i), want.Out(i)) || !slices.Equal(got.In(i), want.In(i)) {
					t.Fatalf("trial %d: node %d differs", trial, i)
				}
				if j, ok := got.Lookup(want.Node(i).ID); !ok || j != i {
					t.Fatalf("trial %d: Lookup(node %d) = %d, %v", trial, i, j, ok)
				}
			}
			for e := range int32(want.EdgeCount()) {
				gf, gt := got.Ends(e)
				wf, wt := want.Ends(e)
				if gf != wf || gt != wt || got.Label(e) != want.Label(e) || got.Source(e) != want.Source(e) {
					t.Fatalf("trial %d: edge %d differs", trial, e)
				}
				if c := want.Edge(e).Evidence.Confidence; got.Confidence(e) != c || want.Confidence(e) != c {
					t.Fatalf("trial %d: edge %d: Confidence %q and %q, want %q", trial, e, got.Confidence(e), want.Confidence(e), c)
				}
				switch {
				case src == nil && got.Edge(e) != nil:
					t.Fatalf("trial %d: Edge(%d) without edges is not nil", trial, e)
				case src != nil && got.Edge(e) != &edges[got.Source(e)]:
					t.Fatalf("trial %d: Edge(%d) is not &edges[Source(%d)]", trial, e, e)
				}
			}
		}
	}
}

// BenchmarkBuilder builds a graph shaped like the code graph of Go's
// source tree, as repo.Graph does: 11,000 files of 90 edges between 40
// nodes, a quarter of them another file's (an item it calls, a package
// it imports), each file's nodes numbered once; 1,000,000 edges over
// about 200,000 nodes.
func BenchmarkBuilder(b *testing.B) {
	const files, perFile, edgesPerFile = 11_000, 40, 90
	r := rand.New(rand.NewPCG(11, 12))
	own := perFile * 3 / 4
	tables := make([][]NodeID, files)
	for f := range tables {
		tables[f] = make([]NodeID, perFile)
		for k := range own {
			tables[f][k] = ItemNode("t", fmt.Sprintf("pkg%d.F%d", f, k))
		}
	}
	for f := range tables {
		for k := own; k < perFile; k++ {
			o := r.IntN(files)
			if r.IntN(2) == 0 {
				o = r.IntN(50) // popular packages and items
			}
			tables[f][k] = tables[o][r.IntN(own)]
		}
	}
	type pair struct{ from, to uint32 }
	pairs := make([][]pair, files)
	for f := range pairs {
		pairs[f] = make([]pair, edgesPerFile)
		for i := range pairs[f] {
			pairs[f][i] = pair{uint32(r.IntN(own)), uint32(r.IntN(perFile))}
		}
	}
	labels := []Label{Contains, Calls, References, UsesType}
	num := make([]int32, perFile)
	b.ReportAllocs()
	for b.Loop() {
		bl := NewBuilder(files * edgesPerFile)
		for f, t := range tables {
			for k := range num {
				num[k] = -1
			}
			for i, p := range pairs[f] {
				if num[p.from] < 0 {
					num[p.from] = bl.Node(t[p.from])
				}
				if num[p.to] < 0 {
					num[p.to] = bl.Node(t[p.to])
				}
				bl.Add(num[p.from], num[p.to], labels[i%len(labels)], High)
			}
		}
		if g := bl.Graph(nil); g.EdgeCount() < files*edgesPerFile/2 {
			b.Fatalf("%d edges", g.EdgeCount())
		}
	}
}

// TestAssertions checks that a graph counts the assertions of an edge
// added more than once, by confidence, and keeps its highest.
func TestAssertions(t *testing.T) {
	a, b, c := FileNode("r", "a.go"), FileNode("r", "b.go"), FileNode("r", "c.go")
	ev := func(conf Confidence) Evidence { return Evidence{Tool: ToolHuman, Confidence: conf} }
	g := New([]Edge{
		{From: a, To: b, Label: Imports, Evidence: ev(Low)},
		{From: a, To: c, Label: Imports, Evidence: ev(High)},
		{From: a, To: b, Label: Imports, Evidence: ev(High)},
		{From: a, To: b, Label: Imports, Evidence: ev(Low)},
		{From: a, To: b, Label: Calls, Evidence: ev(Medium)},
	})
	want := map[string]Assertions{
		"imports b.go": {1, 0, 2, 0},
		"imports c.go": {1, 0, 0, 0},
		"calls b.go":   {0, 1, 0, 0},
	}
	if n := len(g.Repeated()); n != 1 {
		t.Errorf("%d edges repeated, want 1", n)
	}
	for e := range int32(g.EdgeCount()) {
		_, to := g.Ends(e)
		name := string(g.Label(e)) + " " + g.Node(to).Key
		if got := g.Assertions(e); got != want[name] {
			t.Errorf("%s: assertions %v, want %v", name, got, want[name])
		}
		if name == "imports b.go" && g.Confidence(e) != High {
			t.Errorf("%s: confidence %s, want high", name, g.Confidence(e))
		}
	}
}

package graph

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// bfs computes by brute force, from the edge list alone (not the CSR
// adjacency), each node's distance from start following edges with the
// labels (all if none) in direction dir; -1 if unreachable.
func bfs(g *Graph, start int32, dir Direction, labels []Label) []int {
	dist := make([]int, g.Len())
	for i := range dist {
		dist[i] = -1
	}
	dist[start] = 0
	frontier := []int32{start}
	for d := 1; len(frontier) > 0; d++ {
		var next []int32
		for _, v := range frontier {
			for e := int32(0); e < int32(g.EdgeCount()); e++ {
				if len(labels) > 0 && !slices.Contains(labels, g.Label(e)) {
					continue
				}
				from, to := g.Ends(e)
				for _, w := range []int32{neighbour(dir&Out != 0, from, to, v), neighbour(dir&In != 0, to, from, v)} {
					if w >= 0 && dist[w] < 0 {
						dist[w] = d
						next = append(next, w)
					}
				}
			}
		}
		frontier = next
	}
	return dist
}

// neighbour returns there if the edge may be followed and starts at v.
func neighbour(ok bool, here, there, v int32) int32 {
	if ok && here == v {
		return there
	}
	return -1
}

func TestWalkProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	filters := [][]Label{
		nil,
		{Calls},
		{Imports, DependsOn},
		{Calls, Imports, DependsOn},
		{Contains},         // valid but on no edge
		{"bogus"},          // not a label: matches nothing
		{"bogus", Imports}, // an unknown label does not widen the filter
	}
	for trial := 0; trial < 500; trial++ {
		n := 1 + r.IntN(25)
		g := New(randomGraph(r, n, r.IntN(3*n)))
		if g.Len() == 0 {
			continue
		}
		start := int32(r.IntN(g.Len()))
		dir := []Direction{Out, In, Both}[r.IntN(3)]
		depth := r.IntN(5) // 0: no limit
		labels := filters[r.IntN(len(filters))]
		name := fmt.Sprintf("trial %d: Walk(%d, %d, %d, %v)", trial, start, dir, depth, labels)

		steps := g.Walk(start, dir, depth, labels)
		dist := bfs(g, start, dir, labels)
		reached := map[int32]int{start: 0} // node → depth
		prev := 1
		for i, s := range steps {
			if _, dup := reached[s.Node]; dup {
				t.Fatalf("%s: step %d reaches node %d again", name, i, s.Node)
			}
			if s.Depth < prev {
				t.Fatalf("%s: step %d at depth %d after depth %d: not breadth first", name, i, s.Depth, prev)
			}
			prev = s.Depth
			if depth > 0 && s.Depth > depth {
				t.Fatalf("%s: step %d at depth %d", name, i, s.Depth)
			}
			if s.Depth != dist[s.Node] {
				t.Fatalf("%s: node %d reached at depth %d, its distance is %d", name, s.Node, s.Depth, dist[s.Node])
			}
			fd, ok := reached[s.From]
			if !ok || fd != s.Depth-1 {
				t.Fatalf("%s: step %d from node %d, which was not reached one step earlier", name, i, s.From)
			}
			from, to := g.Ends(s.Edge)
			switch {
			case s.Out && (dir&Out == 0 || from != s.From || to != s.Node):
				t.Fatalf("%s: step %+v: edge %d→%d does not lead forward from From to Node", name, s, from, to)
			case !s.Out && (dir&In == 0 || to != s.From || from != s.Node):
				t.Fatalf("%s: step %+v: edge %d→%d does not lead backward from From to Node", name, s, from, to)
			}
			if len(labels) > 0 && !slices.Contains(labels, g.Label(s.Edge)) {
				t.Fatalf("%s: step %+v follows a %s edge", name, s, g.Label(s.Edge))
			}
			reached[s.Node] = s.Depth
		}
		for v, d := range dist {
			if d > 0 && (depth <= 0 || d <= depth) {
				if _, ok := reached[int32(v)]; !ok {
					t.Fatalf("%s: node %d at distance %d was missed", name, v, d)
				}
			}
		}
	}
}

func TestWalkEdgeCases(t *testing.T) {
	a, b, c := ItemNode("t", "a"), ItemNode("t", "b"), ItemNode("t", "c")
	ev := Evidence{Tool: ToolHuman, Confidence: High}
	g := New([]Edge{
		{From: a, To: a, Label: Calls, Evidence: ev}, // a self loop
		{From: a, To: b, Label: Calls, Evidence: ev},
		{From: b, To: a, Label: Calls, Evidence: ev}, // back to the start
		{From: c, To: b, Label: Imports, Evidence: ev},
	})
	ia, _ := g.Lookup(a.ID)
	ib, _ := g.Lookup(b.ID)
	ic, _ := g.Lookup(c.ID)
	tests := []struct {
		name   string
		start  int32
		dir    Direction
		depth  int
		labels []Label
		want   []Step
	}{
		{"self loop and cycle do not revisit the start", ia, Out, 0, nil,
			[]Step{{Edge: 1, From: ia, Node: ib, Depth: 1, Out: true}}},
		{"both ways: each node once, forward first", ib, Both, 0, nil,
			[]Step{{Edge: 2, From: ib, Node: ia, Depth: 1, Out: true}, {Edge: 3, From: ib, Node: ic, Depth: 1, Out: false}}},
		{"negative depth is no limit", ic, Out, -1, nil,
			[]Step{{Edge: 3, From: ic, Node: ib, Depth: 1, Out: true}, {Edge: 2, From: ib, Node: ia, Depth: 2, Out: true}}},
		{"no direction follows nothing", ia, 0, 0, nil, nil},
		{"label on no edge", ia, Both, 0, []Label{Contains}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := g.Walk(tt.start, tt.dir, tt.depth, tt.labels)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Walk = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseDirection(t *testing.T) {
	tests := []struct {
		in   string
		want Direction
		ok   bool
	}{
		{"out", Out, true},
		{"in", In, true},
		{"both", Both, true},
		{"", Both, true},
		{"OUT", 0, false},
		{"sideways", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseDirection(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseDirection(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

package graph

import (
	"slices"

	"github.com/ctx-dev/ctx/object"
)

// Graph is an in-memory graph: nodes numbered 0..n-1 and edges numbered
// 0..m-1, with adjacency both ways in compressed sparse rows. It is built
// once from a list of edges and not changed.
type Graph struct {
	nodes []NodeID
	index map[object.ID]int32
	src   []Edge  // the edges given to New, not copied; nil from a Builder without them
	kept  []int32 // edge number → position in src
	from  []int32 // per edge
	to    []int32
	label []uint8 // per edge: index in Labels
	conf  []uint8 // per edge: index in Confidences (len(Confidences): none of them)
	// repeated counts the assertions of the edges added more than once.
	repeated map[int32]*Assertions
	// outStart[i]..outStart[i+1] index outEdges: the edges leaving node i.
	outStart, outEdges []int32
	inStart, inEdges   []int32
}

// labelIndex numbers the labels, for compact storage and fast filters.
var labelIndex = func() map[Label]uint8 {
	m := make(map[Label]uint8, len(Labels))
	for i, l := range Labels {
		m[l] = uint8(i)
	}
	return m
}()

// labelMask is a set of labels; zero means all.
type labelMask uint64

func maskOf(labels []Label) labelMask {
	var m labelMask
	for _, l := range labels {
		if i, ok := labelIndex[l]; ok {
			m |= 1 << i
		} else {
			m |= 1 << 63 // an unknown label: matches nothing, but is not "all"
		}
	}
	return m
}

func (m labelMask) has(i uint8) bool { return m == 0 || m&(1<<i) != 0 }

// New builds a graph from edges, which it keeps (the caller must not change
// them afterwards). Edges with the same from, to and label are one edge:
// the one with the highest confidence, the first among equals.
func New(edges []Edge) *Graph {
	b := NewBuilder(len(edges))
	for i := range edges {
		e := &edges[i]
		li, ok := labelIndex[e.Label]
		if !ok {
			continue // not a valid edge; Validate refuses it on write
		}
		from := b.Node(e.From)
		b.add(from, b.Node(e.To), li, uint8(rank(e.Evidence.Confidence)), int32(i))
	}
	return b.Graph(edges)
}

func rank(c Confidence) int {
	for i, x := range Confidences {
		if x == c {
			return i
		}
	}
	return len(Confidences)
}

// csr groups edge numbers by the node at one end.
func csr(nodes int, end []int32) (start, list []int32) {
	start = make([]int32, nodes+1)
	for _, v := range end {
		start[v+1]++
	}
	for i := 1; i <= nodes; i++ {
		start[i] += start[i-1]
	}
	list = make([]int32, len(end))
	next := slices.Clone(start[:nodes])
	for e, v := range end {
		list[next[v]] = int32(e)
		next[v]++
	}
	return start, list
}

// Len returns the number of nodes.
func (g *Graph) Len() int { return len(g.nodes) }

// EdgeCount returns the number of edges.
func (g *Graph) EdgeCount() int { return len(g.kept) }

// Node returns node i.
func (g *Graph) Node(i int32) NodeID { return g.nodes[i] }

// Lookup returns the number of a node, if the graph has it.
func (g *Graph) Lookup(n object.ID) (int32, bool) {
	i, ok := g.index[n]
	return i, ok
}

// Edge returns edge e; nil if the graph was built without its edges
// (Builder.Graph(nil)).
func (g *Graph) Edge(e int32) *Edge {
	if g.src == nil {
		return nil
	}
	return &g.src[g.kept[e]]
}

// Confidence returns the confidence of edge e's evidence; "" if it is not
// one of Confidences.
func (g *Graph) Confidence(e int32) Confidence {
	if c := g.conf[e]; int(c) < len(Confidences) {
		return Confidences[c]
	}
	return ""
}

// Assertions counts how often an edge was added, by confidence: by index
// in Confidences, then none of them.
type Assertions [4]uint32

// Assertions returns how often edge e was added with its ends and label,
// by confidence: it has the highest of them (Confidence). An edge can be
// asserted by several files, or by one file several times.
func (g *Graph) Assertions(e int32) Assertions {
	if a := g.repeated[e]; a != nil {
		return *a
	}
	var a Assertions
	a[g.conf[e]] = 1
	return a
}

// Repeated returns the edges added more than once (see Assertions), in
// no particular order.
func (g *Graph) Repeated() []int32 {
	out := make([]int32, 0, len(g.repeated))
	for e := range g.repeated {
		out = append(out, e)
	}
	return out
}

// Source returns the position of edge e in the slice given to New (the
// number of edges added to a Builder before it).
func (g *Graph) Source(e int32) int { return int(g.kept[e]) }

// Label returns the label of edge e.
func (g *Graph) Label(e int32) Label { return Labels[g.label[e]] }

// LabelIndex returns the index in Labels of edge e's label.
func (g *Graph) LabelIndex(e int32) int { return int(g.label[e]) }

// Ends returns the numbers of edge e's nodes.
func (g *Graph) Ends(e int32) (from, to int32) { return g.from[e], g.to[e] }

// Out returns the edges leaving node i.
func (g *Graph) Out(i int32) []int32 { return g.outEdges[g.outStart[i]:g.outStart[i+1]] }

// In returns the edges entering node i.
func (g *Graph) In(i int32) []int32 { return g.inEdges[g.inStart[i]:g.inStart[i+1]] }

// Direction selects which edges of a node to follow.
type Direction int

// The directions.
const (
	Out  Direction = 1 // edges leaving the node
	In   Direction = 2 // edges entering the node
	Both Direction = Out | In
)

// ParseDirection reads "in", "out" or "both".
func ParseDirection(s string) (Direction, bool) {
	switch s {
	case "out":
		return Out, true
	case "in":
		return In, true
	case "both", "":
		return Both, true
	}
	return 0, false
}

// Step is one edge a walk followed.
type Step struct {
	Edge  int32 // the edge
	From  int32 // the node it was followed from
	Node  int32 // the node reached
	Depth int   // 1 for a neighbour of the start
	Out   bool  // the edge was followed forward (from → to)
}

// Walk visits the nodes reachable from start through edges with one of the
// labels (all labels if none) in the given direction, breadth first, up to
// depth edges away (0: no limit), each node once. It returns the steps in
// visiting order; the start is not among them.
func (g *Graph) Walk(start int32, dir Direction, depth int, labels []Label) []Step {
	mask := maskOf(labels)
	seen := map[int32]bool{start: true}
	var out []Step
	frontier := []int32{start}
	for d := 1; len(frontier) > 0 && (depth <= 0 || d <= depth); d++ {
		var next []int32
		for _, n := range frontier {
			visit := func(e int32, other int32, forward bool) {
				if seen[other] || !mask.has(g.label[e]) {
					return
				}
				seen[other] = true
				out = append(out, Step{Edge: e, From: n, Node: other, Depth: d, Out: forward})
				next = append(next, other)
			}
			if dir&Out != 0 {
				for _, e := range g.Out(n) {
					visit(e, g.to[e], true)
				}
			}
			if dir&In != 0 {
				for _, e := range g.In(n) {
					visit(e, g.from[e], false)
				}
			}
		}
		frontier = next
	}
	return out
}

package graph

import (
	"cmp"
	"slices"

	"github.com/ctx-dev/ctx/object"
)

// Builder builds a Graph edge by edge, for a caller whose edges are not
// a []Edge: the code graph of a million edges is stored per file as a
// node table and index pairs (extract.FileVersion), so its caller numbers
// each file's nodes once and adds the edges by number, and no Edge is
// ever made. The graph is the one New builds from the same edges in the
// same order, except that it has no Edge values unless given them.
type Builder struct {
	nodes []NodeID
	index map[object.ID]int32
	// The edges added, merged only by Graph: per edge, its ends, label
	// index, confidence rank and source position.
	from, to    []int32
	label, conf []uint8
	pos         []int32
	n           int32 // edges added: the source position of the next
}

// NewBuilder returns an empty builder, with room for about edges edges.
func NewBuilder(edges int) *Builder {
	return &Builder{
		nodes: make([]NodeID, 0, edges/4+1),
		index: make(map[object.ID]int32, edges/4+1),
		from:  make([]int32, 0, edges),
		to:    make([]int32, 0, edges),
		label: make([]uint8, 0, edges),
		conf:  make([]uint8, 0, edges),
		pos:   make([]int32, 0, edges),
	}
}

// Node returns the number of node n, adding it if new. A node is its ID:
// the kind it was first added with stays, and so does the first
// non-empty key.
func (b *Builder) Node(n NodeID) int32 {
	if i, ok := b.index[n.ID]; ok {
		if b.nodes[i].Key == "" {
			b.nodes[i].Key = n.Key
		}
		return i
	}
	i := int32(len(b.nodes))
	b.index[n.ID] = i
	b.nodes = append(b.nodes, n)
	return i
}

// Add adds an edge from node from to node to, numbers that Node
// returned. Its source position (what Graph.Source returns) is the
// number of edges added before it. Edges with the same ends and label
// are one edge of the graph, numbered where the first was added: the
// one with the highest confidence, the first among equals. An edge whose
// label is not one of Labels is left out; its caller should not have
// added its nodes either, as New does not.
func (b *Builder) Add(from, to int32, l Label, c Confidence) {
	if li, ok := labelIndex[l]; ok {
		b.add(from, to, li, uint8(rank(c)), b.n)
	}
	b.n++
}

// add adds an edge with label index li and confidence rank c, from
// position pos of the source.
func (b *Builder) add(from, to int32, li, c uint8, pos int32) {
	b.from = append(b.from, from)
	b.to = append(b.to, to)
	b.label = append(b.label, li)
	b.conf = append(b.conf, c)
	b.pos = append(b.pos, pos)
}

// Graph returns the graph of the edges added. src, if not nil, are those
// edges, by source position, which the graph keeps (the caller must not
// change them afterwards): what Edge returns. The builder must not be
// used afterwards.
func (b *Builder) Graph(src []Edge) *Graph {
	first := b.firsts()
	g := &Graph{nodes: b.nodes, index: b.index, src: src}
	n := 0
	for i, f := range first {
		if f == int32(i) {
			n++
		}
	}
	g.kept = make([]int32, 0, n)
	g.from = make([]int32, 0, n)
	g.to = make([]int32, 0, n)
	g.label = make([]uint8, 0, n)
	g.conf = make([]uint8, 0, n)
	// An edge's number is where its first was added; first is reused
	// for the numbers of the first edges.
	for i, f := range first {
		if f == int32(i) {
			first[i] = int32(len(g.kept))
			g.kept = append(g.kept, b.pos[i])
			g.from = append(g.from, b.from[i])
			g.to = append(g.to, b.to[i])
			g.label = append(g.label, b.label[i])
			g.conf = append(g.conf, b.conf[i])
		} else {
			e := first[f]
			if g.repeated == nil {
				g.repeated = map[int32]*Assertions{}
			}
			a := g.repeated[e]
			if a == nil {
				a = new(Assertions)
				a[b.conf[f]] = 1 // its first
				g.repeated[e] = a
			}
			a[b.conf[i]]++
			if b.conf[i] < g.conf[e] {
				g.kept[e], g.conf[e] = b.pos[i], b.conf[i]
			}
		}
	}
	*b = Builder{}
	g.outStart, g.outEdges = csr(len(g.nodes), g.from)
	g.inStart, g.inEdges = csr(len(g.nodes), g.to)
	return g
}

// firsts returns, for each edge added, the first edge added with the same
// ends and label (itself if none). Edges are compared among those of the
// same from node, which are few and mostly added together (a file's):
// a hash table of a million edges cost a cache miss each.
func (b *Builder) firsts() []int32 {
	first := make([]int32, len(b.from))
	start, list := csr(len(b.nodes), b.from)
	type edge struct {
		key uint64 // to and label index
		i   int32
	}
	var group []edge
	for v := range len(b.nodes) {
		group = group[:0]
		for _, i := range list[start[v]:start[v+1]] {
			group = append(group, edge{uint64(uint32(b.to[i]))<<8 | uint64(b.label[i]), i})
		}
		if len(group) <= 16 {
			// In order added: the first with a key is its first.
		next:
			for k, e := range group {
				for _, d := range group[:k] {
					if d.key == e.key {
						first[e.i] = first[d.i]
						continue next
					}
				}
				first[e.i] = e.i
			}
			continue
		}
		slices.SortFunc(group, func(x, y edge) int { return cmp.Or(cmp.Compare(x.key, y.key), cmp.Compare(x.i, y.i)) })
		for k, e := range group {
			if k > 0 && group[k-1].key == e.key {
				first[e.i] = first[group[k-1].i]
			} else {
				first[e.i] = e.i
			}
		}
	}
	return first
}

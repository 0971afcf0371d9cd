package graph

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/ctx-dev/ctx/object"
)

// SccView is the condensation of a graph into strongly connected
// components (design §9.5): which component each node is in, and the DAG
// the components form. It is a derived object: computed from the graph at
// some heads, kept under .ctx/DERIVED/ and never shared, so it can be
// dropped and rebuilt at any time. Stored under the type name "scc_view".
//
// Components are numbered in a topological order: every DAG edge goes
// from a lower number to a higher one.
type SccView struct {
	// Source names what the view was computed from (a hash of the heads
	// and of the narrative's edges), so that a reader can tell whether it
	// is stale.
	Source object.ID `json:"source"`
	// Heads are the commits whose graph this is.
	Heads []object.ID `json:"heads"`
	// CreatedAt is the creation time in seconds since the Unix epoch.
	CreatedAt int64 `json:"created_at"`
	// Nodes lists the graph's nodes, sorted by id.
	Nodes []NodeID `json:"nodes"`
	// Comp gives each node's component: Comp[i] is that of Nodes[i].
	Comp []uint32 `json:"comp"`
	// Count is the number of components.
	Count uint32 `json:"count"`
	// DAG lists the edges between components, each once, sorted.
	DAG [][2]uint32 `json:"dag"`
	// SelfLoops lists the components of one node with an edge to itself,
	// sorted.
	SelfLoops []uint32 `json:"self_loops,omitempty"`
}

// TypeName returns "scc_view".
func (*SccView) TypeName() string { return "scc_view" }

// Links returns nothing: a view lives outside the object store and the
// commits it names are checked when it is used.
func (*SccView) Links() []object.Link { return nil }

// Validate checks that the view is consistent: one component per node,
// numbers in range, every component with at least one node, nodes sorted,
// DAG edges forward, sorted and each once, self loops sorted, each once
// and on components of one node. A view is read from disk, so Validate is
// what keeps a damaged one from costing memory out of proportion to its
// size (Members allocates Count slices).
func (v *SccView) Validate() error {
	if len(v.Comp) != len(v.Nodes) {
		return fmt.Errorf("scc_view: %d nodes but %d component numbers", len(v.Nodes), len(v.Comp))
	}
	if v.Source.IsZero() {
		return errors.New("scc_view: source is the zero id")
	}
	for _, h := range v.Heads {
		if h.IsZero() {
			return errors.New("scc_view: a head is the zero id")
		}
	}
	for _, n := range v.Nodes {
		if n.ID.IsZero() || !n.Kind.Valid() {
			return fmt.Errorf("scc_view: node %s: kind %q, id must be a node kind and non-zero", n.ID.Short(), n.Kind)
		}
	}
	if uint64(v.Count) > uint64(len(v.Nodes)) {
		return fmt.Errorf("scc_view: %d components but only %d nodes", v.Count, len(v.Nodes))
	}
	size := make([]uint32, v.Count)
	for i, c := range v.Comp {
		if c >= v.Count {
			return fmt.Errorf("scc_view: node %d is in component %d of %d", i, c, v.Count)
		}
		size[c]++
		if i > 0 && v.Nodes[i-1].ID.Compare(v.Nodes[i].ID) >= 0 {
			return errors.New("scc_view: nodes are not sorted by id")
		}
	}
	for c, n := range size {
		if n == 0 {
			return fmt.Errorf("scc_view: component %d has no nodes", c)
		}
	}
	for i, e := range v.DAG {
		if e[0] >= e[1] || e[1] >= v.Count {
			return fmt.Errorf("scc_view: DAG edge %d→%d is not forward within %d components", e[0], e[1], v.Count)
		}
		if i > 0 && cmpPair(v.DAG[i-1], e) >= 0 {
			return fmt.Errorf("scc_view: DAG edge %d→%d is out of order or repeated", e[0], e[1])
		}
	}
	for i, c := range v.SelfLoops {
		if c >= v.Count {
			return fmt.Errorf("scc_view: self loop on component %d of %d", c, v.Count)
		}
		if i > 0 && v.SelfLoops[i-1] >= c {
			return fmt.Errorf("scc_view: self loop on component %d is out of order or repeated", c)
		}
		if size[c] != 1 {
			return fmt.Errorf("scc_view: self loop on component %d of %d nodes", c, size[c])
		}
	}
	return nil
}

func cmpPair(a, b [2]uint32) int {
	return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
}

// Members returns the nodes of each component (indices into Nodes).
func (v *SccView) Members() [][]uint32 {
	m := make([][]uint32, v.Count)
	for i, c := range v.Comp {
		m[c] = append(m[c], uint32(i))
	}
	return m
}

// Cycles returns the components that are cycles (several nodes, or one
// with an edge to itself), each as its nodes' indices into Nodes.
func (v *SccView) Cycles() [][]uint32 {
	loop := make(map[uint32]bool, len(v.SelfLoops))
	for _, c := range v.SelfLoops {
		loop[c] = true
	}
	var out [][]uint32
	for c, ms := range v.Members() {
		if len(ms) > 1 || loop[uint32(c)] {
			out = append(out, ms)
		}
	}
	return out
}

// NewSccView condenses g (every label) into a view. Components are
// renumbered in topological order, nodes sorted by id, so that the same
// graph always gives the same view.
func NewSccView(g *Graph, heads []object.ID, source object.ID, createdAt int64) *SccView {
	c := g.SCC(nil)
	order := make([]int32, len(g.nodes))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return g.nodes[a].ID.Compare(g.nodes[b].ID) })
	renum := make([]uint32, len(c.Topo))
	for pos, comp := range c.Topo {
		renum[comp] = uint32(pos)
	}
	v := &SccView{
		Source: source, Heads: slices.Clone(heads), CreatedAt: createdAt,
		Nodes: make([]NodeID, len(order)), Comp: make([]uint32, len(order)),
		Count: uint32(len(c.Topo)), DAG: make([][2]uint32, 0, len(c.DAG)),
	}
	for i, n := range order {
		v.Nodes[i] = g.nodes[n]
		v.Comp[i] = renum[c.Comp[n]]
	}
	for _, e := range c.DAG {
		v.DAG = append(v.DAG, [2]uint32{renum[e[0]], renum[e[1]]})
	}
	slices.SortFunc(v.DAG, cmpPair)
	for comp, loop := range c.SelfLoop {
		if loop {
			v.SelfLoops = append(v.SelfLoops, renum[comp])
		}
	}
	slices.Sort(v.SelfLoops)
	return v
}

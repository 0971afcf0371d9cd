package graph

import (
	"slices"
)

// Components is the strongly connected components of a graph and the DAG
// they form (design §9.5).
type Components struct {
	// Comp gives each node's component.
	Comp []int32
	// Members lists each component's nodes, in ascending order.
	Members [][]int32
	// Topo lists the components in topological order: every DAG edge goes
	// from a component to one later in the list.
	Topo []int32
	// DAG lists the edges between components, each once, sorted.
	DAG [][2]int32
	// SelfLoop marks components of one node with an edge to itself.
	SelfLoop []bool
}

// Cyclic reports whether component c is a cycle: several nodes, or one
// node with an edge to itself.
func (c *Components) Cyclic(comp int32) bool {
	return len(c.Members[comp]) > 1 || c.SelfLoop[comp]
}

// SCC computes the strongly connected components with Tarjan's algorithm,
// iteratively (an explicit stack, so a path of any length is fine). With
// labels, only edges with one of them count.
func (g *Graph) SCC(labels []Label) *Components {
	n := len(g.nodes)
	const unvisited = -1
	index := make([]int32, n)
	low := make([]int32, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = unvisited
	}
	comp := make([]int32, n)
	var stack []int32
	type frame struct {
		node int32
		next int32 // position in the node's out list
	}
	var call []frame
	var order []int32 // components in the order Tarjan finishes them
	var counter, comps int32
	mask := maskOf(labels)
	useEdge := func(e int32) bool { return mask.has(g.label[e]) }
	for root := int32(0); root < int32(n); root++ {
		if index[root] != unvisited {
			continue
		}
		call = append(call, frame{node: root})
		index[root], low[root] = counter, counter
		counter++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.node
			out := g.Out(v)
			descended := false
			for f.next < int32(len(out)) {
				e := out[f.next]
				f.next++
				if !useEdge(e) {
					continue
				}
				w := g.to[e]
				if index[w] == unvisited {
					index[w], low[w] = counter, counter
					counter++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{node: w})
					descended = true
					break
				}
				if onStack[w] && index[w] < low[v] {
					low[v] = index[w]
				}
			}
			if descended {
				continue
			}
			// v is done.
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = comps
					if w == v {
						break
					}
				}
				order = append(order, comps)
				comps++
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].node
				if low[v] < low[p] {
					low[p] = low[v]
				}
			}
		}
	}
	c := &Components{Comp: comp, Members: make([][]int32, comps), SelfLoop: make([]bool, comps)}
	for v := int32(0); v < int32(n); v++ {
		c.Members[comp[v]] = append(c.Members[comp[v]], v)
	}
	// Tarjan finishes a component after every component it reaches:
	// reversed, that order is topological.
	c.Topo = make([]int32, len(order))
	for i, x := range order {
		c.Topo[len(order)-1-i] = x
	}
	pairs := make([]int64, 0)
	for e := range g.kept {
		if !useEdge(int32(e)) {
			continue
		}
		a, b := comp[g.from[e]], comp[g.to[e]]
		if a == b {
			// Only a component of one node is marked: a larger one is a
			// cycle anyway, and SelfLoop is documented as such.
			if g.from[e] == g.to[e] && len(c.Members[a]) == 1 {
				c.SelfLoop[a] = true
			}
			continue
		}
		pairs = append(pairs, int64(a)<<32|int64(b))
	}
	slices.Sort(pairs)
	pairs = slices.Compact(pairs)
	c.DAG = make([][2]int32, len(pairs))
	for i, p := range pairs {
		c.DAG[i] = [2]int32{int32(p >> 32), int32(p)}
	}
	return c
}

package repo

import "github.com/ctx-dev/ctx/graph"

// NodeEdge is an edge in a listing of one node's edges, with the side of
// the node it is on.
type NodeEdge struct {
	Direction string `json:"direction"` // "out" or "in"
	EdgeView
}

// EdgesOf returns the edges at node n with one of labels (any label when
// none), outgoing first when dir has graph.Out, then incoming when it has
// graph.In; none for a node the graph lacks. A loop is listed once, as
// out. ctx edges, ctx show --with-edges and the MCP show tool list these.
func (g *Graph) EdgesOf(n graph.NodeID, dir graph.Direction, labels []graph.Label) []NodeEdge {
	rows := []NodeEdge{}
	i, ok := g.Lookup(n.ID)
	if !ok {
		return rows
	}
	want := func(e int32) bool {
		if len(labels) == 0 {
			return true
		}
		for _, l := range labels {
			if g.Label(e) == l {
				return true
			}
		}
		return false
	}
	if dir&graph.Out != 0 {
		for _, e := range g.Out(i) {
			if want(e) {
				rows = append(rows, NodeEdge{"out", g.View(e)})
			}
		}
	}
	if dir&graph.In != 0 {
		for _, e := range g.In(i) {
			if from, _ := g.Ends(e); from == i && dir&graph.Out != 0 {
				continue // a loop (a hand-edited derived-from naming its own node), listed once, as out
			}
			if want(e) {
				rows = append(rows, NodeEdge{"in", g.View(e)})
			}
		}
	}
	return rows
}

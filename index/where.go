package index

import (
	"context"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/narrative/where"
	"github.com/ctx-dev/ctx/repo"
)

// WhereGraph answers the graph predicates of a filter expression
// (package where): has:summary from the catalog (the derived-from
// headers of summaries), has:edges, from: and to: from the graph segments
// (the same edges `ctx edges` shows: the commits' edge batches and code,
// and the working narrative's declared edges), opened only when the
// expression asks about edges. Close releases them.
type WhereGraph struct {
	cat        *narrative.Catalog
	summarised map[narrative.ID]bool
	gx         *GraphIndex
	out        map[narrative.ID]map[NodeNum]bool // the nodes each node has an edge to, as asked
	err        error                             // the first read of the graph that failed
}

var _ where.Graph = (*WhereGraph)(nil)

// NewWhereGraph prepares what e needs to know of the graph of r, whose
// narrative is cat.
func NewWhereGraph(ctx context.Context, r *repo.Repo, cat *narrative.Catalog, e *where.Expr) (*WhereGraph, error) {
	summaries, edges := e.Needs()
	wg := &WhereGraph{cat: cat}
	if summaries {
		wg.summarised = map[narrative.ID]bool{}
		for _, id := range cat.IDs() {
			if n := cat.Nodes[id]; n.Type == narrative.Summary && !n.Deleted {
				for _, d := range n.DerivedFrom {
					wg.summarised[d] = true
				}
			}
		}
	}
	if edges {
		gx, err := OpenGraph(ctx, r)
		if err != nil {
			return nil, err
		}
		wg.gx, wg.out = gx, map[narrative.ID]map[NodeNum]bool{}
	}
	return wg, nil
}

// Err returns the first error reading the graph segments met (a
// damaged table: see Damaged). The predicates answer false where a read
// failed, so a caller that evaluated an expression checks Err before it
// trusts the result.
func (wg *WhereGraph) Err() error {
	if wg == nil {
		return nil
	}
	return wg.err
}

func (wg *WhereGraph) fail(err error) {
	if err != nil && wg.err == nil {
		wg.err = err
	}
}

// Close releases the graph segments, if they were opened.
func (wg *WhereGraph) Close() {
	if wg != nil && wg.gx != nil {
		wg.gx.Close()
	}
}

// num returns a narrative node's number in the graph.
func (wg *WhereGraph) num(id narrative.ID) (NodeNum, bool) {
	typ := ""
	if n, ok := wg.cat.Nodes[id]; ok {
		typ = string(n.Type)
	}
	n, ok, err := wg.gx.Lookup(graph.NarrativeNode(typ, string(id)).Name())
	wg.fail(err)
	return n, ok && err == nil
}

// HasSummary reports whether a summary that is not deleted derives from id.
func (wg *WhereGraph) HasSummary(id narrative.ID) bool { return wg.summarised[id] }

// HasEdges reports whether the graph has an edge from or to id.
func (wg *WhereGraph) HasEdges(id narrative.ID) bool {
	if wg.gx == nil {
		return false
	}
	n, ok := wg.num(id)
	if !ok {
		return false
	}
	for _, out := range []bool{true, false} {
		adj, err := wg.gx.Adjacent(n, out, graph.Low)
		wg.fail(err)
		if err == nil && len(adj) > 0 {
			return true
		}
	}
	return false
}

// EdgeFrom reports whether the graph has an edge from from to to.
func (wg *WhereGraph) EdgeFrom(from, to narrative.ID) bool {
	if wg.gx == nil {
		return false
	}
	set, ok := wg.out[from]
	if !ok {
		set = map[NodeNum]bool{}
		if n, ok := wg.num(from); ok {
			adj, err := wg.gx.Adjacent(n, true, graph.Low)
			wg.fail(err)
			for _, a := range adj {
				set[a.Node] = true
			}
		}
		wg.out[from] = set
	}
	t, ok := wg.num(to)
	return ok && set[t]
}

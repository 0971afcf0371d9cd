package view

import (
	"sort"

	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/narrative/where"
)

// SelectOptions configure Select.
type SelectOptions struct {
	// IncludeSuperseded and IncludeDeleted let superseded and deleted
	// nodes be selected; by default they are left out whatever the
	// expression says (hooks design §7).
	IncludeSuperseded bool
	IncludeDeleted    bool
}

// Select returns the nodes of cat that e matches, highest priority first
// (Less). g answers the expression's graph predicates (where.Graph); it
// may be nil when e.Needs reports that none are needed. The caller
// resolves e's node ids first (Expr.Resolve). A nil catalog or
// expression selects nothing.
func Select(cat *narrative.Catalog, e *where.Expr, g where.Graph, opts SelectOptions) []*narrative.Node {
	var out []*narrative.Node
	if cat == nil || e == nil {
		return nil
	}
	for _, id := range cat.IDs() {
		n := cat.Nodes[id]
		if n.Deleted && !opts.IncludeDeleted || n.SupersededBy != "" && !opts.IncludeSuperseded {
			continue
		}
		if e.Match(n, g) {
			out = append(out, n)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return Less(out[i], out[j]) })
	return out
}

// Less reports whether a comes before b in a view (view rendering, node
// graph design): pinned nodes first, then by tier — reference, working,
// no tier, off-context — then the most recently changed first, and
// between nodes changed at the same instant the smaller id first, so that
// the order never depends on the order nodes were read in.
func Less(a, b *narrative.Node) bool {
	if ra, rb := rank(a.Tier()), rank(b.Tier()); ra != rb {
		return ra < rb
	}
	if !a.Updated.Equal(b.Updated) {
		return a.Updated.After(b.Updated)
	}
	return a.ID < b.ID
}

// rank orders tiers. A node without a tier comes after the working tier
// and before off-context: it was never asked to load, but neither was it
// put away.
func rank(t narrative.Tier) int {
	switch t {
	case narrative.Pinned:
		return 0
	case narrative.Reference:
		return 1
	case narrative.Working:
		return 2
	case narrative.OffContext:
		return 4
	}
	return 3
}

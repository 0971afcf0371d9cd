package where

import (
	"github.com/ctx-dev/ctx/narrative"
)

// Graph answers what a node's own file cannot: facts about the other
// nodes of the narrative and the edges of the graph. Match calls it from
// the goroutine that calls Match, with ids of narrative nodes. Each method
// reports false for an id it does not know.
type Graph interface {
	// HasSummary reports whether a node of type summary that is not
	// deleted derives from id (names it in its derived-from header).
	HasSummary(id narrative.ID) bool
	// HasEdges reports whether the graph has an edge, of any label, from
	// or to id.
	HasEdges(id narrative.ID) bool
	// EdgeFrom reports whether the graph has an edge, of any label, from
	// from to to.
	EdgeFrom(from, to narrative.ID) bool
}

// Match reports whether the node n satisfies the expression. g answers the
// has:, from: and to: predicates; with a nil g they are false.
func (e *Expr) Match(n *narrative.Node, g Graph) bool { return e.root.match(n, g) }

func (o *boolOp) match(n *narrative.Node, g Graph) bool {
	for _, k := range o.kids {
		if k.match(n, g) == o.or {
			return o.or
		}
	}
	return !o.or
}

func (o *notOp) match(n *narrative.Node, g Graph) bool { return !o.x.match(n, g) }

func (p *typePred) match(n *narrative.Node, _ Graph) bool { return n.Type == p.t }

func (p *tagPred) match(n *narrative.Node, _ Graph) bool { return n.HasTag(p.tag) }

func (p *timePred) match(n *narrative.Node, _ Graph) bool {
	t := n.Created
	if p.updated {
		t = n.Updated
	}
	switch p.cmp {
	case cmpGt:
		return !t.Before(p.hi)
	case cmpGe:
		return !t.Before(p.lo)
	case cmpLt:
		return t.Before(p.lo)
	case cmpLe:
		return t.Before(p.hi)
	case cmpEq:
		return !t.Before(p.lo) && t.Before(p.hi)
	}
	return false
}

func (p *tokensPred) match(n *narrative.Node, _ Graph) bool {
	return compare(p.cmp, n.Tokens(), p.n)
}

// compare reports whether a c b.
func compare(c cmp, a, b int) bool {
	switch c {
	case cmpEq:
		return a == b
	case cmpLt:
		return a < b
	case cmpLe:
		return a <= b
	case cmpGt:
		return a > b
	case cmpGe:
		return a >= b
	}
	return false
}

func (p *hasPred) match(n *narrative.Node, g Graph) bool {
	switch {
	case g == nil:
		return false
	case p.edges:
		return g.HasEdges(n.ID)
	}
	return g.HasSummary(n.ID)
}

func (p *edgePred) match(n *narrative.Node, g Graph) bool {
	switch {
	case g == nil:
		return false
	case p.to:
		return g.EdgeFrom(n.ID, p.target())
	}
	return g.EdgeFrom(p.target(), n.ID)
}

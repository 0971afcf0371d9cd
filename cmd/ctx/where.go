package main

import (
	"errors"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/index"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/narrative/where"
	"github.com/ctx-dev/ctx/repo"
)

// parseWhere parses a --where expression; a syntax error is a usage
// error.
func parseWhere(app *App, cmd, expr string) (*where.Expr, error) {
	e, err := where.Parse(expr, app.Clock.Now())
	if err != nil {
		return nil, &usageError{err: whereErr(app, err), cmd: cmd}
	}
	return e, nil
}

// resolveWhere resolves the node ids of a --where expression in cat; an
// unknown or ambiguous id keeps its own code (E019, E017).
func resolveWhere(app *App, e *where.Expr, cat *narrative.Catalog) error {
	err := e.Resolve(func(prefix string) (narrative.ID, error) {
		n, err := cat.Resolve(prefix)
		if err != nil {
			return "", err
		}
		return n.ID, nil
	})
	return whereErr(app, err)
}

// whereErr wraps an error of package where for printing: with the
// expression and a caret under the column, except in JSON, whose message
// stays one line.
func whereErr(app *App, err error) error {
	var we *where.Error
	if !errors.As(err, &we) {
		return err
	}
	return &whereError{err: we, caret: !app.Globals.JSON}
}

// whereError is a --where error as the CLI prints it:
//
//	--where: column 15: expected a value after "tag:"
//	  type:decision tag:
//	                ^
type whereError struct {
	err   *where.Error
	caret bool
}

func (e *whereError) Error() string {
	s := "--where: " + e.err.Error()
	if e.caret {
		s += "\n  " + strings.ReplaceAll(e.err.Caret(), "\n", "\n  ")
	}
	return s
}

func (e *whereError) Unwrap() error { return e.err }

// whereGraph answers the graph predicates of a --where expression:
// has:summary from the catalog (the derived-from headers of summaries),
// has:edges, from: and to: from the index's graph segment (the same edges
// `ctx edges` shows: the commits' edge batches and code, and the working
// narrative's declared edges), opened only when the expression asks
// about edges. Close releases it.
type whereGraph struct {
	cat        *narrative.Catalog
	summarised map[narrative.ID]bool
	gx         *index.GraphIndex
	out        map[narrative.ID]map[index.NodeNum]bool // the nodes each node has an edge to, as asked
}

var _ where.Graph = (*whereGraph)(nil)

func newWhereGraph(app *App, r *repo.Repo, cat *narrative.Catalog, e *where.Expr) (*whereGraph, error) {
	summaries, edges := e.Needs()
	wg := &whereGraph{cat: cat}
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
		gx, err := index.OpenGraph(app.Ctx, r)
		if err != nil {
			return nil, err
		}
		wg.gx, wg.out = gx, map[narrative.ID]map[index.NodeNum]bool{}
	}
	return wg, nil
}

// Close releases the graph segment, if it was opened.
func (wg *whereGraph) Close() {
	if wg != nil && wg.gx != nil {
		wg.gx.Close()
	}
}

// num returns a narrative node's number in the graph segment.
func (wg *whereGraph) num(id narrative.ID) (index.NodeNum, bool) {
	typ := ""
	if n, ok := wg.cat.Nodes[id]; ok {
		typ = string(n.Type)
	}
	n, ok, err := wg.gx.Lookup(graph.NarrativeNode(typ, string(id)).Name())
	return n, ok && err == nil
}

// HasSummary reports whether a summary that is not deleted derives from id.
func (wg *whereGraph) HasSummary(id narrative.ID) bool { return wg.summarised[id] }

// HasEdges reports whether the graph has an edge from or to id.
func (wg *whereGraph) HasEdges(id narrative.ID) bool {
	if wg.gx == nil {
		return false
	}
	n, ok := wg.num(id)
	if !ok {
		return false
	}
	for _, out := range []bool{true, false} {
		if adj, err := wg.gx.Adjacent(n, out, graph.Low); err == nil && len(adj) > 0 {
			return true
		}
	}
	return false
}

// EdgeFrom reports whether the graph has an edge from from to to.
func (wg *whereGraph) EdgeFrom(from, to narrative.ID) bool {
	if wg.gx == nil {
		return false
	}
	set, ok := wg.out[from]
	if !ok {
		set = map[index.NodeNum]bool{}
		if n, ok := wg.num(from); ok {
			if adj, err := wg.gx.Adjacent(n, true, graph.Low); err == nil {
				for _, a := range adj {
					set[a.Node] = true
				}
			}
		}
		wg.out[from] = set
	}
	t, ok := wg.num(to)
	return ok && set[t]
}

package hook

import (
	"context"
	"time"

	"github.com/ctx-dev/ctx/index"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/narrative/view"
	"github.com/ctx-dev/ctx/narrative/where"
	"github.com/ctx-dev/ctx/repo"
)

// selectNodes returns the active nodes of cat that the filter expression
// q matches, highest priority first (view.Select), as ctx view render
// selects them.
func selectNodes(ctx context.Context, r *repo.Repo, cat *narrative.Catalog, q string, now time.Time) ([]*narrative.Node, error) {
	e, err := where.Parse(q, now)
	if err != nil {
		return nil, err
	}
	return selectExpr(ctx, r, cat, e)
}

// Recall returns the nodes a recall query q selects, as <ctx:recall>
// and the MCP server's recall tool select them: when q is a filter
// expression (docs/QUERY.md), the active nodes it matches, highest
// priority first; otherwise the active nodes whose content or tags hold
// every word of q, most recently changed first, with notFilter saying
// why q is not an expression. err is a failure to read the store or an
// id in q that names no node.
func Recall(ctx context.Context, r *repo.Repo, cat *narrative.Catalog, q string, now time.Time) (nodes []*narrative.Node, notFilter, err error) {
	e, perr := where.Parse(q, now)
	if perr != nil {
		return matchWords(cat, q), perr, nil
	}
	nodes, err = selectExpr(ctx, r, cat, e)
	return nodes, nil, err
}

func selectExpr(ctx context.Context, r *repo.Repo, cat *narrative.Catalog, e *where.Expr) ([]*narrative.Node, error) {
	if err := e.Resolve(func(prefix string) (narrative.ID, error) {
		n, err := cat.Resolve(prefix)
		if err != nil {
			return "", err
		}
		return n.ID, nil
	}); err != nil {
		return nil, err
	}
	g, err := index.NewWhereGraph(ctx, r, cat, e)
	if err != nil {
		return nil, err
	}
	defer g.Close()
	nodes := view.Select(cat, e, g, view.SelectOptions{})
	if err := g.Err(); err != nil {
		return nil, err // a filter read a damaged graph: not to be trusted
	}
	return nodes, nil
}

// narrativeEdges returns the edges between narrative nodes, for the
// "Depends on" lines of a rendering: the code's edges would cost a hook
// far more than they could add.
func narrativeEdges(ctx context.Context, r *repo.Repo, cat *narrative.Catalog) (view.Edges, error) {
	g, err := r.Graph(ctx, repo.GraphOptions{Catalog: cat, NoCode: true})
	if err != nil {
		return nil, err
	}
	return g, nil
}

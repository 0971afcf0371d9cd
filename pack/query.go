package pack

import (
	"context"
	"errors"

	"github.com/ctx-dev/ctx/index"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
	"github.com/ctx-dev/ctx/repo"
)

// QueryOptions say how Query opens what Build reads.
type QueryOptions struct {
	// Index configures the rebuild of a stale index (its progress).
	Index index.BuildOptions
	// Catalog loads the working narrative when the pack needs it; nil
	// means r.Narrative().Load. ctx query passes one that also warns
	// about narrative files that do not parse.
	Catalog func() (*narrative.Catalog, error)
}

// Query builds the pack for task from the store r, as ctx query does: it
// opens the index (rebuilding it first when stale), the graph segments
// unless opts.NoGraph, the working narrative when opts asks for it or for
// a Where filter (whose node ids it resolves), and reads files at the
// head of the working ref. ctx query and the MCP server's query tool both
// call it. A Where id that names no node is narrative.ErrNotFound (or
// ErrAmbiguous); bad options are ErrInvalidOptions, as from Build.
func Query(ctx context.Context, r *repo.Repo, task string, opts Options, q QueryOptions) (*Pack, error) {
	var cat *narrative.Catalog
	if opts.IncludeNarrative || opts.Where != nil {
		load := q.Catalog
		if load == nil {
			load = r.Narrative().Load
		}
		var err error
		if cat, err = load(); err != nil {
			return nil, err
		}
	}
	// A damaged index is rebuilt, the graph's segments with it when the
	// pack reads them, and the pack built again (index.Use).
	io := q.Index
	io.Graph = !opts.NoGraph
	if opts.Where != nil {
		if _, edges := opts.Where.Needs(); edges {
			io.Graph = true
		}
	}
	var p *Pack
	err := index.Use(ctx, r, io, func(ix *index.Index) (err error) {
		p, err = query(ctx, r, ix, cat, task, opts)
		return err
	})
	return p, err
}

func query(ctx context.Context, r *repo.Repo, ix *index.Index, cat *narrative.Catalog, task string, opts Options) (*Pack, error) {
	src := Source{Repo: r, Index: ix, Catalog: cat}
	if !opts.NoGraph {
		gx, err := index.OpenGraph(ctx, r)
		if err != nil {
			return nil, err
		}
		defer gx.Close()
		src.Graph = gx
	}
	var err error
	var wg *index.WhereGraph
	if opts.Where != nil {
		cat := src.Catalog
		if err := opts.Where.Resolve(func(prefix string) (narrative.ID, error) {
			n, err := cat.Resolve(prefix)
			if err != nil {
				return "", err
			}
			return n.ID, nil
		}); err != nil {
			return nil, err
		}
		if wg, err = index.NewWhereGraph(ctx, r, cat, opts.Where); err != nil {
			return nil, err
		}
		defer wg.Close()
		opts.WhereGraph = wg
	}
	if src.Head, err = HeadCommit(r); err != nil {
		return nil, err
	}
	p, err := Build(ctx, src, task, opts)
	if werr := wg.Err(); err == nil && werr != nil {
		return nil, werr // a filter read a damaged graph: not to be trusted
	}
	return p, err
}

// HeadCommit returns the commit a pack reads files from: the head of the
// ref HEAD names (the first of several, after a git merge that left them
// unreconciled); zero for a store without commits.
func HeadCommit(r *repo.Repo) (object.ID, error) {
	_, heads, err := r.WorkingHeads()
	if err != nil {
		if errors.Is(err, refs.ErrNotFound) {
			return object.Zero, nil // a ref with no head yet
		}
		return object.Zero, err
	}
	if len(heads) == 0 {
		return object.Zero, nil
	}
	return heads[0], nil
}

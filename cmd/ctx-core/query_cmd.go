package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/index"
	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/pack"
	"github.com/ctx-dev/ctx/repo"
)

// QueryCmd is `ctx query`.
type QueryCmd struct {
	Query             []string `arg:"" optional:"" placeholder:"TEXT" help:"What to retrieve context for, in natural language. Never parsed as syntax: quotes, colons and parentheses are text."`
	Where             string   `placeholder:"EXPR" help:"Only narrative nodes matching the filter expression (docs/QUERY.md), and no code: --where 'type:decision AND created:>7d'. Alone, every matching node, newest first; with TEXT, those the text ranks."`
	Budget            int      `placeholder:"TOKENS" help:"Token budget of the pack, the response's reserve included (default: [retrieval] default_budget of .ctx/config.toml, 16000). The rendered pack never exceeds it."`
	Reserve           int      `default:"-1" placeholder:"TOKENS" help:"Tokens kept for the response, out of the budget (-1: a quarter of the budget, at most 2048; 0: none)."`
	Depth             int      `placeholder:"N" help:"Graph expansion depth in edges (default: [retrieval] default_depth, 2)."`
	Format            string   `short:"f" placeholder:"FORMAT" help:"Rendering: json (the default of ctx query), markdown or text (the default of ctx debug pack). --json is --format json."`
	Output            string   `short:"o" placeholder:"FILE" help:"Write the pack to FILE (atomically) instead of stdout."`
	IncludeNarrative  bool     `name:"include-narrative" help:"Add the narrative: the active task, matching decisions and notes, the recent log (the default when [retrieval] include_narrative is true)."`
	NoNarrative       bool     `name:"no-narrative" help:"Leave the narrative out."`
	NoGraph           bool     `name:"no-graph" help:"Skip the graph expansion."`
	MinConfidence     string   `name:"min-confidence" default:"medium" enum:"high,medium,low" help:"Follow edges of this confidence or higher in the graph expansion: high, medium (default) or low."`
	Explain           bool     `help:"Say why each chunk is there: its ranks by each signal, the query terms it matched, the edge that reached it, and what the budget cut."`
	IncludeSuperseded bool     `name:"include-superseded" help:"Let superseded nodes in."`
}

// Validate checks the flags before the store is opened.
func (c *QueryCmd) Validate() error {
	switch {
	case c.Budget < 0:
		return fmt.Errorf("--budget %d: want a positive number of tokens", c.Budget)
	case c.Reserve < -1:
		return fmt.Errorf("--reserve %d: want a number of tokens, or -1 for the default", c.Reserve)
	case c.Depth < 0:
		return fmt.Errorf("--depth %d: want 0 or more", c.Depth)
	case c.IncludeNarrative && c.NoNarrative:
		return fmt.Errorf("--include-narrative or --no-narrative, not both")
	case strings.TrimSpace(strings.Join(c.Query, " ")) == "" && c.Where == "":
		return fmt.Errorf("give the query TEXT, a --where filter, or both")
	case c.Where != "" && c.NoNarrative:
		return fmt.Errorf("--where selects narrative nodes: it cannot go with --no-narrative")
	}
	if c.Format != "" {
		if _, err := pack.ParseFormat(c.Format); err != nil {
			return fmt.Errorf("--format %s: want json, markdown or text", c.Format)
		}
	}
	return nil
}

// Run builds the pack and writes it.
func (c *QueryCmd) Run(app *App, r *repo.Repo) error {
	return c.run(app, r, "query")
}

func (c *QueryCmd) run(app *App, r *repo.Repo, cmd string) error {
	opts := c.packOptions(app, r)
	if c.Where != "" {
		var err error
		if opts.Where, err = parseWhere(app, cmd, c.Where); err != nil {
			return err
		}
	}
	return runPack(app, r, strings.Join(c.Query, " "), opts, c.Output, cmd)
}

func (c *QueryCmd) packOptions(app *App, r *repo.Repo) pack.Options {
	f := pack.JSON
	if c.Format != "" {
		f, _ = pack.ParseFormat(c.Format) // checked by Validate
	}
	if app.Globals.JSON {
		f = pack.JSON
	}
	o := pack.Options{
		Budget: c.Budget, Format: f, Depth: c.Depth, NoGraph: c.NoGraph, Explain: c.Explain, MinConfidence: graph.Confidence(c.MinConfidence),
		IncludeNarrative: r.Config.Retrieval.IncludeNarrative, IncludeSuperseded: c.IncludeSuperseded, Now: app.Clock.Now(),
	}
	if o.Budget == 0 {
		o.Budget = r.Config.Retrieval.DefaultBudget
	}
	if o.Depth == 0 {
		o.Depth = r.Config.Retrieval.DefaultDepth
	}
	switch c.Reserve {
	case -1:
		o.Reserve = 0 // the default
	case 0:
		o.Reserve = -1 // none
	default:
		o.Reserve = c.Reserve
	}
	if c.IncludeNarrative {
		o.IncludeNarrative = true
	}
	if c.NoNarrative {
		o.IncludeNarrative = false
	}
	return o
}

// DebugPackCmd is `ctx debug pack`: ctx query with --explain, for a
// terminal by default.
type DebugPackCmd struct {
	QueryCmd
}

// Run builds the pack with its explanation.
func (c *DebugPackCmd) Run(app *App, r *repo.Repo) error {
	c.Explain = true
	if c.Format == "" {
		c.Format = "text"
	}
	return c.run(app, r, "debug pack")
}

// runPack builds a pack for task and writes it to out ("" for stdout).
func runPack(app *App, r *repo.Repo, task string, opts pack.Options, out, cmd string) error {
	p, err := buildPack(app, r, task, opts, cmd)
	if err != nil {
		return err
	}
	text, err := pack.Render(p, opts.Format)
	if err != nil {
		return err
	}
	if out == "" {
		_, err = fmt.Fprint(app.Stdout, text)
		return err
	}
	wd, err := app.wd()
	if err != nil {
		return err
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(wd, out)
	}
	if err := atomicfile.Write(out, []byte(text), 0o644); err != nil {
		return fmt.Errorf("--output %s: %w", out, err)
	}
	fmt.Fprintf(app.Stderr, "ctx: wrote %s: %d chunks, %d of %d tokens\n", out, len(p.Retrieved), p.TokenBudget.Used, p.TokenBudget.Total)
	return nil
}

// buildPack builds a pack for task (ctx query, ctx llm --query) with
// pack.Query, the function the MCP server's query tool calls too.
func buildPack(app *App, r *repo.Repo, task string, opts pack.Options, cmd string) (*pack.Pack, error) {
	bar := newProgress(app.Stderr, !app.Globals.JSON)
	bar.unit = "documents"
	p, err := pack.Query(app.Ctx, r, task, opts, pack.QueryOptions{
		Index:   index.BuildOptions{Progress: bar.update},
		Catalog: func() (*narrative.Catalog, error) { bar.done(); return loadCatalog(app, r) },
	})
	bar.done()
	if errors.Is(err, pack.ErrInvalidOptions) {
		return nil, &usageError{err: err, cmd: cmd}
	}
	return p, whereErr(app, err)
}

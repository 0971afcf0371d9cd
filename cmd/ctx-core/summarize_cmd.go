package main

import (
	"fmt"

	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/repo"
)

// SummarizeCmd is `ctx summarize`.
type SummarizeCmd struct {
	Sources        []string `arg:"" name:"id" help:"The nodes summarized (ids or unique prefixes)."`
	Content        string   `placeholder:"TEXT" help:"The summary; its first line is the title. Omit with --stdin."`
	Stdin          bool     `help:"Read the summary from standard input."`
	ArchiveSources bool     `name:"archive-sources" help:"Tag every source tier:off-context: kept and traceable, but out of composed contexts."`
	Tags           []string `short:"t" name:"tag" placeholder:"TAG" help:"A tag for the summary. Repeatable."`
	Stream         string   `placeholder:"STREAM" help:"main (default) or feature-<slug>."`
	secretsFlag
}

// Validate checks the flags before the store is locked.
func (c *SummarizeCmd) Validate() error {
	switch {
	case c.Stdin && c.Content != "":
		return fmt.Errorf("give --content or --stdin, not both")
	case !c.Stdin && c.Content == "":
		return fmt.Errorf("missing summary: give --content TEXT or --stdin")
	}
	for _, t := range c.Tags {
		if _, err := narrative.ParseTag(t); err != nil {
			return err
		}
	}
	_, err := narrative.StreamDir(c.Stream)
	return err
}

// Run adds a summary node derived from the sources (a derived_from edge to
// each, design §3.5 provenance), and with --archive-sources moves the
// sources off-context.
func (c *SummarizeCmd) Run(app *App, w *repo.Writer) error {
	cat, err := loadCatalog(app, w.Repo)
	if err != nil {
		return err
	}
	var sources []*narrative.Node
	seen := map[narrative.ID]bool{}
	for _, s := range c.Sources {
		n, err := cat.Resolve(s)
		if err != nil {
			return err
		}
		if n.Deleted {
			return fmt.Errorf("%w: %s is deleted; restore it first (ctx restore %s)", narrative.ErrInvalidID, n.ID, n.ID)
		}
		if !seen[n.ID] {
			seen[n.ID] = true
			sources = append(sources, n)
		}
	}
	content := c.Content
	if c.Stdin {
		if content, err = readContent(app.Stdin); err != nil {
			return err
		}
	}
	in := narrative.NewNode{Stream: c.Stream, Type: narrative.Summary, Content: c.screen(app, content), Tags: c.Tags}
	for _, n := range sources {
		in.DerivedFrom = append(in.DerivedFrom, n.ID)
	}
	sum, err := w.Narrative().Add(in)
	if sum == nil && err != nil {
		return err
	}
	if err != nil {
		fmt.Fprintf(app.Stderr, "ctx: warning: %s was added, but its journal line was not: %s\n", sum.ID, message(err))
	}
	archived := []narrative.ID{}
	if c.ArchiveSources {
		for _, n := range sources {
			if n.Tier() == narrative.OffContext {
				continue
			}
			if _, err := w.Narrative().Change(n, narrative.OpTag, "tier:off-context"); err != nil {
				return fmt.Errorf("summary %s added, but archiving %s failed (rerun ctx tag %s tier:off-context): %w", sum.ID, n.ID, n.ID, err)
			}
			archived = append(archived, n.ID)
		}
	}
	app.printf("%s\n", sum.ID)
	for _, id := range archived {
		if !app.Globals.JSON {
			fmt.Fprintf(app.Stderr, "archived %s (tier:off-context)\n", id)
		}
	}
	return app.emit(map[string]any{"summary": viewOf(w.Repo, sum), "archived": archived})
}

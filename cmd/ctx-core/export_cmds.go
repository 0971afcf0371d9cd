package main

import (
	"fmt"
	"io"
	"os"

	"github.com/ctx-dev/ctx/exchange"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/repo"
)

// ExportCmd is `ctx export`.
type ExportCmd struct {
	Query             string `placeholder:"EXPR" help:"Only nodes matching the filter expression, e.g. 'tag:project:x' (docs/QUERY.md)."`
	IncludeDeleted    bool   `name:"include-deleted" help:"Also deleted nodes."`
	IncludeSuperseded bool   `name:"include-superseded" help:"Also superseded nodes."`
}

// Run writes the export to standard output (docs/EXPORT.md).
func (c *ExportCmd) Run(app *App, r *repo.Repo) error {
	cat, err := loadCatalog(app, r)
	if err != nil {
		return err
	}
	opts := exchange.ExportOptions{Catalog: cat, IncludeDeleted: c.IncludeDeleted, IncludeSuperseded: c.IncludeSuperseded}
	if c.Query != "" {
		e, err := parseWhere(app, "export", c.Query)
		if err != nil {
			return err
		}
		if err := resolveWhere(app, e, cat); err != nil {
			return err
		}
		g, err := newWhereGraph(app, r, cat, e)
		if err != nil {
			return err
		}
		defer g.Close()
		opts.Match = func(n *narrative.Node) bool { return e.Match(n, g) }
	}
	f, err := exchange.Export(app.Ctx, r, opts)
	if err != nil {
		return err
	}
	return f.Encode(app.Stdout)
}

// ImportCmd is `ctx import`.
type ImportCmd struct {
	File         string `arg:"" optional:"" placeholder:"FILE" help:"The export file; standard input when omitted or -."`
	Merge        bool   `help:"Import into a store that has some of the nodes: identical ones are skipped, older ones updated, newer ones kept."`
	AllowSecrets bool   `name:"allow-secrets" help:"Import nodes and notes in which secrets are found (by default they fail the import)."`
	Message      string `short:"m" placeholder:"MSG" help:"Commit message (default: what was imported)."`
	Author       string `env:"CTX_AUTHOR" help:"Author recorded in the commit."`
}

// Run imports the file.
func (c *ImportCmd) Run(app *App, w *repo.Writer) error {
	var in io.Reader = app.Stdin
	if c.File != "" && c.File != "-" {
		fh, err := os.Open(c.File)
		if err != nil {
			return &usageError{err: fmt.Errorf("import: %w", err), cmd: "import"}
		}
		defer fh.Close()
		in = fh
	}
	f, err := exchange.Decode(in)
	if err != nil {
		return err
	}
	rep, err := exchange.Import(app.Ctx, w, f, exchange.ImportOptions{Merge: c.Merge, AllowSecrets: c.AllowSecrets, Message: c.Message, Author: c.Author})
	if err != nil {
		return err
	}
	app.printf("imported %d nodes: %d added, %d updated, %d skipped; %d edges added, %d present\n",
		len(f.Nodes), len(rep.Added), len(rep.Updated), len(rep.Skipped), rep.EdgesAdded, rep.EdgesPresent)
	for _, s := range rep.Skipped {
		app.printf("skipped %s: %s\n", s.ID, s.Reason)
	}
	if rep.Commit != nil {
		app.printf("commit %s\n", rep.Commit.Short())
	}
	return app.emit(rep)
}

// IngestCmd is `ctx ingest`.
type IngestCmd struct {
	File         string   `arg:"" placeholder:"FILE" help:"A Markdown or text document."`
	Tags         []string `short:"t" name:"tag" placeholder:"TAG" help:"A tag, namespace:value. Repeatable."`
	Title        string   `placeholder:"TITLE" help:"The node's title (default: the document's first-line heading, else the file's name)."`
	Stream       string   `placeholder:"STREAM" help:"main (default) or feature-<slug>."`
	MaxBytes     int64    `name:"max-bytes" placeholder:"N" help:"Refuse documents larger than N bytes (default 1 MiB, at most 8 MiB)."`
	AllowSecrets bool     `name:"allow-secrets" help:"Keep secrets found in the document, and ingest files of credentials (.env, *.pem); by default secrets are redacted and such files refused."`
	Message      string   `short:"m" placeholder:"MSG" help:"Commit message (default: ingest PATH)."`
	Author       string   `env:"CTX_AUTHOR" help:"Author recorded in the commit."`
}

// Validate checks the tags and the stream before the store is locked.
func (c *IngestCmd) Validate() error {
	if err := checkTags(c.Tags); err != nil {
		return err
	}
	_, err := narrative.StreamDir(c.Stream)
	return err
}

// Run makes the document a source node and prints its id.
func (c *IngestCmd) Run(app *App, w *repo.Writer) error {
	wd, err := app.wd()
	if err != nil {
		return err
	}
	res, err := exchange.Ingest(app.Ctx, w, exchange.IngestOptions{Path: c.File, Wd: wd, Title: c.Title, Tags: c.Tags,
		Stream: c.Stream, MaxBytes: c.MaxBytes, AllowSecrets: c.AllowSecrets, Message: c.Message, Author: c.Author})
	if err != nil {
		return err
	}
	for _, r := range res.Redacted {
		fmt.Fprintf(app.Stderr, "ctx: redacted a secret in the document (%s); --allow-secrets keeps it\n", r)
	}
	if res.Existing {
		fmt.Fprintf(app.Stderr, "ctx: %s already holds this document; nothing was written\n", res.Node.ID)
	}
	app.printf("%s\n", res.Node.ID)
	return app.emit(map[string]any{"node": viewOf(w.Repo, res.Node), "blob": res.Blob, "file": res.File,
		"existing": res.Existing, "redacted": res.Redacted, "commit": res.Commit})
}

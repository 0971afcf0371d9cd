package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/narrative/where"
	"github.com/ctx-dev/ctx/repo"
)

// ShowCmd is `ctx show`.
type ShowCmd struct {
	Node      string `arg:"" placeholder:"ID[@REV]" help:"Node id or unique prefix; ID@REV shows it as commit REV recorded it."`
	WithEdges bool   `name:"with-edges" help:"Also list the node's edges (as ctx edges does)."`
}

// Run prints the node.
func (c *ShowCmd) Run(app *App, r *repo.Repo) error {
	idArg, rev, atRev := strings.Cut(c.Node, "@")
	cat, err := loadCatalog(app, r)
	if err != nil {
		return err
	}
	n, err := cat.Resolve(idArg)
	if !atRev {
		if err != nil {
			return err
		}
		v := viewOf(r, n)
		if err := c.edges(app, r, "", cat, n, &v); err != nil {
			return err
		}
		if !app.Globals.JSON {
			printNode(app.Stdout, n)
			printNodeEdges(app, v.Edges)
		}
		return app.emit(v)
	}
	// ID@REV: the id may name a node whose file is gone today.
	var id narrative.ID
	var path string
	switch {
	case err == nil:
		id, path = n.ID, n.Path
	case errors.Is(err, narrative.ErrNotFound):
		if id, err = narrative.ParseID(idArg); err != nil {
			return fmt.Errorf("%w (a node no longer in the narrative needs its full id)", err)
		}
	default:
		return err
	}
	commit, err := r.Resolve(rev)
	if err != nil {
		return err
	}
	old, err := r.NodeAt(app.Ctx, commit, id, path)
	if err != nil {
		return fmt.Errorf("%s at %s: %w", id, commit.Short(), err)
	}
	v := viewOf(r, old)
	if err := c.edges(app, r, commit.String(), nil, old, &v); err != nil {
		return err
	}
	if !app.Globals.JSON {
		fmt.Fprintf(app.Stdout, "as recorded by commit %s\n", commit.Short())
		printNode(app.Stdout, old)
		printNodeEdges(app, v.Edges)
	}
	return app.emit(map[string]any{"commit": commit, "node": v})
}

// edges fills in the node's edges for --with-edges, from the graph at rev
// as it recorded it, or with rev "" from the current graph with the
// working narrative cat (already loaded: loading it again would repeat
// its warnings).
func (c *ShowCmd) edges(app *App, r *repo.Repo, rev string, cat *narrative.Catalog, n *narrative.Node, v *nodeView) error {
	if !c.WithEdges {
		return nil
	}
	var g *repo.Graph
	var err error
	if rev == "" {
		g, err = r.Graph(app.Ctx, repo.GraphOptions{Catalog: cat})
	} else {
		g, err = workingGraph(app, r, rev)
	}
	if err != nil {
		return err
	}
	rows := edgesOf(g, graph.NarrativeNode(string(n.Type), string(n.ID)), graph.Both, nil)
	v.Edges = &rows
	return nil
}

func printNodeEdges(app *App, rows *[]edgeRow) {
	if rows == nil {
		return
	}
	fmt.Fprintf(app.Stdout, "\nedges: %d\n", len(*rows))
	printEdgeRows(app.Stdout, *rows)
}

// ListCmd is `ctx list`.
type ListCmd struct {
	Type              []string `name:"type" placeholder:"TYPE" help:"Only nodes of this type. Repeatable."`
	Stream            []string `name:"stream" placeholder:"STREAM" help:"Only nodes of this stream (main, work, feature-<slug>). Repeatable."`
	Tag               []string `short:"t" name:"tag" placeholder:"TAG" help:"Only nodes with this tag. Repeatable (all must match)."`
	Since             string   `placeholder:"WHEN" help:"Only nodes created or changed since: 90m, 1h, 7d, 2w, 2026-01-20."`
	Where             string   `placeholder:"EXPR" help:"Only nodes matching the filter expression, e.g. 'type:decision tag:project:x created:>7d -has:summary' (docs/QUERY.md). Combines with the other filters."`
	Limit             int      `short:"n" placeholder:"N" help:"At most N nodes."`
	IncludeSuperseded bool     `name:"include-superseded" help:"Also superseded nodes."`
	IncludeDeleted    bool     `name:"include-deleted" help:"Also deleted nodes."`
}

// Validate checks the flags before the store is opened.
func (c *ListCmd) Validate() error {
	for _, t := range c.Type {
		if _, err := narrative.ParseType(t); err != nil {
			return err
		}
	}
	for _, t := range c.Tag {
		if _, err := narrative.ParseTag(t); err != nil {
			return err
		}
	}
	if c.Limit < 0 {
		return fmt.Errorf("--limit must not be negative")
	}
	return nil
}

// Run lists the nodes, most recently changed first.
func (c *ListCmd) Run(app *App, r *repo.Repo) error {
	f := narrative.Filter{Streams: c.Stream, Limit: c.Limit, IncludeSuperseded: c.IncludeSuperseded, IncludeDeleted: c.IncludeDeleted}
	for _, t := range c.Type {
		typ, _ := narrative.ParseType(t)
		f.Types = append(f.Types, typ)
	}
	for _, t := range c.Tag {
		tag, _ := narrative.ParseTag(t)
		f.Tags = append(f.Tags, tag)
	}
	if c.Since != "" {
		var err error
		if f.Since, err = narrative.ParseSince(c.Since, app.Clock.Now()); err != nil {
			return &usageError{err: err, cmd: "list"}
		}
	}
	var expr *where.Expr
	if c.Where != "" {
		var err error
		if expr, err = parseWhere(app, "list", c.Where); err != nil {
			return err
		}
	}
	cat, err := loadCatalog(app, r)
	if err != nil {
		return err
	}
	var nodes []*narrative.Node
	if expr == nil {
		nodes = cat.List(f)
	} else if nodes, err = c.filter(app, r, cat, f, expr); err != nil {
		return err
	}
	views := make([]nodeView, len(nodes))
	for i, n := range nodes {
		views[i] = viewOf(r, n)
		app.printf("%s\n", listLine(n))
	}
	return app.emit(views)
}

// filter lists the nodes f selects that match the --where expression e,
// in List's order.
func (c *ListCmd) filter(app *App, r *repo.Repo, cat *narrative.Catalog, f narrative.Filter, e *where.Expr) ([]*narrative.Node, error) {
	if err := resolveWhere(app, e, cat); err != nil {
		return nil, err
	}
	g, err := newWhereGraph(app, r, cat, e)
	if err != nil {
		return nil, err
	}
	defer g.Close()
	limit := f.Limit
	f.Limit = 0 // counted after the expression
	var out []*narrative.Node
	for _, n := range cat.List(f) {
		if limit > 0 && len(out) == limit {
			break
		}
		if e.Match(n, g) {
			out = append(out, n)
		}
	}
	return out, nil
}

// UpdateCmd is `ctx update`.
type UpdateCmd struct {
	Node    string   `arg:"" placeholder:"ID" help:"Node id or unique prefix."`
	Content string   `placeholder:"TEXT" help:"New content (first line: the title)."`
	Body    string   `placeholder:"TEXT" help:"With --content: more content after the title."`
	Stdin   bool     `help:"Read the new content from standard input."`
	Type    string   `placeholder:"TYPE" help:"New type."`
	Meta    []string `name:"meta" sep:"none" placeholder:"KEY=VALUE" help:"Set a metadata pair; KEY= removes it. Repeatable."`
	secretsFlag
}

// Validate checks that there is something to change.
func (c *UpdateCmd) Validate() error {
	if c.Content == "" && !c.Stdin && c.Type == "" && len(c.Meta) == 0 {
		return fmt.Errorf("nothing to update: give --content (or --stdin), --type or --meta")
	}
	if c.Content != "" && c.Stdin {
		return fmt.Errorf("give --content or --stdin, not both")
	}
	if c.Body != "" && c.Content == "" && !c.Stdin {
		return fmt.Errorf("--body goes with --content or --stdin")
	}
	if c.Type != "" {
		if _, err := narrative.ParseType(c.Type); err != nil {
			return err
		}
	}
	for _, m := range c.Meta {
		if _, _, err := narrative.ParseMeta(m); err != nil {
			return err
		}
	}
	return nil
}

// Run applies the changes.
func (c *UpdateCmd) Run(app *App, w *repo.Writer) error {
	_, n, err := resolveNode(app, w.Repo, c.Node)
	if err != nil {
		return err
	}
	sp := w.Narrative()
	content := c.Content
	if c.Stdin {
		if content, err = readContent(app.Stdin); err != nil {
			return err
		}
	}
	if c.Stdin || content != "" {
		if c.Body != "" {
			content += "\n\n" + c.Body
		}
		content = c.screen(app, content)
		if err := sp.Edit(n, content); err != nil {
			return err
		}
	}
	if c.Type != "" {
		t, _ := narrative.ParseType(c.Type)
		if t != n.Type {
			if _, err := sp.Change(n, narrative.OpType, string(t)); err != nil {
				return err
			}
		}
	}
	for _, m := range c.Meta {
		k, v, _ := narrative.ParseMeta(m)
		if n.Meta[k] == v {
			continue // already so
		}
		if _, err := sp.Change(n, narrative.OpMeta, k+"="+v); err != nil {
			return err
		}
	}
	return reshow(app, w.Repo, n)
}

// reshow prints a node's id (or, with --json, the node) after a change;
// Change and Edit keep the node up to date.
func reshow(app *App, r *repo.Repo, n *narrative.Node) error {
	app.printf("%s\n", n.ID)
	return app.emit(viewOf(r, n))
}

// DeleteCmd is `ctx delete`.
type DeleteCmd struct {
	Node    string `arg:"" placeholder:"ID" help:"Node id or unique prefix."`
	Cascade bool   `help:"Also delete the nodes derived from it (summaries made from it), recursively."`
}

// Run marks the node deleted; its file and its history stay.
func (c *DeleteCmd) Run(app *App, w *repo.Writer) error {
	cat, n, err := resolveNode(app, w.Repo, c.Node)
	if err != nil {
		return err
	}
	var g *repo.Graph
	if c.Cascade {
		if g, err = w.Graph(app.Ctx, repo.GraphOptions{Catalog: cat}); err != nil {
			return err
		}
	}
	todo := []*narrative.Node{n}
	seen := map[narrative.ID]bool{}
	var deleted []narrative.ID
	for len(todo) > 0 {
		x := todo[0]
		todo = todo[1:]
		if seen[x.ID] {
			continue
		}
		seen[x.ID] = true
		if x.Deleted {
			app.printf("%s was deleted already\n", x.ID)
		} else {
			if _, err := w.Narrative().Change(x, narrative.OpDelete, ""); err != nil {
				return err
			}
			deleted = append(deleted, x.ID)
			app.printf("deleted %s %s\n", x.ID, x.Title)
		}
		if c.Cascade {
			todo = append(todo, cat.DerivedFrom(x.ID)...)
			todo = append(todo, derivedInGraph(g, cat, x)...)
		}
	}
	if deleted == nil {
		deleted = []narrative.ID{}
	}
	return app.emit(map[string]any{"deleted": deleted})
}

// RestoreCmd is `ctx restore`.
type RestoreCmd struct {
	Node string `arg:"" placeholder:"ID" help:"Node id or unique prefix."`
}

// Run undoes a delete.
func (c *RestoreCmd) Run(app *App, w *repo.Writer) error {
	_, n, err := resolveNode(app, w.Repo, c.Node)
	if err != nil {
		return err
	}
	if n.Deleted {
		if _, err := w.Narrative().Change(n, narrative.OpRestore, ""); err != nil {
			return err
		}
	}
	return reshow(app, w.Repo, n)
}

// TagCmd is `ctx tag`.
type TagCmd struct {
	Node string   `arg:"" placeholder:"ID" help:"Node id or unique prefix."`
	Tags []string `arg:"" name:"tag" help:"Tags to add (a tier tag replaces the node's tier)."`
}

// Validate checks the tags.
func (c *TagCmd) Validate() error { return checkTags(c.Tags) }

// Run adds the tags; tags the node has already are left alone.
func (c *TagCmd) Run(app *App, w *repo.Writer) error {
	return retag(app, w, c.Node, c.Tags, narrative.OpTag)
}

// UntagCmd is `ctx untag`.
type UntagCmd struct {
	Node string   `arg:"" placeholder:"ID" help:"Node id or unique prefix."`
	Tags []string `arg:"" name:"tag" help:"Tags to remove."`
}

// Validate checks the tags.
func (c *UntagCmd) Validate() error { return checkTags(c.Tags) }

// Run removes the tags; tags the node lacks are left alone.
func (c *UntagCmd) Run(app *App, w *repo.Writer) error {
	return retag(app, w, c.Node, c.Tags, narrative.OpUntag)
}

func checkTags(tags []string) error {
	for _, t := range tags {
		if _, err := narrative.ParseTag(t); err != nil {
			return err
		}
	}
	return nil
}

func retag(app *App, w *repo.Writer, id string, tags []string, op narrative.Op) error {
	_, n, err := resolveNode(app, w.Repo, id)
	if err != nil {
		return err
	}
	for _, t := range tags {
		tag, _ := narrative.ParseTag(t)
		if n.HasTag(tag) == (op == narrative.OpTag) {
			continue // idempotent
		}
		if _, err := w.Narrative().Change(n, op, tag); err != nil {
			return err
		}
	}
	return reshow(app, w.Repo, n)
}

// TagsCmd is `ctx tags`.
type TagsCmd struct {
	Prefix string `placeholder:"P" help:"Only tags starting with P, e.g. task: or tier:."`
}

// Run lists the tags of active nodes with their counts.
func (c *TagsCmd) Run(app *App, r *repo.Repo) error {
	cat, err := loadCatalog(app, r)
	if err != nil {
		return err
	}
	tags := cat.Tags(strings.ToLower(c.Prefix))
	for _, t := range tags {
		app.printf("%5d  %s\n", t.Nodes, t.Tag)
	}
	return app.emit(tags)
}

// SupersedeCmd is `ctx supersede`.
type SupersedeCmd struct {
	Old  string `arg:"" placeholder:"OLD" help:"The node replaced."`
	New  string `arg:"" optional:"" placeholder:"NEW" help:"The node replacing it."`
	Undo bool   `help:"Undo: OLD is no longer superseded (give no NEW)."`
}

// Validate checks the arguments.
func (c *SupersedeCmd) Validate() error {
	if c.Undo != (c.New == "") {
		return fmt.Errorf("give OLD NEW, or --undo OLD")
	}
	return nil
}

// Run marks OLD superseded by NEW: OLD drops out of default listings and
// queries, and stays in history.
func (c *SupersedeCmd) Run(app *App, w *repo.Writer) error {
	cat, old, err := resolveNode(app, w.Repo, c.Old)
	if err != nil {
		return err
	}
	if c.Undo {
		if old.SupersededBy != "" {
			if _, err := w.Narrative().Change(old, narrative.OpUnsupersede, ""); err != nil {
				return err
			}
		}
		app.printf("%s is not superseded\n", old.ID)
		return app.emit(map[string]any{"old": old.ID, "new": nil})
	}
	nw, err := cat.Resolve(c.New)
	if err != nil {
		return err
	}
	switch {
	case old.ID == nw.ID:
		return &usageError{err: fmt.Errorf("a node cannot supersede itself"), cmd: "supersede"}
	case nw.Deleted:
		return &usageError{err: fmt.Errorf("%s is deleted: restore it first (ctx restore %s)", nw.ID, nw.ID), cmd: "supersede"}
	}
	// No cycles: NEW must not be (transitively) superseded by OLD. The
	// chain may already loop (two teammates superseded each other's
	// nodes): stop at a node seen before.
	seen := map[narrative.ID]bool{}
	for x := nw; x.SupersededBy != "" && !seen[x.ID]; {
		seen[x.ID] = true
		if x.SupersededBy == old.ID {
			return &usageError{err: fmt.Errorf("%s is already superseded by %s: that would make a cycle", nw.ID, old.ID), cmd: "supersede"}
		}
		next, ok := cat.Nodes[x.SupersededBy]
		if !ok {
			break
		}
		x = next
	}
	if old.SupersededBy != nw.ID {
		if _, err := w.Narrative().Change(old, narrative.OpSupersede, string(nw.ID)); err != nil {
			return err
		}
	}
	app.printf("%s superseded by %s\n", old.ID, nw.ID)
	return app.emit(map[string]any{"old": old.ID, "new": nw.ID})
}

// derivedInGraph returns the narrative nodes with a derived_from edge to
// n in the graph (ctx link X N --type derived_from), not deleted.
func derivedInGraph(g *repo.Graph, cat *narrative.Catalog, n *narrative.Node) []*narrative.Node {
	i, ok := g.Lookup(graph.NarrativeNode(string(n.Type), string(n.ID)).ID)
	if !ok {
		return nil
	}
	var out []*narrative.Node
	for _, e := range g.In(i) {
		if g.Label(e) != graph.DerivedFrom {
			continue
		}
		from, _ := g.Ends(e)
		if d := g.NarrativeNode(g.Node(from).ID); d != nil && !d.Deleted {
			out = append(out, cat.Nodes[d.ID])
		}
	}
	return out
}

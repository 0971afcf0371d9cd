package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// nodeHelp is the help of every argument that names a graph node.
const nodeHelp = "A node: narrative node id or prefix, commit id prefix, project file or directory path, node title, or symbol; or kind:NAME with kind file, dir, item, commit or node."

// edgeFlags are the evidence flags of relate and link.
type edgeFlags struct {
	Confidence string `default:"high" enum:"high,medium,low" help:"How sure the edge is: high, medium or low."`
	Evidence   string `placeholder:"TEXT" help:"Why the edge holds; stored as a blob the edge's evidence names."`
	Span       string `placeholder:"START:END" help:"Source lines supporting the edge: 10:20, or with columns 10.5:20.3."`
	Message    string `short:"m" placeholder:"MSG" help:"Commit message (default: the edge)."`
	Author     string `env:"CTX_AUTHOR" help:"Author recorded in the commit."`
}

// parseSpan reads START:END, each LINE or LINE.COL.
func parseSpan(s string) (*graph.Span, error) {
	if s == "" {
		return nil, nil
	}
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		a, b, ok = strings.Cut(s, "-")
	}
	if !ok {
		b = a
	}
	sl, sc, err1 := parsePos(a)
	el, ec, err2 := parsePos(b)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("--span %q: want START:END, each a line or line.column (10:20, 10.5:20.3)", s)
	}
	sp := &graph.Span{StartLine: sl, StartCol: sc, EndLine: el, EndCol: ec}
	if sl == 0 || el < sl || el == sl && ec != 0 && ec < sc {
		return nil, fmt.Errorf("--span %q: lines start at 1 and the end must not come before the start", s)
	}
	return sp, nil
}

func parsePos(s string) (line, col uint32, err error) {
	l, c, hasCol := strings.Cut(strings.TrimSpace(s), ".")
	n, err := strconv.ParseUint(l, 10, 32)
	if err != nil {
		return 0, 0, err
	}
	if hasCol {
		m, err := strconv.ParseUint(c, 10, 32)
		if err != nil {
			return 0, 0, err
		}
		return uint32(n), uint32(m), nil
	}
	return uint32(n), 0, nil
}

// Validate checks the flags before the store is locked.
func (f *edgeFlags) Validate() error {
	_, err := parseSpan(f.Span)
	return err
}

// edge builds the edge a person asserts.
func (f *edgeFlags) edge(from, to graph.NodeID, l graph.Label) graph.Edge {
	sp, _ := parseSpan(f.Span)
	return graph.Edge{From: from, To: to, Label: l, Evidence: graph.Evidence{
		Tool: graph.ToolHuman, Confidence: graph.Confidence(f.Confidence), Span: sp,
	}}
}

// workingGraph builds the graph at the current heads with the working
// narrative, warning about narrative problems.
func workingGraph(app *App, r *repo.Repo, at string) (*repo.Graph, error) {
	opts := repo.GraphOptions{}
	if at != "" {
		id, err := r.Resolve(at)
		if err != nil {
			return nil, err
		}
		if _, err := r.ReadCommit(id); err != nil {
			if errors.Is(err, repo.ErrNotCommit) {
				// A tree or blob given for --at is a mistake in the
				// command line, not damage to the store.
				return nil, &usageError{err: fmt.Errorf("--at %s: %w", at, err)}
			}
			return nil, err
		}
		opts.At = []object.ID{id}
		// Name nodes the commit's narrative lacks (committed later) as
		// the working narrative does.
		if cat, err := r.Narrative().Load(); err == nil {
			opts.Names = cat
		}
	} else {
		cat, err := loadCatalog(app, r)
		if err != nil {
			return nil, err
		}
		opts.Catalog = cat
	}
	return r.Graph(app.Ctx, opts)
}

// resolveNodes resolves node arguments against g.
func resolveNodes(app *App, r *repo.Repo, g *repo.Graph, args ...string) ([]graph.NodeID, error) {
	wd, err := app.wd()
	if err != nil {
		return nil, err
	}
	out := make([]graph.NodeID, len(args))
	for i, a := range args {
		if out[i], err = r.ResolveNode(g, a, wd); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// resolveNodesAt resolves node arguments for a command that reads the graph
// at --at REV (g; at is "" for the current graph): against g first, so that
// a path deleted since or a title as REV recorded it still names its node,
// then against the current graph. A node that the working narrative has
// but REV never recorded is named by its id: relate and unlink commit edge
// batches without the narrative, so the graph at a commit often has edges
// of nodes its recorded narrative lacks.
func resolveNodesAt(app *App, r *repo.Repo, g *repo.Graph, at string, args ...string) ([]graph.NodeID, error) {
	out, err := resolveNodes(app, r, g, args...)
	if err == nil || at == "" || !errors.Is(err, repo.ErrNodeNotFound) && !errors.Is(err, narrative.ErrNotFound) {
		return out, err
	}
	cur, cerr := r.Graph(app.Ctx, repo.GraphOptions{}) // the working narrative, its warnings given already
	if cerr != nil {
		return nil, err
	}
	if out, cerr = resolveNodes(app, r, cur, args...); cerr != nil {
		return nil, err
	}
	return out, nil
}

// RelateCmd is `ctx relate` (design §13.2.3).
type RelateCmd struct {
	From  string `arg:"" placeholder:"FROM" help:"${node_help}"`
	Label string `arg:"" placeholder:"LABEL" help:"The relation: Imports, References, Calls, Mentions, DerivedFrom, DEPENDS_ON, … (case, '_' and '-' do not matter)."`
	To    string `arg:"" placeholder:"TO" help:"${node_help}"`
	edgeFlags
}

// Validate checks the arguments before the store is locked.
func (c *RelateCmd) Validate() error {
	if _, err := graph.ParseLabel(c.Label); err != nil {
		return err
	}
	return c.edgeFlags.Validate()
}

// Run writes the edge in a batch and a commit.
func (c *RelateCmd) Run(app *App, w *repo.Writer) error {
	l, _ := graph.ParseLabel(c.Label)
	return link(app, w, "relate", c.From, c.To, l, &c.edgeFlags)
}

// LinkCmd is `ctx link`: relate in the knowledge graph's argument order.
type LinkCmd struct {
	From string `arg:"" placeholder:"FROM" help:"${node_help}"`
	To   string `arg:"" placeholder:"TO" help:"${node_help}"`
	Type string `required:"" placeholder:"LABEL" help:"The relation: DERIVED_FROM, DEPENDS_ON, SUPERSEDES, RELATES_TO, CHILD_OF, or any label of ctx relate."`
	edgeFlags
}

// Validate checks the arguments before the store is locked. A missing
// --type is left to kong, which says the flag is missing (kong runs
// Validate before it checks required flags).
func (c *LinkCmd) Validate() error {
	if c.Type == "" {
		return c.edgeFlags.Validate()
	}
	if _, err := graph.ParseLabel(c.Type); err != nil {
		return err
	}
	return c.edgeFlags.Validate()
}

// Run writes the edge in a batch and a commit.
func (c *LinkCmd) Run(app *App, w *repo.Writer) error {
	l, err := graph.ParseLabel(c.Type) // --type '' passed Validate
	if err != nil {
		return &usageError{err: err, cmd: "link"}
	}
	return link(app, w, "link", c.From, c.To, l, &c.edgeFlags)
}

// link writes the edge fromArg l toArg for the command cmd (relate or
// link).
func link(app *App, w *repo.Writer, cmd, fromArg, toArg string, l graph.Label, f *edgeFlags) error {
	g, err := workingGraph(app, w.Repo, "")
	if err != nil {
		return err
	}
	ns, err := resolveNodes(app, w.Repo, g, fromArg, toArg)
	if err != nil {
		return err
	}
	if ns[0].ID == ns[1].ID {
		return &usageError{err: fmt.Errorf("%s and %s are the same node: an edge joins two nodes", fromArg, toArg), cmd: cmd}
	}
	for _, n := range ns {
		if info := g.Describe(n); info.State == "deleted" {
			fmt.Fprintf(app.Stderr, "ctx: warning: %s is deleted (ctx restore %s brings it back); relating it anyway\n", info.Name(), info.Key)
		}
	}
	res, err := w.Link(app.Ctx, g, []graph.Edge{f.edge(ns[0], ns[1], l)}, repo.EdgeOptions{Message: f.Message, Author: f.Author, Note: f.Evidence})
	if err != nil {
		return err
	}
	for _, e := range res.Present {
		app.printf("%s: already present\n", e)
	}
	if res.Commit != nil {
		app.printf("[%s %s] %s\n", strings.TrimPrefix(res.Commit.Ref, "refs/"), res.Commit.ID.Short(), firstLine(res.Commit.Commit.Message))
	}
	return app.emit(res)
}

// UnlinkCmd is `ctx unlink`.
type UnlinkCmd struct {
	From    string `arg:"" placeholder:"FROM" help:"${node_help}"`
	To      string `arg:"" placeholder:"TO" help:"${node_help}"`
	Type    string `placeholder:"LABEL" help:"Only edges with this label (default: every edge from FROM to TO)."`
	Reason  string `placeholder:"TEXT" help:"Why the edge no longer holds; stored as a blob the tombstone's evidence names."`
	Message string `short:"m" placeholder:"MSG" help:"Commit message (default: the edges removed)."`
	Author  string `env:"CTX_AUTHOR" help:"Author recorded in the commit."`
}

// Validate checks the arguments before the store is locked.
func (c *UnlinkCmd) Validate() error {
	if c.Type != "" {
		if _, err := graph.ParseLabel(c.Type); err != nil {
			return err
		}
	}
	return nil
}

// Run writes tombstones for the edges in a batch and a commit.
func (c *UnlinkCmd) Run(app *App, w *repo.Writer) error {
	g, err := workingGraph(app, w.Repo, "")
	if err != nil {
		return err
	}
	ns, err := resolveNodes(app, w.Repo, g, c.From, c.To)
	if err != nil {
		return err
	}
	var labels []graph.Label
	if c.Type != "" {
		l, _ := graph.ParseLabel(c.Type)
		labels = append(labels, l)
	}
	res, err := w.Unlink(app.Ctx, g, ns[0], ns[1], labels, repo.EdgeOptions{Message: c.Message, Author: c.Author, Note: c.Reason})
	if err != nil {
		return err
	}
	for _, e := range res.Kept {
		app.printf("%s: kept: declared by narrative/%s (%s)\n", e, e.Origin.Narrative, howToUndeclare(e.Label))
	}
	if res.Commit != nil {
		app.printf("[%s %s] %s\n", strings.TrimPrefix(res.Commit.Ref, "refs/"), res.Commit.ID.Short(), firstLine(res.Commit.Commit.Message))
	} else if len(res.Kept) == 0 {
		what := "no edge"
		if c.Type != "" {
			what = "no " + string(labels[0]) + " edge"
		}
		app.printf("%s from %s to %s: nothing to unlink\n", what, g.Describe(ns[0]).Name(), g.Describe(ns[1]).Name())
	}
	return app.emit(res)
}

// howToUndeclare says how to remove an edge a narrative node declares.
func howToUndeclare(l graph.Label) string {
	switch l {
	case graph.Supersedes:
		return "undo with ctx supersede --undo"
	case graph.DerivedFrom:
		return "remove the id from the node's derived-from header"
	}
	return "remove the mention from the node's body"
}

// EdgesCmd is `ctx edges`.
type EdgesCmd struct {
	Node      string   `arg:"" placeholder:"NODE" help:"${node_help}"`
	Direction string   `default:"both" enum:"in,out,both" help:"in, out or both."`
	Label     []string `short:"l" name:"label" placeholder:"LABEL" help:"Only edges with this label. Repeatable."`
	At        string   `placeholder:"REV" help:"The graph as commit REV recorded it (its batches and narrative)."`
}

// Validate checks the labels.
func (c *EdgesCmd) Validate() error {
	_, err := parseLabels(c.Label)
	return err
}

func parseLabels(ss []string) ([]graph.Label, error) {
	var out []graph.Label
	for _, s := range ss {
		l, err := graph.ParseLabel(s)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// edgeRow is an edge of a listing, with the side of the node it is on.
type edgeRow = repo.NodeEdge

// Run lists the node's edges.
func (c *EdgesCmd) Run(app *App, r *repo.Repo) error {
	g, err := workingGraph(app, r, c.At)
	if err != nil {
		return err
	}
	ns, err := resolveNodesAt(app, r, g, c.At, c.Node)
	if err != nil {
		return err
	}
	labels, _ := parseLabels(c.Label)
	dir, _ := graph.ParseDirection(c.Direction)
	rows := edgesOf(g, ns[0], dir, labels)
	if app.Globals.JSON {
		return app.emit(map[string]any{"node": g.Describe(ns[0]), "edges": rows})
	}
	out := bufio.NewWriter(app.Stdout)
	self := g.Describe(ns[0])
	fmt.Fprintf(out, "%s%s: %d edge(s)\n", self.Name(), titled(self), len(rows))
	printEdgeRows(out, rows)
	return out.Flush()
}

// edgesOf returns the edges at node n, outgoing first.
func edgesOf(g *repo.Graph, n graph.NodeID, dir graph.Direction, labels []graph.Label) []edgeRow {
	return g.EdgesOf(n, dir, labels)
}

func printEdgeRows(out io.Writer, rows []edgeRow) {
	for _, r := range rows {
		other, arrow := r.To, "->"
		if r.Direction == "in" {
			other, arrow = r.From, "<-"
		}
		fmt.Fprintf(out, "  %s %-16s %s%s  [%s]\n", arrow, r.Label, other.Name(), titled(other), provenance(r.EdgeView))
	}
}

// titled returns ` "Title"` and a state mark for a narrative node.
func titled(n repo.NodeInfo) string {
	s := ""
	if n.Title != "" {
		s = fmt.Sprintf(" %q", narrative.Truncate(n.Title, 60))
	}
	if n.State != "" {
		s += " (" + n.State + ")"
	}
	return s
}

// provenance is an edge's evidence in a few words.
func provenance(v repo.EdgeView) string {
	parts := []string{string(v.Evidence.Tool), string(v.Evidence.Confidence)}
	if v.Origin.Narrative != "" {
		parts = append(parts, "narrative/"+v.Origin.Narrative)
	} else if v.Origin.File != "" {
		parts = append(parts, "code of "+v.Origin.File)
	} else if v.Origin.Derived != "" {
		parts = append(parts, v.Origin.Derived)
	} else if v.Evidence.CommitID != nil {
		parts = append(parts, "commit "+v.Evidence.CommitID.Short())
	}
	if s := v.Evidence.Span; s != nil {
		parts = append(parts, fmt.Sprintf("lines %d-%d", s.StartLine, s.EndLine))
	}
	if v.Evidence.BlobID != nil && v.Origin.File == "" {
		parts = append(parts, "evidence "+v.Evidence.BlobID.Short())
	}
	return strings.Join(parts, ", ")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TraceCmd is `ctx trace`.
type TraceCmd struct {
	Node    string `arg:"" placeholder:"NODE" help:"${node_help}"`
	Reverse bool   `help:"Show what derives from or depends on the node instead."`
	Depth   int    `placeholder:"N" help:"At most N edges away (default: no limit)."`
	At      string `placeholder:"REV" help:"The graph as commit REV recorded it."`
}

// Validate checks the flags.
func (c *TraceCmd) Validate() error {
	if c.Depth < 0 {
		return fmt.Errorf("--depth must not be negative")
	}
	return nil
}

// traceRow is a node a walk reached.
type traceRow struct {
	Depth int           `json:"depth"`
	Via   repo.EdgeView `json:"via"`
	Node  repo.NodeInfo `json:"node"`
	Out   bool          `json:"forward"` // the edge was followed from → to
}

// Run prints the provenance tree: what the node derives from and depends
// on, recursively (or with --reverse what derives from or depends on it).
func (c *TraceCmd) Run(app *App, r *repo.Repo) error {
	dir := graph.Out
	if c.Reverse {
		dir = graph.In
	}
	return walkCmd(app, r, c.At, c.Node, dir, c.Depth, []graph.Label{graph.DerivedFrom, graph.DependsOn})
}

// RelatedCmd is `ctx related`.
type RelatedCmd struct {
	Node      string   `arg:"" placeholder:"NODE" help:"${node_help}"`
	Depth     int      `default:"2" placeholder:"N" help:"At most N edges away (0: no limit)."`
	Label     []string `short:"l" name:"label" placeholder:"LABEL" help:"Only follow edges with this label. Repeatable."`
	Direction string   `default:"both" enum:"in,out,both" help:"Follow edges in, out or both ways."`
	At        string   `placeholder:"REV" help:"The graph as commit REV recorded it."`
}

// Validate checks the flags.
func (c *RelatedCmd) Validate() error {
	if c.Depth < 0 {
		return fmt.Errorf("--depth must not be negative")
	}
	_, err := parseLabels(c.Label)
	return err
}

// Run prints the nodes within --depth edges.
func (c *RelatedCmd) Run(app *App, r *repo.Repo) error {
	labels, _ := parseLabels(c.Label)
	dir, _ := graph.ParseDirection(c.Direction)
	return walkCmd(app, r, c.At, c.Node, dir, c.Depth, labels)
}

// walkCmd prints the nodes a walk from a node reaches as a tree: each under
// the node it was reached from.
func walkCmd(app *App, r *repo.Repo, at, arg string, dir graph.Direction, depth int, labels []graph.Label) error {
	g, err := workingGraph(app, r, at)
	if err != nil {
		return err
	}
	ns, err := resolveNodesAt(app, r, g, at, arg)
	if err != nil {
		return err
	}
	start := g.Describe(ns[0])
	rows := []traceRow{}
	var steps []graph.Step
	if i, ok := g.Lookup(ns[0].ID); ok {
		steps = g.Walk(i, dir, depth, labels)
	}
	for _, s := range steps {
		rows = append(rows, traceRow{Depth: s.Depth, Via: g.View(s.Edge), Node: g.Describe(g.Node(s.Node)), Out: s.Out})
	}
	if app.Globals.JSON {
		return app.emit(map[string]any{"node": start, "reached": rows})
	}
	out := bufio.NewWriter(app.Stdout)
	fmt.Fprintf(out, "%s%s\n", start.Name(), titled(start))
	children := map[int32][]int{}
	for k, s := range steps {
		children[s.From] = append(children[s.From], k)
	}
	type item struct{ step, indent int }
	var stack []item
	root, _ := g.Lookup(ns[0].ID)
	push := func(from int32, indent int) {
		kids := children[from]
		for k := len(kids) - 1; k >= 0; k-- {
			stack = append(stack, item{kids[k], indent})
		}
	}
	if len(steps) > 0 {
		push(root, 1)
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		s, row := steps[it.step], rows[it.step]
		arrow := "->"
		if !s.Out {
			arrow = "<-"
		}
		fmt.Fprintf(out, "%s%s %s %s%s\n", strings.Repeat("  ", it.indent), arrow, row.Via.Label, row.Node.Name(), titled(row.Node))
		push(s.Node, it.indent+1)
	}
	if len(steps) == 0 {
		fmt.Fprintln(out, "  (nothing reached)")
	}
	return out.Flush()
}

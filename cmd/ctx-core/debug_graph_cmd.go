package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/repo"
)

// DebugGraphCmd is `ctx debug graph`.
type DebugGraphCmd struct {
	Format string   `default:"text" enum:"text,dot,json" help:"text (one edge per line), dot (Graphviz) or json."`
	SCC    bool     `name:"scc" help:"Report the strongly connected components: cycles, and the DAG of components (kept in .ctx/DERIVED/)."`
	At     string   `placeholder:"REV" help:"The graph as commit REV recorded it (default: the current heads and the working narrative)."`
	Label  []string `short:"l" name:"label" placeholder:"LABEL" help:"Only edges with this label. Repeatable."`
}

// Validate checks the labels.
func (c *DebugGraphCmd) Validate() error {
	_, err := parseLabels(c.Label)
	return err
}

// graphJSON is the graph as --format json prints it.
type graphJSON struct {
	Heads   []string        `json:"heads"`
	Nodes   []repo.NodeInfo `json:"nodes"`
	Edges   []repo.EdgeView `json:"edges"`
	Removed int             `json:"removed"` // edges tombstones removed
}

// Run exports the graph or reports its components.
func (c *DebugGraphCmd) Run(app *App, r *repo.Repo) error {
	g, err := workingGraph(app, r, c.At)
	if err != nil {
		return err
	}
	labels, _ := parseLabels(c.Label)
	if c.SCC {
		return c.scc(app, r, g, labels)
	}
	mask := func(e int32) bool {
		if len(labels) == 0 {
			return true
		}
		for _, l := range labels {
			if g.Label(e) == l {
				return true
			}
		}
		return false
	}
	// With --label, only the nodes of the edges kept.
	used := make([]bool, g.Len())
	nodes := 0
	for e := int32(0); e < int32(g.EdgeCount()); e++ {
		if mask(e) {
			from, to := g.Ends(e)
			for _, n := range []int32{from, to} {
				if !used[n] {
					used[n] = true
					nodes++
				}
			}
		}
	}
	if len(labels) == 0 {
		for i := range used {
			used[i] = true // nodes without edges, too
		}
		nodes = g.Len()
	}
	if app.Globals.JSON || c.Format == "json" {
		out := graphJSON{Heads: []string{}, Nodes: []repo.NodeInfo{}, Edges: []repo.EdgeView{}, Removed: g.Removed}
		for _, h := range g.Heads {
			out.Heads = append(out.Heads, h.String())
		}
		for i := int32(0); i < int32(g.Len()); i++ {
			if used[i] {
				out.Nodes = append(out.Nodes, g.Describe(g.Node(i)))
			}
		}
		for e := int32(0); e < int32(g.EdgeCount()); e++ {
			if mask(e) {
				out.Edges = append(out.Edges, g.View(e))
			}
		}
		app.Globals.JSON = true
		return app.emit(out)
	}
	w := bufio.NewWriter(app.Stdout)
	if c.Format == "dot" {
		writeDot(w, g, used, mask)
		return w.Flush()
	}
	n := 0
	for e := int32(0); e < int32(g.EdgeCount()); e++ {
		if mask(e) {
			v := g.View(e)
			fmt.Fprintf(w, "%s %s %s  [%s]\n", v.From.Name(), v.Label, v.To.Name(), provenance(v))
			n++
		}
	}
	fmt.Fprintf(w, "%d node(s), %d edge(s); %d edge batch(es), %d edge(s) unlinked\n", nodes, n, g.Batches, g.Removed)
	return w.Flush()
}

// writeDot writes the graph in Graphviz's DOT language.
func writeDot(w io.Writer, g *repo.Graph, used []bool, keep func(int32) bool) {
	fmt.Fprintln(w, "digraph ctx {")
	fmt.Fprintln(w, "  rankdir=LR;")
	fmt.Fprintln(w, "  node [shape=box, fontname=\"Helvetica\", fontsize=10];")
	fmt.Fprintln(w, "  edge [fontname=\"Helvetica\", fontsize=9];")
	for i := int32(0); i < int32(g.Len()); i++ {
		if !used[i] {
			continue
		}
		info := g.Describe(g.Node(i))
		label := info.Name()
		if info.Title != "" {
			label += "\n" + info.Title
		}
		style := ""
		if info.State != "" {
			style = ", style=dashed"
		}
		fmt.Fprintf(w, "  n%d [label=%s%s];\n", i, dotQuote(label), style)
	}
	for e := int32(0); e < int32(g.EdgeCount()); e++ {
		if !keep(e) {
			continue
		}
		from, to := g.Ends(e)
		style := ""
		if g.Edge(e).Evidence.Confidence != graph.High {
			style = ", style=dashed"
		}
		fmt.Fprintf(w, "  n%d -> n%d [label=%s%s];\n", from, to, dotQuote(string(g.Label(e))), style)
	}
	fmt.Fprintln(w, "}")
}

// dotQuote makes a DOT double-quoted string: quotes and backslashes
// escaped, line breaks as \n (centred lines), tabs as spaces, other
// control characters dropped.
func dotQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f:
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// sccJSON is what --scc prints with --json.
type sccJSON struct {
	Nodes      int               `json:"nodes"`
	Components int               `json:"components"`
	DAGEdges   int               `json:"dag_edges"`
	Cycles     [][]repo.NodeInfo `json:"cycles"`
	Fresh      bool              `json:"fresh"` // the stored view was current
}

// scc reports the components. The full graph at the current heads uses
// (and refreshes) the stored view; a graph at --at or of some labels is
// condensed on the spot.
func (c *DebugGraphCmd) scc(app *App, r *repo.Repo, g *repo.Graph, labels []graph.Label) error {
	var v *graph.SccView
	res := sccJSON{Cycles: [][]repo.NodeInfo{}}
	if c.At == "" && len(labels) == 0 {
		var err error
		if v, res.Fresh, err = r.SccView(app.Ctx, g); err != nil {
			return err
		}
	} else {
		sub := g.Graph
		if len(labels) > 0 {
			var kept []graph.Edge
			for e := int32(0); e < int32(g.EdgeCount()); e++ {
				for _, l := range labels {
					if g.Label(e) == l {
						kept = append(kept, *g.Edge(e))
					}
				}
			}
			sub = graph.New(kept)
		}
		v = graph.NewSccView(sub, g.Heads, g.SccSource(), app.Clock.Now().Unix())
	}
	res.Nodes, res.Components, res.DAGEdges = len(v.Nodes), int(v.Count), len(v.DAG)
	for _, cyc := range v.Cycles() {
		var members []repo.NodeInfo
		for _, i := range cyc {
			members = append(members, g.Describe(v.Nodes[i]))
		}
		res.Cycles = append(res.Cycles, members)
	}
	if app.Globals.JSON {
		return app.emit(res)
	}
	w := bufio.NewWriter(app.Stdout)
	fmt.Fprintf(w, "%d node(s) in %d component(s); %d edge(s) between components\n", res.Nodes, res.Components, res.DAGEdges)
	if len(res.Cycles) == 0 {
		fmt.Fprintln(w, "no cycles")
	}
	for k, cyc := range res.Cycles {
		fmt.Fprintf(w, "cycle %d (%d node(s)):\n", k+1, len(cyc))
		for _, n := range cyc {
			fmt.Fprintf(w, "  %s%s\n", n.Name(), titled(n))
		}
	}
	return w.Flush()
}

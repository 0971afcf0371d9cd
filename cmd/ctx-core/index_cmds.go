package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/index"
	"github.com/ctx-dev/ctx/index/reader"
	"github.com/ctx-dev/ctx/index/text"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// SearchCmd is `ctx search`.
type SearchCmd struct {
	Query             []string `arg:"" name:"text" help:"Words to find (camelCase, snake_case, paths and qualified names are split), \"exact phrases\" in quotes, -word to exclude; filters type:KIND, tag:TAG, path:PREFIX (-type:… excludes). Quote a query with -words, or put it after --."`
	Type              []string `name:"type" placeholder:"KIND" help:"Keep only hits of this kind: item, file, diagnostic, or a node type (task, decision, …). Repeatable."`
	Tag               []string `short:"t" name:"tag" placeholder:"TAG" help:"Keep only narrative nodes with this tag. Repeatable (all required)."`
	IncludeSuperseded bool     `name:"include-superseded" help:"Also return nodes another node superseded."`
	Limit             int      `short:"n" default:"10" help:"Number of hits."`
}

// Run answers from the index, bringing it up to date first.
func (c *SearchCmd) Run(app *App, r *repo.Repo) error {
	if c.Limit <= 0 {
		return &usageError{err: fmt.Errorf("-n %d: want a positive number of hits", c.Limit), cmd: "search"}
	}
	// An unquoted query word -type:item or -tag:x reaches the flags as -t
	// with "ype:item" or "ag:x" (a tag no node is likely to have, though
	// it is a valid one).
	for _, a := range app.args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-type:") || strings.HasPrefix(a, "-tag:") {
			return &usageError{err: fmt.Errorf("the query word %s is read as the flag -t %s; quote the query (ctx search \"retry %s\") or put it after --", a, a[2:], a), cmd: "search"}
		}
	}
	q := strings.Join(c.Query, " ")
	var hits []reader.Hit
	var matched int
	err := useIndex(app, r, func(ix *index.Index) (err error) {
		hits, matched, err = ix.Index.Search(q, index.SearchOptions{Limit: c.Limit, Kinds: c.Type, Tags: c.Tag, IncludeSuperseded: c.IncludeSuperseded})
		return err
	})
	if errors.Is(err, index.ErrInvalidQuery) {
		return &usageError{err: err, cmd: "search"}
	}
	if err != nil {
		return err
	}
	// The answer as the lean front end prints it when the index's stamp
	// lets it answer alone (cmd/ctx): the same bytes, in one write.
	if app.Globals.JSON {
		out, err := reader.AppendJSON(nil, reader.NewResult(q, matched, hits))
		if err != nil {
			return err
		}
		_, err = app.Stdout.Write(out)
		return err
	}
	_, err = app.Stdout.Write(reader.AppendText(nil, q, matched, hits))
	return err
}

// useIndex runs fn with the index (index.Use: brought up to date first,
// with a progress bar on a terminal; rebuilt and fn run again when it is
// damaged).
func useIndex(app *App, r *repo.Repo, fn func(*index.Index) error) error {
	bar := newProgress(app.Stderr, !app.Globals.JSON)
	bar.unit = "documents"
	err := index.Use(app.Ctx, r, index.BuildOptions{Progress: bar.update}, fn)
	bar.done()
	return err
}

// deltaPhrase says what a text delta segment holds ("a delta segment",
// or with kind "narrative", "a narrative delta segment").
func deltaPhrase(kind string, d *index.DeltaStatus) string {
	if kind != "" {
		kind += " "
	}
	return fmt.Sprintf("a %sdelta segment adds %d and replaces %d", kind, d.Docs, d.Replaced)
}

// graphDeltaPhrase says what a code graph delta holds.
func graphDeltaPhrase(g *index.GraphDeltaStatus) string {
	return fmt.Sprintf("a delta segment adds %s, removes %d and replaces the edges of %d", plural(g.Nodes, "node"), g.Removed, g.Lists)
}

// textWritten reports whether a rebuild wrote a text segment.
func textWritten(segments []string) bool {
	return slices.Contains(segments, "code") || slices.Contains(segments, "narrative")
}

// RebuildCmd is `ctx rebuild`.
type RebuildCmd struct {
	Full        bool `help:"Rebuild every index from the objects and the narrative (the default)."`
	Incremental bool `help:"Bring the index up to date only if it no longer matches the store."`
	Text        bool `help:"Only the full-text segments (the code's and the narrative's), not the graph's."`
	Scc         bool `help:"Also recompute the graph's strongly connected components (the SCC view in .ctx/DERIVED/, as ctx debug graph --scc keeps it)."`
	Quiet       bool `short:"q" help:"No progress bar."`
}

// Run rebuilds the index.
func (c *RebuildCmd) Run(app *App, r *repo.Repo) error {
	app.interruptible()
	if c.Full && c.Incremental {
		return &usageError{err: fmt.Errorf("--full or --incremental, not both"), cmd: "rebuild"}
	}
	bar := newProgress(app.Stderr, !c.Quiet && !app.Globals.JSON)
	bar.unit = "documents"
	opts := index.BuildOptions{Progress: bar.update, IfStale: c.Incremental, Graph: !c.Text}
	ix, st, err := index.Rebuild(app.Ctx, r, opts)
	bar.done()
	if err != nil {
		return err
	}
	defer ix.Close()
	res := map[string]any{"rebuilt": st != nil, "docs": ix.Docs()}
	if st == nil {
		app.printf("index is fresh: %d documents\n", ix.Docs())
	} else {
		res["terms"], res["keys"], res["bytes"] = st.Terms, st.Keys, st.Bytes
		switch d, nd := st.Delta, st.NarrativeDelta; {
		case d != nil || nd != nil:
			var what []string
			if d != nil {
				res["delta"] = d
				what = append(what, deltaPhrase("", d)+" documents")
			}
			if nd != nil {
				res["narrative_delta"] = nd
				what = append(what, deltaPhrase("narrative", nd))
			}
			app.printf("index updated: %s (%d in all; segments written: %d terms, %d keys, %s)\n",
				strings.Join(what, "; "), st.Docs, st.Terms, st.Keys, humanSize(st.Bytes))
		case textWritten(st.Segments):
			app.printf("index rebuilt: %d documents, %d terms, %d keys, %s\n", st.Docs, st.Terms, st.Keys, humanSize(st.Bytes))
		case st.GraphDelta == nil:
			app.printf("graph rebuilt (segments: %s; %d keys, %s); the text segments were fresh (%d documents)\n",
				strings.Join(st.Segments, ", "), st.Keys, humanSize(st.Bytes), st.Docs)
		}
		res["segments"] = st.Segments
		if g := st.GraphDelta; g != nil {
			res["graph_delta"] = g
			app.printf("code graph updated: %s\n", graphDeltaPhrase(g))
		}
	}
	if c.Scc {
		g, err := r.Graph(app.Ctx, repo.GraphOptions{})
		if err != nil {
			return err
		}
		v, fresh, err := r.SccView(app.Ctx, g)
		if err != nil {
			return err
		}
		res["scc"] = map[string]any{"fresh": fresh, "nodes": len(v.Nodes), "components": len(v.Members()), "cycles": len(v.Cycles())}
		state := "recomputed"
		if fresh {
			state = "already current"
		}
		app.printf("SCC view %s: %d nodes in %d components, %d cycles\n", state, len(v.Nodes), len(v.Members()), len(v.Cycles()))
	}
	return app.emit(res)
}

// DebugIndexCmd is `ctx debug index`.
type DebugIndexCmd struct {
	Namespace string   `arg:"" enum:"path,file,key,name,node,kind,tag,superseded,term,commit,out,in" help:"Which index: path, file (a path: the file's document and its items'), key (stable key), name (last name, lower case), node (node id), kind, tag, superseded (key: superseded), term (full-text), commit (a revision: its snapshot pointers), or out/in (the graph's edges from/to a node named kind:key)."`
	Key       string   `arg:"" help:"The key to look up (for out and in: a node as kind:key, e.g. item:net/http.Client.Do or file:net/http/client.go)."`
	Label     []string `short:"l" name:"label" placeholder:"LABEL" help:"With out or in: only edges of this label. Repeatable."`
}

// Run looks a key up in one index.
func (c *DebugIndexCmd) Run(app *App, r *repo.Repo) error {
	if c.Namespace == "out" || c.Namespace == "in" {
		gx, err := index.OpenGraph(app.Ctx, r)
		if err != nil {
			return err
		}
		defer gx.Close()
		return c.neighbors(app, gx)
	}
	if c.Namespace == "commit" {
		id, err := r.Resolve(c.Key)
		if err != nil {
			return err
		}
		gx, err := index.OpenGraph(app.Ctx, r)
		if err != nil {
			return err
		}
		defer gx.Close()
		snap, ok, err := gx.Commit(id)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: %s is not in the history of the heads the index was built from", repo.ErrNotCommit, id.Short())
		}
		if app.Globals.JSON {
			return app.emit(snap)
		}
		app.printf("root_tree %s\n", snap.RootTree)
		for _, p := range []struct {
			name string
			id   *object.ID
		}{{"semantic_snapshot", snap.Semantic}, {"build_snapshot", snap.Build}, {"diagnostics_snapshot", snap.Diagnostics}} {
			if p.id != nil {
				app.printf("%s %s\n", p.name, *p.id)
			}
		}
		return nil
	}
	type entry struct {
		Doc   uint32 `json:"doc"`
		Kind  string `json:"kind"`
		Node  string `json:"node"`
		Title string `json:"title"`
		Path  string `json:"path,omitempty"`
	}
	var out []entry
	df := 0
	err := useIndex(app, r, func(ix *index.Index) error {
		var docs []uint32
		var err error
		if c.Namespace == "term" {
			var p text.Postings
			if p, df = ix.Postings(c.Key); p != nil {
				for p.Next() {
					docs = append(docs, p.Doc())
				}
				if e, ok := p.(text.Errer); ok && e.Err() != nil {
					return e.Err()
				}
			}
		} else if docs, err = ix.Lookup(c.Namespace, c.Key); err != nil {
			return err
		}
		out = make([]entry, 0, len(docs))
		for _, n := range docs {
			d, err := ix.Doc(n)
			if err != nil {
				return err
			}
			out = append(out, entry{Doc: n, Kind: string(d.Kind), Node: d.Node.Name(), Title: d.Title, Path: d.Path})
		}
		return nil
	})
	if err != nil {
		return err
	}
	if c.Namespace == "term" && !app.Globals.JSON {
		app.printf("term %q: document frequency %d\n", c.Key, df)
	}
	if app.Globals.JSON {
		return app.emit(out)
	}
	if len(out) == 0 {
		app.printf("%s %q: not in the index\n", c.Namespace, c.Key)
	}
	for _, e := range out {
		app.printf("%6d  %-11s %s  %s\n", e.Doc, e.Kind, e.Node, e.Title)
	}
	return nil
}

// neighbors prints the edges out of or into a node, from the index.
func (c *DebugIndexCmd) neighbors(app *App, gx *index.GraphIndex) error {
	var labels []graph.Label
	for _, l := range c.Label {
		lb, err := graph.ParseLabel(l)
		if err != nil {
			return &usageError{err: err, cmd: "debug index"}
		}
		labels = append(labels, lb)
	}
	if _, ok, err := gx.Lookup(c.Key); err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("%w: %s is not in the graph (debug index %s takes kind:key, as ctx search shows nodes: item:net/http.Client.Do, file:PATH, task:ID)", repo.ErrNodeNotFound, c.Key, c.Namespace)
	}
	ns, err := gx.Neighbors(c.Key, c.Namespace == "out", labels...)
	if err != nil {
		return err
	}
	type entry struct {
		Label string `json:"label"`
		Node  string `json:"node"`
		ID    string `json:"id"`
	}
	out := make([]entry, 0, len(ns))
	for _, n := range ns {
		out = append(out, entry{Label: string(n.Label), Node: n.Node.Name(), ID: n.Node.ID.String()})
	}
	if app.Globals.JSON {
		return app.emit(out)
	}
	if len(out) == 0 {
		app.printf("%s %s: no edges in the index\n", c.Namespace, c.Key)
	}
	arrow := "->"
	if c.Namespace == "in" {
		arrow = "<-"
	}
	for _, e := range out {
		app.printf("%s %-16s %s\n", arrow, e.Label, e.Node)
	}
	return nil
}

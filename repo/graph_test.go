package repo

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
)

// humanHigh is the evidence of an edge a person asserted.
var humanHigh = graph.Evidence{Tool: graph.ToolHuman, Confidence: graph.High}

// item is the item node of key in the test store (repository id "test").
func item(key string) graph.NodeID { return graph.ItemNode("test", key) }

// file is the file node of path in the test store.
func file(path string) graph.NodeID { return graph.FileNode("test", path) }

func edgeOf(from, to graph.NodeID, l graph.Label) graph.Edge {
	return graph.Edge{From: from, To: to, Label: l, Evidence: humanHigh}
}

// The edges the tombstone tests add and remove.
var (
	edgeAB  = edgeOf(item("a"), item("b"), graph.RelatesTo)
	edgeAC  = edgeOf(item("a"), item("c"), graph.RelatesTo)
	edgeABm = edgeOf(item("a"), item("b"), graph.Mentions) // edgeAB's ends, another label
)

// adding is a batch adding edges.
func adding(edges ...graph.Edge) *graph.EdgeBatch {
	return &graph.EdgeBatch{Edges: edges, CreatedAt: TestTime.Unix()}
}

// removing is a batch of tombstones for the edges' keys.
func removing(edges ...graph.Edge) *graph.EdgeBatch {
	b := &graph.EdgeBatch{CreatedAt: TestTime.Unix()}
	for _, e := range edges {
		b.Tombstones = append(b.Tombstones, graph.Tombstone{From: e.From, To: e.To, Label: e.Label, Evidence: humanHigh})
	}
	return b
}

// commitBatches stores batches and a commit listing them, with the given
// parents (the first gives the tree) and time. No ref moves.
func commitBatches(t *testing.T, r *Repo, sec int64, msg string, parents []object.ID, batches ...*graph.EdgeBatch) object.ID {
	t.Helper()
	c := &object.Commit{Parents: parents, TimestampUnix: at(sec).Unix(), Message: msg, RootTree: mustCommit(t, r, parents[0]).RootTree}
	for _, b := range batches {
		if err := b.Validate(); err != nil {
			t.Fatalf("fixture: %v", err)
		}
		id, err := object.PutTyped(r.Objects, b)
		if err != nil {
			t.Fatal(err)
		}
		c.EdgeBatches = append(c.EdgeBatches, id)
	}
	id, err := object.PutTyped(r.Objects, c)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func buildGraph(t *testing.T, r *Repo, opts GraphOptions) *Graph {
	t.Helper()
	g, err := r.Graph(t.Context(), opts)
	if err != nil {
		t.Fatalf("Graph(%+v): %v", opts, err)
	}
	return g
}

// edgeNames lists g's edges as "FROM label TO", sorted; with batched,
// only those of edge batches, else only those the narrative declares.
func edgeNames(g *Graph, batched bool) []string {
	out := []string{}
	for e := int32(0); e < int32(g.EdgeCount()); e++ {
		if (g.Origin(e).Narrative == "") == batched {
			out = append(out, g.View(e).String())
		}
	}
	sort.Strings(out)
	return out
}

func names(edges ...graph.Edge) []string {
	out := []string{}
	for _, e := range edges {
		out = append(out, e.From.Name()+" "+string(e.Label)+" "+e.To.Name())
	}
	sort.Strings(out)
	return out
}

func mergeOf(t *testing.T, r *Repo, heads ...object.ID) object.ID {
	t.Helper()
	m, err := r.Merge(r.Objects, heads, "refs/main")
	if err != nil {
		t.Fatal(err)
	}
	return m.ID
}

func TestGraphTombstones(t *testing.T) {
	low := edgeAB
	low.Evidence.Confidence = graph.Low
	tests := []struct {
		name string
		// build makes commits on root and returns the heads to build the
		// graph at.
		build   func(t *testing.T, r *Repo, root object.ID) []object.ID
		want    []graph.Edge
		removed int
		batches int
	}{
		{
			name: "add, then unlink",
			build: func(t *testing.T, r *Repo, root object.ID) []object.ID {
				c1 := commitBatches(t, r, 10, "add", []object.ID{root}, adding(edgeAB, edgeAC))
				return []object.ID{commitBatches(t, r, 20, "unlink", []object.ID{c1}, removing(edgeAB))}
			},
			want: []graph.Edge{edgeAC}, removed: 1, batches: 2,
		},
		{
			name: "add, unlink, add again",
			build: func(t *testing.T, r *Repo, root object.ID) []object.ID {
				c1 := commitBatches(t, r, 10, "add", []object.ID{root}, adding(edgeAB))
				c2 := commitBatches(t, r, 20, "unlink", []object.ID{c1}, removing(edgeAB))
				return []object.ID{commitBatches(t, r, 30, "re-add", []object.ID{c2}, adding(edgeAB))}
			},
			want: []graph.Edge{edgeAB}, removed: 1, batches: 3,
		},
		{
			name: "a tombstone removes every earlier add of the key",
			build: func(t *testing.T, r *Repo, root object.ID) []object.ID {
				c1 := commitBatches(t, r, 10, "add low", []object.ID{root}, adding(low))
				c2 := commitBatches(t, r, 20, "add high", []object.ID{c1}, adding(edgeAB))
				return []object.ID{commitBatches(t, r, 30, "unlink", []object.ID{c2}, removing(edgeAB))}
			},
			want: nil, removed: 2, batches: 3,
		},
		{
			name: "a tombstone removes only its key",
			build: func(t *testing.T, r *Repo, root object.ID) []object.ID {
				c1 := commitBatches(t, r, 10, "add", []object.ID{root}, adding(edgeAB, edgeAC, edgeABm))
				return []object.ID{commitBatches(t, r, 20, "unlink", []object.ID{c1}, removing(edgeAB))}
			},
			want: []graph.Edge{edgeAC, edgeABm}, removed: 1, batches: 2,
		},
		{
			name: "a tombstone of an edge never added",
			build: func(t *testing.T, r *Repo, root object.ID) []object.ID {
				c1 := commitBatches(t, r, 10, "add", []object.ID{root}, adding(edgeAC))
				return []object.ID{commitBatches(t, r, 20, "unlink", []object.ID{c1}, removing(edgeAB))}
			},
			want: []graph.Edge{edgeAC}, removed: 0, batches: 2,
		},
		{
			name: "unlink in a later batch of the same commit",
			build: func(t *testing.T, r *Repo, root object.ID) []object.ID {
				return []object.ID{commitBatches(t, r, 10, "add and unlink", []object.ID{root}, adding(edgeAB, edgeAC), removing(edgeAB))}
			},
			want: []graph.Edge{edgeAC}, removed: 1, batches: 2,
		},
		{
			name: "a batch's tombstone spares its own batch's edge",
			build: func(t *testing.T, r *Repo, root object.ID) []object.ID {
				b := adding(edgeAB)
				b.Tombstones = removing(edgeAB).Tombstones
				return []object.ID{commitBatches(t, r, 10, "both", []object.ID{root}, b)}
			},
			want: []graph.Edge{edgeAB}, removed: 0, batches: 1,
		},
		{
			name: "a tombstone spares a later batch of its commit",
			build: func(t *testing.T, r *Repo, root object.ID) []object.ID {
				c1 := commitBatches(t, r, 10, "add", []object.ID{root}, adding(edgeAB))
				return []object.ID{commitBatches(t, r, 20, "unlink, add", []object.ID{c1}, removing(edgeAB), adding(edgeAB))}
			},
			want: []graph.Edge{edgeAB}, removed: 1, batches: 3,
		},
		{
			name: "concurrent add survives an unlink (add wins)",
			build: func(t *testing.T, r *Repo, root object.ID) []object.ID {
				base := commitBatches(t, r, 10, "base", []object.ID{root}, adding(edgeAB))
				a := commitBatches(t, r, 20, "A unlinks", []object.ID{base}, removing(edgeAB))
				b := commitBatches(t, r, 30, "B adds again", []object.ID{base}, adding(edgeAB))
				return []object.ID{mergeOf(t, r, a, b)}
			},
			want: []graph.Edge{edgeAB}, removed: 1, batches: 3,
		},
		{
			name: "concurrent add survives, unmerged heads",
			build: func(t *testing.T, r *Repo, root object.ID) []object.ID {
				base := commitBatches(t, r, 10, "base", []object.ID{root}, adding(edgeAB))
				a := commitBatches(t, r, 20, "A unlinks", []object.ID{base}, removing(edgeAB))
				b := commitBatches(t, r, 5, "B adds again, earlier", []object.ID{base}, adding(edgeAB))
				return []object.ID{a, b}
			},
			want: []graph.Edge{edgeAB}, removed: 1, batches: 3,
		},
		{
			name: "unlink on one branch, nothing on the other",
			build: func(t *testing.T, r *Repo, root object.ID) []object.ID {
				base := commitBatches(t, r, 10, "base", []object.ID{root}, adding(edgeAB))
				a := commitBatches(t, r, 20, "A unlinks", []object.ID{base}, removing(edgeAB))
				b := commitBatches(t, r, 30, "B adds another", []object.ID{base}, adding(edgeAC))
				return []object.ID{mergeOf(t, r, a, b)}
			},
			want: []graph.Edge{edgeAC}, removed: 1, batches: 3,
		},
		{
			name: "both branches unlink",
			build: func(t *testing.T, r *Repo, root object.ID) []object.ID {
				base := commitBatches(t, r, 10, "base", []object.ID{root}, adding(edgeAB))
				a := commitBatches(t, r, 20, "A unlinks", []object.ID{base}, removing(edgeAB))
				b := commitBatches(t, r, 30, "B unlinks", []object.ID{base}, removing(edgeAB))
				return []object.ID{mergeOf(t, r, a, b)}
			},
			want: nil, removed: 1, batches: 3,
		},
		{
			name: "merge holds both parents' edges",
			build: func(t *testing.T, r *Repo, root object.ID) []object.ID {
				base := commitBatches(t, r, 10, "base", []object.ID{root})
				a := commitBatches(t, r, 20, "A", []object.ID{base}, adding(edgeAB))
				b := commitBatches(t, r, 30, "B", []object.ID{base}, adding(edgeAC))
				return []object.ID{mergeOf(t, r, a, b)}
			},
			want: []graph.Edge{edgeAB, edgeAC}, removed: 0, batches: 2,
		},
		{
			name: "unlink after a merge removes both branches' adds",
			build: func(t *testing.T, r *Repo, root object.ID) []object.ID {
				a := commitBatches(t, r, 20, "A", []object.ID{root}, adding(edgeAB))
				b := commitBatches(t, r, 30, "B", []object.ID{root}, adding(edgeAB, edgeAC))
				m := mergeOf(t, r, a, b)
				return []object.ID{commitBatches(t, r, 40, "unlink", []object.ID{m}, removing(edgeAB))}
			},
			want: []graph.Edge{edgeAC}, removed: 2, batches: 3,
		},
		{
			name: "an unlink on a branch does not reach a later add merged in",
			build: func(t *testing.T, r *Repo, root object.ID) []object.ID {
				base := commitBatches(t, r, 10, "base", []object.ID{root}, adding(edgeAB))
				a := commitBatches(t, r, 20, "A unlinks", []object.ID{base}, removing(edgeAB))
				m := mergeOf(t, r, a, base) // base is an ancestor: the merge is a's tree
				b := commitBatches(t, r, 30, "add after the merge", []object.ID{m}, adding(edgeAB))
				return []object.ID{b}
			},
			want: []graph.Edge{edgeAB}, removed: 1, batches: 3,
		},
	}
	template := NewTestRepo(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := cloneRepo(t, template)
			heads := tc.build(t, r, mustResolve(t, r, "main"))
			g := buildGraph(t, r, GraphOptions{At: heads})
			if got, want := edgeNames(g, true), names(tc.want...); !slices.Equal(got, want) {
				t.Errorf("edges = %q, want %q", got, want)
			}
			if g.Removed != tc.removed || g.Batches != tc.batches {
				t.Errorf("Removed, Batches = %d, %d; want %d, %d", g.Removed, g.Batches, tc.removed, tc.batches)
			}
			if !slices.Equal(g.Heads, heads) {
				t.Errorf("Heads = %s, want %s", shorts(g.Heads), shorts(heads))
			}
		})
	}
}

// TestGraphOrigin checks that an edge added again after an unlink comes
// from the batch that added it last, and that a view fills in the commit.
func TestGraphOrigin(t *testing.T) {
	r := NewTestRepo(t)
	root := mustResolve(t, r, "main")
	c1 := commitBatches(t, r, 10, "add", []object.ID{root}, adding(edgeAB))
	c2 := commitBatches(t, r, 20, "unlink", []object.ID{c1}, removing(edgeAB))
	readd := adding(edgeAB)
	readd.CreatedAt++ // another batch than c1's
	c3 := commitBatches(t, r, 30, "re-add", []object.ID{c2}, readd)
	g := buildGraph(t, r, GraphOptions{At: []object.ID{c3}})
	es := g.Has(edgeAB.From.ID, edgeAB.To.ID, graph.RelatesTo)
	if len(es) != 1 {
		t.Fatalf("Has = %v, want one edge", es)
	}
	o := g.Origin(es[0])
	want := mustCommit(t, r, c3).EdgeBatches[0]
	if o.Commit == nil || *o.Commit != c3 || o.Batch == nil || *o.Batch != want || o.Narrative != "" {
		t.Errorf("Origin = %+v, want batch %s of %s", o, want.Short(), c3.Short())
	}
	v := g.View(es[0])
	if v.Evidence.CommitID == nil || *v.Evidence.CommitID != c3 || v.Origin != o {
		t.Errorf("View = %+v, want the evidence's commit filled in", v)
	}
	if got := v.String(); got != "item:a relates_to item:b" {
		t.Errorf("View.String = %q", got)
	}
	if len(g.Has(edgeAB.From.ID, edgeAB.To.ID, "")) != 1 || len(g.Has(edgeAB.From.ID, edgeAB.To.ID, graph.Calls)) != 0 ||
		len(g.Has(edgeAB.To.ID, edgeAB.From.ID, "")) != 0 || len(g.Has(item("nowhere").ID, edgeAB.To.ID, "")) != 0 {
		t.Error("Has matches the wrong edges")
	}
	b, err := r.ReadEdgeBatch(want)
	if err != nil || len(b.Edges) != 1 || b.Edges[0].Key() != edgeAB.Key() {
		t.Errorf("ReadEdgeBatch = %+v, %v", b, err)
	}
	if _, err := r.ReadEdgeBatch(c3); !errors.Is(err, ErrWrongTarget) {
		t.Errorf("ReadEdgeBatch(commit) = %v, want ErrWrongTarget", err)
	}
	if _, err := r.ReadEdgeBatch(object.Sum(object.KindTyped, []byte("missing"))); !errors.Is(err, object.ErrNotFound) {
		t.Errorf("ReadEdgeBatch(missing) = %v, want object.ErrNotFound", err)
	}
}

func TestGraphAtOlderCommit(t *testing.T) {
	r := NewTestRepo(t)
	root := mustResolve(t, r, "main")
	c1 := commitBatches(t, r, 10, "add ab", []object.ID{root}, adding(edgeAB))
	c2 := commitBatches(t, r, 20, "add ac", []object.ID{c1}, adding(edgeAC))
	c3 := commitBatches(t, r, 30, "unlink ab", []object.ID{c2}, removing(edgeAB))
	if err := r.refStore.Update(refs.Main, c3, refs.Any()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		at      []object.ID // none: main
		want    []graph.Edge
		removed int
	}{
		{at: []object.ID{root}, want: nil},
		{at: []object.ID{c1}, want: []graph.Edge{edgeAB}},
		{at: []object.ID{c2}, want: []graph.Edge{edgeAB, edgeAC}},
		{at: []object.ID{c3}, want: []graph.Edge{edgeAC}, removed: 1},
		{at: nil, want: []graph.Edge{edgeAC}, removed: 1},
	}
	for _, tc := range tests {
		g := buildGraph(t, r, GraphOptions{At: tc.at})
		if got, want := edgeNames(g, true), names(tc.want...); !slices.Equal(got, want) || g.Removed != tc.removed {
			t.Errorf("at %s: edges %q, removed %d; want %q, %d", shorts(tc.at), got, g.Removed, want, tc.removed)
		}
	}
	if _, err := r.Graph(t.Context(), GraphOptions{At: []object.ID{object.Sum(object.KindTyped, []byte("x"))}}); !errors.Is(err, object.ErrNotFound) {
		t.Errorf("Graph at a missing commit: %v, want object.ErrNotFound", err)
	}
	// A commit listing something that is not an edge batch.
	bad := &object.Commit{Parents: []object.ID{c3}, TimestampUnix: at(40).Unix(), Message: "bad", RootTree: mustCommit(t, r, c3).RootTree, EdgeBatches: []object.ID{c1}}
	badID, err := object.PutTyped(r.Objects, bad)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Graph(t.Context(), GraphOptions{At: []object.ID{badID}}); !errors.Is(err, ErrWrongTarget) {
		t.Errorf("Graph with a commit as edge batch: %v, want ErrWrongTarget", err)
	}
}

// TestGraphWriterHistory runs link, unlink and link again through a
// Writer, then a teammate's unlink against a concurrent add, merged by
// the next commit.
func TestGraphWriterHistory(t *testing.T) {
	r := NewTestRepo(t)
	w := lock(t, r)
	link := func(e graph.Edge) *EdgeResult {
		t.Helper()
		res, err := w.Link(t.Context(), buildGraph(t, r, GraphOptions{}), []graph.Edge{e}, EdgeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	unlink := func(e graph.Edge) *EdgeResult {
		t.Helper()
		res, err := w.Unlink(t.Context(), buildGraph(t, r, GraphOptions{}), e.From, e.To, nil, EdgeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	check := func(what string, want ...graph.Edge) {
		t.Helper()
		if got := edgeNames(buildGraph(t, r, GraphOptions{}), true); !slices.Equal(got, names(want...)) {
			t.Errorf("%s: edges %q, want %q", what, got, names(want...))
		}
	}
	first := link(edgeAB)
	check("linked", edgeAB)
	unlink(edgeAB)
	check("unlinked")
	again := link(edgeAB)
	check("linked again", edgeAB)
	// With a fixed clock the batch is the first one again; the commit is
	// another.
	if *again.Batch != *first.Batch || again.Commit.ID == first.Commit.ID {
		t.Errorf("re-link: batch %s commit %s; first: batch %s commit %s", again.Batch.Short(), again.Commit.ID.Short(), first.Batch.Short(), first.Commit.ID.Short())
	}

	// A teammate, from the same head, unlinks ab; we link ab again (with
	// a note, so another batch) and link ac. git merges the two stores'
	// refs: main has both heads.
	head := mustResolve(t, r, "main")
	theirs := commitBatches(t, r, 100, "their unlink", []object.ID{head}, removing(edgeAB))
	res, err := w.Link(t.Context(), buildGraph(t, r, GraphOptions{}), []graph.Edge{edgeAB, edgeAC}, EdgeOptions{Note: "still true"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Added) != 2 {
		t.Fatalf("Link with a note: %+v", res)
	}
	AddHead(t, r, refs.Main, theirs)
	g := buildGraph(t, r, GraphOptions{})
	if len(g.Heads) != 2 {
		t.Fatalf("heads %s, want two", shorts(g.Heads))
	}
	check("two heads", edgeAB, edgeAC)
	// The next write reconciles: the merge keeps our add.
	res = unlink(edgeAC)
	if len(res.Commit.Reconciled) != 1 || !res.Commit.Reconciled[0].Merged {
		t.Errorf("unlink did not reconcile: %+v", res.Commit.Reconciled)
	}
	check("after the merge", edgeAB)
	g = buildGraph(t, r, GraphOptions{})
	if len(g.Heads) != 1 || g.Removed != 3 {
		// Removed: the first link (by the first unlink), the re-link (by
		// theirs), the link of ac.
		t.Errorf("heads %s, removed %d; want one head, 3", shorts(g.Heads), g.Removed)
	}
}

// writeProject writes files (slash-separated path → content; a path
// ending in '/' is a directory) into the project directory of r.
func writeProject(t *testing.T, r *Repo, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(r.ProjectRoot(), filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// idBytes are the random bytes from which narrative.NewID makes id.
func idBytes(id string) []byte {
	const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
	b := make([]byte, len(id))
	for i := range id {
		b[i] = byte(strings.IndexByte(alphabet, id[i]))
	}
	return b
}

// addNodeID adds a node whose id is id (ten characters of the id
// alphabet).
func addNodeID(t *testing.T, w *Writer, id string, in narrative.NewNode) *narrative.Node {
	t.Helper()
	sp := w.Narrative()
	sp.Rand = bytes.NewReader(idBytes(id))
	n, err := sp.Add(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(n.ID) != id {
		t.Fatalf("fixture: node id %s, want %s", n.ID, id)
	}
	return n
}

func change(t *testing.T, w *Writer, n *narrative.Node, op narrative.Op, arg string) {
	t.Helper()
	if _, err := w.Narrative().Change(n, op, arg); err != nil {
		t.Fatal(err)
	}
}

func nodeOf(n *narrative.Node) graph.NodeID { return graph.NarrativeNode(string(n.Type), string(n.ID)) }

func TestGraphNarrativeEdges(t *testing.T) {
	r := NewTestRepo(t)
	writeProject(t, r, map[string]string{
		"src/main.go": "package main", "README.md": "# demo", "docs/": "", "space name.go": "x",
	})
	outside := filepath.Join(filepath.Dir(r.ProjectRoot()), "outside.txt")
	if err := os.WriteFile(outside, []byte("not ours"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := lock(t, r)
	// A symbol the graph knows, from an edge batch.
	connect := item("net.Client.Connect")
	if _, err := w.Link(t.Context(), buildGraph(t, r, GraphOptions{}), []graph.Edge{edgeOf(connect, file("src/main.go"), graph.DependsOn)}, EdgeOptions{}); err != nil {
		t.Fatal(err)
	}

	base := addNodeID(t, w, "bbbbbbbbbb", narrative.NewNode{Type: narrative.Fact, Content: "Base fact"})
	other := addNodeID(t, w, "cccccccccc", narrative.NewNode{Type: narrative.Decision, Content: "Other decision"})
	body := strings.Join([]string{
		"Derived", "",
		"Existing: `src/main.go`, `./src/main.go:12`, [link](src/main.go#L3-L5), `README.md`.",
		"Missing: `missing.go`. Directory: `docs`. Outside: `../outside.txt`, `" + outside + "`.",
		"Store: `.ctx/config.toml`, `./.ctx/HEAD`, `src/../.ctx/HEAD`, `.ctx`. URL: <https://example.com/README.md>.",
		"Symbols: `net.Client.Connect`, `net.Client.Close`. Space: `space name.go`.",
	}, "\n")
	derived := addNodeID(t, w, "dddddddddd", narrative.NewNode{Type: narrative.Task, Content: body, DerivedFrom: []narrative.ID{base.ID, other.ID, "zzzzzzzzzz"}})
	// old is superseded by its replacement.
	old := addNodeID(t, w, "eeeeeeeeee", narrative.NewNode{Type: narrative.Fact, Content: "Old fact"})
	replacement := addNodeID(t, w, "ffffffffff", narrative.NewNode{Type: narrative.Fact, Content: "New fact"})
	change(t, w, old, narrative.OpSupersede, string(replacement.ID))
	// A deleted node declares nothing: neither derived-from nor mentions.
	gone := addNodeID(t, w, "gggggggggg", narrative.NewNode{Type: narrative.Observation, Content: "Gone\n\nSee `README.md`.", DerivedFrom: []narrative.ID{base.ID}})
	change(t, w, gone, narrative.OpDelete, "")
	// Nor does a deleted replacement supersede.
	old2 := addNodeID(t, w, "hhhhhhhhhh", narrative.NewNode{Type: narrative.Fact, Content: "Old fact 2"})
	deletedBy := addNodeID(t, w, "jjjjjjjjjj", narrative.NewNode{Type: narrative.Fact, Content: "Deleted replacement"})
	change(t, w, old2, narrative.OpSupersede, string(deletedBy.ID))
	change(t, w, deletedBy, narrative.OpDelete, "")
	// Nor is a deleted node superseded.
	old3 := addNodeID(t, w, "kkkkkkkkkk", narrative.NewNode{Type: narrative.Fact, Content: "Old fact 3"})
	change(t, w, old3, narrative.OpSupersede, string(replacement.ID))
	change(t, w, old3, narrative.OpDelete, "")

	g := buildGraph(t, r, GraphOptions{})
	want := []string{
		"fact:ffffffffff supersedes fact:eeeeeeeeee",
		"task:dddddddddd derived_from decision:cccccccccc",
		"task:dddddddddd derived_from fact:bbbbbbbbbb",
		"task:dddddddddd mentions file:README.md",
		"task:dddddddddd mentions file:src/main.go",
		"task:dddddddddd mentions item:net.Client.Connect",
	}
	if got := edgeNames(g, false); !slices.Equal(got, want) {
		t.Errorf("narrative edges:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := edgeNames(g, true); !slices.Equal(got, []string{"item:net.Client.Connect depends_on file:src/main.go"}) {
		t.Errorf("batch edges: %q", got)
	}
	// "space name.go" exists, but a mention with a space is prose.
	// Origins and evidence: the declaring node's file; a person for
	// headers and supersedes, the parser for mentions.
	for e := int32(0); e < int32(g.EdgeCount()); e++ {
		o, ed := g.Origin(e), g.Edge(e)
		if o.Narrative == "" {
			continue
		}
		wantPath, wantEv := derived.Path, humanHigh
		switch ed.Label {
		case graph.Supersedes:
			wantPath = old.Path // the supersede event is in the replaced node's file
		case graph.Mentions:
			wantEv = graph.Evidence{Tool: graph.ToolParser, Confidence: graph.Medium}
		}
		if o.Narrative != wantPath || o.Batch != nil || o.Commit != nil || ed.Evidence != wantEv {
			t.Errorf("%s: origin %+v evidence %+v; want %s, %+v", g.View(e), o, ed.Evidence, wantPath, wantEv)
		}
	}
	// NoNarrative leaves them out; the catalog is still there.
	bare := buildGraph(t, r, GraphOptions{NoNarrative: true})
	if got := edgeNames(bare, false); len(got) != 0 || bare.NarrativeNode(nodeOf(derived).ID) == nil {
		t.Errorf("NoNarrative: narrative edges %q, node %v", got, bare.NarrativeNode(nodeOf(derived).ID))
	}

	// Describe: kind from the current type, title, state.
	tests := []struct {
		n    graph.NodeID
		want NodeInfo
	}{
		{nodeOf(derived), NodeInfo{ID: nodeOf(derived).ID, Kind: graph.NodeTask, Key: "dddddddddd", Title: "Derived"}},
		{nodeOf(old), NodeInfo{ID: nodeOf(old).ID, Kind: graph.NodeFact, Key: "eeeeeeeeee", Title: "Old fact", State: "superseded"}},
		{nodeOf(gone), NodeInfo{ID: nodeOf(gone).ID, Kind: graph.NodeObservation, Key: "gggggggggg", Title: "Gone", State: "deleted"}},
		// A stale kind in the id (the node's type changed) is corrected.
		{graph.NarrativeNode("note", "bbbbbbbbbb"), NodeInfo{ID: nodeOf(base).ID, Kind: graph.NodeFact, Key: "bbbbbbbbbb", Title: "Base fact"}},
		// A node given without its key gets the graph's.
		{graph.NodeID{Kind: graph.NodeItem, ID: connect.ID}, NodeInfo{ID: connect.ID, Kind: graph.NodeItem, Key: "net.Client.Connect"}},
		{file("README.md"), NodeInfo{ID: file("README.md").ID, Kind: graph.NodeFile, Key: "README.md"}},
	}
	for _, tc := range tests {
		if got := g.Describe(tc.n); got != tc.want {
			t.Errorf("Describe(%s) = %+v, want %+v", tc.n.Name(), got, tc.want)
		}
	}
	if got := g.Describe(nodeOf(derived)).Name(); got != "task:dddddddddd" {
		t.Errorf("Name = %q", got)
	}
}

// TestGraphCatalogAt checks that the graph at an old commit takes the
// narrative that commit recorded, and that a catalog given overrides it.
func TestGraphCatalogAt(t *testing.T) {
	r := NewTestRepo(t)
	writeProject(t, r, map[string]string{"a.go": "a", "b.go": "b"})
	w := lock(t, r)
	base := addNodeID(t, w, "bbbbbbbbbb", narrative.NewNode{Type: narrative.Fact, Content: "Base"})
	first := addNodeID(t, w, "dddddddddd", narrative.NewNode{Type: narrative.Task, Content: "First\n\nTouches `a.go`.", DerivedFrom: []narrative.ID{base.ID}})
	c1 := commit(t, w, CommitOptions{Message: "first"}).ID

	second := addNodeID(t, w, "eeeeeeeeee", narrative.NewNode{Type: narrative.Task, Content: "Second\n\nTouches `b.go`."})
	change(t, w, first, narrative.OpDelete, "")
	c2 := commit(t, w, CommitOptions{Message: "second"}).ID
	// A third node, not committed: only the working narrative has it.
	addNodeID(t, w, "ffffffffff", narrative.NewNode{Type: narrative.Task, Content: "Third\n\nTouches `a.go`."})
	// And a node's file removed and committed: gone from the narrative.
	if err := os.Remove(filepath.Join(r.Root, "narrative", filepath.FromSlash(base.Path))); err != nil {
		t.Fatal(err)
	}

	at1 := []string{"task:dddddddddd derived_from fact:bbbbbbbbbb", "task:dddddddddd mentions file:a.go"}
	at2 := []string{"task:eeeeeeeeee mentions file:b.go"}
	working := []string{"task:eeeeeeeeee mentions file:b.go", "task:ffffffffff mentions file:a.go"}
	tests := []struct {
		name string
		opts GraphOptions
		want []string
	}{
		{"at c1", GraphOptions{At: []object.ID{c1}}, at1},
		{"at c2", GraphOptions{At: []object.ID{c2}}, at2},
		{"working", GraphOptions{}, working},
	}
	for _, tc := range tests {
		g := buildGraph(t, r, tc.opts)
		if got := edgeNames(g, false); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	cat1, err := r.CatalogAt(t.Context(), c1)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat1.Nodes) != 2 || cat1.Nodes[first.ID] == nil || cat1.Nodes[first.ID].Deleted || cat1.Nodes[second.ID] != nil {
		t.Errorf("CatalogAt(c1) = %v", cat1.IDs())
	}
	// The catalog given wins over the one At recorded.
	g := buildGraph(t, r, GraphOptions{At: []object.ID{c2}, Catalog: cat1})
	if got := edgeNames(g, false); !slices.Equal(got, at1) || g.Catalog != cat1 {
		t.Errorf("At c2 with c1's catalog: %q", got)
	}

	c3 := commit(t, w, CommitOptions{Message: "third"}).ID
	cat3, err := r.CatalogAt(t.Context(), c3)
	if err != nil {
		t.Fatal(err)
	}
	if cat3.Nodes[base.ID] != nil || cat3.Nodes[first.ID] == nil || !cat3.Nodes[first.ID].Deleted || len(cat3.Nodes) != 3 {
		t.Errorf("CatalogAt(c3) = %v", cat3.IDs())
	}
	// first derives from base, which is gone: no edge.
	if got := edgeNames(buildGraph(t, r, GraphOptions{At: []object.ID{c3}}), false); !slices.Equal(got, working) {
		t.Errorf("at c3: %q, want %q", got, working)
	}
}

// headOf returns the single head of main.
func headOf(t *testing.T, r *Repo) object.ID { return mustResolve(t, r, "main") }

func linkEdges(t *testing.T, w *Writer, edges []graph.Edge, opts EdgeOptions) *EdgeResult {
	t.Helper()
	res, err := w.Link(t.Context(), buildGraph(t, w.Repo, GraphOptions{}), edges, opts)
	if err != nil {
		t.Fatalf("Link: %v", err)
	}
	return res
}

func unlinkEdges(t *testing.T, w *Writer, from, to graph.NodeID, labels []graph.Label, opts EdgeOptions) *EdgeResult {
	t.Helper()
	res, err := w.Unlink(t.Context(), buildGraph(t, w.Repo, GraphOptions{}), from, to, labels, opts)
	if err != nil {
		t.Fatalf("Unlink: %v", err)
	}
	return res
}

func viewNames(vs []EdgeView) []string {
	out := []string{}
	for _, v := range vs {
		out = append(out, v.String())
	}
	sort.Strings(out)
	return out
}

// checkResult compares what Link or Unlink reported with the edges named.
func checkResult(t *testing.T, res *EdgeResult, added, present, removed, kept []string) {
	t.Helper()
	for _, c := range []struct {
		what      string
		got, want []string
	}{{"added", viewNames(res.Added), added}, {"present", viewNames(res.Present), present}, {"removed", viewNames(res.Removed), removed}, {"kept", viewNames(res.Kept), kept}} {
		if c.want == nil {
			c.want = []string{}
		}
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
		}
	}
}

func TestLink(t *testing.T) {
	r := NewTestRepo(t)
	w := lock(t, r)
	ab := "item:a relates_to item:b"
	medium := edgeAB
	medium.Evidence.Confidence = graph.Medium
	root := headOf(t, r)

	res := linkEdges(t, w, []graph.Edge{medium}, EdgeOptions{Author: "ada"})
	checkResult(t, res, []string{ab}, nil, nil, nil)
	if res.Commit == nil || !res.Commit.Committed || res.Batch == nil || headOf(t, r) != res.Commit.ID {
		t.Fatalf("Link made no commit: %+v", res)
	}
	c, linked := res.Commit.Commit, res.Commit.ID
	if c.Message != "relate "+ab || c.Author != "ada" || !slices.Equal(c.Parents, []object.ID{root}) ||
		!slices.Equal(c.EdgeBatches, []object.ID{*res.Batch}) || len(c.NarrativeRefs) != 0 || c.RootTree != mustCommit(t, r, root).RootTree {
		t.Errorf("commit = %+v", c)
	}
	b, err := r.ReadEdgeBatch(*res.Batch)
	if err != nil || len(b.Edges) != 1 || b.Edges[0].Evidence != medium.Evidence || b.CreatedAt != TestTime.Unix() || len(b.Tombstones) != 0 {
		t.Errorf("batch = %+v, %v", b, err)
	}
	a := res.Added[0]
	if a.Evidence.CommitID == nil || *a.Evidence.CommitID != res.Commit.ID || a.Origin.Commit == nil || *a.Origin.Commit != res.Commit.ID ||
		a.Origin.Batch == nil || *a.Origin.Batch != *res.Batch {
		t.Errorf("added view = %+v", a)
	}

	// Idempotent: the same edge, or one with weaker evidence, is present.
	weak := edgeAB
	weak.Evidence.Confidence = graph.Low
	for _, e := range []graph.Edge{medium, weak} {
		res = linkEdges(t, w, []graph.Edge{e}, EdgeOptions{})
		checkResult(t, res, nil, []string{ab}, nil, nil)
		if res.Commit != nil || res.Batch != nil || headOf(t, r) != linked {
			t.Errorf("Link of a present edge (%s) committed: %+v", e.Evidence.Confidence, res)
		}
	}

	// Stronger or different evidence is a new assertion: a new batch.
	span := edgeAB
	span.Evidence.Span = &graph.Span{StartLine: 3, EndLine: 4}
	tool := edgeAB
	tool.Evidence.Tool = graph.ToolAnalyzer
	for _, e := range []graph.Edge{edgeAB, span, tool} {
		before := headOf(t, r)
		res = linkEdges(t, w, []graph.Edge{e}, EdgeOptions{})
		checkResult(t, res, []string{ab}, nil, nil, nil)
		if res.Commit == nil || res.Commit.Commit.Parents[0] != before {
			t.Errorf("Link of %+v: %+v", e.Evidence, res)
		}
	}
	// Now the high human edge is there: a span is still news once, and
	// another span again.
	res = linkEdges(t, w, []graph.Edge{span}, EdgeOptions{})
	checkResult(t, res, nil, []string{ab}, nil, nil)

	// Several edges: one commit, one batch; a duplicate in the list and
	// an edge present are reported present.
	before := headOf(t, r)
	res = linkEdges(t, w, []graph.Edge{edgeAC, edgeABm, edgeAC, edgeAB}, EdgeOptions{})
	checkResult(t, res, []string{"item:a mentions item:b", "item:a relates_to item:c"}, []string{ab, "item:a relates_to item:c"}, nil, nil)
	if c := res.Commit.Commit; c.Message != "relate 2 edges\n\nitem:a relates_to item:c\nitem:a mentions item:b" || c.Parents[0] != before {
		t.Errorf("commit = %+v", c)
	}
	if b, err := r.ReadEdgeBatch(*res.Batch); err != nil || len(b.Edges) != 2 {
		t.Errorf("batch = %+v, %v", b, err)
	}

	// A message given is used.
	res = linkEdges(t, w, []graph.Edge{edgeOf(item("x"), item("y"), graph.Calls)}, EdgeOptions{Message: "x calls y"})
	if res.Commit.Commit.Message != "x calls y" {
		t.Errorf("message %q", res.Commit.Commit.Message)
	}

	// An invalid edge fails before anything is written.
	before = headOf(t, r)
	bad := []graph.Edge{edgeOf(item("x"), item("z"), graph.Calls), {From: item("x"), To: item("y"), Label: "likes", Evidence: humanHigh}}
	if _, err := w.Link(t.Context(), buildGraph(t, r, GraphOptions{}), bad, EdgeOptions{}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("Link of an invalid edge: %v, want ErrInvalidArgument", err)
	}
	noEv := edgeOf(item("x"), item("z"), graph.Calls)
	noEv.Evidence = graph.Evidence{}
	if _, err := w.Link(t.Context(), buildGraph(t, r, GraphOptions{}), []graph.Edge{noEv}, EdgeOptions{}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("Link without evidence: %v, want ErrInvalidArgument", err)
	}
	if headOf(t, r) != before {
		t.Error("a failed Link moved main")
	}
	if res, err := w.Link(t.Context(), buildGraph(t, r, GraphOptions{}), nil, EdgeOptions{}); err != nil || res.Commit != nil {
		t.Errorf("Link of nothing: %+v, %v", res, err)
	}
}

func TestLinkNote(t *testing.T) {
	r := NewTestRepo(t)
	w := lock(t, r)
	const why = "Connect retries through backoff.\n"
	res := linkEdges(t, w, []graph.Edge{edgeAB}, EdgeOptions{Note: why})
	blob := res.Added[0].Evidence.BlobID
	if blob == nil {
		t.Fatalf("no blob named: %+v", res.Added[0].Evidence)
	}
	kind, data, err := r.Objects.Get(*blob)
	if err != nil || kind != object.KindBlob || string(data) != why {
		t.Errorf("note blob: %s %q %v", kind, data, err)
	}
	b, err := r.ReadEdgeBatch(*res.Batch)
	if err != nil || b.Edges[0].Evidence.BlobID == nil || *b.Edges[0].Evidence.BlobID != *blob {
		t.Errorf("batch evidence: %+v, %v", b, err)
	}
	rep, err := r.Verify(t.Context(), VerifyOptions{})
	if err != nil || !rep.OK() {
		t.Errorf("Verify: %v %+v", err, rep)
	}
	// The same note again: present. Another note, or none: the edge with
	// this note is as strong.
	for _, note := range []string{why, ""} {
		if res := linkEdges(t, w, []graph.Edge{edgeAB}, EdgeOptions{Note: note}); len(res.Present) != 1 || res.Commit != nil {
			t.Errorf("Link with note %q again: %+v", note, res)
		}
	}
	res = linkEdges(t, w, []graph.Edge{edgeAB}, EdgeOptions{Note: "another reason"})
	if len(res.Added) != 1 || res.Commit == nil {
		t.Errorf("Link with another note: %+v", res)
	}
	// An edge that names its own blob keeps it.
	own, err := r.Objects.Put(object.KindBlob, []byte("own"))
	if err != nil {
		t.Fatal(err)
	}
	e := edgeAC
	e.Evidence.BlobID = &own
	res = linkEdges(t, w, []graph.Edge{e}, EdgeOptions{Note: "the note"})
	if got := res.Added[0].Evidence.BlobID; got == nil || *got != own {
		t.Errorf("blob = %v, want the edge's own", got)
	}
}

func TestUnlink(t *testing.T) {
	r := NewTestRepo(t)
	writeProject(t, r, map[string]string{"main.go": "package main"})
	w := lock(t, r)
	src := addNodeID(t, w, "bbbbbbbbbb", narrative.NewNode{Type: narrative.Fact, Content: "Source"})
	task := addNodeID(t, w, "dddddddddd", narrative.NewNode{Type: narrative.Task, Content: "Task\n\nEdit `main.go`.", DerivedFrom: []narrative.ID{src.ID}})
	taskN, srcN, mainN := nodeOf(task), nodeOf(src), file("main.go")
	linkEdges(t, w, []graph.Edge{edgeAB, edgeABm, edgeAC, edgeOf(taskN, srcN, graph.RelatesTo)}, EdgeOptions{})

	t.Run("label filter", func(t *testing.T) {
		before := headOf(t, r)
		res := unlinkEdges(t, w, item("a"), item("b"), []graph.Label{graph.Mentions, graph.Calls}, EdgeOptions{})
		checkResult(t, res, nil, nil, []string{"item:a mentions item:b"}, nil)
		if res.Commit == nil || res.Commit.Commit.Message != "unlink item:a mentions item:b" || res.Commit.Commit.Parents[0] != before {
			t.Fatalf("Unlink: %+v", res)
		}
		b, err := r.ReadEdgeBatch(*res.Batch)
		if err != nil || len(b.Edges) != 0 || len(b.Tombstones) != 1 || b.Tombstones[0].Key() != edgeABm.Key() || b.Tombstones[0].Evidence.BlobID != nil {
			t.Errorf("batch = %+v, %v", b, err)
		}
		if got := edgeNames(buildGraph(t, r, GraphOptions{}), true); !slices.Equal(got, names(edgeAB, edgeAC, edgeOf(taskN, srcN, graph.RelatesTo))) {
			t.Errorf("edges after: %q", got)
		}
	})
	t.Run("nothing to unlink", func(t *testing.T) {
		before := headOf(t, r)
		for _, labels := range [][]graph.Label{{graph.Mentions}, {graph.Calls}} {
			res := unlinkEdges(t, w, item("a"), item("b"), labels, EdgeOptions{})
			checkResult(t, res, nil, nil, nil, nil)
			if res.Commit != nil || res.Batch != nil {
				t.Errorf("Unlink %v committed: %+v", labels, res)
			}
		}
		res := unlinkEdges(t, w, item("b"), item("a"), nil, EdgeOptions{}) // the other way
		if res.Commit != nil || len(res.Removed) != 0 {
			t.Errorf("Unlink b→a: %+v", res)
		}
		if headOf(t, r) != before {
			t.Error("main moved")
		}
	})
	t.Run("every label, with a note and a message", func(t *testing.T) {
		linkEdges(t, w, []graph.Edge{edgeABm}, EdgeOptions{})
		res := unlinkEdges(t, w, item("a"), item("b"), nil, EdgeOptions{Note: "wrong", Message: "drop a-b", Author: "ada"})
		checkResult(t, res, nil, nil, []string{"item:a mentions item:b", "item:a relates_to item:b"}, nil)
		if c := res.Commit.Commit; c.Message != "drop a-b" || c.Author != "ada" {
			t.Errorf("commit %+v", c)
		}
		b, err := r.ReadEdgeBatch(*res.Batch)
		if err != nil || len(b.Tombstones) != 2 {
			t.Fatalf("batch = %+v, %v", b, err)
		}
		for _, ts := range b.Tombstones {
			if ts.Evidence.BlobID == nil || ts.Evidence.Tool != graph.ToolHuman {
				t.Errorf("tombstone evidence %+v", ts.Evidence)
				continue
			}
			if _, data, err := r.Objects.Get(*ts.Evidence.BlobID); err != nil || string(data) != "wrong" {
				t.Errorf("note: %q %v", data, err)
			}
		}
		for _, v := range res.Removed {
			// A removed edge keeps the origin where it was added.
			if v.Origin.Commit == nil || *v.Origin.Commit == res.Commit.ID || v.Origin.Batch == nil || *v.Origin.Batch == *res.Batch {
				t.Errorf("removed view origin %+v", v.Origin)
			}
		}
		if got := edgeNames(buildGraph(t, r, GraphOptions{}), true); !slices.Equal(got, names(edgeAC, edgeOf(taskN, srcN, graph.RelatesTo))) {
			t.Errorf("edges after: %q", got)
		}
		if rep, err := r.Verify(t.Context(), VerifyOptions{}); err != nil || !rep.OK() {
			t.Errorf("Verify: %v %+v", err, rep)
		}
	})
	t.Run("narrative-declared edges are kept", func(t *testing.T) {
		before := headOf(t, r)
		for _, tc := range []struct {
			to     graph.NodeID
			labels []graph.Label
			kept   string
		}{
			{srcN, []graph.Label{graph.DerivedFrom}, "task:dddddddddd derived_from fact:bbbbbbbbbb"},
			{mainN, nil, "task:dddddddddd mentions file:main.go"},
		} {
			res := unlinkEdges(t, w, taskN, tc.to, tc.labels, EdgeOptions{})
			checkResult(t, res, nil, nil, nil, []string{tc.kept})
			if res.Commit != nil {
				t.Errorf("Unlink of %s committed", tc.kept)
			}
			if o := res.Kept[0].Origin; o.Narrative != task.Path || o.Commit != nil {
				t.Errorf("kept origin %+v", o)
			}
		}
		if headOf(t, r) != before {
			t.Error("main moved")
		}
		// Without a label: the batch's relates_to goes, derived_from stays.
		res := unlinkEdges(t, w, taskN, srcN, nil, EdgeOptions{})
		checkResult(t, res, nil, nil, []string{"task:dddddddddd relates_to fact:bbbbbbbbbb"}, []string{"task:dddddddddd derived_from fact:bbbbbbbbbb"})
		if res.Commit == nil {
			t.Error("no commit")
		}
		g := buildGraph(t, r, GraphOptions{})
		if len(g.Has(taskN.ID, srcN.ID, graph.DerivedFrom)) != 1 || len(g.Has(taskN.ID, srcN.ID, graph.RelatesTo)) != 0 {
			t.Errorf("edges after: %q", edgeNames(g, true))
		}
	})
}

// TestUnlinkBatchAndNarrative unlinks an edge that both an edge batch and
// the narrative declare: the batch's edge is tombstoned whichever of the
// two the graph shows, and the narrative's is kept; once the node stops
// declaring it, the edge is gone.
func TestUnlinkBatchAndNarrative(t *testing.T) {
	for _, conf := range []graph.Confidence{graph.High, graph.Low} {
		t.Run(string(conf), func(t *testing.T) {
			r := NewTestRepo(t)
			w := lock(t, r)
			src := addNodeID(t, w, "bbbbbbbbbb", narrative.NewNode{Type: narrative.Fact, Content: "Source"})
			task := addNodeID(t, w, "dddddddddd", narrative.NewNode{Type: narrative.Task, Content: "Task", DerivedFrom: []narrative.ID{src.ID}})
			e := edgeOf(nodeOf(task), nodeOf(src), graph.DerivedFrom)
			e.Evidence.Confidence = conf
			// Link finds the narrative's edge as strong: write the batch
			// directly (as a link made before the header was).
			if res := linkEdges(t, w, []graph.Edge{e}, EdgeOptions{}); len(res.Present) != 1 {
				t.Errorf("Link of a declared edge: %+v", res)
			}
			if _, err := w.Commit(t.Context(), CommitOptions{Message: "batch", NoNarrative: true, EdgeBatches: []*graph.EdgeBatch{adding(e)}}); err != nil {
				t.Fatal(err)
			}
			res := unlinkEdges(t, w, nodeOf(task), nodeOf(src), nil, EdgeOptions{})
			name := "task:dddddddddd derived_from fact:bbbbbbbbbb"
			checkResult(t, res, nil, nil, []string{name}, []string{name})
			if res.Commit == nil {
				t.Fatal("no tombstone written")
			}
			for _, k := range res.Kept {
				if k.Origin.Narrative != task.Path || k.Evidence != humanHigh {
					t.Errorf("kept %+v", k)
				}
			}
			g := buildGraph(t, r, GraphOptions{})
			if es := g.Has(nodeOf(task).ID, nodeOf(src).ID, graph.DerivedFrom); len(es) != 1 || g.Origin(es[0]).Narrative == "" {
				t.Errorf("after unlink: %v", es)
			}
			// The node no longer declares it (deleted): nothing is left.
			change(t, w, task, narrative.OpDelete, "")
			g = buildGraph(t, r, GraphOptions{})
			if es := g.Has(nodeOf(task).ID, nodeOf(src).ID, ""); len(es) != 0 {
				t.Errorf("after the node's delete: %s", g.View(es[0]))
			}
		})
	}
}

package exchange

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/internal/clock"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/repo"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files")

// counter is a deterministic source of ids.
type counter struct{ n byte }

func (c *counter) Read(p []byte) (int, error) {
	for i := range p {
		c.n++
		p[i] = c.n * 37
	}
	return len(p), nil
}

// newStore creates an empty store with the repository id given, its clock
// fixed at repo.TestTime.
func newStore(t testing.TB, repoID string) *repo.Repo {
	t.Helper()
	r, err := repo.Init(t.TempDir(), repo.InitOptions{Options: repo.Options{Clock: clock.Fixed(repo.TestTime)}, RepoID: repoID})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func lock(t testing.TB, r *repo.Repo) *repo.Writer {
	t.Helper()
	w, err := r.Lock(context.Background(), repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Unlock() })
	return w
}

// space is the store's narrative with a clock at t and ids from rnd.
func space(r *repo.Repo, at time.Time, rnd *counter) *narrative.Space {
	return &narrative.Space{Root: filepath.Join(r.Root, "narrative"), Clock: clock.Fixed(at), Rand: rnd}
}

// fixture fills a store with every node type, tags, metadata, a
// supersede, a delete, a summary's derived-from, a hand-edited body with
// unicode, a feature stream, and edges between nodes, to a file, to a
// commit, with a note and a span. Ids and times are fixed.
func fixture(t testing.TB, r *repo.Repo) {
	t.Helper()
	ctx := context.Background()
	w := lock(t, r)
	defer func() { _ = w.Unlock() }()
	rnd := &counter{}
	t0 := repo.TestTime
	sp := space(r, t0, rnd)
	add := func(typ narrative.Type, content string, tags ...string) *narrative.Node {
		n, err := sp.Add(narrative.NewNode{Type: typ, Content: content, Tags: tags})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	var nodes []*narrative.Node
	for i, typ := range narrative.Types {
		nodes = append(nodes, add(typ, "Node "+string(typ)+"\n\nBody of node "+string(rune('A'+i)), "project:x"))
	}
	dec, err := sp.Add(narrative.NewNode{Type: narrative.Decision, Content: "Retry with jitter ✓\n\n## Context\n\nCafé — 日本語, emoji 🚀\n\n```go\nfor i := range 3 {}\n```",
		Tags: []string{"tier:reference", "area:net"}, Meta: map[string]string{"confidence": "high", "owner": "Zoë"}})
	if err != nil {
		t.Fatal(err)
	}
	feat, err := sp.Add(narrative.NewNode{Stream: "feature-auth", Type: narrative.Task, Content: "Login flow", Tags: []string{"tier:working"}})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := sp.Add(narrative.NewNode{Type: narrative.Summary, Content: "Summary of A and B", DerivedFrom: []narrative.ID{nodes[0].ID, nodes[1].ID}})
	if err != nil {
		t.Fatal(err)
	}
	later := space(r, t0.Add(time.Hour), rnd)
	if _, err := later.Change(nodes[0], narrative.OpSupersede, string(dec.ID)); err != nil {
		t.Fatal(err)
	}
	if _, err := later.Change(nodes[3], narrative.OpDelete, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := later.Change(nodes[2], narrative.OpMeta, "state=draft"); err != nil {
		t.Fatal(err)
	}
	// A hand edit: the body rewritten in an editor, with unicode.
	p := filepath.Join(sp.Root, filepath.FromSlash(nodes[4].Path))
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	src = bytes.Replace(src, []byte("Body of node E"), []byte("Edited by hand: naïve façade, Ωμέγα\n\n- a list\n- of items"), 1)
	if err := os.WriteFile(p, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(ctx, repo.CommitOptions{Message: "narrative"}); err != nil {
		t.Fatal(err)
	}
	g, err := w.Graph(ctx, repo.GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nn := func(n *narrative.Node) graph.NodeID { return graph.NarrativeNode(string(n.Type), string(n.ID)) }
	human := graph.Evidence{Tool: graph.ToolHuman, Confidence: graph.High}
	edges := []graph.Edge{
		{From: nn(dec), To: nn(nodes[5]), Label: graph.RelatesTo, Evidence: human},
		{From: nn(feat), To: nn(dec), Label: graph.DependsOn, Evidence: graph.Evidence{Tool: graph.ToolLLM, Confidence: graph.Medium}},
		{From: nn(dec), To: graph.FileNode(r.Config.Repo.ID, "net/client.go"), Label: graph.Mentions,
			Evidence: graph.Evidence{Tool: graph.ToolHuman, Confidence: graph.High, Span: &graph.Span{StartLine: 3, StartCol: 1, EndLine: 9, EndCol: 2}}},
		{From: nn(sum), To: graph.ItemNode(r.Config.Repo.ID, "net.Client.Do"), Label: graph.References, Evidence: human},
		{From: graph.FileNode(r.Config.Repo.ID, "a.go"), To: graph.FileNode(r.Config.Repo.ID, "b.go"), Label: graph.Imports, Evidence: human}, // code only: not exported
	}
	if _, err := w.Link(ctx, g, edges, repo.EdgeOptions{Note: "Seen in the incident of 2026-03 — see §4"}); err != nil {
		t.Fatal(err)
	}
}

func export(t testing.TB, r *repo.Repo, opts ExportOptions) []byte {
	t.Helper()
	f, err := Export(context.Background(), r, opts)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := f.Encode(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var all = ExportOptions{IncludeDeleted: true, IncludeSuperseded: true}

func importBytes(t testing.TB, r *repo.Repo, data []byte, opts ImportOptions) (*Report, error) {
	t.Helper()
	f, err := Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	w := lock(t, r)
	defer func() { _ = w.Unlock() }()
	return Import(context.Background(), w, f, opts)
}

func TestGolden(t *testing.T) {
	r := newStore(t, "golden")
	fixture(t, r)
	got := export(t, r, all)
	path := filepath.Join("testdata", "export.golden.json")
	if *updateGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("export differs from %s (go test -update rewrites it):\n%s", path, got)
	}
	// The same store exports the same bytes.
	if again := export(t, r, all); !bytes.Equal(got, again) {
		t.Error("two exports of one store differ")
	}
}

// TestRoundTrip exports a store, imports the file into an empty store of
// another repository and exports that: the two files are equal, byte for
// byte, and the imported store verifies clean.
func TestRoundTrip(t *testing.T) {
	for _, opts := range []ExportOptions{all, {}, {IncludeDeleted: true}} {
		src := newStore(t, "source")
		fixture(t, src)
		first := export(t, src, opts)
		dst := newStore(t, "elsewhere")
		rep, err := importBytes(t, dst, first, ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Commit == nil || len(rep.Updated) != 0 || len(rep.Skipped) != 0 {
			t.Errorf("report %+v: want a commit and only additions", rep)
		}
		second := export(t, dst, opts)
		if !bytes.Equal(first, second) {
			t.Fatalf("round trip changed the export:\nfirst:\n%s\nsecond:\n%s", first, second)
		}
		vr, err := dst.Verify(context.Background(), repo.VerifyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !vr.OK() {
			t.Errorf("verify after import: %+v", vr)
		}
	}
}

func TestExportQuery(t *testing.T) {
	r := newStore(t, "q")
	fixture(t, r)
	f, err := Export(context.Background(), r, ExportOptions{Match: func(n *narrative.Node) bool { return n.Type == narrative.Fact }, IncludeSuperseded: true})
	if err != nil {
		t.Fatal(err)
	}
	// The fact is superseded by the decision, which comes along.
	var types []string
	for _, n := range f.Nodes {
		types = append(types, string(n.Type))
	}
	slices.Sort(types)
	if strings.Join(types, ",") != "decision,fact" {
		t.Errorf("types %v, want the fact and the decision superseding it", types)
	}
	for _, e := range f.Edges {
		if e.From.Node == "" && e.To.Node == "" {
			t.Errorf("edge %+v has no exported node", e)
		}
	}
}

// snapshot is what an import must not touch when it fails: the narrative
// files and the refs.
func snapshot(t testing.TB, r *repo.Repo) string {
	t.Helper()
	var b strings.Builder
	for _, dir := range []string{"narrative", "refs"} {
		_ = filepath.WalkDir(filepath.Join(r.Root, dir), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				data, _ := os.ReadFile(p)
				b.WriteString(p + "\n" + string(data) + "\n")
			}
			return nil
		})
	}
	return b.String()
}

func TestImportInvalid(t *testing.T) {
	src := newStore(t, "src")
	fixture(t, src)
	good := string(export(t, src, all))
	firstID := good[strings.Index(good, `"id": "`)+7:][:10]
	tests := []struct {
		name, data string
		want       error
		msg        string
	}{
		{"empty", "", ErrInvalid, "empty"},
		{"not json", "{nodes", ErrInvalid, "line 1"},
		{"wrong format", `{"format":"other","version":1}`, ErrInvalid, "format"},
		{"newer version", strings.Replace(good, `"version": 1`, `"version": 2`, 1), ErrInvalid, "version 2"},
		{"unknown field", strings.Replace(good, `"stream": "main"`, `"stream": "main", "colour": "red"`, 1), ErrInvalid, "colour"},
		{"trailing data", good + "{}", ErrInvalid, "after"},
		{"unknown type", strings.Replace(good, `"type": "fact"`, `"type": "gossip"`, 1), ErrInvalid, "gossip"},
		{"bad id", strings.Replace(good, `"id": "`+firstID, `"id": "NOT-AN-ID!`, 1), ErrInvalid, "nodes[0]"},
		{"updated before created", strings.Replace(good, `"updated": "2023`, `"updated": "2001`, 1), ErrInvalid, "before created"},
		{"bad label", strings.Replace(good, `"label": "relates_to"`, `"label": "likes"`, 1), ErrInvalid, "likes"},
		{"bad tag", strings.Replace(good, `"project:x"`, `"Project X!"`, 1), ErrInvalid, "tag"},
		{"open code block", strings.Replace(good, "Body of node B", "```\\nunclosed", 1), ErrInvalid, "code block"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dst := newStore(t, "dst")
			before := snapshot(t, dst)
			_, err := importBytes(t, dst, []byte(tc.data), ImportOptions{})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err %q does not mention %q", err, tc.msg)
			}
			if after := snapshot(t, dst); after != before {
				t.Error("a failed import wrote something")
			}
		})
	}
	t.Run("duplicate id", func(t *testing.T) {
		f, err := Decode(strings.NewReader(good))
		if err != nil {
			t.Fatal(err)
		}
		f.Nodes = append(f.Nodes, f.Nodes[0])
		f.Nodes[len(f.Nodes)-1].Title = "another"
		dst := newStore(t, "dst")
		w := lock(t, dst)
		_, err = Import(context.Background(), w, f, ImportOptions{})
		var ie *Error
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "duplicate id") {
			t.Fatalf("err %v, want a duplicate id", err)
		}
	})
	t.Run("dangling supersede", func(t *testing.T) {
		f, _ := Decode(strings.NewReader(good))
		f.Nodes[0].SupersededBy = "zzzzzzzzzz"
		dst := newStore(t, "dst")
		w := lock(t, dst)
		_, err := Import(context.Background(), w, f, ImportOptions{})
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "zzzzzzzzzz") {
			t.Fatalf("err %v, want a dangling supersede named", err)
		}
	})
	t.Run("edge to a missing node", func(t *testing.T) {
		f, _ := Decode(strings.NewReader(good))
		f.Edges[0].To = End{Node: "zzzzzzzzzz"}
		dst := newStore(t, "dst")
		w := lock(t, dst)
		_, err := Import(context.Background(), w, f, ImportOptions{})
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "edges[0]") {
			t.Fatalf("err %v, want edges[0] named", err)
		}
	})
	t.Run("conflict without merge", func(t *testing.T) {
		before := snapshot(t, src)
		_, err := importBytes(t, src, []byte(good), ImportOptions{})
		if !errors.Is(err, ErrConflict) {
			t.Fatalf("err %v, want ErrConflict", err)
		}
		if snapshot(t, src) != before {
			t.Error("a refused import wrote something")
		}
	})
}

func TestMerge(t *testing.T) {
	src := newStore(t, "src")
	fixture(t, src)
	data := export(t, src, all)
	f, err := Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("identical", func(t *testing.T) {
		rep, err := importBytes(t, src, data, ImportOptions{Merge: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Added)+len(rep.Updated) != 0 || len(rep.Skipped) != len(f.Nodes) || rep.EdgesAdded != 0 || rep.Commit != nil {
			t.Errorf("report %+v: want everything skipped, no commit", rep)
		}
	})
	t.Run("newer and older", func(t *testing.T) {
		dst := newStore(t, "dst")
		if _, err := importBytes(t, dst, data, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		g := *f
		g.Nodes = slices.Clone(f.Nodes)
		later := f.Nodes[1].Updated.Add(24 * time.Hour)
		g.Nodes[1].Body = "Changed elsewhere."
		g.Nodes[1].Tags = []string{"project:y", "tier:pinned"}
		g.Nodes[1].Meta = map[string]string{"k": "v"}
		g.Nodes[1].Deleted = !g.Nodes[1].Deleted
		g.Nodes[1].Updated = later
		g.Nodes[2].Body = "An older edit."
		g.Nodes[2].Updated = g.Nodes[2].Created // not newer than the store's
		g.Nodes = append(g.Nodes, Node{ID: "newnxde123", Type: narrative.Fact, Stream: "main", Title: "New",
			Tags: []string{}, Meta: map[string]string{}, Created: later, Updated: later})
		w := lock(t, dst)
		rep, err := Import(context.Background(), w, &g, ImportOptions{Merge: true})
		_ = w.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rep.Added, []narrative.ID{"newnxde123"}) || !slices.Equal(rep.Updated, []narrative.ID{g.Nodes[1].ID}) {
			t.Errorf("added %v updated %v", rep.Added, rep.Updated)
		}
		var older Skip
		for _, s := range rep.Skipped {
			if s.ID == g.Nodes[2].ID {
				older = s
			}
		}
		if older.Reason != SkipLocalNewer {
			t.Errorf("the older node: %+v, want skipped as local is newer", older)
		}
		cat, err := dst.Narrative().Load()
		if err != nil {
			t.Fatal(err)
		}
		n := cat.Nodes[g.Nodes[1].ID]
		if n.Body() != "Changed elsewhere." || !slices.Equal(n.Tags, g.Nodes[1].Tags) || n.Meta["k"] != "v" || n.Deleted != g.Nodes[1].Deleted {
			t.Errorf("updated node %+v", n)
		}
		if cat.Nodes[g.Nodes[2].ID].Body() == "An older edit." {
			t.Error("an older node overwrote a newer one")
		}
	})
}

func TestIngest(t *testing.T) {
	tests := []struct {
		name, file, data string
		opts             IngestOptions
		title, body      string
		err              error
	}{
		{"markdown", "docs/design.md", "# Design\r\n\r\nWe retry — always.\n", IngestOptions{Tags: []string{"type:documentation"}}, "Design", "We retry — always.", nil},
		{"no heading", "notes.txt", "\n\n    indented first line\nmore\n", IngestOptions{}, "notes.txt", "    indented first line\nmore", nil},
		{"title given", "a.md", "# Old\nbody", IngestOptions{Title: "New title"}, "New title", "# Old\nbody", nil},
		{"binary", "x.bin", "a\x00b", IngestOptions{}, "", "", ErrDocument},
		{"not utf-8", "x.txt", "caf\xe9", IngestOptions{}, "", "", ErrDocument},
		{"too large", "big.md", strings.Repeat("x", 100), IngestOptions{MaxBytes: 10}, "", "", ErrDocument},
		{"credentials", ".env", "A=b\n", IngestOptions{}, "", "", ErrDocument},
		{"empty", "e.md", " \n\n", IngestOptions{}, "", "", ErrDocument},
		{"missing", "", "", IngestOptions{Path: "nope.md"}, "", "", ErrDocument},
		{"markers", "m.md", "# T\n<!-- ctx:event x -->\n", IngestOptions{}, "", "", narrative.ErrInvalidContent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newStore(t, "ing")
			root := r.ProjectRoot()
			if tc.file != "" {
				p := filepath.Join(root, filepath.FromSlash(tc.file))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(tc.data), 0o644); err != nil {
					t.Fatal(err)
				}
				tc.opts.Path = tc.file
			}
			tc.opts.Wd = root
			w := lock(t, r)
			before := snapshot(t, r)
			res, err := Ingest(context.Background(), w, tc.opts)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err %v, want %v", err, tc.err)
				}
				if snapshot(t, r) != before {
					t.Error("a refused ingest wrote something")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			n := res.Node
			if n.Type != narrative.Source || n.Title != tc.title || n.Body() != tc.body {
				t.Errorf("node %s %q body %q, want source %q body %q", n.Type, n.Title, n.Body(), tc.title, tc.body)
			}
			if res.Commit == nil || n.Meta["path"] != tc.file || n.Meta["blob"] != res.Blob.String() {
				t.Errorf("result %+v meta %v", res, n.Meta)
			}
			// The document's bytes are stored, named by the edge to its file.
			if _, _, err := r.Objects.Get(res.Blob); err != nil {
				t.Errorf("blob: %v", err)
			}
			again, err := Ingest(context.Background(), w, tc.opts)
			if err != nil || !again.Existing || again.Node.ID != n.ID {
				t.Errorf("second ingest: %+v %v, want the existing node", again, err)
			}
		})
	}
	t.Run("outside the project", func(t *testing.T) {
		r := newStore(t, "ing")
		p := filepath.Join(t.TempDir(), "outside.md")
		if err := os.WriteFile(p, []byte("# Outside\n\ntext"), 0o644); err != nil {
			t.Fatal(err)
		}
		w := lock(t, r)
		res, err := Ingest(context.Background(), w, IngestOptions{Path: p})
		if err != nil {
			t.Fatal(err)
		}
		if res.File != "" || res.Node.Title != "Outside" || res.Node.Meta["path"] != p {
			t.Errorf("result %+v", res)
		}
	})
}

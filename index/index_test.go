package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/index/reader"
	"github.com/ctx-dev/ctx/index/text"
	"github.com/ctx-dev/ctx/index/text/texttest"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/repo"
)

// testStore is a store with a small Go project ingested, a failing
// command run and a decision.
func testStore(t testing.TB) *repo.Repo {
	t.Helper()
	r := repo.NewTestRepo(t)
	root := r.ProjectRoot()
	for name, content := range map[string]string{
		"go.mod":           "module example.com/m\n\ngo 1.22\n",
		"net/client.go":    "package net\n\n// Client dials.\ntype Client struct{ Addr string }\n\n// Connect dials with exponential backoff.\nfunc (c *Client) Connect() error {\n\treturn nil\n}\n",
		"retry/backoff.go": "package retry\n\n// NextDelay doubles the delay up to a cap.\nfunc NextDelay(d, maxDelay int) int {\n\treturn min(2*d, maxDelay)\n}\n",
		"README.md":        "# m\n",
	} {
		full := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := r.Lock(context.Background(), repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Unlock()
	if _, err := w.Ingest(context.Background(), repo.IngestOptions{Semantics: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.RecordCommand(context.Background(), repo.CommandOptions{Name: "go vet ./...", Output: []byte("net/client.go:7:1: receiver name should be consistent\n"), ExitCode: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Narrative().Add(narrative.NewNode{Type: narrative.Decision, Content: "Retry with exponential backoff\n\nJitter avoids thundering herds."}); err != nil {
		t.Fatal(err)
	}
	return r
}

func titles(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, string(h.Doc.Kind)+" "+h.Doc.Title)
	}
	return out
}

func TestSearchAndLookup(t *testing.T) {
	r := testStore(t)
	ix, rebuilt, err := Open(context.Background(), r, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if !rebuilt {
		t.Fatal("first Open did not build the index")
	}
	for _, tc := range []struct {
		q     string
		kinds []string
		first string
	}{
		{q: "exponential backoff", first: "decision Retry with exponential backoff"},
		{q: "exponential backoff", kinds: []string{"item"}, first: "item method example.com/m/net.Client.Connect"},
		{q: `"exponential backoff" type:item`, first: "item method example.com/m/net.Client.Connect"},
		{q: "next delay", first: "item function example.com/m/retry.NextDelay"},
		{q: "NextDelay", first: "item function example.com/m/retry.NextDelay"},
		{q: "Client.Connect", first: "item method example.com/m/net.Client.Connect"},
		{q: "net.client", first: "item struct example.com/m/net.Client"},
		{q: "connect", kinds: []string{"decision"}, first: ""},
		{q: "receiver consistent", first: "diagnostic warning: receiver name should be consistent"},
		{q: "backoff.go", first: "file retry/backoff.go"},
	} {
		hits, _, err := ix.Search(tc.q, SearchOptions{Limit: 5, Kinds: tc.kinds})
		if err != nil {
			t.Fatalf("%q: %v", tc.q, err)
		}
		if got := titles(hits); tc.first == "" && len(got) != 0 || tc.first != "" && (len(got) == 0 || got[0] != tc.first) {
			t.Errorf("search %q %v: %v, want first %q", tc.q, tc.kinds, got, tc.first)
		}
	}
	docs, err := ix.Lookup("key", "example.com/m/net.Client.Connect")
	if err != nil || len(docs) != 1 {
		t.Fatalf("lookup key: %v %v", docs, err)
	}
	d, err := ix.Doc(docs[0])
	if err != nil || d.Path != "net/client.go" || d.StartLine != 7 || d.EndLine != 9 {
		t.Fatalf("doc: %+v %v", d, err)
	}
	if docs, err := ix.Lookup("name", "connect"); err != nil || len(docs) != 1 {
		t.Fatalf("lookup name: %v %v", docs, err)
	}
	if docs, err := ix.Lookup("path", "retry/backoff.go"); err != nil || len(docs) != 1 {
		t.Fatalf("lookup path: %v %v", docs, err)
	}
	// A node id is looked up in hex (the key holds its bytes).
	if got, err := ix.Lookup("node", d.Node.ID.String()); err != nil || !slices.Equal(got, docs[:1]) {
		t.Fatalf("lookup node %s: %v %v, want %v", d.Node.ID, got, err, docs[:1])
	}
	for _, bad := range []string{"", "zz", d.Node.ID.String()[:10], string(d.Node.ID[:])} {
		if got, err := ix.Lookup("node", bad); err != nil || len(got) != 0 {
			t.Fatalf("lookup node %q: %v %v, want none", bad, got, err)
		}
	}
	// Commits: the head's snapshot pointers.
	head, err := r.Resolve("main")
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.ReadCommit(head)
	if err != nil {
		t.Fatal(err)
	}
	// Adjacency: the file defines its items; the package contains it;
	// the diagnostic references it.
	gx, err := OpenGraph(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	defer gx.Close()
	// Commits (in the graph segment): the head's snapshot pointers.
	snap, ok, err := gx.Commit(head)
	if err != nil || !ok || snap.RootTree != c.RootTree || snap.Semantic == nil || *snap.Semantic != *c.SemanticSnapshot ||
		snap.Diagnostics == nil || *snap.Diagnostics != *c.DiagnosticsSnapshot || snap.Build != nil {
		t.Fatalf("commit %s: %+v %v %v", head.Short(), snap, ok, err)
	}
	if _, ok, err := gx.Commit(c.RootTree); ok || err != nil {
		t.Fatalf("a tree found as a commit: %v %v", ok, err)
	}
	out, err := gx.Neighbors("file:net/client.go", true, graph.Defines)
	if err != nil || len(out) != 2 || out[0].Node.Name() != "item:example.com/m/net.Client" || out[1].Node.Name() != "item:example.com/m/net.Client.Connect" {
		t.Fatalf("defines out of net/client.go: %+v %v", out, err)
	}
	in, err := gx.Neighbors("file:net/client.go", false)
	if err != nil {
		t.Fatal(err)
	}
	var ins []string
	for _, n := range in {
		ins = append(ins, string(n.Label)+" "+string(n.Node.Kind))
	}
	if !slices.Contains(ins, "contains package") || !slices.Contains(ins, "references diagnostic") {
		t.Fatalf("edges into net/client.go: %v", ins)
	}
	if none, err := gx.Neighbors("file:nowhere.go", true); err != nil || len(none) != 0 {
		t.Fatalf("unknown node: %v %v", none, err)
	}
}

func TestFreshness(t *testing.T) {
	r := testStore(t)
	ix, _, err := Open(context.Background(), r, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	st, err := Check(r)
	if err != nil || !st.Fresh {
		t.Fatalf("after a build: %+v %v", st, err)
	}
	// Reopening a fresh index builds nothing.
	ix, rebuilt, err := Open(context.Background(), r, BuildOptions{})
	if err != nil || rebuilt {
		t.Fatalf("second Open rebuilt=%v err=%v", rebuilt, err)
	}
	codeDir := ix.Code().Base().Dir()
	ix.Close()
	// A hand edit of a narrative file is noticed and answered.
	cat, err := r.Narrative().Load()
	if err != nil {
		t.Fatal(err)
	}
	var file string
	for _, id := range cat.IDs() {
		file = filepath.Join(r.Narrative().Root, filepath.FromSlash(cat.Nodes[id].Path))
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), "Jitter avoids thundering herds.", "Jitter avoids thundering herds; see the zebra study.", 1)
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, _ := Check(r); st.Fresh {
		t.Fatal("a hand edit went unnoticed")
	}
	ix, rebuilt, err = Open(context.Background(), r, BuildOptions{})
	if err != nil || !rebuilt {
		t.Fatalf("Open after the edit: rebuilt=%v err=%v", rebuilt, err)
	}
	defer ix.Close()
	hits, _, err := ix.Search("zebra", SearchOptions{})
	if err != nil || len(hits) != 1 {
		t.Fatalf("zebra: %v %v", titles(hits), err)
	}
	// Only the narrative was brought up to date, by a delta segment.
	if ix.Code().Base().Dir() != codeDir {
		t.Fatalf("a narrative edit rebuilt the code segment")
	}
	if ix.Narrative().Delta() == nil {
		t.Fatalf("a narrative edit rebuilt the narrative segment, not a delta")
	}
	// Three segments are left: the code's and the narrative's, kept, and
	// the narrative's delta (no graph segment: nothing asked for it).
	entries, _ := os.ReadDir(Dir(r))
	segs := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), segPrefix) {
			segs++
		}
	}
	if segs != 3 {
		t.Fatalf("%d segments left", segs)
	}
}

// TestRebuildDeterministic builds twice and compares the files.
func TestRebuildDeterministic(t *testing.T) {
	r := testStore(t)
	read := func() map[string][]byte {
		ix, _, err := Rebuild(context.Background(), r, BuildOptions{Graph: true})
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		out := map[string][]byte{}
		for i, dir := range current(r) {
			for _, f := range []string{docsFile, termsFile, keysFile, metaFile, manifest, nodesFile, adjFile, commitsFile} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				if f == manifest {
					b = withoutSums(b) // racy files depend on when a build ran
				}
				out[partNames[i]+"/"+f] = b
			}
		}
		if len(out[partNames[partGraph]+"/"+adjFile]) == 0 {
			t.Fatal("no graph segment after a full rebuild")
		}
		return out
	}
	a, b := read(), read()
	for f := range a {
		if string(a[f]) != string(b[f]) {
			t.Errorf("%s differs between two full rebuilds", f)
		}
	}
}

// TestReaderConformance runs the full-text conformance suite over the
// on-disk index: statistics, postings and search results identical to
// the in-memory index, score for score.
func TestReaderConformance(t *testing.T) {
	texttest.Reader(t, func(tb testing.TB, texts []string) text.Reader {
		return textIndex(tb, texts)
	})
}

// textIndex returns an index of a document per text, most of them in
// the code segment and the rest in the narrative's (the joined numbering
// must not show), closed when the test ends.
func textIndex(tb testing.TB, texts []string) *Index {
	tb.Helper()
	docs := make([]Doc, len(texts))
	for i, s := range texts {
		docs[i] = Doc{Kind: DocFile, Title: fmt.Sprint(i), Text: s}
	}
	split := len(docs) * 2 / 3
	var parts [2]reader.Part
	for i, part := range [][]Doc{docs[:split], docs[split:]} {
		dir := filepath.Join(tb.TempDir(), partNames[i])
		m := &Manifest{Tokenizer: text.Version, Ref: "refs/main"}
		if _, err := writeSegment(context.Background(), dir, part, m, BuildOptions{}); err != nil {
			tb.Fatal(err)
		}
		p, err := openTextPart(dir, "")
		if err != nil {
			tb.Fatal(err)
		}
		parts[i] = p
	}
	ix, err := joinParts(parts[0], parts[1])
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	return ix
}

// TestPrivateIndex builds the index outside a store that cannot be
// written and answers from it.
func TestPrivateIndex(t *testing.T) {
	r := testStore(t)
	m, err := CurrentManifest(r)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := buildPrivate(context.Background(), r, m, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	hits, _, err := ix.Search("exponential backoff", SearchOptions{})
	if err != nil || len(hits) == 0 || !ix.Manifest.Equal(m) {
		t.Fatalf("private index: %v %v", titles(hits), err)
	}
	if _, err := os.Stat(Dir(r)); !os.IsNotExist(err) {
		t.Fatalf("the private build wrote into the store: %v", err)
	}
}

func TestSearchFilters(t *testing.T) {
	r := testStore(t)
	w, err := r.Lock(context.Background(), repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	old, err := w.Narrative().Add(narrative.NewNode{Type: narrative.Fact, Content: "Backoff caps at ten seconds", Tags: []string{"area:net"}})
	if err != nil {
		t.Fatal(err)
	}
	newer, err := w.Narrative().Add(narrative.NewNode{Type: narrative.Fact, Content: "Backoff caps at thirty seconds", Tags: []string{"area:net", "tier:pinned"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Narrative().Change(old, narrative.OpSupersede, string(newer.ID)); err != nil {
		t.Fatal(err)
	}
	w.Unlock()
	ix, _, err := Open(context.Background(), r, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, tc := range []struct {
		q    string
		opts SearchOptions
		want []string
	}{
		{q: "backoff caps", want: []string{"fact Backoff caps at thirty seconds"}},
		{q: "backoff caps", opts: SearchOptions{IncludeSuperseded: true}, want: []string{"fact Backoff caps at ten seconds", "fact Backoff caps at thirty seconds"}},
		{q: "backoff tag:tier:pinned", want: []string{"fact Backoff caps at thirty seconds"}},
		{q: "backoff", opts: SearchOptions{Tags: []string{"area:net"}, IncludeSuperseded: true}, want: []string{"fact Backoff caps at ten seconds", "fact Backoff caps at thirty seconds"}},
		{q: "backoff -tag:area:net -type:decision path:net", want: []string{"item method example.com/m/net.Client.Connect"}},
		{q: "backoff path:retry", want: []string{"file retry/backoff.go"}},
		{q: "exponential -type:item -type:decision", want: nil},
	} {
		hits, _, err := ix.Search(tc.q, tc.opts)
		if err != nil {
			t.Fatalf("%q: %v", tc.q, err)
		}
		got := titles(hits)
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q %+v: %v, want %v", tc.q, tc.opts, got, tc.want)
		}
	}
	if _, _, err := ix.Search("x color:red", SearchOptions{}); !errors.Is(err, ErrInvalidQuery) {
		t.Fatalf("unknown filter: %v", err)
	}
	// Types are read as ctx add reads them: in any case, with the
	// aliases; an unknown one is an error, not a search with no hits.
	for _, q := range []string{"exponential type:Decision", "exponential type:decision -type:question", "exponential -type:NOTE type:decision"} {
		if hits, _, err := ix.Search(q, SearchOptions{}); err != nil || len(hits) != 1 || hits[0].Doc.Kind != "decision" {
			t.Errorf("%q: %v, %v; want the decision", q, titles(hits), err)
		}
	}
	for _, tc := range []struct {
		q     string
		kinds []string
	}{{"exponential type:decison", nil}, {"exponential", []string{"fucntion"}}, {"exponential -type:items", nil}} {
		if _, _, err := ix.Search(tc.q, SearchOptions{Kinds: tc.kinds}); !errors.Is(err, ErrInvalidQuery) || !strings.Contains(err.Error(), "open-question") {
			t.Errorf("%q %v: %v; want ErrInvalidQuery listing the types", tc.q, tc.kinds, err)
		}
	}
	// Tags are read as ctx add reads them: in any case; an invalid one
	// is an error.
	if hits, _, err := ix.Search("backoff tag:AREA:Net", SearchOptions{Tags: []string{"Area:NET"}}); err != nil || len(hits) == 0 {
		t.Errorf("tags in upper case: %v, %v; want hits", titles(hits), err)
	}
	if _, _, err := ix.Search("backoff tag:a::b", SearchOptions{}); !errors.Is(err, ErrInvalidQuery) {
		t.Errorf("an invalid tag: %v; want ErrInvalidQuery", err)
	}
	// A query with no word to match is a mistake, not a search that
	// found nothing.
	for _, q := range []string{"", "  ", "type:task", "-backoff", "the and", "tag:x -type:item"} {
		if hits, _, err := ix.Search(q, SearchOptions{}); !errors.Is(err, ErrInvalidQuery) {
			t.Errorf("%q: %v, %v; want ErrInvalidQuery", q, titles(hits), err)
		}
	}
}

// TestGraphFollowsNarrative: the graph segment holds the narrative's
// edges and is rebuilt when a node changes them.
func TestGraphFollowsNarrative(t *testing.T) {
	r := testStore(t)
	gx, err := OpenGraph(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	gx.Close()
	w, err := r.Lock(context.Background(), repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n, err := w.Narrative().Add(narrative.NewNode{Type: narrative.Observation, Content: "Connect is slow\n\nSee `net/client.go`."})
	if err != nil {
		t.Fatal(err)
	}
	w.Unlock()
	gx, err = OpenGraph(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	defer gx.Close()
	out, err := gx.Neighbors("observation:"+string(n.ID), true, graph.Mentions)
	if err != nil || len(out) != 1 || out[0].Node.Name() != "file:net/client.go" {
		t.Fatalf("mentions of the new node: %+v %v", out, err)
	}
}

// TestSearchManySymbols checks a query that names hundreds of symbols:
// the shortest keys come first, and the count is that of the documents
// that match, each once.
func TestSearchManySymbols(t *testing.T) {
	r := repo.NewTestRepo(t)
	var src strings.Builder
	src.WriteString("package m\n\n// Shut tells every closer to close.\nfunc Shut() {}\n")
	for i := range 300 {
		fmt.Fprintf(&src, "\ntype T%03d struct{}\n\nfunc (T%03d) Close() error { return nil }\n", i, i)
	}
	root := r.ProjectRoot()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module m\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "m.go"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := r.Lock(context.Background(), repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Ingest(context.Background(), repo.IngestOptions{Semantics: true}); err != nil {
		t.Fatal(err)
	}
	w.Unlock()
	ix, _, err := Open(context.Background(), r, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	hits, matched, err := ix.Search("Close", SearchOptions{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"item method m.T000.Close", "item method m.T001.Close", "item method m.T002.Close"}
	if got := titles(hits); !slices.Equal(got, want) {
		t.Errorf("hits %q, want %q", got, want)
	}
	// The same documents match the phrase, which names no symbol.
	_, textMatched, err := ix.Search(`"close"`, SearchOptions{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if matched != textMatched || matched != 302 {
		t.Errorf("matched %d (text alone %d), want 302: 300 methods, Shut and the outline of m.go", matched, textMatched)
	}
}

// TestAdjacencyConfidence checks that the graph segment keeps each edge's
// confidence: a walk that wants medium or better leaves a low-confidence
// edge out, one that takes low gets it, and every edge comes once.
func TestAdjacencyConfidence(t *testing.T) {
	r := testStore(t)
	ctx := context.Background()
	w, err := r.Lock(ctx, repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := w.Graph(ctx, repo.GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	from := graph.FileNode(r.Config.Repo.ID, "net/client.go")
	to := graph.FileNode(r.Config.Repo.ID, "retry/backoff.go")
	edges := []graph.Edge{
		{From: from, To: to, Label: graph.RelatesTo, Evidence: graph.Evidence{Tool: graph.ToolHuman, Confidence: graph.Low}},
		{From: from, To: to, Label: graph.DependsOn, Evidence: graph.Evidence{Tool: graph.ToolHuman, Confidence: graph.High}},
	}
	if _, err := w.Link(ctx, g, edges, repo.EdgeOptions{}); err != nil {
		t.Fatal(err)
	}
	w.Unlock()
	gx, err := OpenGraph(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	defer gx.Close()
	n, ok, err := gx.Lookup(from.Name())
	if err != nil || !ok {
		t.Fatalf("lookup %s: %v %v", from.Name(), ok, err)
	}
	labels := func(min graph.Confidence) []string {
		adj, err := gx.Adjacent(n, true, min, graph.RelatesTo, graph.DependsOn)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, a := range adj {
			node, err := gx.Node(a.Node)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(a.Label)+" "+node.Name())
		}
		return out
	}
	if got := labels(graph.Medium); !slices.Equal(got, []string{"depends_on file:retry/backoff.go"}) {
		t.Errorf("medium or better: %q", got)
	}
	if got := labels(graph.Low); !slices.Equal(got, []string{"depends_on file:retry/backoff.go", "relates_to file:retry/backoff.go"}) {
		t.Errorf("any confidence: %q", got)
	}
	if got := labels(graph.High); !slices.Equal(got, []string{"depends_on file:retry/backoff.go"}) {
		t.Errorf("high: %q", got)
	}
}

// A commit that changes only the narrative or edges (a note, a session's
// note step) keeps the code segment: its documents derive from the code
// snapshots alone. The graph segment, which holds the history, follows
// the new head.
func TestNarrativeCommitKeepsCode(t *testing.T) {
	r := testStore(t)
	ix, _, err := Open(context.Background(), r, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	codeDir := ix.Code().Base().Dir()
	ix.Close()
	w, err := r.Lock(context.Background(), repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Narrative().Add(narrative.NewNode{Type: narrative.Observation, Content: "Quokkas retry politely"}); err != nil {
		t.Fatal(err)
	}
	res, err := w.Commit(context.Background(), repo.CommitOptions{Message: "a note"})
	w.Unlock()
	if err != nil || !res.Committed {
		t.Fatalf("commit: %+v %v", res, err)
	}
	if st, _ := Check(r); st.Fresh {
		t.Fatal("the new note went unnoticed")
	}
	ix, rebuilt, err := Open(context.Background(), r, BuildOptions{})
	if err != nil || !rebuilt {
		t.Fatalf("Open after the note: rebuilt=%v err=%v", rebuilt, err)
	}
	defer ix.Close()
	if ix.Code().Base().Dir() != codeDir {
		t.Error("a narrative commit rebuilt the code segment")
	}
	if hits, _, err := ix.Search("quokkas", SearchOptions{}); err != nil || len(hits) != 1 {
		t.Errorf("quokkas: %v %v", titles(hits), err)
	}
	if st, err := Check(r); err != nil || !st.Fresh {
		t.Errorf("after the rebuild: %+v %v", st, err)
	}
	// Reopening builds nothing although the code segment's heads are old.
	if ix2, rebuilt, err := Open(context.Background(), r, BuildOptions{}); err != nil || rebuilt {
		t.Errorf("third Open rebuilt=%v err=%v", rebuilt, err)
	} else {
		ix2.Close()
	}
	gx, err := OpenGraph(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	defer gx.Close()
	if _, ok, err := gx.Commit(res.ID); !ok || err != nil {
		t.Errorf("the new commit is not in the graph segment's commits: %v %v", ok, err)
	}
}

// TestGraphIndexMatchesGraph: the two graph segments together answer
// exactly as the graph ctx edges builds (repo.Graph), for every node and
// direction, after edges were related and unlinked, a node mentions a
// code item and a file, and the code changed; and a commit of notes or
// edges keeps the code graph segment.
func TestGraphIndexMatchesGraph(t *testing.T) {
	r := testStore(t)
	ctx := context.Background()
	check := func(step string) {
		t.Helper()
		gx, err := OpenGraph(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		defer gx.Close()
		g, err := r.Graph(ctx, repo.GraphOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := int32(0); i < int32(g.Len()); i++ {
			node := g.Node(i)
			want := map[bool][]string{}
			for _, e := range g.Out(i) {
				ed := g.Edge(e)
				want[true] = append(want[true], string(ed.Label)+" "+ed.To.Name())
			}
			for _, e := range g.In(i) {
				ed := g.Edge(e)
				want[false] = append(want[false], string(ed.Label)+" "+ed.From.Name())
			}
			n, ok, err := gx.Lookup(node.Name())
			if err != nil || !ok {
				t.Fatalf("%s: lookup %s: %v %v", step, node.Name(), ok, err)
			}
			for _, out := range []bool{true, false} {
				adj, err := gx.Adjacent(n, out, graph.Low)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, a := range adj {
					other, err := gx.Node(a.Node)
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, string(a.Label)+" "+other.Name())
				}
				slices.Sort(got)
				slices.Sort(want[out])
				if !slices.Equal(got, slices.Compact(want[out])) {
					t.Errorf("%s: %s out=%v: index %q, graph %q", step, node.Name(), out, got, want[out])
				}
			}
		}
	}
	check("ingested")
	codeGraph := current(r)[partCodeGraph]
	w, err := r.Lock(ctx, repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n, err := w.Narrative().Add(narrative.NewNode{Type: narrative.Observation, Content: "Connect is slow\n\nSee `example.com/m/net.Client.Connect` in `net/client.go`."})
	if err != nil {
		t.Fatal(err)
	}
	g, err := w.Graph(ctx, repo.GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	self := graph.NarrativeNode(string(n.Type), string(n.ID))
	backoff := graph.FileNode(r.Config.Repo.ID, "retry/backoff.go")
	client := graph.FileNode(r.Config.Repo.ID, "net/client.go")
	if _, err := w.Link(ctx, g, []graph.Edge{
		{From: self, To: backoff, Label: graph.RelatesTo, Evidence: graph.Evidence{Tool: graph.ToolHuman, Confidence: graph.High}},
		{From: client, To: backoff, Label: graph.DependsOn, Evidence: graph.Evidence{Tool: graph.ToolHuman, Confidence: graph.Medium}},
	}, repo.EdgeOptions{}); err != nil {
		t.Fatal(err)
	}
	if g, err = w.Graph(ctx, repo.GraphOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Unlink(ctx, g, self, backoff, nil, repo.EdgeOptions{}); err != nil {
		t.Fatal(err)
	}
	w.Unlock()
	check("related and unlinked")
	if got := current(r)[partCodeGraph]; got != codeGraph {
		t.Errorf("a commit of edges rebuilt the code graph segment (%s → %s)", filepath.Base(codeGraph), filepath.Base(got))
	}
	gx, err := OpenGraph(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	mentions, err := gx.Neighbors(self.Name(), true, graph.Mentions)
	gx.Close()
	if err != nil || len(mentions) != 2 {
		t.Errorf("the note's mentions (an item, a file): %+v %v", mentions, err)
	}
	// New code: the code graph follows.
	if err := os.WriteFile(filepath.Join(r.ProjectRoot(), "retry", "jitter.go"), []byte("package retry\n\n// Jitter spreads retries.\nfunc Jitter(d int) int { return d }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if w, err = r.Lock(ctx, repo.LockOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Ingest(ctx, repo.IngestOptions{Semantics: true}); err != nil {
		t.Fatal(err)
	}
	w.Unlock()
	check("new code")
	if cur := current(r); cur[partCodeGraph] != codeGraph || cur[partGraphDelta] == "" {
		t.Error("new code did not extend the code graph segment by a delta segment")
	}
	// Rebuilt whole, the code graph answers alike, without a delta.
	if _, _, err := Rebuild(ctx, r, BuildOptions{Graph: true}); err != nil {
		t.Fatal(err)
	}
	check("rebuilt")
	if cur := current(r); cur[partCodeGraph] == codeGraph || cur[partGraphDelta] != "" {
		t.Error("a full rebuild kept the code graph segment or its delta")
	}
}

// TestSearchStopWordSymbol: a query that is only a stop word ("Is") has
// no word for the text to match, but names a symbol (errs.Is): the
// symbol is the answer, not an invalid query.
func TestSearchStopWordSymbol(t *testing.T) {
	r := testStore(t)
	ingestFiles(t, r, map[string]string{"errs/errs.go": "package errs\n\n// Is reports whether err is target.\nfunc Is(err, target error) bool { return err == target }\n"})
	ix, _, err := Open(context.Background(), r, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	hits, _, err := ix.Search("Is", SearchOptions{Limit: 3})
	if err != nil || len(hits) == 0 || !strings.HasSuffix(hits[0].Doc.Node.Key, "errs.Is") {
		t.Fatalf("search Is: %v, %v; want errs.Is first", titles(hits), err)
	}
	if _, _, err := ix.Search("the", SearchOptions{}); !errors.Is(err, ErrInvalidQuery) {
		t.Fatalf("search the: %v; want ErrInvalidQuery", err)
	}
}

// partManifest reads and parses the manifest of a segment or part.
func partManifest(t testing.TB, of interface{ Manifest() ([]byte, error) }) *Manifest {
	t.Helper()
	data, err := of.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	m := new(Manifest)
	if err := m.UnmarshalText(data); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRemoveOld checks what removeOld deletes: old segments (their files
// and subdirectories), temporary directories and old generations, not
// the segments kept nor anything else in the index directory.
func TestRemoveOld(t *testing.T) {
	dir := t.TempDir()
	mk := func(p string, files ...string) {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(dir, p, f), []byte(f), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk(segPrefix+"kept", "docs.tbl", "terms.tbl")
	mk(segPrefix+"old", "docs.tbl", "terms.tbl", "keys.tbl", "manifest")
	mk(segPrefix+"old/sub", "x")
	mk(segPrefix + "old2")
	mk(tmpPrefix+"left", "docs.tbl")
	mk("gen-1", "a")
	mk("other", "b")
	if err := os.WriteFile(filepath.Join(dir, segPrefix+"file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	removeOld(dir, []string{segPrefix + "kept"})
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{"other", segPrefix + "file", segPrefix + "kept"}
	if !slices.Equal(left, want) {
		t.Fatalf("left %q, want %q", left, want)
	}
	if fs, _ := os.ReadDir(filepath.Join(dir, segPrefix+"kept")); len(fs) != 2 {
		t.Fatalf("the kept segment has %d files, want 2", len(fs))
	}
}

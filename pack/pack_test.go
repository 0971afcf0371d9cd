package pack

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/index"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/narrative/where"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// testSource is a store of a small Go project with a decision, a task
// and a recorded command run, and its index.
func testSource(t *testing.T) Source {
	t.Helper()
	r := repo.NewTestRepo(t)
	root := r.ProjectRoot()
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"net/client.go": `package net

import "example.com/m/retry"

// Client dials a server.
type Client struct{ Addr string }

// Connect dials with exponential backoff until the server answers.
func (c *Client) Connect() error {
	for i := 0; ; i++ {
		if c.dial() == nil {
			return nil
		}
		retry.Sleep(retry.NextDelay(i, 30))
	}
}

func (c *Client) dial() error { return nil }
`,
		"net/client_test.go": `package net

import "testing"

// TestConnect checks that Connect retries with backoff.
func TestConnect(t *testing.T) {
	c := &Client{Addr: "x"}
	if err := c.Connect(); err != nil {
		t.Fatal(err)
	}
}
`,
		"retry/backoff.go": `package retry

import "time"

// NextDelay doubles the delay up to a cap: exponential backoff.
func NextDelay(d, maxDelay int) int {
	return min(2*d+1, maxDelay)
}

// Sleep waits d seconds.
func Sleep(d int) { time.Sleep(time.Duration(d) * time.Second) }
`,
		"server/handler.go": `package server

// Handle answers a request.
func Handle(path string) string { return "ok " + path }
`,
		"README.md": "# m\n\nA client that retries.\n",
	}
	for name, content := range files {
		full := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	w, err := r.Lock(ctx, repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Ingest(ctx, repo.IngestOptions{Semantics: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.RecordCommand(ctx, repo.CommandOptions{Name: "go test ./...", Output: []byte("--- FAIL: TestConnect (0.00s)\n    client_test.go:9: connection refused after retries\nFAIL\n"), ExitCode: 1}); err != nil {
		t.Fatal(err)
	}
	narr := w.Narrative()
	if _, err := narr.Add(narrative.NewNode{Type: narrative.Decision, Content: "Retry connections with exponential backoff\n\nA fixed delay hammered the server after outages; doubling the delay up to 30 s spreads reconnects."}); err != nil {
		t.Fatal(err)
	}
	if _, err := narr.Add(narrative.NewNode{Type: narrative.Task, Content: "Fix flaky connection test", Tags: []string{narrative.Working.Tag()}}); err != nil {
		t.Fatal(err)
	}
	w.Unlock()
	ix, _, err := index.Open(ctx, r, index.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	gx, err := index.OpenGraph(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gx.Close() })
	cat, err := r.Narrative().Load()
	if err != nil {
		t.Fatal(err)
	}
	target, err := r.Refs.Target()
	if err != nil {
		t.Fatal(err)
	}
	heads, err := r.Heads(target)
	if err != nil {
		t.Fatal(err)
	}
	return Source{Repo: r, Index: ix, Graph: gx, Catalog: cat, Head: heads[0]}
}

var testNow = repo.TestTime.Add(time.Hour)

func TestBuild(t *testing.T) {
	src := testSource(t)
	ctx := context.Background()
	for _, tc := range []struct {
		task      string
		opts      Options
		firstPath string
		kinds     []ChunkKind // must occur
	}{
		{task: "How does the client retry when the server is down?", firstPath: "net/client.go"},
		{task: "exponential backoff delay", firstPath: "retry/backoff.go"},
		{task: "why do we retry connections?", opts: Options{IncludeNarrative: true}, kinds: []ChunkKind{Decision, SymbolDefinition}},
		{task: "why did the tests fail?", opts: Options{IncludeNarrative: true}, kinds: []ChunkKind{DiagnosticOutput}},
		// The text is never syntax: quotes, colons and a leading '-' are words.
		{task: `type:decision "Handle" -request (path`, firstPath: "server/handler.go"},
	} {
		tc.opts.Now = testNow
		p, err := Build(ctx, src, tc.task, tc.opts)
		if err != nil {
			t.Fatalf("%q: %v", tc.task, err)
		}
		var paths []string
		kinds := map[ChunkKind]bool{}
		for _, c := range p.Retrieved {
			kinds[c.ChunkKind] = true
			if c.ChunkKind == SymbolDefinition || c.ChunkKind == FileContent {
				paths = append(paths, c.Path)
				if c.Span == nil || c.Span.Start == 0 || c.Span.End < c.Span.Start || c.ObjectID == "" {
					t.Errorf("%q: chunk %q without a span or object: %+v", tc.task, c.Title, c)
				}
			}
		}
		if tc.firstPath != "" && (len(paths) == 0 || paths[0] != tc.firstPath) {
			t.Errorf("%q: files %v, want %s first", tc.task, paths, tc.firstPath)
		}
		for _, k := range tc.kinds {
			if !kinds[k] {
				t.Errorf("%q: no %s chunk in %v", tc.task, k, titles(p))
			}
		}
		if p.HeadCommit != src.Head.String() || p.Task != tc.task {
			t.Errorf("%q: head %q task %q", tc.task, p.HeadCommit, p.Task)
		}
	}
}

func titles(p *Pack) []string {
	var out []string
	for _, c := range p.Retrieved {
		out = append(out, c.Title)
	}
	return out
}

// TestBuildDeterministic builds the same pack twice in every format:
// byte-identical.
func TestBuildDeterministic(t *testing.T) {
	src := testSource(t)
	for _, f := range []Format{JSON, Markdown, Text} {
		var outs []string
		for range 2 {
			p, err := Build(context.Background(), src, "client retry backoff tests", Options{Format: f, IncludeNarrative: true, Explain: true, Now: testNow})
			if err != nil {
				t.Fatal(err)
			}
			out, err := Render(p, f)
			if err != nil {
				t.Fatal(err)
			}
			outs = append(outs, out)
		}
		if outs[0] != outs[1] {
			t.Errorf("%s: two builds differ", f)
		}
	}
}

// TestBuildJSONShape checks the JSON against the pack format: the keys
// of design §12.4 and a path and span in every chunk from a file.
func TestBuildJSONShape(t *testing.T) {
	src := testSource(t)
	p, err := Build(context.Background(), src, "client connect backoff", Options{IncludeNarrative: true, Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Render(p, JSON)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, k := range []string{"task", "head_commit", "retrieved", "graph_context", "recent_narrative", "token_budget"} {
		if _, ok := v[k]; !ok {
			t.Errorf("no %q in %s", k, out)
		}
	}
	for _, c := range v["retrieved"].([]any) {
		m := c.(map[string]any)
		for _, k := range []string{"title", "object_id", "snippet", "relevance_score", "chunk_kind"} {
			if _, ok := m[k]; !ok {
				t.Errorf("chunk without %q: %v", k, m)
			}
		}
		if m["chunk_kind"] == string(SymbolDefinition) {
			if _, ok := m["path"]; !ok {
				t.Errorf("code chunk without a path: %v", m)
			}
			if _, ok := m["span"].(map[string]any)["start"]; !ok {
				t.Errorf("code chunk without a span: %v", m)
			}
		}
	}
	var back Pack
	if err := json.Unmarshal([]byte(out), &back); err != nil || back.TokenBudget.Used != Tokens(out) {
		t.Errorf("used %d, the rendering has %d tokens (%v)", back.TokenBudget.Used, Tokens(out), err)
	}
}

// TestBudgetProperty checks, for random chunks, budgets and formats, that
// the rendered pack never exceeds its budget less the reserve, that Used
// is the rendering's size, and that the chunks kept come in relevance
// order.
func TestBudgetProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	words := strings.Fields("retry backoff client server connect delay ünïcödé 数据 ``` fence \" quote \\ slash tab\t newline\n")
	text := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.String()
	}
	for iter := range 400 {
		var code, narr []Chunk
		for i := range rng.IntN(30) {
			code = append(code, Chunk{Title: text(3), Snippet: text(rng.IntN(400)), RelevanceScore: round(rng.Float64()), ChunkKind: SymbolDefinition,
				Path: fmt.Sprintf("p/%d.go", i), Span: &Span{Start: 1, End: 9}, Node: "item:x", ObjectID: object.Zero.String()})
		}
		for range rng.IntN(8) {
			narr = append(narr, Chunk{Title: text(2), Snippet: text(rng.IntN(200)), RelevanceScore: round(rng.Float64()), ChunkKind: Decision, Node: "decision:x"})
		}
		slices.SortStableFunc(code, func(a, b Chunk) int { return cmpDesc(a.RelevanceScore, b.RelevanceScore) })
		slices.SortStableFunc(narr, func(a, b Chunk) int { return cmpDesc(a.RelevanceScore, b.RelevanceScore) })
		f := []Format{JSON, Markdown, Text}[iter%3]
		opts, err := Options{Budget: 60 + rng.IntN(6000), Reserve: rng.IntN(3) - 1, Format: f, Explain: rng.IntN(2) == 0}.withDefaults()
		if err != nil {
			continue
		}
		p := &Pack{Task: text(rng.IntN(300)), HeadCommit: object.Zero.String(),
			GraphContext: GraphContext{SeedNodes: strings.Fields(text(rng.IntN(20))), ExpandedNodes: strings.Fields(text(rng.IntN(60)))},
			TokenBudget:  TokenBudget{Total: opts.Budget, ReservedForResponse: opts.Reserve}}
		if opts.Explain {
			p.Explain = &Explain{Terms: strings.Fields(text(5))}
		}
		got, err := fit(p, append(loaded(code, false), loaded(narr, true)...), text(rng.IntN(500)), opts)
		if err != nil {
			continue // too small for the frame: an error, not an overrun
		}
		out, err := Render(got, f)
		if err != nil {
			t.Fatal(err)
		}
		if n := Tokens(out); n > opts.Budget-opts.Reserve || n != got.TokenBudget.Used {
			t.Fatalf("iteration %d (%s, budget %d, reserve %d): rendered %d tokens, used says %d", iter, f, opts.Budget, opts.Reserve, n, got.TokenBudget.Used)
		}
		if !slices.IsSortedFunc(got.Retrieved, func(a, b Chunk) int { return cmpDesc(a.RelevanceScore, b.RelevanceScore) }) {
			t.Fatalf("iteration %d: chunks out of relevance order", iter)
		}
	}
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// TestBudgetTooSmall: a budget that cannot hold the frame is an error.
func TestBudgetTooSmall(t *testing.T) {
	src := testSource(t)
	_, err := Build(context.Background(), src, "client", Options{Budget: 20, Reserve: -1, Now: testNow})
	if err == nil {
		t.Fatal("a 20-token pack built")
	}
}

func TestTests(t *testing.T) {
	for _, tc := range []struct {
		path, subject string
		test          bool
	}{
		{"net/client_test.go", "net/client.go", true},
		{"net/client.go", "", false},
		{"pkg/test_mod.py", "pkg/mod.py", true},
		{"pkg/mod_test.py", "pkg/mod.py", true},
		{"src/a.test.ts", "src/a.ts", true},
		{"src/a.spec.js", "src/a.js", true},
		{"tests/integration.rs", "", true},
		{"testdata/fixture.go", "", true},
		{"contest/main.go", "", false},
		{"latest.go", "", false},
	} {
		if got := isTest(tc.path); got != tc.test {
			t.Errorf("isTest(%q) = %v", tc.path, got)
		}
		if got := subjectOf(tc.path); got != tc.subject {
			t.Errorf("subjectOf(%q) = %q, want %q", tc.path, got, tc.subject)
		}
	}
}

func TestVariants(t *testing.T) {
	for _, tc := range []struct {
		in       string
		has, not []string
	}{
		{"tests", []string{"test", "testing", "tested"}, []string{"tests"}},
		{"paths", []string{"path"}, nil},
		{"queries", []string{"query"}, nil},
		{"matches", []string{"match", "matched"}, nil},
		{"cleaning", []string{"clean", "cleaned", "cleans"}, nil},
		{"running", []string{"run", "runs"}, nil},
		{"parsed", []string{"parse", "parser", "parses"}, nil},
		{"copied", []string{"copy", "copies"}, nil},
		{"elected", []string{"elect", "election"}, nil},
		{"connection", []string{"connect", "connects", "connected"}, nil},
		{"handler", []string{"handle", "handles"}, nil},
		{"path", []string{"paths"}, nil},
		{"status", []string{"statuses"}, []string{"statu", "statuss"}}, // -us is not a plural
		{"class", []string{"classes"}, []string{"clas"}},
	} {
		got := variants(tc.in)
		for _, w := range tc.has {
			if !slices.Contains(got, w) {
				t.Errorf("variants(%q) = %q, lacks %q", tc.in, got, w)
			}
		}
		for _, w := range tc.not {
			if slices.Contains(got, w) {
				t.Errorf("variants(%q) = %q, has %q", tc.in, got, w)
			}
		}
	}
	for _, w := range []string{"go", "HTTP", "utf8", "abc"} { // short, not lower-case, not a word
		if got := variants(w); got != nil {
			t.Errorf("variants(%q) = %q, want none", w, got)
		}
	}
}

func TestCutLinesLong(t *testing.T) {
	long := strings.Repeat("x", 5000)
	src := []byte("a\nb\n" + long + "\nfunc F() {}\n")
	got, last := cutLines(src, 3, 4, 100)
	if !strings.HasPrefix(got, strings.Repeat("x", 400)+"…\n") || !strings.Contains(got, "(1 more lines)") || last != 3 {
		t.Errorf("a long first line: %q, last %d", got[:min(len(got), 50)], last)
	}
	// Context before an item skips a long line: the item shows.
	if from := contextStart(src, 4); from != 4 {
		t.Errorf("contextStart before a long line = %d, want 4", from)
	}
	if from := contextStart(src, 3); from != 1 {
		t.Errorf("contextStart = %d, want 1", from)
	}
}

func TestCutLines(t *testing.T) {
	src := []byte("l1\nl2\nl3\nl4\nl5")
	for _, tc := range []struct {
		from, to, max int
		want          string
		last          int
	}{
		{1, 2, 100, "l1\nl2", 2},
		{2, 9, 100, "l2\nl3\nl4\nl5", 5},
		{4, 5, 100, "l4\nl5", 5},
		{6, 9, 100, "", 6},
		{1, 5, 2, "l1\nl2\n… (3 more lines)", 2}, // 8 characters: two lines of three
		{1, 4, 1, "l1\n… (3 more lines)", 1},     // the first line always shows
		{4, 5, 2, "l4\nl5", 5},
	} {
		got, last := cutLines(src, tc.from, tc.to, tc.max)
		if got != tc.want || last != tc.last {
			t.Errorf("cutLines(%d, %d, %d) = %q, %d; want %q, %d", tc.from, tc.to, tc.max, got, last, tc.want, tc.last)
		}
	}
}

// FuzzVariants: any word gives lower-case words of three letters or more,
// none the word itself, each once.
func FuzzVariants(f *testing.F) {
	for _, w := range []string{"tests", "connection", "running", "ies", "aaaing", "status"} {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, w string) {
		seen := map[string]bool{}
		for _, v := range variants(w) {
			if len(v) < 3 || v == w || seen[v] || !isLowerWord(v) {
				t.Fatalf("variants(%q) has %q", w, v)
			}
			seen[v] = true
		}
	})
}

// TestQueryRebuildsDamagedIndex damages the records of the code
// segment's docs.tbl and of the code graph's nodes.tbl, which opening
// the index does not notice: Query rebuilds the index and gives the pack
// it gave before.
func TestQueryRebuildsDamagedIndex(t *testing.T) {
	src := testSource(t)
	r := src.Repo
	ctx := context.Background()
	opts := Options{Now: testNow}
	want, err := Query(ctx, r, "exponential backoff delay", opts, QueryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	damageTables(t, r, "code", "docs.tbl")
	damageTables(t, r, "codegraph", "nodes.tbl")
	got, err := Query(ctx, r, "exponential backoff delay", opts, QueryOptions{})
	if err != nil {
		t.Fatalf("Query over a damaged index: %v", err)
	}
	if !reflect.DeepEqual(titles(got), titles(want)) {
		t.Fatalf("pack over a rebuilt index: %v, want %v", titles(got), titles(want))
	}

	// Without the graph, but with a filter that asks about edges (a
	// summary derived from the decision gives both an edge): the graph
	// segment is read, and rebuilt when damaged.
	cat, err := r.Narrative().Load()
	if err != nil {
		t.Fatal(err)
	}
	var decision narrative.ID
	for _, id := range cat.IDs() {
		if cat.Nodes[id].Type == narrative.Decision {
			decision = id
		}
	}
	w, err := r.Lock(ctx, repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Narrative().Add(narrative.NewNode{Type: narrative.Summary, Content: "Backoff, in short", DerivedFrom: []narrative.ID{decision}}); err != nil {
		t.Fatal(err)
	}
	w.Unlock()
	filtered := func() Options {
		e, err := where.Parse("has:edges", testNow)
		if err != nil {
			t.Fatal(err)
		}
		return Options{Now: testNow, NoGraph: true, Where: e, IncludeNarrative: true}
	}
	want, err = Query(ctx, r, "backoff", filtered(), QueryOptions{})
	if err != nil || len(want.Retrieved) == 0 {
		t.Fatalf("filtered pack: %v, %v", titles(want), err)
	}
	damageTables(t, r, "graph", "adj.tbl")
	if got, err = Query(ctx, r, "backoff", filtered(), QueryOptions{}); err != nil {
		t.Fatalf("Query with an edge filter over a damaged graph segment: %v", err)
	}
	if !reflect.DeepEqual(titles(got), titles(want)) {
		t.Fatalf("filtered pack over a rebuilt index: %v, want %v", titles(got), titles(want))
	}
}

// damageTables overwrites the first half (past the header) of the named
// table of the segment CURRENT names for part.
func damageTables(t *testing.T, r *repo.Repo, part, file string) {
	t.Helper()
	cur, err := os.ReadFile(filepath.Join(r.Root, "index", "CURRENT"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(cur)), "\n") {
		if p, seg, _ := strings.Cut(l, " "); p == part {
			path := filepath.Join(r.Root, "index", seg, file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for i := 16; i < len(data)/2; i++ {
				data[i] = 0xff // an unterminated varint wherever read
			}
			os.Chmod(path, 0o644)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("CURRENT names no %s segment", part)
}

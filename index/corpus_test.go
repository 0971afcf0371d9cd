package index

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
	"github.com/ctx-dev/ctx/repo"
)

func TestCollect(t *testing.T) {
	r := repo.NewTestRepo(t)
	root := r.ProjectRoot()
	for name, content := range map[string]string{
		"go.mod":        "module example.com/m\n\ngo 1.22\n",
		"net/client.go": "package net\n\n// Client dials.\ntype Client struct{ Addr string }\n\n// Connect dials with exponential backoff.\nfunc (c *Client) Connect() error {\n\treturn nil\n}\n",
		"README.md":     "# m\n",
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
	if _, err := w.Ingest(context.Background(), repo.IngestOptions{Semantics: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.RecordCommand(context.Background(), repo.CommandOptions{Name: "go vet ./...", Output: []byte("net/client.go:7:1: odd receiver\n"), ExitCode: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Narrative().Add(narrative.NewNode{Type: narrative.Decision, Content: "Retry with exponential backoff\n\nJitter avoids herds."}); err != nil {
		t.Fatal(err)
	}
	w.Unlock()

	docs, err := Collect(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, string(d.Kind)+" "+d.Title)
	}
	want := []string{
		"diagnostic warning: odd receiver",
		"file README.md",
		"file go.mod",
		"file net/client.go",
		"item struct example.com/m/net.Client",
		"item method example.com/m/net.Client.Connect",
		"decision Retry with exponential backoff",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("documents:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, d := range docs {
		if d.Title == "method example.com/m/net.Client.Connect" {
			if d.StartLine != 7 || d.EndLine != 9 || !strings.Contains(d.Text, "Connect dials with exponential backoff.") || !strings.Contains(d.Text, "return nil") {
				t.Fatalf("Connect chunk: lines %d-%d, text %q", d.StartLine, d.EndLine, d.Text)
			}
		}
	}
	again, err := Collect(context.Background(), r)
	if err != nil || len(again) != len(docs) {
		t.Fatalf("second Collect: %d docs, %v", len(again), err)
	}
}

// TestVersionsKeptForTwo checks that a prefetched file version is handed
// out twice (to the code's text and to the code graph) and then dropped:
// a third get reads it again, the same.
func TestVersionsKeptForTwo(t *testing.T) {
	r := testStore(t)
	heads, err := r.Heads(refs.Main)
	if err != nil {
		t.Fatal(err)
	}
	vs := newVersions(r, true)
	if err := vs.prefetch(context.Background(), heads); err != nil {
		t.Fatal(err)
	}
	var ids []object.ID
	vs.m.Range(func(k, _ any) bool { ids = append(ids, k.(object.ID)); return true })
	if len(ids) < 2 {
		t.Fatalf("%d file versions prefetched", len(ids))
	}
	for _, id := range ids {
		first, err1 := vs.get(id)
		second, err2 := vs.get(id)
		if err1 != nil || err2 != nil || first != second {
			t.Fatalf("%s: the two gets differ: %v %v", id.Short(), err1, err2)
		}
		if _, ok := vs.m.Load(id); ok {
			t.Fatalf("%s: kept after two gets", id.Short())
		}
		third, err := vs.get(id)
		if err != nil || third == first || !reflect.DeepEqual(third, first) {
			t.Fatalf("%s: a third get: %v, read again %v", id.Short(), err, third != first)
		}
	}
}

// TestSortDocs checks sortDocs, which permutes documents in place, against
// a stable sort by docOrder, over documents with many equal keys, keys
// that share long prefixes (as package-qualified names do), and enough
// documents of a kind for the radix sort.
func TestSortDocs(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	prefixes := []string{"", "k", "net/http.", "cmd/compile/internal/ssa.", "cmd/compile/internal/ssagen."}
	suffixes := []string{"", "a", "a\x00", "Client", "Client.Do", "(*Func).String", "ÉtatCivil"}
	kinds := []DocKind{DocFile, DocItem, DocDiagnostic, "task", "decision"}
	for _, n := range []int{0, 1, 2, 7, 100, 1000, 20000} {
		docs := make([]Doc, n)
		for i := range docs {
			docs[i] = Doc{
				Kind: kinds[rng.Intn(len(kinds))],
				Node: graph.NodeID{Key: prefixes[rng.Intn(len(prefixes))] + suffixes[rng.Intn(len(suffixes))] + fmt.Sprint(rng.Intn(3))[:rng.Intn(2)]},
				Path: fmt.Sprint("p", rng.Intn(3)), StartLine: uint32(rng.Intn(4)),
				Text: fmt.Sprint(i), // tells equal documents apart
			}
		}
		want := slices.Clone(docs)
		slices.SortStableFunc(want, func(a, b Doc) int { return docOrder(&a, &b) })
		sortDocs(docs)
		if !reflect.DeepEqual(docs, want) {
			t.Fatalf("%d documents: sortDocs differs from a stable sort", n)
		}
	}
}

func TestLineStarts(t *testing.T) {
	// The definition: 0, then the offset after every newline that is not
	// the last byte.
	simple := func(src []byte) []int {
		starts := []int{0}
		for i, b := range src {
			if b == '\n' && i+1 < len(src) {
				starts = append(starts, i+1)
			}
		}
		return starts
	}
	cases := []string{"", "\n", "\n\n", "a", "a\n", "a\nb", "a\nb\n", "\n\nx\n\n", strings.Repeat("line\n", 100) + "tail"}
	rng := rand.New(rand.NewSource(1))
	for range 200 {
		b := make([]byte, rng.Intn(300))
		for i := range b {
			b[i] = "ab\n"[rng.Intn(3)]
		}
		cases = append(cases, string(b))
	}
	reused := []int{7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7} // as a pooled buffer comes back
	for _, c := range cases {
		want := simple([]byte(c))
		if got := lineStarts([]byte(c)); !slices.Equal(got, want) {
			t.Fatalf("lineStarts(%q) = %v, want %v", c, got, want)
		}
		if reused = appendLineStarts(reused, []byte(c)); !slices.Equal(reused, want) {
			t.Fatalf("appendLineStarts(used buffer, %q) = %v, want %v", c, reused, want)
		}
	}
}

// TestVersionsRelease checks that the versions kept for both readers are
// collected once both release them, and not before.
func TestVersionsRelease(t *testing.T) {
	numGC := func() uint32 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.NumGC
	}
	old := debug.SetGCPercent(-1) // no collection but the release's
	defer debug.SetGCPercent(old)
	for _, keep := range []bool{true, false} {
		vs := newVersions(nil, keep)
		before := numGC()
		vs.release()
		if n := numGC() - before; n != 0 {
			t.Errorf("keep %v: %d collections after the first release, want none", keep, n)
		}
		vs.release()
		want := uint32(0)
		if keep {
			want = 1
		}
		if n := numGC() - before; n != want {
			t.Errorf("keep %v: %d collections after both releases, want %d", keep, n, want)
		}
	}
}

// TestRebuildReleasesVersions checks that a full rebuild's two readers of
// the file versions both release them: the second to do so collects.
func TestRebuildReleasesVersions(t *testing.T) {
	r := testStore(t)
	old := debug.SetGCPercent(-1) // no collection but the release's
	defer debug.SetGCPercent(old)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.NumGC
	ix, _, err := Rebuild(context.Background(), r, BuildOptions{Graph: true})
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	runtime.ReadMemStats(&ms)
	if n := ms.NumGC - before; n != 1 {
		t.Errorf("%d collections in a full rebuild with collection off, want the one the release runs", n)
	}
}

// TestOutline checks a file document's text: its path, then the last
// names of its items, each once, in order; the sets of names outline
// reuses from file to file carry nothing over.
func TestOutline(t *testing.T) {
	item := func(key string) Doc { return Doc{Kind: DocItem, Node: graph.NodeID{Key: key}} }
	for _, tc := range []struct {
		path  string
		items []Doc
		want  string
	}{
		{"a.go", nil, "a.go"},
		{"net/http/client.go", []Doc{item("net/http.Client"), item("net/http.Client.Do"), item("net/http.Do"), item("net/http.Client")},
			"net/http/client.go\nClient Do"},
		{"b.rs", []Doc{item(""), item("core::net::connect"), item("core::net::Client::connect"), item("x.Y")}, "b.rs\nconnect Y"},
		{"c.go", []Doc{item("p.Client")}, "c.go\nClient"}, // not seen in b.rs's or client.go's set
	} {
		if got := outline(tc.path, tc.items); got != tc.want {
			t.Errorf("outline(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

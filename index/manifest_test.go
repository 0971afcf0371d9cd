package index

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

func TestManifestNotices(t *testing.T) {
	r := repo.NewTestRepo(t)
	m0, err := CurrentManifest(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(m0.Heads) != 1 || m0.Ref != "refs/main" {
		t.Fatalf("manifest of a new store: %+v", m0)
	}
	same, err := CurrentManifest(r)
	if err != nil || !m0.Equal(same) {
		t.Fatalf("two reads differ: %v", err)
	}
	w, err := r.Lock(t.Context(), repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n, err := w.Narrative().Add(narrative.NewNode{Type: narrative.Fact, Content: "The build takes two minutes"})
	if err != nil {
		t.Fatal(err)
	}
	w.Unlock()
	m1, err := CurrentManifest(r)
	if err != nil {
		t.Fatal(err)
	}
	if m1.Equal(m0) {
		t.Fatal("adding a node went unnoticed")
	}
	changed := m0.ChangedNarrative(m1)
	if !slices.Contains(changed, n.Path) {
		t.Fatalf("changed %v, want %s among them", changed, n.Path)
	}
	// A hand edit that keeps the size: the mtime tells.
	file := filepath.Join(r.Narrative().Root, filepath.FromSlash(n.Path))
	if err := os.Chtimes(file, time.Now(), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	m2, err := CurrentManifest(r)
	if err != nil {
		t.Fatal(err)
	}
	if got := m1.ChangedNarrative(m2); !slices.Equal(got, []string{n.Path}) {
		t.Fatalf("after touching %s: changed %v", n.Path, got)
	}
	// Round trip, with every kind of line.
	m2.Nodes, m2.Hidden = 42, []HiddenID{{"a00000000b", "facts/a.md"}, {"a00000000b", "facts/b c.md"}, {"c00000000d", "log/x\ty.md"}}
	// File names with what a line cannot hold as is (all legal names).
	for _, p := range []string{"odd/a\tb.md", "odd/c\nd.md", "odd/e\\f.md", "odd/g\rh.md", "odd/i\\tj.md"} {
		m2.Narrative = append(m2.Narrative, FileStat{Path: p, Size: 1, ModNano: 2, ChangeNano: 3, Ino: 4})
	}
	slices.SortFunc(m2.Narrative, func(a, b FileStat) int { return strings.Compare(a.Path, b.Path) })
	text, err := m2.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	var back Manifest
	if err := back.UnmarshalText(text); err != nil || !back.Equal(m2) {
		t.Fatalf("round trip: %v\n%s", err, text)
	}
}

func FuzzManifest(f *testing.F) {
	f.Add([]byte(manifestVersion + "\ntokenizer 1\nref refs/main\nhead " + "aa" + "\n"))
	f.Add([]byte(manifestVersion + "\ntokenizer 1\nref refs/main\nfile 3\t4\t5\t6\tlog/a.md\nfile 3\t4\t5\t7\tlog/b.md\n"))
	f.Add([]byte(manifestVersion + "\ntokenizer 1\nref refs/main\ncode " + strings.Repeat("ab", 32) + "\ncodegraph " + strings.Repeat("cd", 32) + "\nnodes 7\n"))
	f.Add([]byte(manifestVersion + "\ntokenizer 1\nref refs/main\nbase seg-00\nhidden a\tx.md\nhidden b\tx.md\nfile 3\t4\t5\t6\tlog/a.md\n"))
	f.Add([]byte(manifestVersion + "\ntokenizer 1\nref refs/main\nfile 3\t4\t5\t6\ta\\tb\\\\c\\n.md\n"))
	f.Add([]byte(manifestVersion + "\ntokenizer 1\nref refs/main\nfile 3\t4\t5\t6\tunread\tlog/a.md\nfile 3\t4\t5\t7\t-\tlog/b.md\nfile 3\t4\t5\t8\t" + strings.Repeat("ef", 32) + "\tlog/c.md\n"))
	f.Add([]byte("junk"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Manifest
		if err := m.UnmarshalText(data); err != nil {
			return
		}
		text, err := m.MarshalText()
		if err != nil {
			return
		}
		var back Manifest
		if err := back.UnmarshalText(text); err != nil || !back.Equal(&m) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// TestManifestUnread checks that a file line's hash may be unread, and
// nothing else but a hash or "-".
func TestManifestUnread(t *testing.T) {
	head := manifestVersion + "\ntokenizer 1\nref refs/main\n"
	var m Manifest
	if err := m.UnmarshalText([]byte(head + "file 3\t4\t5\t6\tunread\tlog/a.md\n")); err != nil || len(m.Narrative) != 1 || m.Narrative[0].Sum != unreadSum {
		t.Fatalf("unread: %+v, %v", m.Narrative, err)
	}
	if err := m.UnmarshalText([]byte(head + "file 3\t4\t5\t6\tunreadable\tlog/a.md\n")); err == nil {
		t.Fatal("a hash that is neither a hash, - nor unread was accepted")
	}
}

// TestManifestKeysFromBuilt checks that the code keys are taken from the
// manifest an index was built as exactly when its heads are the store's,
// and computed from the heads' commits otherwise.
func TestManifestKeysFromBuilt(t *testing.T) {
	r := repo.NewTestRepo(t)
	want, err := CurrentManifest(r)
	if err != nil {
		t.Fatal(err)
	}
	fake := func(heads []object.ID) *Manifest {
		return &Manifest{Tokenizer: want.Tokenizer, Heads: heads, Repo: want.Repo, Code: object.Sum(object.KindBlob, []byte("code")), CodeGraph: object.Sum(object.KindBlob, []byte("graph"))}
	}
	other := []object.ID{object.Sum(object.KindBlob, []byte("another head"))}
	for _, tc := range []struct {
		name    string
		built   *Manifest
		trusted bool
	}{
		{"none", nil, false},
		{"same heads", fake(want.Heads), true},
		{"other heads", fake(other), false},
		{"no heads", fake(nil), false},
		{"another tokenizer", &Manifest{Tokenizer: want.Tokenizer + 1, Heads: want.Heads, Code: fake(nil).Code, CodeGraph: fake(nil).CodeGraph}, false},
		{"no code key", &Manifest{Tokenizer: want.Tokenizer, Heads: want.Heads, Repo: want.Repo, CodeGraph: fake(nil).CodeGraph}, false},
		{"another repository id", &Manifest{Tokenizer: want.Tokenizer, Heads: want.Heads, Repo: "other", Code: fake(nil).Code, CodeGraph: fake(nil).CodeGraph}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := currentManifest(r, tc.built)
			if err != nil {
				t.Fatal(err)
			}
			wantCode, wantGraph := want.Code, want.CodeGraph
			if tc.trusted {
				wantCode, wantGraph = tc.built.Code, tc.built.CodeGraph
			}
			if m.Code != wantCode || m.CodeGraph != wantGraph {
				t.Fatalf("code keys %s %s, want %s %s", m.Code.Short(), m.CodeGraph.Short(), wantCode.Short(), wantGraph.Short())
			}
			if !slices.Equal(m.Heads, want.Heads) || m.Ref != want.Ref || !slices.Equal(m.Narrative, want.Narrative) {
				t.Fatalf("manifest %+v, want %+v apart from the keys", m, want)
			}
		})
	}
}

// BenchmarkManifestParse parses the manifest of a narrative segment of
// 5,000 files, which every reading command of such a store reads.
func BenchmarkManifestParse(b *testing.B) {
	m := &Manifest{Tokenizer: 1, Ref: "refs/main"}
	for i := range 5000 {
		m.Narrative = append(m.Narrative, FileStat{Path: fmt.Sprintf("observations/note-%05d-a6rzfx9ver.md", i), Size: 300 + int64(i%97), ModNano: 1795000000000000000 + int64(i)})
	}
	data, err := m.MarshalText()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		var back Manifest
		if err := back.UnmarshalText(data); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRepoIDInCodeKeys changes the repository id (config.toml's repo.id),
// from which every code and graph node id derives: the code and graph
// segments are stale, and rebuilt with the new ids.
func TestRepoIDInCodeKeys(t *testing.T) {
	r := testStore(t)
	ix, _, err := Open(context.Background(), r, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	gx, err := OpenGraph(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	gx.Close()
	r.Config.Repo.ID = "renamed"
	st, err := Check(r)
	if err != nil {
		t.Fatal(err)
	}
	if st.Fresh || st.Graph.Fresh {
		t.Fatalf("after a new repository id: status %+v, want the text and the graph stale", st)
	}
	if !strings.Contains(st.Reason, `repository id changed ("renamed"`) || !strings.Contains(st.Graph.Reason, `repository id changed ("renamed"`) {
		t.Fatalf("after a new repository id: reasons %q and %q do not name it", st.Reason, st.Graph.Reason)
	}
	ix, _, err = Open(context.Background(), r, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	equalIndexes(t, ix, fullIndexOf(t, r), rand.New(rand.NewSource(1)))
	items, err := ix.Lookup("kind", string(DocItem))
	if err != nil || len(items) == 0 {
		t.Fatalf("no item documents: %v", err)
	}
	d, err := ix.Doc(items[0])
	if err != nil {
		t.Fatal(err)
	}
	want := graph.ItemNode("renamed", d.Node.Key)
	if d.Node != want {
		t.Fatalf("an item's node %v, want %v", d.Node, want)
	}
	gx, err = OpenGraph(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	defer gx.Close()
	n, ok, err := gx.Lookup(want.Name())
	if err != nil || !ok {
		t.Fatalf("the graph has no node %s: %v", want.Name(), err)
	}
	if got, err := gx.Node(n); err != nil || got != want {
		t.Fatalf("the graph's node %s is %v (%v), want %v", want.Name(), got, err, want)
	}
}

package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/index/table"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
	"github.com/ctx-dev/ctx/repo"
)

// fullGraphOf builds both graph segments of r afresh, in a directory of
// the test's (the store's index is not changed), and opens them.
func fullGraphOf(t *testing.T, r *repo.Repo) *GraphIndex {
	t.Helper()
	m, err := CurrentManifest(r)
	if err != nil {
		t.Fatal(err)
	}
	var dirs [nDirs]string
	dirs[partCodeGraph] = filepath.Join(t.TempDir(), "codegraph")
	dirs[partGraph] = filepath.Join(t.TempDir(), "graph")
	ctx := context.Background()
	if _, err := buildPart(ctx, r, m, partCodeGraph, dirs[partCodeGraph], [2]string{}, newVersions(r, false), BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := buildPart(ctx, r, m, partGraph, dirs[partGraph], [2]string{dirs[partCodeGraph], ""}, newVersions(r, false), BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	var ms [nParts]*Manifest
	ms[partGraph], ms[partCodeGraph] = readManifest(dirs[partGraph]), readManifest(dirs[partCodeGraph])
	gx, err := openGraph(dirs, ms)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gx.Close() })
	return gx
}

// equalGraphs checks that two graphs of one store number the same nodes
// alike, find each by its name, and list the same neighbours of each,
// in each direction, at each confidence.
func equalGraphs(t *testing.T, got, want *GraphIndex) {
	t.Helper()
	if got.code.count != want.code.count {
		t.Fatalf("code graph of %d nodes, want %d", got.code.count, want.code.count)
	}
	total := want.code.count
	it := want.rest.nodes.All()
	for it.Next() {
		total++
	}
	for n := range total + 1 {
		g, err1 := got.Node(n)
		w, err2 := want.Node(n)
		if n == total {
			if err1 == nil {
				t.Fatalf("node %d: %v, want none", n, g)
			}
			break
		}
		if err1 != nil || err2 != nil || g != w {
			t.Fatalf("node %d: %v (%v), want %v (%v)", n, g, err1, w, err2)
		}
		gn, gok, err1 := got.Lookup(w.Name())
		wn, wok, err2 := want.Lookup(w.Name())
		if err1 != nil || err2 != nil || gn != wn || gok != wok {
			t.Fatalf("lookup %s: %d %v (%v), want %d %v (%v)", w.Name(), gn, gok, err1, wn, wok, err2)
		}
		for _, out := range []bool{true, false} {
			for _, c := range graph.Confidences {
				ga, err1 := got.Adjacent(n, out, c)
				wa, err2 := want.Adjacent(n, out, c)
				if err1 != nil || err2 != nil || !slices.Equal(ga, wa) {
					t.Fatalf("node %d %s, out %v, %s: %v (%v), want %v (%v)", n, w.Name(), out, c, ga, err1, wa, err2)
				}
			}
		}
	}
}

// graphDeltaName returns the code graph delta segment CURRENT names, "" for none.
func graphDeltaName(r *repo.Repo) string { return current(r)[partGraphDelta] }

// TestGraphDeltaSteps walks through the changes a code graph delta must
// get exactly right, each checked against a full build: an edge two files
// assert losing one of them (mult.tbl), a function losing every call
// while it stays defined (a node alive by its other direction), a
// function removed and one added, a command run's diagnostics, and a file
// with a diagnostic at a line edited (the diagnostic's item edge moves).
func TestGraphDeltaSteps(t *testing.T) {
	r := repo.NewTestRepo(t)
	root := r.ProjectRoot()
	write := func(name, src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/p\n\ngo 1.22\n")
	write("a.go", "package p\n\nfunc Dup() {\n\tC()\n}\n\nfunc A() {\n\tB()\n\tC()\n}\n")
	write("b.go", "package p\n\nfunc Dup() {\n\tC()\n}\n\nfunc B() {\n\tC()\n}\n\nfunc C() {}\n")
	ctx := context.Background()
	step := func(what string, change func(w *repo.Writer)) {
		t.Helper()
		w, err := r.Lock(ctx, repo.LockOptions{})
		if err != nil {
			t.Fatal(err)
		}
		change(w)
		w.Unlock()
		before := graphDeltaName(r)
		gx, err := OpenGraph(ctx, r)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		defer gx.Close()
		if d := graphDeltaName(r); d == "" || d == before {
			t.Fatalf("%s: no code graph delta built", what)
		}
		equalGraphs(t, gx, fullGraphOf(t, r))
	}
	ingest := func(w *repo.Writer) {
		t.Helper()
		if _, err := w.Ingest(ctx, repo.IngestOptions{Semantics: true, Message: "step"}); err != nil {
			t.Fatal(err)
		}
	}
	w, err := r.Lock(ctx, repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ingest(w)
	w.Unlock()
	gx, err := OpenGraph(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	gx.Close()
	if _, err := os.Stat(filepath.Join(current(r)[partCodeGraph], multFile)); err != nil {
		t.Fatal(err)
	}
	step("b.go's Dup removed, a.go's stays", func(w *repo.Writer) {
		write("b.go", "package p\n\nfunc B() {\n\tC()\n}\n\nfunc C() {}\n")
		ingest(w)
	})
	step("A calls nothing", func(w *repo.Writer) {
		write("a.go", "package p\n\nfunc Dup() {\n\tC()\n}\n\nfunc A() {}\n")
		ingest(w)
	})
	step("C removed, D added", func(w *repo.Writer) {
		write("b.go", "package p\n\nfunc B() {\n\tD()\n}\n\nfunc D() {}\n")
		ingest(w)
	})
	step("a command run", func(w *repo.Writer) {
		if _, err := w.RecordCommand(ctx, repo.CommandOptions{Name: "go vet ./...", Output: []byte("b.go:4:2: D is odd\na.go:5:1: A is empty\n"), ExitCode: 1}); err != nil {
			t.Fatal(err)
		}
	})
	// A base with the run: the run is the same after the edit.
	if _, _, err := Rebuild(ctx, r, BuildOptions{Graph: true}); err != nil {
		t.Fatal(err)
	}
	step("the diagnosed line now in no function", func(w *repo.Writer) {
		write("b.go", "package p\n\nfunc D() {}\n\nfunc B() {\n\tD()\n}\n")
		ingest(w)
	})
}

// graphDeltaStore is testStore with its graph built, then a change the
// next OpenGraph takes as a code graph delta: a file edited, one added.
func graphDeltaStore(t testing.TB) *repo.Repo {
	t.Helper()
	r := testStore(t)
	openGraphOf(t, r).Close()
	ingestFiles(t, r, map[string]string{
		"net/client.go": "package net\n\n// Client dials.\ntype Client struct{ Addr string }\n\n// Connect dials with a jittered backoff.\nfunc (c *Client) Connect() error {\n\treturn nil\n}\n\n// Close hangs up.\nfunc (c *Client) Close() {}\n",
		"net/server.go": "package net\n\n// Serve answers.\nfunc Serve() {\n\tvar c Client\n\tc.Connect()\n}\n",
	})
	return r
}

func openGraphOf(t testing.TB, r *repo.Repo) *GraphIndex {
	t.Helper()
	gx, err := OpenGraph(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	return gx
}

// TestGraphDeltaDamaged damages each file of a code graph delta, and the
// base's mult.tbl (which only the next delta reads), and checks that the
// graph is rebuilt and answers as a full build's.
func TestGraphDeltaDamaged(t *testing.T) {
	for _, file := range []string{nodesFile, adjFile, keysFile, deltaFile, manifest, multFile} {
		t.Run(file, func(t *testing.T) {
			r := graphDeltaStore(t)
			openGraphOf(t, r).Close()
			if current(r)[partGraphDelta] == "" {
				t.Fatal("no code graph delta")
			}
			if file == multFile {
				rewrite(t, r, partCodeGraph, file, func([]byte) []byte { return []byte("damaged") })
				ingestFiles(t, r, map[string]string{"net/extra.go": "package net\n\nfunc Extra() { Serve() }\n"})
			} else {
				rewrite(t, r, partGraphDelta, file, func([]byte) []byte { return []byte("damaged") })
			}
			gx := openGraphOf(t, r)
			defer gx.Close()
			equalGraphs(t, gx, fullGraphOf(t, r))
			if file == multFile && current(r)[partGraphDelta] != "" {
				t.Fatal("a delta over a damaged mult.tbl")
			}
		})
	}
}

// TestGraphDeltaOfAnotherBase checks that a code graph delta naming
// another base is refused, and the graph rebuilt.
func TestGraphDeltaOfAnotherBase(t *testing.T) {
	r := graphDeltaStore(t)
	openGraphOf(t, r).Close()
	m := readManifest(current(r)[partGraphDelta])
	m.Base = "seg-0000000000000000"
	text, err := m.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	rewrite(t, r, partGraphDelta, manifest, func([]byte) []byte { return text })
	cur := current(r)
	if _, err := openCodeGraph(cur[partCodeGraph], cur[partGraphDelta]); err == nil {
		t.Fatal("a code graph delta of another base opened")
	}
	gx := openGraphOf(t, r)
	defer gx.Close()
	equalGraphs(t, gx, fullGraphOf(t, r))
}

// FuzzGraphDeltaTable opens a code graph delta whose delta.tbl holds
// arbitrary dead nodes and insertion points, and reads every node, name
// and list through it: it is refused as damaged, or read without a
// panic.
func FuzzGraphDeltaTable(f *testing.F) {
	f.Add([]byte{}, []byte{})
	f.Add(table.AppendUvarintDeltas(nil, []uint32{1, 2}), table.AppendUvarintDeltas(nil, []uint32{0, 3}))
	f.Add([]byte{0, 0}, []byte{1, 1, 1, 1, 1, 1, 1})
	r := graphDeltaStore(f)
	openGraphOf(f, r).Close()
	cur := current(r)
	dir := cur[partGraphDelta]
	if dir == "" {
		f.Fatal("no code graph delta")
	}
	names := []string{"file:net/client.go", "file:net/server.go", "item:example.com/m/net.Serve", "package:example.com/m/net"}
	f.Fuzz(func(t *testing.T, dead, ins []byte) {
		writeDeltaTable(t, dir, [2][]byte{[]byte(deltaDead), dead}, [2][]byte{[]byte(deltaIns), ins})
		c, err := openCodeGraph(cur[partCodeGraph], dir)
		if err != nil {
			return
		}
		defer c.close()
		for v := range c.count + 2 {
			c.node(v)
			for _, d := range []byte{dirOut[0], dirIn[0], dirOut[2]} {
				c.adjacent(nil, v, d, nil)
			}
		}
		for _, name := range names {
			c.named(name)
		}
	})
}

// TestGraphDeltaHeadOrder: two heads hold two versions of a.go whose
// items X and Y span the same lines, and a diagnostic at that line
// references the item of the first head. The heads then change so that
// their order flips while the file versions stay: a full build takes the
// other item, and so must the delta.
func TestGraphDeltaHeadOrder(t *testing.T) {
	r := repo.NewTestRepo(t)
	root := r.ProjectRoot()
	ctx := context.Background()
	write := func(name, src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// commit moves main to from (zero: stays), writes a.go and
	// notes.txt (no file version), ingests, and returns the new head.
	commit := func(from object.ID, a, notes string, run bool) object.ID {
		t.Helper()
		w, err := r.Lock(ctx, repo.LockOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Unlock()
		if !from.IsZero() {
			if err := w.UpdateRef(refs.Main, from, refs.Any()); err != nil {
				t.Fatal(err)
			}
		}
		write("a.go", a)
		write("notes.txt", notes)
		if _, err := w.Ingest(ctx, repo.IngestOptions{Semantics: true, Message: notes}); err != nil {
			t.Fatal(err)
		}
		if run {
			if _, err := w.RecordCommand(ctx, repo.CommandOptions{Name: "go vet ./...", Output: []byte("a.go:3:1: odd\n"), ExitCode: 1}); err != nil {
				t.Fatal(err)
			}
		}
		hs, err := r.Heads(refs.Main)
		if err != nil || len(hs) != 1 {
			t.Fatalf("heads %v %v", hs, err)
		}
		return hs[0]
	}
	const vX, vY = "package p\n\nfunc X() {\n}\n", "package p\n\nfunc Y() {\n}\n"
	write("go.mod", "module example.com/p\n\ngo 1.22\n")
	c0 := commit(object.Zero, "package p\n\nfunc Z() {\n}\n", "0", true)
	cX := commit(c0, vX, "x", false)
	cY := commit(c0, vY, "y", false)
	repo.AddHead(t, r, refs.Main, cX)
	openGraphOf(t, r).Close()

	// A commit on the branch that sorts first, with the same snapshots,
	// whose id sorts after the other head.
	first, second, src := cX, cY, vX
	if cY.Compare(cX) < 0 {
		first, second, src = cY, cX, vY
	}
	for i := 0; ; i++ {
		if commit(first, src, fmt.Sprint("note ", i), false).Compare(second) > 0 {
			break
		}
		if i > 60 {
			t.Fatal("no commit sorted after the other head")
		}
	}
	repo.AddHead(t, r, refs.Main, second)
	gx := openGraphOf(t, r)
	defer gx.Close()
	if graphDeltaName(r) == "" {
		t.Fatal("no code graph delta")
	}
	equalGraphs(t, gx, fullGraphOf(t, r))
}

// TestGraphPartGone: a graph segment a rebuild removed since CURRENT was
// read is missing, not damaged (OpenGraph then reads CURRENT again rather
// than rebuilding everything); one whose manifest is unreadable is
// damaged.
func TestGraphPartGone(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "seg-0000000000000000")
	if _, err := openGraphPart(gone, readManifest(gone)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a removed segment: %v, want fs.ErrNotExist", err)
	}
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, manifest), []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := openGraphPart(bad, readManifest(bad)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("an unreadable manifest: %v, want ErrCorrupt", err)
	}
}

// TestGraphStatus follows Check's report of the graph: not built, fresh,
// stale after a change of code, fresh again (with its delta) after a
// reading of the graph.
func TestGraphStatus(t *testing.T) {
	r := testStore(t)
	refresh(t, r)
	check := func(want GraphStatus, delta bool) {
		t.Helper()
		st, err := Check(r)
		if err != nil {
			t.Fatal(err)
		}
		got := st.Graph
		got.Nodes = min(got.Nodes, 1) // some
		if got != want || (st.GraphDelta != nil) != delta {
			t.Fatalf("graph status %+v, delta %+v; want %+v, delta %v", st.Graph, st.GraphDelta, want, delta)
		}
	}
	check(GraphStatus{Reason: "not built yet"}, false)
	openGraphOf(t, r).Close()
	check(GraphStatus{Present: true, Fresh: true, Nodes: 1}, false)
	ingestFiles(t, r, map[string]string{"net/server.go": "package net\n\n// Serve answers.\nfunc Serve() {}\n"})
	refresh(t, r)
	check(GraphStatus{Present: true, Nodes: 1, Reason: "the code changed"}, false)
	openGraphOf(t, r).Close()
	check(GraphStatus{Present: true, Fresh: true, Nodes: 1}, true)
}

// TestGraphStatusWithoutText: with the text segments gone, Check still
// reports the graph's.
func TestGraphStatusWithoutText(t *testing.T) {
	r := testStore(t)
	refresh(t, r)
	openGraphOf(t, r).Close()
	rewrite(t, r, partCode, docsFile, func([]byte) []byte { return []byte("damaged") })
	st, err := Check(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(st.Reason, "damaged") || !st.Graph.Present || !st.Graph.Fresh {
		t.Fatalf("status %+v", st)
	}
}

// TestGraphDeltaOverEmptyBase: a code graph of no node (a project of no
// code yet) is extended by a delta when code arrives, and the delta
// removes it all again.
func TestGraphDeltaOverEmptyBase(t *testing.T) {
	r := repo.NewTestRepo(t)
	ingestFiles(t, r, map[string]string{"notes.txt": "no code yet\n"})
	openGraphOf(t, r).Close()
	if cur := current(r); readManifest(cur[partCodeGraph]).Nodes != 0 {
		t.Fatalf("a code graph of %d nodes", readManifest(cur[partCodeGraph]).Nodes)
	}
	for _, step := range []struct {
		files  map[string]string
		remove []string
	}{
		{files: map[string]string{"go.mod": "module example.com/p\n\ngo 1.22\n", "p/a.go": "package p\n\nfunc A() { B() }\n\nfunc B() {}\n"}},
		{remove: []string{"p/a.go"}},
	} {
		before := graphDeltaName(r)
		ingestFiles(t, r, step.files, step.remove...)
		gx := openGraphOf(t, r)
		if d := graphDeltaName(r); d == "" || d == before {
			t.Fatal("no code graph delta")
		}
		equalGraphs(t, gx, fullGraphOf(t, r))
		gx.Close()
	}
}

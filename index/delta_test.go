package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/index/reader"
	"github.com/ctx-dev/ctx/index/table"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
	"github.com/ctx-dev/ctx/repo"
)

// deltaStore is testStore with its index built, then a change the next
// Open takes as a delta segment: a file edited, one added, one removed,
// and another command run (so every diagnostic is replaced).
func deltaStore(t testing.TB) *repo.Repo {
	t.Helper()
	r := testStore(t)
	refresh(t, r)
	ingestFiles(t, r, map[string]string{
		"net/client.go": "package net\n\n// Client dials.\ntype Client struct{ Addr string }\n\n// Connect dials with a jittered backoff.\nfunc (c *Client) Connect() error {\n\treturn nil\n}\n\n// Close hangs up.\nfunc (c *Client) Close() {}\n",
		"net/server.go": "package net\n\n// Serve answers.\nfunc Serve() {}\n",
	}, "README.md")
	w, err := r.Lock(context.Background(), repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Unlock()
	if _, err := w.RecordCommand(context.Background(), repo.CommandOptions{Name: "go vet ./...", Output: []byte("net/server.go:4:1: Serve is unused\n"), ExitCode: 1}); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestDeltaSegment checks a delta that adds, replaces and removes files
// and replaces the diagnostics: it is built, it answers as a full build
// does, and a full rebuild folds it in.
func TestDeltaSegment(t *testing.T) {
	r := deltaStore(t)
	ix, rebuilt, err := Open(context.Background(), r, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if !rebuilt || ix.Code().Delta() == nil {
		t.Fatalf("no delta segment (rebuilt %v)", rebuilt)
	}
	d := ix.Code().Delta()
	// Dead: net/client.go's file and its two items, README.md's file,
	// the old diagnostic. Added: net/client.go's file and three items,
	// net/server.go's file and item, the new diagnostic.
	if d.Replaced() != 5 || d.Docs() != 7 {
		t.Fatalf("delta: %d dead, %d added; want 5 and 7", d.Replaced(), d.Docs())
	}
	equalIndexes(t, ix, fullIndexOf(t, r), rand.New(rand.NewSource(1)))
	hits, _, err := ix.Search("unused", SearchOptions{Kinds: []string{"diagnostic"}})
	if err != nil || len(hits) != 1 || !strings.Contains(hits[0].Doc.Title, "Serve is unused") {
		t.Fatalf("diagnostics after the delta: %v %v", titles(hits), err)
	}
	st, err := Check(r)
	if err != nil || !st.Fresh || st.Delta == nil || st.Delta.Docs != 7 || st.Delta.Replaced != 5 {
		t.Fatalf("status %+v %+v, %v", st, st.Delta, err)
	}

	full, _, err := Rebuild(context.Background(), r, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	if full.Code().Delta() != nil {
		t.Fatal("a full rebuild kept the delta segment")
	}
	if cur := current(r); cur[partDelta] != "" {
		t.Fatalf("CURRENT still names a delta: %v", cur)
	}
}

// TestDamagedSegments damages each table of the current segments in
// turn, and checks that the next Open rebuilds and answers.
func TestDamagedSegments(t *testing.T) {
	r := deltaStore(t)
	for _, part := range []int{partCode, partNarrative, partDelta, partNarrDelta} {
		for _, file := range []string{docsFile, termsFile, keysFile, metaFile, manifest, deltaFile} {
			if file == deltaFile && part < nParts {
				continue
			}
			t.Run(partNames[part]+"/"+file, func(t *testing.T) {
				refresh(t, r)
				if part == partDelta && current(r)[partDelta] == "" {
					// The previous case's recovery rebuilt the code
					// segment whole: make another change for a delta.
					ingestFiles(t, r, map[string]string{"extra_" + strings.TrimSuffix(file, ".tbl") + ".go": "package m\n\nfunc Extra() {}\n"})
					refresh(t, r)
				}
				if part == partNarrDelta && current(r)[partNarrDelta] == "" {
					// Likewise for the narrative: a note.
					w, err := r.Lock(context.Background(), repo.LockOptions{})
					if err != nil {
						t.Fatal(err)
					}
					_, err = w.Narrative().Add(narrative.NewNode{Type: narrative.Fact, Content: "Connect retries " + file})
					w.Unlock()
					if err != nil {
						t.Fatal(err)
					}
					refresh(t, r)
					if current(r)[partNarrDelta] == "" {
						t.Fatal("a note made no narrative delta")
					}
				}
				rewrite(t, r, part, file, func([]byte) []byte { return []byte("damaged") })
				ix, _, err := Open(context.Background(), r, BuildOptions{})
				if err != nil {
					t.Fatalf("Open after damaging %s: %v", file, err)
				}
				defer ix.Close()
				hits, _, err := ix.Search("Connect", SearchOptions{})
				if err != nil || len(hits) == 0 {
					t.Fatalf("search after damaging %s: %v %v", file, titles(hits), err)
				}
				equalIndexes(t, ix, fullIndexOf(t, r), rand.New(rand.NewSource(2)))
			})
		}
	}
}

// TestDeltaOverDamagedBase damages, inside docs.tbl, the record of a
// file the next change replaces: open does not notice it, the delta's
// build does, and the code segment is rebuilt instead.
func TestDeltaOverDamagedBase(t *testing.T) {
	r := testStore(t)
	refresh(t, r)
	rewrite(t, r, partCode, docsFile, func(data []byte) []byte {
		// The file document's record: its kind, an empty node kind (the
		// kind's, by a flag), node id, then the node key's length and
		// bytes.
		head, field := []byte("\x04file\x00"), []byte("\x0dnet/client.go")
		i := -1
		for k := bytes.Index(data, field); k >= 0; {
			if k >= 38 && bytes.Equal(data[k-38:k-32], head) {
				i = k
				break
			}
			next := bytes.Index(data[k+1:], field)
			if next < 0 {
				break
			}
			k += 1 + next
		}
		if i < 0 {
			t.Fatal("no record of net/client.go")
		}
		data[i] = 0xff // a length that runs past the record
		return data
	})
	ingestFiles(t, r, map[string]string{"net/client.go": "package net\n\n// Client dials again.\ntype Client struct{}\n"})
	ix, _, err := Open(context.Background(), r, BuildOptions{})
	if err != nil {
		t.Fatalf("Open over a damaged code segment: %v", err)
	}
	defer ix.Close()
	if ix.Code().Delta() != nil {
		t.Fatal("a delta over a damaged code segment")
	}
	equalIndexes(t, ix, fullIndexOf(t, r), rand.New(rand.NewSource(4)))
}

// TestDeltaOfAnotherBase checks that a delta naming another code segment
// than CURRENT's is not used: the code is brought up to date again.
func TestDeltaOfAnotherBase(t *testing.T) {
	r := deltaStore(t)
	refresh(t, r)
	cur := current(r)
	m := readManifest(cur[partDelta])
	m.Base = "seg-0000000000000000"
	text, err := m.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	rewrite(t, r, partDelta, manifest, func([]byte) []byte { return text })
	if _, err := openCurrent(r); err == nil {
		t.Fatal("a delta of another base opened")
	}
	ix, _, err := Open(context.Background(), r, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	equalIndexes(t, ix, fullIndexOf(t, r), rand.New(rand.NewSource(3)))
}

// ingestFiles writes files into r's project, removes the paths in
// remove, and ingests the project.
func ingestFiles(t testing.TB, r *repo.Repo, files map[string]string, remove ...string) {
	t.Helper()
	for name, content := range files {
		full := filepath.Join(r.ProjectRoot(), filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range remove {
		if err := os.Remove(filepath.Join(r.ProjectRoot(), filepath.FromSlash(name))); err != nil {
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
}

// FuzzDeltaTable opens a delta segment whose delta.tbl holds arbitrary
// dead documents, insertion points, dead tokens and term counts, and
// reads every document, term and key through it: it is refused as
// damaged, or read without a panic.
func FuzzDeltaTable(f *testing.F) {
	f.Add([]byte{}, []byte{}, uint64(0), []byte{})
	f.Add(table.AppendUvarintDeltas(nil, []uint32{1, 2}), table.AppendUvarintDeltas(nil, []uint32{0, 0, 3, 3, 9, 9, 9}), uint64(5), []byte{1, 2, 3})
	f.Add([]byte{0, 0}, []byte{1, 1, 1, 1, 1, 1, 1}, uint64(1<<40), []byte{200})
	r := deltaStore(f)
	refresh(f, r)
	cur := current(r)
	base, err := openSegment(cur[partCode])
	if err != nil {
		f.Fatal(err)
	}
	defer base.close()
	dir := cur[partDelta]
	f.Fuzz(func(t *testing.T, dead, ins []byte, tokens uint64, counts []byte) {
		kvs := [][2][]byte{{[]byte(deltaDead), dead}, {[]byte(deltaIns), ins}, {[]byte(deltaTokens), binary.AppendUvarint(nil, tokens)}}
		// Counts for terms the reads below ask for, and a bad value.
		for i, term := range []string{"a", "client", "connect", "serve"} {
			if i < len(counts) {
				kvs = append(kvs, [2][]byte{[]byte(deltaTerm + term), {counts[i]}})
			}
		}
		writeDeltaTable(t, dir, kvs...)
		c, err := reader.OpenPart(base.dir, dir)
		if err != nil {
			return
		}
		defer c.Close()
		for v := range c.Stats().Docs + 2 {
			s, n := c.Locate(v)
			s.DocHead(n)
		}
		for _, term := range []string{"connect", "client", "a", "serve"} {
			p, _ := c.Postings(term)
			if p == nil {
				continue
			}
			for p.Next() {
			}
			p, _ = c.Postings(term)
			p.Advance(3)
		}
		for _, key := range []string{"net/client.go", "retry/backoff.go"} {
			c.Lookup(nsFile, key)
		}
	})
}

// writeDeltaTable replaces the delta.tbl of the segment in dir with one
// of the keys and values kvs, in key order.
func writeDeltaTable(t *testing.T, dir string, kvs ...[2][]byte) {
	t.Helper()
	var buf bytes.Buffer
	w := table.NewWriter(&buf, "delta")
	for _, kv := range kvs {
		if err := w.Add(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, deltaFile)
	os.Remove(path)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUseRebuildsDamaged damages the records of docs.tbl, which opening
// the index does not notice: Use's search fails on them, rebuilds the
// text segments and answers.
func TestUseRebuildsDamaged(t *testing.T) {
	r := testStore(t)
	refresh(t, r)
	rewrite(t, r, partCode, docsFile, func(data []byte) []byte {
		clear(data[16 : len(data)/2]) // records, past the header
		return data
	})
	ix, _, err := Open(context.Background(), r, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = ix.Search("Connect", SearchOptions{})
	ix.Close()
	if !Damaged(err) {
		t.Fatalf("search of a damaged index: %v, want a damaged-index error", err)
	}
	calls := 0
	var hits []Hit
	err = Use(context.Background(), r, BuildOptions{}, func(ix *Index) (err error) {
		calls++
		hits, _, err = ix.Search("Connect", SearchOptions{})
		return err
	})
	if err != nil || calls != 2 || len(hits) == 0 || hits[0].Doc.Title != "method example.com/m/net.Client.Connect" {
		t.Fatalf("Use: %v after %d calls, hits %v", err, calls, titles(hits))
	}
	// Fresh now: one call.
	calls = 0
	if err := Use(context.Background(), r, BuildOptions{}, func(*Index) error { calls++; return nil }); err != nil || calls != 1 {
		t.Fatalf("Use of a sound index: %v, %d calls", err, calls)
	}
}

// refresh brings r's index up to date, as a reading command does.
func refresh(t testing.TB, r *repo.Repo) {
	t.Helper()
	ix, _, err := Open(context.Background(), r, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
}

// TestDeltaSeveralHeads brings the index up to date across changes of
// the number of heads (a git merge that leaves two, the merge that
// reconciles them), from a code segment built on one head and from one
// built on two, with diagnostics recorded on either head: each time with
// a delta, answering as a full build.
func TestDeltaSeveralHeads(t *testing.T) {
	r := testStore(t)
	refresh(t, r)
	check := func(step string, wantDelta bool) {
		t.Helper()
		ix, _, err := Open(context.Background(), r, BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		if got := ix.Code().Delta() != nil; got != wantDelta {
			t.Fatalf("%s: delta segment %v, want %v", step, got, wantDelta)
		}
		equalIndexes(t, ix, fullIndexOf(t, r), rand.New(rand.NewSource(5)))
	}
	head := func() object.ID {
		t.Helper()
		heads, err := r.Heads(refs.Main)
		if err != nil || len(heads) != 1 {
			t.Fatalf("heads %v, %v", heads, err)
		}
		return heads[0]
	}
	base := head()
	ingestFiles(t, r, map[string]string{"left/l.go": "package left\n\n// L goes left.\nfunc L() {}\n"})
	left := head()
	// Another clone, at base, changes other files (and one both have).
	w, err := r.Lock(context.Background(), repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.UpdateRef(refs.Main, base, refs.Any()); err != nil {
		t.Fatal(err)
	}
	w.Unlock()
	os.Remove(filepath.Join(r.ProjectRoot(), "left", "l.go"))
	ingestFiles(t, r, map[string]string{"right/r.go": "package right\n\n// R goes right.\nfunc R() {}\n", "net/client.go": "package net\n\n// Client dials twice.\ntype Client struct{}\n"}, "README.md")
	w, err = r.Lock(context.Background(), repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.RecordCommand(context.Background(), repo.CommandOptions{Name: "go test ./...", Output: []byte("right/r.go:4:1: R is untested\n"), ExitCode: 1}); err != nil {
		t.Fatal(err)
	}
	w.Unlock()
	right := head()
	repo.AddHead(t, r, refs.Main, left) // as a git merge of the two clones leaves main
	if heads, _ := r.Heads(refs.Main); len(heads) != 2 || !slices.Contains(heads, right) {
		t.Fatalf("heads %v, want %s and %s", heads, left.Short(), right.Short())
	}
	check("two heads", true)
	// The diagnostics of both heads' runs, whichever head comes first.
	ix, _, err := Open(context.Background(), r, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	diags, err := ix.Lookup("kind", string(DocDiagnostic))
	ix.Close()
	if err != nil || len(diags) != 2 {
		t.Fatalf("diagnostics of two heads: %v, %v", diags, err)
	}

	// A code segment built on the two heads, then the merge.
	if ix, _, err := Rebuild(context.Background(), r, BuildOptions{}); err != nil {
		t.Fatal(err)
	} else {
		ix.Close()
	}
	ingestFiles(t, r, map[string]string{"retry/backoff.go": "package retry\n\n// NextDelay triples.\nfunc NextDelay(d int) int { return 3 * d }\n"})
	head()
	check("merged", true)
}

// TestOpenGraphRebuildsDamaged damages a table of each graph segment in
// turn (so that it does not open, though its manifest is fresh): the next
// OpenGraph rebuilds the graph's segments and answers.
func TestOpenGraphRebuildsDamaged(t *testing.T) {
	r := testStore(t)
	for _, part := range []int{partGraph, partCodeGraph} {
		gx, err := OpenGraph(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		want, err := gx.Neighbors("file:net/client.go", true)
		gx.Close()
		if err != nil || len(want) == 0 {
			t.Fatalf("neighbours: %v, %v", want, err)
		}
		rewrite(t, r, part, nodesFile, func([]byte) []byte { return []byte("damaged") })
		gx, err = OpenGraph(context.Background(), r)
		if err != nil {
			t.Fatalf("OpenGraph after damaging the %s segment: %v", partNames[part], err)
		}
		got, err := gx.Neighbors("file:net/client.go", true)
		gx.Close()
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("neighbours after the rebuild: %v, %v; want %v", got, err, want)
		}
	}
}

// rewrite replaces the file of the segment CURRENT names for part with
// what edit makes of its content.
func rewrite(t testing.TB, r *repo.Repo, part int, file string, edit func([]byte) []byte) {
	t.Helper()
	dir := current(r)[part]
	if dir == "" {
		t.Fatalf("no %s segment", partNames[part])
	}
	path := filepath.Join(dir, file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o644)
	if err := os.WriteFile(path, edit(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLazyDocs: reader.Open, the front end's, opens a segment's
// documents table only when a document of it is read; one damaged or
// missing then is ErrCorrupt (which Use rebuilds), and searches that do
// not read it answer as the whole index does.
func TestLazyDocs(t *testing.T) {
	r := deltaStore(t)
	refresh(t, r)
	cur := current(r)
	open := func() *reader.Index {
		t.Helper()
		ix, err := reader.Open(cur[partCode], cur[partDelta], cur[partNarrative], cur[partNarrDelta])
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		return ix
	}
	full, _, err := Open(context.Background(), r, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	lazy := open()
	for _, q := range []string{"Connect", "retries", "client"} {
		want, wm, err1 := full.Index.Search(q, SearchOptions{})
		got, gm, err2 := lazy.Search(q, SearchOptions{})
		if err1 != nil || err2 != nil || gm != wm || !reflect.DeepEqual(got, want) {
			t.Fatalf("search %q: %d hits (%v), want %d (%v)", q, gm, err2, wm, err1)
		}
	}
	narr := lazy.Code().Stats().Docs // the first narrative document
	if _, err := lazy.Doc(narr); err != nil {
		t.Fatal(err)
	}
	for _, damage := range []func(dir string){
		func(dir string) { os.WriteFile(filepath.Join(dir, docsFile), []byte("damaged"), 0o644) },
		func(dir string) { os.Remove(filepath.Join(dir, docsFile)) },
	} {
		dir := cur[partNarrative]
		if cur[partNarrDelta] != "" {
			dir = cur[partNarrDelta]
		}
		data, err := os.ReadFile(filepath.Join(dir, docsFile))
		if err != nil {
			t.Fatal(err)
		}
		damage(dir)
		ix := open()
		if _, err := ix.Doc(0); err != nil {
			t.Errorf("a code document: %v", err)
		}
		_, err = ix.Doc(ix.Code().Stats().Docs + ix.Narrative().Stats().Docs - 1)
		if !errors.Is(err, ErrCorrupt) || !Damaged(err) {
			t.Errorf("a narrative document of a damaged segment: %v", err)
		}
		os.WriteFile(filepath.Join(dir, docsFile), data, 0o644)
	}
}

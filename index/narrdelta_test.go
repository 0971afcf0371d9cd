package index

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/repo"
)

// TestNarrativeDeltaSteps walks through the changes a narrative delta
// takes and those it leaves to a rebuild of the narrative segment: after
// each, the index must equal a full build's, with or without a delta as
// the step says.
func TestNarrativeDeltaSteps(t *testing.T) {
	r := repo.NewTestRepo(t)
	sp := r.Narrative()
	lock := func() *repo.Writer {
		w, err := r.Lock(context.Background(), repo.LockOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Unlock() })
		return w
	}
	w := lock()
	var nodes []*narrative.Node
	for i := range 12 {
		n, err := w.Narrative().Add(narrative.NewNode{Type: narrative.Fact, Content: fmt.Sprintf("Fact %d about retry backoff", i), Tags: []string{"tier:reference"}})
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, n)
	}
	file := func(n *narrative.Node) string { return filepath.Join(sp.Root, filepath.FromSlash(n.Path)) }
	read := func(n *narrative.Node) []byte {
		b, err := os.ReadFile(file(n))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	write := func(rel string, b []byte) {
		if err := os.WriteFile(filepath.Join(sp.Root, filepath.FromSlash(rel)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	load := func() *narrative.Catalog {
		cat, err := sp.Load()
		if err != nil {
			t.Fatal(err)
		}
		return cat
	}
	rng := rand.New(rand.NewSource(1))
	var lastDelta string
	// check opens the index as a reading command does and compares it
	// with a full build; delta says whether a new narrative delta must
	// have been built (false: the narrative segment was rebuilt).
	check := func(step string, delta bool) {
		t.Helper()
		ix, _, err := Open(context.Background(), r, BuildOptions{})
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		defer ix.Close()
		equalIndexes(t, ix, fullIndexOf(t, r), rng)
		d := ix.Narrative().Delta()
		switch {
		case delta && (d == nil || d.Segment().Dir() == lastDelta):
			t.Fatalf("%s: no new narrative delta", step)
		case !delta && d != nil:
			t.Fatalf("%s: a narrative delta, want the segment rebuilt", step)
		}
		if d != nil {
			lastDelta = d.Segment().Dir()
		}
	}
	check("first build", false)

	n0 := nodes[0]
	w.Narrative().Add(narrative.NewNode{Type: narrative.Observation, Content: "A note on jitter"})
	check("a note added", true)

	write(n0.Path, append(read(n0), "\nMore on retry.\n"...))
	check("a file edited by hand", true)

	if _, err := w.Narrative().Change(load().Nodes[nodes[1].ID], narrative.OpSupersede, string(nodes[2].ID)); err != nil {
		t.Fatal(err)
	}
	check("a node superseded", true)

	alive3 := read(nodes[3])
	if _, err := w.Narrative().Change(load().Nodes[nodes[3].ID], narrative.OpDelete, ""); err != nil {
		t.Fatal(err)
	}
	check("a node deleted", true)

	if err := os.Remove(file(nodes[4])); err != nil {
		t.Fatal(err)
	}
	check("a file removed", true)

	// Copies in files the narrative does not read (hidden): the index
	// does not even look at them.
	if err := os.MkdirAll(filepath.Join(sp.Root, ".drafts"), 0o755); err != nil {
		t.Fatal(err)
	}
	fresh := bytes.ReplaceAll(read(nodes[9]), []byte(nodes[9].ID), []byte("hhhhhhhhh0"))
	write(".drafts/draft.md", fresh)
	write(path.Join(path.Dir(nodes[9].Path), ".swap.md"), fresh)
	if ix, rebuilt, err := Open(context.Background(), r, BuildOptions{}); err != nil || rebuilt {
		t.Fatalf("hidden copies written: rebuilt %v, %v", rebuilt, err)
	} else {
		equalIndexes(t, ix, fullIndexOf(t, r), rng)
		ix.Close()
	}

	moved := path.Join(path.Dir(nodes[5].Path), "moved.md")
	if err := os.Rename(file(nodes[5]), filepath.Join(sp.Root, filepath.FromSlash(moved))); err != nil {
		t.Fatal(err)
	}
	nodes[5].Path = moved
	check("a file renamed", true)

	// A copy of an unchanged node's file, before it by path: the copy's
	// node wins, a change of another file's document.
	n7 := nodes[7]
	copied := path.Join(path.Dir(n7.Path), "0-copy.md")
	write(copied, read(n7))
	check("a file copied before its original", false)
	if ix, _, err := Open(context.Background(), r, BuildOptions{}); err != nil || !slices.Contains(partManifest(t, ix.Narrative().Base()).Hidden, HiddenID{string(n7.ID), copied}) {
		t.Fatalf("the copied id is not hidden in the rebuilt segment's manifest: %v", err)
	} else {
		ix.Close()
	}
	// Either copy edited: its id is hidden in the base.
	write(n7.Path, append(read(n7), "\nEven more.\n"...))
	check("the original of a copied file edited", false)
	if err := os.Remove(filepath.Join(sp.Root, filepath.FromSlash(copied))); err != nil {
		t.Fatal(err)
	}
	check("the copy removed", false)

	// A deleted node still holds its id: a live copy after it by path is
	// ignored (hidden in the base).
	write(path.Join(path.Dir(nodes[3].Path), "zz-revived.md"), alive3)
	check("a deleted node's file copied alive after it", false)
	if ix, _, err := Open(context.Background(), r, BuildOptions{}); err != nil {
		t.Fatal(err)
	} else if docs, err := ix.Lookup("node", graphNodeOf(nodes[3].ID)); err != nil || len(docs) != 0 {
		ix.Close()
		t.Fatalf("the deleted node has documents %v (%v)", docs, err)
	} else {
		ix.Close()
	}

	// Many changes at once: more than the budget.
	defer func(share, slack int) { deltaShare, deltaSlack = share, slack }(deltaShare, deltaSlack)
	deltaShare, deltaSlack = 8, 2
	for i := 8; i < 12; i++ {
		write(nodes[i].Path, append(read(nodes[i]), "\nEdited.\n"...))
	}
	check("four files edited, over the budget", false)
	write(nodes[8].Path, append(read(nodes[8]), "\nOnce more.\n"...))
	check("one file edited, within it", true)
}

// graphNodeOf is the "node" key of a narrative node's document.
func graphNodeOf(id narrative.ID) string { return graph.NarrativeNode("", string(id)).ID.String() }

// TestNarrativeDeltaEdges changes narrative files in ways a full load
// reads differently from their stat data: each time the index must equal
// a full build's, delta or not.
func TestNarrativeDeltaEdges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, r *repo.Repo, root string, nodes []*narrative.Node)
	}{
		{"a note moved into a hidden directory", func(t *testing.T, r *repo.Repo, root string, nodes []*narrative.Node) {
			mustDo(t, os.MkdirAll(filepath.Join(root, ".archive"), 0o755))
			mustDo(t, os.Rename(filepath.Join(root, nodes[0].Path), filepath.Join(root, ".archive", "old.md")))
		}},
		{"a note replaced by a symbolic link to it", func(t *testing.T, r *repo.Repo, root string, nodes []*narrative.Node) {
			p, away := filepath.Join(root, nodes[0].Path), filepath.Join(t.TempDir(), "kept.md")
			mustDo(t, os.Rename(p, away))
			mustDo(t, os.Symlink(away, p))
		}},
		{"a directory of notes replaced by a symbolic link to it", func(t *testing.T, r *repo.Repo, root string, nodes []*narrative.Node) {
			dir, away := filepath.Join(root, filepath.Dir(nodes[0].Path)), filepath.Join(t.TempDir(), "facts")
			mustDo(t, os.Rename(dir, away))
			mustDo(t, os.Symlink(away, dir))
		}},
		{"the narrative directory replaced by a symbolic link, then a note edited through it", func(t *testing.T, r *repo.Repo, root string, nodes []*narrative.Node) {
			away := filepath.Join(t.TempDir(), "narrative")
			mustDo(t, os.Rename(root, away))
			mustDo(t, os.Symlink(away, root))
			ix, _, err := Open(context.Background(), r, BuildOptions{})
			mustDo(t, err)
			ix.Close()
			p := filepath.Join(root, filepath.FromSlash(nodes[0].Path))
			mustDo(t, os.WriteFile(p, append(mustRead(t, p), "\nMore on retry.\n"...), 0o644))
		}},
		{"a note whose file name holds a tab, a newline and a backslash", func(t *testing.T, r *repo.Repo, root string, nodes []*narrative.Node) {
			fresh := bytes.ReplaceAll(mustRead(t, filepath.Join(root, nodes[0].Path)), []byte(nodes[0].ID), []byte("hhhhhhhhh1"))
			mustDo(t, os.WriteFile(filepath.Join(root, "facts", "odd\tname\n\\x.md"), fresh, 0o644))
		}},
		{"a deleted node's file removed, a live copy after it", func(t *testing.T, r *repo.Repo, root string, nodes []*narrative.Node) {
			n := nodes[0]
			alive, err := os.ReadFile(filepath.Join(root, n.Path))
			mustDo(t, err)
			w, err := r.Lock(context.Background(), repo.LockOptions{})
			mustDo(t, err)
			cat, err := r.Narrative().Load()
			mustDo(t, err)
			_, err = w.Narrative().Change(cat.Nodes[n.ID], narrative.OpDelete, "")
			w.Unlock()
			mustDo(t, err)
			// The copy is ignored: the deleted node, first by path,
			// holds the id. Then the base records it hidden.
			mustDo(t, os.WriteFile(filepath.Join(root, filepath.Dir(n.Path), "zz-copy.md"), alive, 0o644))
			ix, _, err := Rebuild(context.Background(), r, BuildOptions{})
			mustDo(t, err)
			ix.Close()
			// Its file removed, the copy holds the id alone.
			mustDo(t, os.Remove(filepath.Join(root, n.Path)))
		}},
		{"a note renamed over one of the same size and time", func(t *testing.T, r *repo.Repo, root string, nodes []*narrative.Node) {
			a, b := filepath.Join(root, nodes[1].Path), filepath.Join(root, nodes[2].Path)
			sa, err := os.Stat(a)
			mustDo(t, err)
			mustDo(t, os.WriteFile(b, bytes.Replace(mustRead(t, b), []byte("Fact 2"), []byte("Fact 9"), 1), 0o644))
			mustDo(t, os.Chtimes(b, sa.ModTime(), sa.ModTime()))
			if sb, err := os.Stat(b); err != nil || sb.Size() != sa.Size() {
				t.Fatalf("sizes differ: %v", err)
			}
			ix, _, err := Rebuild(context.Background(), r, BuildOptions{})
			mustDo(t, err)
			ix.Close()
			mustDo(t, os.Rename(b, a)) // a's size and time, b's node
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := repo.NewTestRepo(t)
			w, err := r.Lock(context.Background(), repo.LockOptions{})
			mustDo(t, err)
			var nodes []*narrative.Node
			for i := range 6 {
				n, err := w.Narrative().Add(narrative.NewNode{Type: narrative.Fact, Content: fmt.Sprintf("Fact %d about retry backoff", i)})
				mustDo(t, err)
				nodes = append(nodes, n)
			}
			w.Unlock()
			ix, _, err := Open(context.Background(), r, BuildOptions{})
			mustDo(t, err)
			ix.Close()
			tc.change(t, r, r.Narrative().Root, nodes)
			ix, _, err = Open(context.Background(), r, BuildOptions{})
			mustDo(t, err)
			defer ix.Close()
			equalIndexes(t, ix, fullIndexOf(t, r), rand.New(rand.NewSource(1)))
		})
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	mustDo(t, err)
	return b
}

// TestNarrativeDeltaRandom writes, removes and renames narrative files
// at random over a few paths (hidden, temporary and top-level ones among
// them) and a few node ids (deleted nodes and broken node comments among
// them): after each step the index must equal a full build's.
func TestNarrativeDeltaRandom(t *testing.T) {
	paths := []string{"facts/a.md", "facts/b.md", "facts/c.md", "observations/d.md", "e.md", ".drafts/f.md", "facts/g.md.tmp", "facts/.h.md"}
	ids := []string{"aaaaaaaaa0", "bbbbbbbbb0", "ccccccccc0", "ddddddddd0"}
	nodeFile := func(rng *rand.Rand, id string) []byte {
		header := fmt.Sprintf("<!-- ctx:node\nid: %s\ntype: fact\ncreated: 2026-11-23T05:00:00Z\n-->\n", id)
		if rng.Intn(8) == 0 {
			header = "<!-- ctx:node\nid:\n-->\n" // broken: no node
		}
		changes := "<!-- ctx:changes: ctx appends one line per change below this one -->\n"
		if rng.Intn(5) == 0 {
			changes += "<!-- ctx:event 2026-11-23T05:01:00Z 1 a delete -->\n"
		}
		return fmt.Appendf(nil, "# Fact %s %d\n\n%sretry backoff %d\n\n%s", id, rng.Intn(100), header, rng.Intn(100), changes)
	}
	deltas, hidden := 0, 0
	for seed := int64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewSource(seed))
		r := repo.NewTestRepo(t)
		root := r.Narrative().Root
		for step := range 30 {
			defer func(share, slack int) { deltaShare, deltaSlack = share, slack }(deltaShare, deltaSlack)
			deltaShare, deltaSlack = 1+rng.Intn(4), rng.Intn(6)
			p := filepath.Join(root, filepath.FromSlash(paths[rng.Intn(len(paths))]))
			switch rng.Intn(4) {
			case 0:
				os.Remove(p)
			case 1:
				to := filepath.Join(root, filepath.FromSlash(paths[rng.Intn(len(paths))]))
				mustDo(t, os.MkdirAll(filepath.Dir(to), 0o755))
				os.Rename(p, to)
			default:
				mustDo(t, os.MkdirAll(filepath.Dir(p), 0o755))
				mustDo(t, os.WriteFile(p, nodeFile(rng, ids[rng.Intn(len(ids))]), 0o644))
			}
			ix, _, err := Open(context.Background(), r, BuildOptions{})
			if err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			if ix.Narrative().Delta() != nil {
				deltas++
			}
			if m := partManifest(t, ix.Narrative().Base()); len(m.Hidden) > 0 {
				hidden++
			}
			equalIndexes(t, ix, fullIndexOf(t, r), rng)
			ix.Close()
		}
	}
	t.Logf("%d of 180 steps answered with a narrative delta, %d over a base with hidden ids", deltas, hidden)
	if deltas == 0 || hidden == 0 {
		t.Fatal("no narrative delta was built, or no id hidden")
	}
}

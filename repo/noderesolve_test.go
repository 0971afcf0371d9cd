package repo

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
)

// resolveFixture is a project with files, narrative nodes, symbols and
// commits for ResolveNode to find.
type resolveFixture struct {
	r                         *Repo
	g                         *Graph
	root                      string // the project directory
	task, decision, readme    graph.NodeID
	twin1, twin2, collide     graph.NodeID
	head, prev                object.ID // main and its parent
	connect, coreConnect, get graph.NodeID
}

func newResolveFixture(t *testing.T) *resolveFixture {
	t.Helper()
	r := NewTestRepo(t)
	f := &resolveFixture{r: r, root: r.ProjectRoot()}
	// An ingested tree with a file that is not on the disk.
	ingest := CommitFiles(t, r, at(5), map[string]string{"ingested/only.go": "package only", "README.md": "# demo"}, "ingest", mustResolve(t, r, "main"))
	if err := r.refStore.Update(refs.Main, ingest, refs.Any()); err != nil {
		t.Fatal(err)
	}
	writeProject(t, r, map[string]string{
		"README.md": "# demo", "src/main.go": "package main", "src/util/": "", "docs/guide.md": "guide",
	})
	if err := os.WriteFile(filepath.Join(filepath.Dir(f.root), "outside.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := lock(t, r)
	f.connect, f.coreConnect, f.get = item("net.Client.Connect"), item("core::net::Client::connect"), item("pkg/http.Get")
	linkEdges(t, w, []graph.Edge{
		edgeOf(f.connect, item("other.Connect"), graph.Calls),
		edgeOf(f.coreConnect, f.get, graph.References),
	}, EdgeOptions{})
	// Paths the graph knows that are not on the disk.
	res := linkEdges(t, w, []graph.Edge{edgeOf(file("gone/old.go"), graph.DirectoryNode("test", "gone-dir"), graph.RelatesTo)}, EdgeOptions{})
	f.head, f.prev = res.Commit.ID, res.Commit.Commit.Parents[0]

	add := func(id string, typ narrative.Type, content string) graph.NodeID {
		return nodeOf(addNodeID(t, w, id, narrative.NewNode{Type: typ, Content: content}))
	}
	f.task = add("mnpq012345", narrative.Task, "Add retry backoff")
	f.decision = add("mnpq0xyzzz", narrative.Decision, "Use backoff")
	f.readme = add("ghjk000000", narrative.Fact, "README.md") // a title that is also a path
	f.twin1 = add("wxyz000000", narrative.Fact, "Twin")
	f.twin2 = add("wxyz111111", narrative.Fact, "twin")
	// A node whose id starts like the head commit's.
	f.collide = add(f.head.String()[:narrative.IDLen], narrative.Fact, "Collides with a commit")
	deleted := addNodeID(t, w, "rstv000000", narrative.NewNode{Type: narrative.Fact, Content: "Deleted thing"})
	change(t, w, deleted, narrative.OpDelete, "")
	f.g = buildGraph(t, r, GraphOptions{})
	return f
}

func TestResolveNode(t *testing.T) {
	f := newResolveFixture(t)
	r, root := f.r, f.root
	blob := lookupPath(t, r, f.head, "README.md")
	dir := func(p string) graph.NodeID { return graph.DirectoryNode("test", p) }
	sub, store, above := filepath.Join(root, "src"), filepath.Join(root, DirName), filepath.Dir(root)
	tests := []struct {
		arg, wd string // wd "" means the project root
		want    graph.NodeID
		err     error    // the error expected, if any
		cands   []string // an ambiguity's candidates: name (title)
	}{
		// Narrative ids and prefixes.
		{arg: "mnpq012345", want: f.task},
		{arg: "MNPQ012345", want: f.task},
		{arg: "mnpq01", want: f.task},
		{arg: "mnpq", err: ErrAmbiguousNode, cands: []string{"decision:mnpq0xyzzz (Use backoff)", "task:mnpq012345 (Add retry backoff)"}},
		{arg: "rstv000000", want: graph.NarrativeNode("fact", "rstv000000")}, // deleted, but named by id
		{arg: "node:mnpq01", want: f.task},
		{arg: "node:MNPQ012345", want: f.task},
		{arg: "node:mnpq", err: ErrAmbiguousNode, cands: []string{"decision:mnpq0xyzzz (Use backoff)", "task:mnpq012345 (Add retry backoff)"}},
		{arg: "node:zzzzzz", err: ErrNodeNotFound},
		{arg: "node:README.md", err: narrative.ErrInvalidID},
		{arg: "node:", err: ErrInvalidArgument},
		// Commits.
		{arg: f.head.String(), want: graph.CommitNode(f.head)},
		{arg: strings.ToUpper(f.head.String()), want: graph.CommitNode(f.head)},
		{arg: f.head.String()[:12], want: graph.CommitNode(f.head)},
		{arg: f.head.String()[:narrative.IDLen], want: f.collide}, // an exact node id wins
		{arg: f.head.String()[:8], err: ErrAmbiguousNode, cands: []string{"commit:" + f.head.Short(), f.collide.Name() + " (Collides with a commit)"}},
		{arg: "commit:" + f.head.String()[:8], want: graph.CommitNode(f.head)},
		{arg: "commit:HEAD", want: graph.CommitNode(f.head)},
		{arg: "commit:main~1", want: graph.CommitNode(f.prev)},
		{arg: "commit:" + blob.String(), err: ErrNotCommit},
		{arg: blob.String(), err: ErrNotCommit},
		{arg: blob.String()[:12], err: ErrNodeNotFound}, // a prefix of a blob: no node
		{arg: "commit:no-such-ref", err: refs.ErrNotFound},
		{arg: "commit:", err: ErrInvalidArgument},
		// Files and directories.
		{arg: "src/main.go", want: file("src/main.go")},
		{arg: "./src/main.go", want: file("src/main.go")},
		{arg: "src//main.go", want: file("src/main.go")},
		{arg: "src/../src/main.go", want: file("src/main.go")},
		{arg: "src", want: dir("src")},
		{arg: "src/", want: dir("src")},
		{arg: "src/util", want: dir("src/util")},
		{arg: "docs/guide.md", want: file("docs/guide.md")},
		{arg: "file:README.md", want: file("README.md")},
		{arg: "file:src/main.go", want: file("src/main.go")},
		{arg: "dir:src", want: dir("src")},
		{arg: "file:src", err: ErrInvalidArgument},
		{arg: "dir:src/main.go", err: ErrInvalidArgument},
		{arg: "file:missing.go", err: ErrNodeNotFound},
		{arg: "file:", err: ErrInvalidArgument},
		{arg: "missing.go", err: ErrNodeNotFound},
		// Relative to wd inside the project.
		{arg: "main.go", wd: sub, want: file("src/main.go")},
		{arg: "util", wd: sub, want: dir("src/util")},
		{arg: ".", wd: sub, want: dir("src")},
		{arg: "../docs/guide.md", wd: sub, want: file("docs/guide.md")},
		{arg: "file:../README.md", wd: sub, want: file("README.md")},
		{arg: "README.md", wd: sub, want: f.readme}, // src/README.md does not exist: the title
		{arg: "main.go", err: ErrNodeNotFound},      // not from the root
		// Absolute paths.
		{arg: filepath.Join(root, "src", "main.go"), wd: sub, want: file("src/main.go")},
		{arg: filepath.Join(root, "src", "main.go"), wd: above, want: file("src/main.go")},
		{arg: "file:" + filepath.Join(root, "docs"), err: ErrInvalidArgument},
		{arg: filepath.Join(above, "outside.txt"), err: ErrNodeNotFound},
		// Outside the project, or in the store: not nodes.
		{arg: "../outside.txt", err: ErrNodeNotFound},
		{arg: "../../outside.txt", wd: sub, err: ErrNodeNotFound},
		{arg: "file:../outside.txt", err: ErrNodeNotFound},
		{arg: "outside.txt", wd: above, err: ErrNodeNotFound}, // wd outside: from the root
		{arg: "src/main.go", wd: above, want: file("src/main.go")},
		{arg: ".ctx/config.toml", err: ErrNodeNotFound},
		{arg: "file:.ctx/HEAD", err: ErrNodeNotFound},
		{arg: ".ctx", err: ErrNodeNotFound},
		{arg: "dir:.ctx", err: ErrNodeNotFound},
		{arg: "./src/../.ctx/HEAD", err: ErrNodeNotFound},
		{arg: "config.toml", wd: store, err: ErrNodeNotFound},
		{arg: "../README.md", wd: store, want: file("README.md")},
		// Paths the graph or the ingested tree knows, gone from the disk.
		{arg: "gone/old.go", want: file("gone/old.go")},
		{arg: "gone-dir", want: dir("gone-dir")},
		{arg: "dir:gone-dir", want: dir("gone-dir")},
		{arg: "file:gone-dir", err: ErrInvalidArgument},
		{arg: "ingested/only.go", want: file("ingested/only.go")},
		{arg: "file:ingested/only.go", want: file("ingested/only.go")},
		// Titles and slugs.
		{arg: "Add retry backoff", want: f.task},
		{arg: "add RETRY backoff", want: f.task},
		{arg: "add-retry-backoff", want: f.task},
		{arg: "use-backoff", want: f.decision},
		{arg: "Twin", err: ErrAmbiguousNode, cands: []string{"fact:wxyz000000 (Twin)", "fact:wxyz111111 (twin)"}},
		{arg: "Deleted thing", err: ErrNodeNotFound},
		{arg: "README.md", err: ErrAmbiguousNode, cands: []string{"fact:ghjk000000 (README.md)", "file:README.md"}},
		// Symbols.
		{arg: "net.Client.Connect", want: f.connect},
		{arg: "core::net::Client::connect", want: f.coreConnect},
		{arg: "Client::connect", want: f.coreConnect},
		{arg: "connect", want: f.coreConnect},
		{arg: "http.Get", want: f.get},
		{arg: "Get", want: f.get},
		{arg: "Connect", err: ErrAmbiguousNode, cands: []string{"item:net.Client.Connect", "item:other.Connect"}},
		{arg: "nt.Connect", err: ErrNodeNotFound}, // not after a separator
		{arg: "item:net.Client.Connect", want: f.connect},
		{arg: "item:Connect", want: item("Connect")}, // not ingested: asserted
		{arg: "item:src/main.go", want: item("src/main.go")},
		{arg: "item: Connect", err: ErrInvalidArgument},
		{arg: "item:a\tb", err: ErrInvalidArgument},
		{arg: "item:", err: ErrInvalidArgument},
		// Nothing.
		{arg: "", err: ErrInvalidArgument},
		{arg: "nothing-here", err: ErrNodeNotFound},
		{arg: "zzzz", err: ErrNodeNotFound},
		{arg: "kind:thing", err: ErrNodeNotFound},
	}
	for _, tc := range tests {
		wd := tc.wd
		if wd == "" {
			wd = root
		}
		rel, _ := filepath.Rel(root, wd)
		t.Run(filepath.ToSlash(rel)+"/"+tc.arg, func(t *testing.T) {
			got, err := r.ResolveNode(f.g, tc.arg, wd)
			if tc.err == nil {
				if err != nil || got != tc.want {
					t.Fatalf("= %s (%x), %v; want %s (%x)", got.Name(), got.ID[:4], err, tc.want.Name(), tc.want.ID[:4])
				}
				return
			}
			if !errors.Is(err, tc.err) {
				t.Fatalf("= %s, %v; want an error matching %v", got.Name(), err, tc.err)
			}
			var ae *AmbiguousNodeError
			if errors.As(err, &ae) != (tc.cands != nil) {
				t.Fatalf("error %v (%T): ambiguity expected: %v", err, err, tc.cands != nil)
			}
			if ae == nil {
				return
			}
			var names []string
			for _, c := range ae.Candidates {
				n := c.Name()
				if c.Title != "" {
					n += " (" + c.Title + ")"
				}
				names = append(names, n)
			}
			if !slices.Equal(names, tc.cands) {
				t.Errorf("candidates %q, want %q", names, tc.cands)
			}
		})
	}
}

func TestAmbiguousNodeError(t *testing.T) {
	f := newResolveFixture(t)
	_, err := f.r.ResolveNode(f.g, "mnpq", f.root)
	var ae *AmbiguousNodeError
	if !errors.As(err, &ae) || ae.Arg != "mnpq" {
		t.Fatalf("err = %v", err)
	}
	want := `"mnpq" could mean 2 nodes: decision:mnpq0xyzzz (Use backoff), task:mnpq012345 (Add retry backoff); ` +
		`name one with its kind (file:PATH, item:KEY, commit:REV, node:ID)`
	if err.Error() != want {
		t.Errorf("Error() = %q\nwant      %q", err, want)
	}
	if !errors.Is(err, ErrAmbiguousNode) || errors.Is(err, ErrNodeNotFound) {
		t.Error("errors.Is is wrong")
	}
	if _, err := f.r.ResolveNode(f.g, "nothing-here", f.root); err == nil || !strings.Contains(err.Error(), "item:nothing-here") {
		t.Errorf("not found: %v, want a hint naming item:nothing-here", err)
	}
}

// TestResolveNodeHeads checks the ingested tree is consulted only for a
// graph at one head: with two, a path neither the disk nor the graph has
// is no node.
func TestResolveNodeHeads(t *testing.T) {
	r := NewTestRepo(t)
	root := mustResolve(t, r, "main")
	a := CommitFiles(t, r, at(10), map[string]string{"only/a.go": "a"}, "a", root)
	b := CommitFiles(t, r, at(20), map[string]string{"only/b.go": "b"}, "b", root)
	one := buildGraph(t, r, GraphOptions{At: []object.ID{a}})
	if n, err := r.ResolveNode(one, "only/a.go", ""); err != nil || n != file("only/a.go") {
		t.Errorf("at a: %s, %v", n.Name(), err)
	}
	if _, err := r.ResolveNode(one, "only/b.go", ""); !errors.Is(err, ErrNodeNotFound) {
		t.Errorf("b's file at a: %v, want ErrNodeNotFound", err)
	}
	two := buildGraph(t, r, GraphOptions{At: []object.ID{a, b}})
	if _, err := r.ResolveNode(two, "only/a.go", ""); !errors.Is(err, ErrNodeNotFound) {
		t.Errorf("at two heads: %v, want ErrNodeNotFound", err)
	}
}

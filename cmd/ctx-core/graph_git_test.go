package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// graphDump is what `ctx --json debug graph` prints, as far as these tests
// read it.
type graphDump struct {
	Heads []string `json:"heads"`
	Edges []struct {
		From     struct{ Key string } `json:"from"`
		Label    string               `json:"label"`
		To       struct{ Key string } `json:"to"`
		Evidence struct {
			BlobID string `json:"blob_id"`
		} `json:"evidence"`
		Origin struct {
			Commit    string `json:"commit"`
			Narrative string `json:"narrative"`
		} `json:"origin"`
	} `json:"edges"`
	Removed int `json:"removed"`
}

// edgeSet returns the edges as "from label to" lines, sorted.
func (d graphDump) edgeSet() []string {
	var out []string
	for _, e := range d.Edges {
		out = append(out, e.From.Key+" "+e.Label+" "+e.To.Key)
	}
	slices.Sort(out)
	return out
}

// graphClones is a project tracked in git whose ctx store has a task, and
// two clones of it.
type graphClones struct {
	t              *testing.T
	git, ctx       string
	genv           []string
	origin         string
	ada, bob, task string
}

func newGraphClones(t *testing.T, setup func(g *graphClones)) *graphClones {
	t.Helper()
	gc := &graphClones{t: t, git: lookGit(t)}
	gc.ctx, _ = binaries(t)
	top := t.TempDir()
	gc.genv = gitEnv(top)
	gc.origin = filepath.Join(top, "origin")
	writeFiles(t, gc.origin, map[string]string{
		"README.md": "# project\n", "src/net.go": "package src\n", "src/retry.go": "package src\n", "src/pool.go": "package src\n",
	})
	gc.g(gc.origin, "init", "-q", "-b", "main")
	gc.c(gc.origin, "1790000000", "init")
	gc.task = gc.c(gc.origin, "1790000000", "add", "task", "Add connection retry")
	if setup != nil {
		setup(gc)
	}
	gc.g(gc.origin, "add", "-A")
	gc.g(gc.origin, "commit", "-q", "-m", "Add ctx store")
	gc.ada, gc.bob = filepath.Join(top, "ada"), filepath.Join(top, "bob")
	gc.g(top, "clone", "-q", gc.origin, gc.ada)
	gc.g(top, "clone", "-q", gc.origin, gc.bob)
	return gc
}

func (gc *graphClones) g(dir string, args ...string) string {
	gc.t.Helper()
	return must(gc.t, dir, gc.genv, "", gc.git, args...)
}

func (gc *graphClones) c(dir, date string, args ...string) string {
	gc.t.Helper()
	return must(gc.t, dir, append(gc.genv, "CTX_DATE="+date), "", gc.ctx, args...)
}

// share commits the clone's .ctx in git.
func (gc *graphClones) share(dir, msg string) {
	gc.t.Helper()
	gc.g(dir, "add", "-A")
	gc.g(dir, "commit", "-q", "-m", msg)
}

// pull merges the other clone's main with plain git, which must report no
// conflict.
func (gc *graphClones) pull(dir, from string) {
	gc.t.Helper()
	gc.g(dir, "pull", "-q", "--no-rebase", "--no-edit", from, "main")
	if st := gc.g(dir, "status", "--porcelain"); st != "" {
		gc.t.Fatalf("%s: git status after merge:\n%s", filepath.Base(dir), st)
	}
}

// graph returns `ctx --json debug graph` in dir, with more arguments.
func (gc *graphClones) graph(dir string, args ...string) graphDump {
	gc.t.Helper()
	out := gc.c(dir, "1790009999", append([]string{"--json", "debug", "graph"}, args...)...)
	var d graphDump
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		gc.t.Fatalf("%s: debug graph: %v\n%s", filepath.Base(dir), err, out)
	}
	return d
}

// TestGitMergeOfEdges lets two clones relate different edges and merges
// them with plain git: the graph sees both edges before and after the
// heads are reconciled, whether by ctx reconcile or by the next writing
// command, and both ways of reconciling give the same merge commit.
func TestGitMergeOfEdges(t *testing.T) {
	gc := newGraphClones(t, nil)
	gc.c(gc.ada, "1790000100", "relate", gc.task, "mentions", "src/net.go")
	gc.share(gc.ada, "ada relates")
	gc.c(gc.bob, "1790000200", "relate", gc.task, "Mentions", "src/retry.go", "--evidence", "the retry loop lives here")
	gc.share(gc.bob, "bob relates")
	gc.pull(gc.ada, gc.bob)
	gc.pull(gc.bob, gc.ada)

	task := gc.task
	want := []string{task + " mentions src/net.go", task + " mentions src/retry.go"}
	for _, dir := range []string{gc.ada, gc.bob} {
		// Before anything is written the graph is that of both heads.
		d := gc.graph(dir)
		if len(d.Heads) != 2 || !slices.Equal(d.edgeSet(), want) {
			t.Fatalf("%s: before reconciling: heads %v, edges %v; want 2 heads and %v", filepath.Base(dir), d.Heads, d.edgeSet(), want)
		}
		gc.c(dir, "1790000300", "verify")
	}

	// Ada reconciles explicitly; Bob's next relate reconciles first.
	gc.c(gc.ada, "1790000300", "reconcile")
	merge := gc.c(gc.ada, "1", "rev-parse", "main")
	if d := gc.graph(gc.ada, "--at", merge); !slices.Equal(d.edgeSet(), want) || len(d.Heads) != 1 || d.Heads[0] != merge {
		t.Fatalf("ada: graph at the merge %s: heads %v, edges %v; want %v", merge[:12], d.Heads, d.edgeSet(), want)
	}
	if d := gc.graph(gc.ada); !slices.Equal(d.edgeSet(), want) {
		t.Fatalf("ada: graph after reconcile: %v", d.edgeSet())
	}
	gc.c(gc.bob, "1790000400", "relate", "src/retry.go", "imports", "src/pool.go")
	if got := gc.c(gc.bob, "1", "rev-parse", "main~1"); got != merge {
		t.Fatalf("bob's relate did not build on the same merge: main~1 = %s, ada's merge %s", got, merge)
	}
	if log := gc.c(gc.bob, "1", "log", "-n", "1", merge); !strings.Contains(log, "\nMerge:  ") {
		t.Fatalf("the reconciled head is not a merge:\n%s", log)
	}
	d := gc.graph(gc.bob, "--at", "main~1")
	if !slices.Equal(d.edgeSet(), want) {
		t.Fatalf("bob: graph at the merge: %v, want %v", d.edgeSet(), want)
	}
	d = gc.graph(gc.bob)
	w := append(slices.Clone(want), "src/retry.go imports src/pool.go")
	slices.Sort(w) // edgeSet is sorted; the task's id is random
	if got := d.edgeSet(); !slices.Equal(got, w) {
		t.Fatalf("bob: graph after relate: %v, want %v", got, w)
	}
	for _, e := range d.Edges {
		if e.To.Key == "src/retry.go" && e.Evidence.BlobID == "" {
			t.Errorf("bob's evidence was lost in the merge: %+v", e)
		}
	}
	out := gc.c(gc.bob, "1", "edges", "src/retry.go")
	if !strings.Contains(out, "<- mentions") || !strings.Contains(out, "-> imports") {
		t.Errorf("bob: edges of src/retry.go:\n%s", out)
	}
	gc.c(gc.bob, "1", "verify")
	gc.share(gc.bob, "bob relates again")
	gc.share(gc.ada, "ada reconciles")
	gc.pull(gc.ada, gc.bob)
	if d := gc.graph(gc.ada); len(d.Heads) != 1 || len(d.Edges) != 3 {
		t.Fatalf("ada after pulling bob again: heads %v, edges %v", d.Heads, d.edgeSet())
	}
}

// TestGitMergeOfUnlink checks that add wins across a merge: an edge one
// clone unlinks while the other asserts it again (with new evidence)
// survives the merge, and one the other clone left alone does not. Both
// merge orders agree.
func TestGitMergeOfUnlink(t *testing.T) {
	for _, tc := range []struct {
		name      string
		reassert  bool
		wantEdges int // edges from the task to src/net.go after the merge
	}{
		{"reasserted", true, 1},
		{"untouched", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gc := newGraphClones(t, func(gc *graphClones) {
				gc.c(gc.origin, "1790000050", "relate", gc.task, "mentions", "src/net.go")
			})
			gc.c(gc.ada, "1790000100", "unlink", gc.task, "src/net.go", "--reason", "the task no longer touches the network code")
			if d := gc.graph(gc.ada); len(d.Edges) != 0 || d.Removed != 1 {
				t.Fatalf("ada after unlink: edges %v, removed %d", d.edgeSet(), d.Removed)
			}
			gc.share(gc.ada, "ada unlinks")
			if tc.reassert {
				out := gc.c(gc.bob, "1790000200", "relate", gc.task, "mentions", "src/net.go", "--evidence", "connect() calls retry()")
				if strings.Contains(out, "already present") {
					t.Fatalf("bob's relate with new evidence wrote nothing: %s", out)
				}
			} else {
				gc.c(gc.bob, "1790000200", "relate", gc.task, "mentions", "src/retry.go")
			}
			gc.share(gc.bob, "bob works")
			gc.pull(gc.ada, gc.bob)
			gc.pull(gc.bob, gc.ada)

			var dumps []graphDump
			for i, dir := range []string{gc.ada, gc.bob} {
				gc.c(dir, []string{"1790000300", "1790000400"}[i], "reconcile")
				d := gc.graph(dir)
				n := 0
				for _, e := range d.Edges {
					if e.From.Key == gc.task && e.To.Key == "src/net.go" {
						n++
						if e.Evidence.BlobID == "" {
							t.Errorf("%s: the surviving edge is the original, not bob's: %+v", filepath.Base(dir), e)
						}
					}
				}
				if n != tc.wantEdges {
					t.Errorf("%s: %d edge(s) to src/net.go after the merge, want %d: %v", filepath.Base(dir), n, tc.wantEdges, d.edgeSet())
				}
				out := gc.c(dir, "1", "edges", gc.task, "--direction", "out")
				if has := strings.Contains(out, "file:src/net.go"); has != (tc.wantEdges == 1) {
					t.Errorf("%s: ctx edges:\n%s", filepath.Base(dir), out)
				}
				gc.c(dir, "1", "verify")
				dumps = append(dumps, d)
			}
			if !slices.Equal(dumps[0].edgeSet(), dumps[1].edgeSet()) || dumps[0].Heads[0] != dumps[1].Heads[0] {
				t.Errorf("the clones disagree: ada %v at %v, bob %v at %v", dumps[0].edgeSet(), dumps[0].Heads, dumps[1].edgeSet(), dumps[1].Heads)
			}
			// Unlinking after the merge removes what is left: the
			// tombstone now sees every add.
			gc.c(gc.ada, "1790000500", "unlink", gc.task, "src/net.go")
			if out := gc.c(gc.ada, "1", "edges", gc.task); strings.Contains(out, "src/net.go") {
				t.Errorf("ada: unlink after the merge left the edge:\n%s", out)
			}
		})
	}
}

// TestGitMergeUnlinkBeforeReconcile unlinks an edge both clones asserted
// while main still has the two heads a git merge left: the unlink
// reconciles first, so its tombstone sees, and removes, both copies.
func TestGitMergeUnlinkBeforeReconcile(t *testing.T) {
	gc := newGraphClones(t, nil)
	gc.c(gc.ada, "1790000100", "relate", gc.task, "mentions", "src/net.go", "--evidence", "ada saw it")
	gc.share(gc.ada, "ada relates")
	gc.c(gc.bob, "1790000200", "relate", gc.task, "mentions", "src/net.go", "--evidence", "bob saw it")
	gc.share(gc.bob, "bob relates")
	gc.pull(gc.ada, gc.bob)
	if d := gc.graph(gc.ada); len(d.Heads) != 2 || len(d.Edges) != 1 {
		t.Fatalf("before the unlink: heads %v, edges %v", d.Heads, d.edgeSet())
	}
	out := gc.c(gc.ada, "1790000300", "unlink", gc.task, "src/net.go")
	if !strings.Contains(out, "unlink task:") {
		t.Fatalf("unlink: %s", out)
	}
	d := gc.graph(gc.ada)
	if len(d.Heads) != 1 || len(d.Edges) != 0 || d.Removed != 2 {
		t.Fatalf("after the unlink: heads %v, edges %v, removed %d; want one head, no edge, 2 removed", d.Heads, d.edgeSet(), d.Removed)
	}
	if log := gc.c(gc.ada, "1", "log", "-n", "1", "main~1"); !strings.Contains(log, "\nMerge:  ") {
		t.Fatalf("the unlink's parent is not the merge:\n%s", log)
	}
	gc.c(gc.ada, "1", "verify")
}

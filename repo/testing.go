package repo

import (
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/clock"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
)

// TestTime is the time NewTestRepo's clock tells: a fixed instant, so that
// commits made in tests have reproducible IDs.
var TestTime = time.Unix(1_700_000_000, 0).UTC()

// NewTestRepo creates a store in a new temporary project directory and
// returns it open. Its clock is fixed at TestTime. The directory is removed
// when the test ends.
func NewTestRepo(tb testing.TB) *Repo {
	tb.Helper()
	r, err := Init(tb.TempDir(), InitOptions{Options: Options{Clock: clock.Fixed(TestTime)}, RepoID: "test"})
	if err != nil {
		tb.Fatalf("repo: init test store: %v", err)
	}
	return r
}

// CommitFiles stores files (slash-separated path to content) as blobs and
// trees and writes a commit of them with the given parents, timed at, like
// CommitTree. It returns the commit's ID; no ref moves.
func CommitFiles(tb testing.TB, r *Repo, at time.Time, files map[string]string, message string, parents ...object.ID) object.ID {
	tb.Helper()
	ids := make(map[string]object.ID, len(files))
	for p, content := range files {
		id, err := r.Objects.Put(object.KindBlob, []byte(content))
		if err != nil {
			tb.Fatalf("repo: put %s: %v", p, err)
		}
		ids[p] = id
	}
	tree, err := object.WriteTree(r.Objects, ids)
	if err != nil {
		tb.Fatalf("repo: write tree: %v", err)
	}
	at1 := *r
	at1.Clock = clock.Fixed(at)
	id, err := at1.CommitTree(tree, parents, message, "test")
	if err != nil {
		tb.Fatalf("repo: commit: %v", err)
	}
	return id
}

// AddHead gives ref n the further head id and keeps its other heads, as a
// git merge of two clones that both moved n does. It takes no lock.
func AddHead(tb testing.TB, r *Repo, n refs.Name, id object.ID) {
	tb.Helper()
	if err := r.refStore.Update(n, id, refs.Among()); err != nil {
		tb.Fatalf("repo: add head %s to %s: %v", id.Short(), n, err)
	}
}

// TreeFiles reads the tree id (or a commit's root tree) into a map from
// slash-separated path to blob content. An empty directory appears as its
// path with a trailing '/' and the content "".
func TreeFiles(tb testing.TB, r *Repo, id object.ID) map[string]string {
	tb.Helper()
	tree, err := r.TreeOf(id)
	if err != nil {
		tb.Fatalf("repo: tree of %s: %v", id.Short(), err)
	}
	out := make(map[string]string)
	var walk func(id object.ID, prefix string)
	walk = func(id object.ID, prefix string) {
		t := new(object.Tree)
		if err := object.GetTyped(r.Objects, id, t); err != nil {
			tb.Fatalf("repo: read tree %s%s: %v", prefix, id.Short(), err)
		}
		if len(t.Entries) == 0 && prefix != "" {
			out[prefix] = ""
		}
		for _, e := range t.Entries {
			if e.Kind == object.EntryTree {
				walk(e.ID, prefix+e.Name+"/")
				continue
			}
			kind, b, err := r.Objects.Get(e.ID)
			if err != nil || kind != object.KindBlob {
				tb.Fatalf("repo: read %s%s: %v (kind %s)", prefix, e.Name, err, kind)
			}
			out[prefix+e.Name] = string(b)
		}
	}
	walk(tree, "")
	return out
}

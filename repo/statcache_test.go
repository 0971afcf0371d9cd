package repo

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
)

// settleStatCache moves the time the stat cache was written an hour
// ahead, as if the files had last changed long before: the state of a
// project whose files are older than the racy window, which a test that
// writes its files just before ingesting them cannot otherwise reach.
func settleStatCache(t testing.TB, r *Repo) {
	t.Helper()
	c := r.loadStatCache()
	if len(c.entries) == 0 {
		t.Fatal("the stat cache is empty")
	}
	c.written += int64(time.Hour)
	if err := r.saveStatCache(c); err != nil {
		t.Fatal(err)
	}
}

func TestStatCacheLookup(t *testing.T) {
	const written = int64(1_700_000_000) * 1e9
	old := written - 10*racyWindow
	blob := object.Sum(object.KindBlob, []byte("x"))
	tests := []struct {
		name       string
		entry, now statEntry
		ok         bool
	}{
		{"unchanged", statEntry{size: 1, mtime: old, ctime: old, ino: 7}, statEntry{size: 1, mtime: old, ctime: old, ino: 7}, true},
		{"size", statEntry{size: 1, mtime: old, ctime: old, ino: 7}, statEntry{size: 2, mtime: old, ctime: old, ino: 7}, false},
		{"mtime", statEntry{size: 1, mtime: old, ctime: old, ino: 7}, statEntry{size: 1, mtime: old + 1, ctime: old, ino: 7}, false},
		{"ctime", statEntry{size: 1, mtime: old, ctime: old, ino: 7}, statEntry{size: 1, mtime: old, ctime: old + 1, ino: 7}, false},
		{"inode", statEntry{size: 1, mtime: old, ctime: old, ino: 7}, statEntry{size: 1, mtime: old, ctime: old, ino: 8}, false},
		{"mtime racy", statEntry{size: 1, mtime: written - racyWindow/2, ctime: old, ino: 7}, statEntry{size: 1, mtime: written - racyWindow/2, ctime: old, ino: 7}, false},
		{"ctime racy", statEntry{size: 1, mtime: old, ctime: written - racyWindow/2, ino: 7}, statEntry{size: 1, mtime: old, ctime: written - racyWindow/2, ino: 7}, false},
		{"changed after the cache", statEntry{size: 1, mtime: written + 1, ctime: written + 1, ino: 7}, statEntry{size: 1, mtime: written + 1, ctime: written + 1, ino: 7}, false},
		{"just outside the window", statEntry{size: 1, mtime: written - racyWindow - 1, ctime: written - racyWindow - 1, ino: 7}, statEntry{size: 1, mtime: written - racyWindow - 1, ctime: written - racyWindow - 1, ino: 7}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.entry
			e.blob = blob
			c := &statCache{entries: map[string]statEntry{"a": e}, written: written}
			id, ok := c.lookup("a", tc.now)
			if ok != tc.ok || ok && id != blob {
				t.Errorf("lookup = %s, %v; want %v", id.Short(), ok, tc.ok)
			}
			if _, ok := c.lookup("b", tc.now); ok {
				t.Error("lookup of a path not cached succeeded")
			}
		})
	}
}

// TestStatCacheIngest checks the stat cache through Ingest: an ingestion
// with nothing changed reads nothing and commits nothing, a racy entry is
// read again, and a lost or damaged cache costs reads, never a wrong
// snapshot.
func TestStatCacheIngest(t *testing.T) {
	files := map[string]string{
		"go.mod":   "module example.com/m\n\ngo 1.22\n",
		"a/a.go":   "package a\n\nfunc A() {}\n",
		"b/b.go":   "package b\n\nimport \"example.com/m/a\"\n\nfunc B() { a.A() }\n",
		"notes.md": "# notes\n",
	}
	n := len(files)
	tests := []struct {
		name    string
		setup   func(t *testing.T, r *Repo)
		hashed  int
		commits bool
	}{
		{name: "settled", setup: func(t *testing.T, r *Repo) { settleStatCache(t, r) }, hashed: 0},
		{name: "racy", setup: func(t *testing.T, r *Repo) {
			// Written within the window of the files' last change.
			c := r.loadStatCache()
			c.written = 0
			for _, e := range c.entries {
				c.written = max(c.written, e.ctime+racyWindow/2)
			}
			if err := r.saveStatCache(c); err != nil {
				t.Fatal(err)
			}
		}, hashed: n},
		{name: "cache deleted", setup: func(t *testing.T, r *Repo) {
			if err := os.Remove(filepath.Join(r.Root, filepath.FromSlash(statCacheFile))); err != nil {
				t.Fatal(err)
			}
		}, hashed: n},
		{name: "cache damaged", setup: func(t *testing.T, r *Repo) {
			if err := os.WriteFile(filepath.Join(r.Root, filepath.FromSlash(statCacheFile)), []byte(statCacheVersion+"\nwritten 1\nnotes.md\tx\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, hashed: n},
		{name: "cache from another version", setup: func(t *testing.T, r *Repo) {
			if err := os.WriteFile(filepath.Join(r.Root, filepath.FromSlash(statCacheFile)), []byte("ctx stat-cache 99\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, hashed: n},
		{name: "one file touched", setup: func(t *testing.T, r *Repo) {
			settleStatCache(t, r)
			now := time.Unix(1_650_000_000, 0)
			if err := os.Chtimes(filepath.Join(r.ProjectRoot(), "notes.md"), now, now); err != nil {
				t.Fatal(err)
			}
		}, hashed: 1},
		{name: "one file changed", setup: func(t *testing.T, r *Repo) {
			settleStatCache(t, r)
			writeDated(t, r, map[string]string{"notes.md": "# Notes\n"})
		}, hashed: 1, commits: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewTestRepo(t)
			writeDated(t, r, files)
			first := mustIngest(t, r, IngestOptions{Semantics: true})
			if first.Hashed != n || !first.Committed {
				t.Fatalf("first Ingest: hashed %d, committed %v; want %d, true", first.Hashed, first.Committed, n)
			}
			h0, _ := head(t, r)
			tc.setup(t, r)
			objects := objectCount(t, r)
			res := mustIngest(t, r, IngestOptions{Semantics: true})
			if res.Hashed != tc.hashed {
				t.Errorf("Hashed = %d, want %d", res.Hashed, tc.hashed)
			}
			if res.Committed != tc.commits {
				t.Errorf("Committed = %v, want %v", res.Committed, tc.commits)
			}
			if tc.commits {
				checkSemanticInvariant(t, r)
				return
			}
			if h, _ := head(t, r); h != h0 {
				t.Errorf("main moved to %s", h.Short())
			}
			if got := objectCount(t, r); got != objects || res.NewObjects != 0 {
				t.Errorf("%d objects written (NewObjects %d)", got-objects, res.NewObjects)
			}
			if res.Parsed != 0 || res.Added+res.Modified+res.Removed != 0 || res.Files != n {
				t.Errorf("result %+v, want %d files, nothing read or changed", res, n)
			}
		})
	}
}

// TestStatCacheRacy checks that an entry whose stat data match the file
// but which was cached within the racy window is not trusted: the file
// may have changed after it was hashed, in the same timestamp tick.
func TestStatCacheRacy(t *testing.T) {
	for _, racy := range []bool{true, false} {
		name := map[bool]string{true: "racy", false: "settled"}[racy]
		t.Run(name, func(t *testing.T) {
			r := NewTestRepo(t)
			writeDated(t, r, map[string]string{"a.txt": "one\n"})
			mustIngest(t, r, IngestOptions{})
			_, c0 := head(t, r)
			oldBlob := rootPaths(t, r, c0)["a.txt"]
			// The file changes, keeping its size; the cache gets its new
			// stat data with the old blob, as if the change had come in
			// the same tick as the hashing.
			writeDated(t, r, map[string]string{"a.txt": "two\n"})
			info, err := os.Lstat(filepath.Join(r.ProjectRoot(), "a.txt"))
			if err != nil {
				t.Fatal(err)
			}
			c := r.loadStatCache()
			e := statOf(info)
			e.blob = oldBlob
			c.entries["a.txt"] = e
			c.written = e.ctime + int64(time.Hour)
			if racy {
				c.written = e.ctime + racyWindow/2
			}
			if err := r.saveStatCache(c); err != nil {
				t.Fatal(err)
			}
			res := mustIngest(t, r, IngestOptions{})
			_, c1 := head(t, r)
			_, data, err := r.Objects.Get(rootPaths(t, r, c1)["a.txt"])
			if err != nil {
				t.Fatal(err)
			}
			if racy {
				if res.Hashed != 1 || !res.Committed || string(data) != "two\n" {
					t.Errorf("racy entry: hashed %d, committed %v, a.txt = %q; want the file read again", res.Hashed, res.Committed, data)
				}
			} else if res.Hashed != 0 || res.Committed {
				// The contrast: a settled entry is trusted, which is
				// what makes the racy check necessary.
				t.Errorf("settled entry: hashed %d, committed %v; want it trusted", res.Hashed, res.Committed)
			}
		})
	}
}

// TestStatCacheSnapshotMoved checks that a cache entry is trusted only
// while the snapshot holds the blob it names: when the ref moves to
// another snapshot (a reset, a pull), files are read again.
func TestStatCacheSnapshotMoved(t *testing.T) {
	r := NewTestRepo(t)
	writeDated(t, r, map[string]string{"a.txt": "mine\n", "b.txt": "b\n"})
	mustIngest(t, r, IngestOptions{})
	settleStatCache(t, r)
	h, _ := head(t, r)
	other := CommitFiles(t, r, TestTime, map[string]string{"a.txt": "theirs\n", "b.txt": "b\n"}, "theirs", h)
	if err := r.refStore.Update(refs.Main, other, refs.Among(h)); err != nil {
		t.Fatal(err)
	}
	res := mustIngest(t, r, IngestOptions{})
	if res.Hashed != 1 || res.Modified != 1 || !res.Committed {
		t.Errorf("hashed %d, modified %d, committed %v; want a.txt read again and stored", res.Hashed, res.Modified, res.Committed)
	}
	_, c := head(t, r)
	if got := TreeFiles(t, r, c.RootTree)["a.txt"]; got != "mine\n" {
		t.Errorf("a.txt = %q, want the file on disk", got)
	}
}

package repo

import (
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/graph/extract"
	"github.com/ctx-dev/ctx/internal/clock"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
)

// past is a modification time well outside the stat cache's racy window,
// for files whose cache entries a test wants trusted.
var past = time.Unix(1_600_000_000, 0)

// writeDated writes files (slash-separated path to content) under the
// project root of r, creating directories as needed, and dates them in
// the past.
func writeDated(t testing.TB, r *Repo, files map[string]string) {
	t.Helper()
	root := r.ProjectRoot()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(full, past, past); err != nil {
			t.Fatal(err)
		}
	}
}

// removeProject removes project files or directories.
func removeProject(t testing.TB, r *Repo, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.RemoveAll(filepath.Join(r.ProjectRoot(), filepath.FromSlash(p))); err != nil {
			t.Fatal(err)
		}
	}
}

// ingestWith runs Ingest under the writer lock.
func ingestWith(t testing.TB, r *Repo, opts IngestOptions) (*IngestResult, error) {
	t.Helper()
	w, err := r.Lock(t.Context(), LockOptions{Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Unlock()
	return w.Ingest(t.Context(), opts)
}

// mustIngest runs Ingest and fails the test on an error.
func mustIngest(t testing.TB, r *Repo, opts IngestOptions) *IngestResult {
	t.Helper()
	res, err := ingestWith(t, r, opts)
	if err != nil {
		t.Fatalf("Ingest(%q): %v", opts.Paths, err)
	}
	return res
}

// head returns the commit main names.
func head(t testing.TB, r *Repo) (object.ID, *object.Commit) {
	t.Helper()
	id, err := r.Resolve("main")
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.ReadCommit(id)
	if err != nil {
		t.Fatal(err)
	}
	return id, c
}

// rootPaths returns the paths and blobs of a commit's root tree.
func rootPaths(t testing.TB, r *Repo, c *object.Commit) map[string]object.ID {
	t.Helper()
	entries, err := object.ListTree(r.Objects, c.RootTree, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]object.ID{}
	for p, e := range entries {
		out[p] = e.ID
	}
	return out
}

// semVersions returns the file versions of a commit's semantic snapshot
// and their ids.
func semVersions(t testing.TB, r *Repo, c *object.Commit) (map[string]*extract.FileVersion, map[string]object.ID) {
	t.Helper()
	versions, ids := map[string]*extract.FileVersion{}, map[string]object.ID{}
	if c.SemanticSnapshot == nil {
		return versions, ids
	}
	entries, err := object.ListTree(r.Objects, *c.SemanticSnapshot, "")
	if err != nil {
		t.Fatal(err)
	}
	for p, e := range entries {
		v := new(extract.FileVersion)
		if err := object.GetTyped(r.Objects, e.ID, v); err != nil {
			t.Fatalf("file version of %s: %v", p, err)
		}
		versions[p], ids[p] = v, e.ID
	}
	return versions, ids
}

// checkSemanticInvariant checks that the semantic snapshot of the head
// has a version of every file of its root tree whose path is in want (all
// of them when want is nil), and that each version's blob is the tree's.
func checkSemanticInvariant(t testing.TB, r *Repo) {
	t.Helper()
	_, c := head(t, r)
	tree := rootPaths(t, r, c)
	versions, _ := semVersions(t, r, c)
	for p, v := range versions {
		blob, ok := tree[p]
		switch {
		case !ok:
			t.Errorf("semantic snapshot has %s, which the root tree does not", p)
		case v.Blob != blob:
			t.Errorf("file version of %s names blob %s, the root tree %s", p, v.Blob.Short(), blob.Short())
		case v.Path != p:
			t.Errorf("file version at %s names path %s", p, v.Path)
		}
	}
}

// storeState fingerprints every file of the store but the lock, so that a
// test can check that an operation wrote nothing.
func storeState(t testing.TB, r *Repo) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(r.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := r.Rel(p)
		if rel == "LOCK" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = sha256.Sum256(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkUnchanged fails if the store differs from a storeState.
func checkUnchanged(t testing.TB, r *Repo, before map[string][32]byte) {
	t.Helper()
	after := storeState(t, r)
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("store gained %s", p)
		} else if before[p] != after[p] {
			t.Errorf("store changed %s", p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("store lost %s", p)
		}
	}
}

func skippedPaths(s []Skipped) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = x.Path
	}
	return out
}

// TestIngestScopes checks which paths Ingest accepts and how it names
// them.
func TestIngestScopes(t *testing.T) {
	r := NewTestRepo(t)
	root := r.ProjectRoot()
	outside := t.TempDir()
	writeDated(t, r, map[string]string{
		"a.go":           "package a\n",
		"sub/b.go":       "package sub\n",
		"sub/deep/c.txt": "c\n",
	})
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"sub/link.go":  filepath.Join(root, "a.go"), // inside, to a file
		"sub/linkdir":  filepath.Join(root, "sub", "deep"),
		"escape":       outside,
		"escape.txt":   filepath.Join(outside, "secret.txt"),
		"sub/relative": "../../" + filepath.Base(outside),
	} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}

	tests := []struct {
		name  string
		paths []string
		wd    string
		err   string // substring of the error; "" for success
		files []string
	}{
		{name: "file", paths: []string{"a.go"}, files: []string{"a.go"}},
		{name: "dot slash and dot dot inside", paths: []string{"./sub/../a.go"}, files: []string{"a.go"}},
		{name: "trailing slash", paths: []string{"sub/"}, files: []string{"sub/b.go", "sub/deep/c.txt"}},
		{name: "absolute inside", paths: []string{filepath.Join(root, "sub", "deep")}, files: []string{"sub/deep/c.txt"}},
		{name: "relative to wd", paths: []string{"c.txt"}, wd: filepath.Join(root, "sub", "deep"), files: []string{"sub/deep/c.txt"}},
		{name: "dot dot from wd", paths: []string{"../b.go"}, wd: filepath.Join(root, "sub", "deep"), files: []string{"sub/b.go"}},
		{name: "nested scopes merge", paths: []string{"sub", "sub/deep", "sub/b.go"}, files: []string{"sub/b.go", "sub/deep/c.txt"}},
		{name: "root", paths: []string{"."}, files: []string{"a.go", "sub/b.go", "sub/deep/c.txt"}},
		{name: "dot dot out", paths: []string{"../x"}, err: "outside the project"},
		{name: "dot dot out through a directory", paths: []string{"sub/../../x"}, err: "outside the project"},
		{name: "absolute outside", paths: []string{filepath.Join(outside, "secret.txt")}, err: "outside the project"},
		{name: "the store", paths: []string{".ctx"}, err: "inside the store"},
		{name: "in the store", paths: []string{".ctx/config.toml"}, err: "inside the store"},
		{name: "store through dot dot", paths: []string{"sub/../.ctx/HEAD"}, err: "inside the store"},
		{name: "git directory", paths: []string{".git"}, err: ".git"},
		{name: "in the git directory", paths: []string{".git/config"}, err: ".git"},
		{name: "symlink argument", paths: []string{"sub/link.go"}, err: "symbolic link"},
		{name: "symlink to a directory inside", paths: []string{"sub/linkdir"}, err: "symbolic link"},
		{name: "through a symlinked directory", paths: []string{"sub/linkdir/c.txt"}, err: "symbolic link"},
		{name: "symlink escaping", paths: []string{"escape"}, err: "outside the project"},
		{name: "symlink escaping to a file", paths: []string{"escape.txt"}, err: "outside the project"},
		{name: "through a symlink escaping", paths: []string{"escape/secret.txt"}, err: "outside the project"},
		{name: "relative symlink escaping", paths: []string{"sub/relative/secret.txt"}, err: "outside the project"},
		{name: "one bad path refuses all", paths: []string{"a.go", "../x"}, err: "outside the project"},
		{name: "no such path", paths: []string{"a.go", "nope.go"}, err: "matches no file"},
		{name: "through a symlink escaping, missing", paths: []string{"escape/nope.txt"}, err: "symbolic link"},
	}
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeDated(t, r, map[string]string{".git/config": "[core]\n"})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := storeState(t, r)
			res, err := ingestWith(t, r, IngestOptions{Paths: tc.paths, Wd: tc.wd})
			if tc.err != "" {
				if err == nil || !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Ingest(%q) = %v, want ErrInvalidArgument saying %q", tc.paths, err, tc.err)
				}
				checkUnchanged(t, r, before)
				return
			}
			if err != nil {
				t.Fatalf("Ingest(%q): %v", tc.paths, err)
			}
			if res.Files != len(tc.files) {
				t.Errorf("Files = %d, want %d", res.Files, len(tc.files))
			}
			_, c := head(t, r)
			got := rootPaths(t, r, c)
			for _, p := range tc.files {
				if _, ok := got[p]; !ok {
					t.Errorf("root tree lacks %s: has %v", p, sortedKeys(got))
				}
			}
			for p := range got {
				if strings.HasPrefix(p, ".git/") || strings.HasPrefix(p, ".ctx/") || strings.Contains(p, "link") || strings.HasPrefix(p, "escape") {
					t.Errorf("root tree holds %s", p)
				}
			}
		})
	}
}

// TestIngestIgnores checks what a whole-project ingestion leaves out:
// files git ignores (nested .gitignore files, .git/info/exclude), config
// ignore_globs, .git/ and .ctx/, files over max_file_bytes; and that it
// records binary files without reading them.
func TestIngestIgnores(t *testing.T) {
	r := NewTestRepo(t)
	r.Config.Ingestion.IgnoreGlobs = append(r.Config.Ingestion.IgnoreGlobs, "gen/**", "*.tmp")
	r.Config.Ingestion.MaxFileBytes = 100
	big := strings.Repeat("x", 101)
	writeDated(t, r, map[string]string{
		".gitignore":              "*.log\nbuild/\n!keep.log\n",
		".git/info/exclude":       "excluded.txt\n",
		".git/config":             "[core]\n",
		"sub/.git":                "gitdir: ../.git/modules/sub\n", // a submodule's link
		"main.go":                 "package main\n\nfunc main() {}\n",
		"app.log":                 "log\n",
		"keep.log":                "kept\n",
		"build/out.txt":           "built\n",
		"excluded.txt":            "excluded\n",
		"sub/excluded.txt":        "excluded too\n",
		"sub/.gitignore":          "local.txt\n/anchored.txt\n",
		"sub/local.txt":           "local\n",
		"sub/anchored.txt":        "anchored\n",
		"sub/deeper/anchored.txt": "not anchored here\n",
		"sub/deeper/.gitignore":   "!*.log\n",
		"sub/deeper/debug.log":    "re-included\n",
		"gen/x.go":                "package gen\n",
		"scratch.tmp":             "tmp\n",
		"nested/.ctx/HEAD":        "a nested store\n",
		"big.txt":                 big,
		"edge.txt":                big[:100],
		"image.png":               "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"blob.go":                 "package blob\x00\x01\x02\n",
	})
	res := mustIngest(t, r, IngestOptions{Semantics: true})
	_, c := head(t, r)
	want := []string{
		".gitignore", "blob.go", "edge.txt", "image.png", "keep.log", "main.go",
		"sub/.gitignore", "sub/deeper/.gitignore", "sub/deeper/anchored.txt", "sub/deeper/debug.log",
	}
	if got := sortedKeys(rootPaths(t, r, c)); !slices.Equal(got, want) {
		t.Errorf("root tree:\n got %q\nwant %q", got, want)
	}
	if got := skippedPaths(res.Skipped); !slices.Equal(got, []string{"big.txt"}) {
		t.Errorf("Skipped = %+v, want big.txt", res.Skipped)
	} else if !strings.Contains(res.Skipped[0].Reason, "max_file_bytes") {
		t.Errorf("big.txt skipped because %q, want max_file_bytes named", res.Skipped[0].Reason)
	}
	if res.Files != len(want) || res.Added != len(want) {
		t.Errorf("Files %d, Added %d; want %d", res.Files, res.Added, len(want))
	}
	versions, _ := semVersions(t, r, c)
	for _, p := range []string{"image.png", "blob.go"} {
		v := versions[p]
		if v == nil {
			t.Errorf("no file version of %s", p)
			continue
		}
		if !v.Binary || v.Language != "" || len(v.Items) > 0 {
			t.Errorf("file version of %s: binary %v, language %q, %d items; want binary, not read", p, v.Binary, v.Language, len(v.Items))
		}
	}
	if v := versions["main.go"]; v == nil || v.Binary || v.Language != "go" || len(v.Items) == 0 {
		t.Errorf("file version of main.go = %+v, want Go with items", v)
	}
	if res.Parsed != 1 {
		t.Errorf("Parsed = %d, want 1 (main.go)", res.Parsed)
	}
	checkSemanticInvariant(t, r)

	// Paths named on the command line are ignored as the walk ignores
	// them, and reported.
	tests := []struct {
		path, reason string
	}{
		{"app.log", "ignored"},
		{"build", "ignored"},
		{"build/out.txt", "ignored"},
		{"sub/local.txt", "ignored"},
		{"gen/x.go", "ignored"},
		{"nested/.ctx/HEAD", "ignored"},
		{"big.txt", "max_file_bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			res := mustIngest(t, r, IngestOptions{Paths: []string{tc.path}})
			if res.Committed {
				t.Errorf("Ingest(%s) committed", tc.path)
			}
			if len(res.Skipped) != 1 || res.Skipped[0].Path != tc.path || !strings.Contains(res.Skipped[0].Reason, tc.reason) {
				t.Errorf("Skipped = %+v, want %s for %q", res.Skipped, tc.path, tc.reason)
			}
		})
	}
}

// TestIngestRemovals checks that files gone from the disk leave the root
// tree and the semantic snapshot, and that ingesting a path touches only
// what is under it.
func TestIngestRemovals(t *testing.T) {
	files := map[string]string{
		"go.mod":         "module example.com/m\n\ngo 1.22\n",
		"a/a.go":         "package a\n\nfunc A() {}\n",
		"a/a2.go":        "package a\n\nfunc A2() { A() }\n",
		"b/b.go":         "package b\n\nfunc B() {}\n",
		"b/sub/s.go":     "package sub\n\nfunc S() {}\n",
		"docs/README.md": "# m\n",
	}
	tests := []struct {
		name    string
		extra   map[string]string // files besides the common ones
		remove  []string
		modify  map[string]string
		paths   []string
		want    []string // the root tree's paths after
		changed []string // paths whose blob changed
		removed int
	}{
		{
			name:    "file removed, whole project",
			remove:  []string{"a/a2.go"},
			want:    []string{"a/a.go", "b/b.go", "b/sub/s.go", "docs/README.md", "go.mod"},
			removed: 1,
		},
		{
			name:    "directory removed, named",
			remove:  []string{"b"},
			paths:   []string{"b"},
			want:    []string{"a/a.go", "a/a2.go", "docs/README.md", "go.mod"},
			removed: 2,
		},
		{
			name:    "file removed, named",
			remove:  []string{"docs/README.md"},
			paths:   []string{"docs/README.md"},
			want:    []string{"a/a.go", "a/a2.go", "b/b.go", "b/sub/s.go", "go.mod"},
			removed: 1,
		},
		{
			name:    "subdirectory only",
			remove:  []string{"a/a2.go", "b/sub/s.go"},
			modify:  map[string]string{"a/a.go": "package a\n\nfunc A() { println() }\n", "b/b.go": "package b\n\nfunc B() { println() }\n"},
			paths:   []string{"b"},
			want:    []string{"a/a.go", "a/a2.go", "b/b.go", "docs/README.md", "go.mod"},
			changed: []string{"b/b.go"},
			removed: 1,
		},
		{
			name:    "sibling with a common prefix",
			extra:   map[string]string{"b/su": "su\n"},
			remove:  []string{"b/su", "b/sub/s.go"},
			modify:  map[string]string{"b/b.go": "package b\n"},
			paths:   []string{"b/su"},
			want:    []string{"a/a.go", "a/a2.go", "b/b.go", "b/sub/s.go", "docs/README.md", "go.mod"},
			removed: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewTestRepo(t)
			writeDated(t, r, files)
			writeDated(t, r, tc.extra)
			mustIngest(t, r, IngestOptions{Semantics: true})
			_, c0 := head(t, r)
			before := rootPaths(t, r, c0)
			_, semBefore := semVersions(t, r, c0)

			removeProject(t, r, tc.remove...)
			writeDated(t, r, tc.modify)
			res := mustIngest(t, r, IngestOptions{Paths: tc.paths, Semantics: true})
			_, c := head(t, r)
			after := rootPaths(t, r, c)
			if got := sortedKeys(after); !slices.Equal(got, tc.want) {
				t.Errorf("root tree:\n got %q\nwant %q", got, tc.want)
			}
			var changed []string
			for p, id := range after {
				if before[p] != id {
					changed = append(changed, p)
				}
			}
			slices.Sort(changed)
			if !slices.Equal(changed, tc.changed) {
				t.Errorf("changed %q, want %q", changed, tc.changed)
			}
			if res.Removed != tc.removed || res.Modified != len(tc.changed) || res.Added != 0 {
				t.Errorf("added %d, modified %d, removed %d; want 0, %d, %d", res.Added, res.Modified, res.Removed, len(tc.changed), tc.removed)
			}
			_, sem := semVersions(t, r, c)
			if got := sortedKeys(sem); !slices.Equal(got, tc.want) {
				t.Errorf("semantic snapshot:\n got %q\nwant %q", got, tc.want)
			}
			// Versions outside the scope are kept as they were.
			for p, id := range sem {
				if !inScopes(p, scopesOf(tc.paths)) && semBefore[p] != id {
					t.Errorf("file version of %s, outside the scope, changed", p)
				}
			}
			checkSemanticInvariant(t, r)
		})
	}
}

func scopesOf(paths []string) []string {
	if len(paths) == 0 {
		return []string{""}
	}
	return paths
}

// TestIngestBudget checks the per-step budgets: a step over them fails
// with ErrBudgetExceeded and writes nothing; Force stores it anyway; only
// the files that change count.
func TestIngestBudget(t *testing.T) {
	three := map[string]string{"a.txt": "aaaa\n", "b.txt": "bbbb\n", "c.txt": "cccc\n"}
	tests := []struct {
		name     string
		maxFiles int
		maxBytes int64
		prior    map[string]string // ingested first, without a budget
		files    map[string]string
		opts     IngestOptions
		exceeded bool
	}{
		{name: "within", maxFiles: 3, maxBytes: 15, files: three, opts: IngestOptions{Budget: true}},
		{name: "too many files", maxFiles: 2, maxBytes: 1 << 20, files: three, opts: IngestOptions{Budget: true}, exceeded: true},
		{name: "too many bytes", maxFiles: 10, maxBytes: 14, files: three, opts: IngestOptions{Budget: true}, exceeded: true},
		{name: "with semantics", maxFiles: 1, maxBytes: 1 << 20, files: map[string]string{"a.go": "package a\n", "b.go": "package a\n"}, opts: IngestOptions{Budget: true, Semantics: true}, exceeded: true},
		{name: "forced", maxFiles: 1, maxBytes: 1, files: three, opts: IngestOptions{Budget: true, Force: true}},
		{name: "no budget", maxFiles: 1, maxBytes: 1, files: three},
		{name: "unchanged files do not count", maxFiles: 1, maxBytes: 5, prior: three, files: map[string]string{"b.txt": "BBBB\n"}, opts: IngestOptions{Budget: true}},
		{name: "changed files count", maxFiles: 1, maxBytes: 1 << 20, prior: three, files: map[string]string{"b.txt": "BBBB\n", "d.txt": "d\n"}, opts: IngestOptions{Budget: true}, exceeded: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewTestRepo(t)
			writeDated(t, r, tc.prior)
			if tc.prior != nil {
				mustIngest(t, r, IngestOptions{})
			}
			r.Config.Ingestion.MaxFilesPerStep, r.Config.Ingestion.MaxBytesPerStep = tc.maxFiles, tc.maxBytes
			writeDated(t, r, tc.files)
			before := storeState(t, r)
			res, err := ingestWith(t, r, tc.opts)
			if !tc.exceeded {
				if err != nil {
					t.Fatalf("Ingest: %v", err)
				}
				if !res.Committed {
					t.Fatal("Ingest did not commit")
				}
				_, c := head(t, r)
				for p, content := range tc.files {
					_, data, err := r.Objects.Get(rootPaths(t, r, c)[p])
					if err != nil || string(data) != content {
						t.Errorf("%s = %q, %v; want %q", p, data, err, content)
					}
				}
				return
			}
			if !errors.Is(err, ErrBudgetExceeded) {
				t.Fatalf("Ingest = %v, want ErrBudgetExceeded", err)
			}
			if !strings.Contains(err.Error(), "--force") || !strings.Contains(err.Error(), "max_files_per_step") {
				t.Errorf("error %q does not say what to do", err)
			}
			checkUnchanged(t, r, before)
		})
	}
}

// TestIngestIncremental checks that a change re-reads the code of the
// changed file's unit only, and keeps the other units' file versions.
func TestIngestIncremental(t *testing.T) {
	files := map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n",
		"a/a.go":      "package a\n\n// A is a.\nfunc A() int { return helper() }\n",
		"a/helper.go": "package a\n\nfunc helper() int { return 1 }\n",
		"b/b.go":      "package b\n\nimport \"example.com/m/a\"\n\nfunc B() int { return a.A() }\n",
		"c/c.go":      "package c\n\nfunc C() {}\n",
		"py/mod.py":   "def f():\n    return 1\n",
		"README.md":   "# m\n",
	}
	tests := []struct {
		name    string
		modify  map[string]string
		remove  []string
		paths   []string
		parsed  int      // files read
		renewed []string // paths whose file version changed
	}{
		{name: "nothing", parsed: 0},
		{name: "one Go file", modify: map[string]string{"c/c.go": "package c\n\nfunc C() {}\n\nfunc D() {}\n"}, parsed: 1, renewed: []string{"c/c.go"}},
		{name: "a file of a two-file package", modify: map[string]string{"a/helper.go": "package a\n\nfunc helper() int { return 2 }\n"}, parsed: 2, renewed: []string{"a/helper.go"}},
		{name: "a file removed from a package", remove: []string{"a/helper.go"}, parsed: 1, renewed: []string{"a/a.go"}},
		{name: "a new file in a package", modify: map[string]string{"a/more.go": "package a\n\nfunc More() {}\n"}, parsed: 3, renewed: []string{"a/more.go"}},
		{name: "a Python module", modify: map[string]string{"py/mod.py": "def f():\n    return 2\n"}, parsed: 1, renewed: []string{"py/mod.py"}},
		{name: "not code", modify: map[string]string{"README.md": "# M\n"}, parsed: 0, renewed: []string{"README.md"}},
		{name: "outside the scope", modify: map[string]string{"c/c.go": "package c\n"}, paths: []string{"a"}, parsed: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewTestRepo(t)
			writeDated(t, r, files)
			first := mustIngest(t, r, IngestOptions{Semantics: true})
			if first.Parsed != 5 {
				t.Fatalf("first Ingest read %d files, want 5", first.Parsed)
			}
			_, c0 := head(t, r)
			_, ids0 := semVersions(t, r, c0)
			writeDated(t, r, tc.modify)
			removeProject(t, r, tc.remove...)
			res := mustIngest(t, r, IngestOptions{Semantics: true, Paths: tc.paths})
			if res.Parsed != tc.parsed {
				t.Errorf("Parsed = %d, want %d", res.Parsed, tc.parsed)
			}
			_, c := head(t, r)
			_, ids := semVersions(t, r, c)
			var renewed []string
			for p, id := range ids {
				if old, ok := ids0[p]; !ok || old != id {
					renewed = append(renewed, p)
				}
			}
			slices.Sort(renewed)
			if !slices.Equal(renewed, tc.renewed) {
				t.Errorf("new file versions %q, want %q", renewed, tc.renewed)
			}
			for _, p := range tc.remove {
				if _, ok := ids[p]; ok {
					t.Errorf("removed %s keeps a file version", p)
				}
			}
			checkSemanticInvariant(t, r)
		})
	}
}

// TestIngestSemanticsLater checks the semantic snapshot when ingestions
// with and without Semantics alternate: a file stored without being read
// loses its stale version, and a later ingestion with Semantics reads it.
func TestIngestSemanticsLater(t *testing.T) {
	r := NewTestRepo(t)
	writeDated(t, r, map[string]string{"go.mod": "module m\n", "a.go": "package a\n\nfunc A() {}\n", "b.go": "package a\n\nfunc B() {}\n"})
	mustIngest(t, r, IngestOptions{Semantics: true})
	writeDated(t, r, map[string]string{"a.go": "package a\n\nfunc A2() {}\n"})
	mustIngest(t, r, IngestOptions{})
	checkSemanticInvariant(t, r)
	_, c := head(t, r)
	if v, _ := semVersions(t, r, c); v["a.go"] != nil || v["b.go"] == nil {
		t.Errorf("after a plain snapshot of a change, versions of %q; want b.go's only", sortedKeys(v))
	}
	res := mustIngest(t, r, IngestOptions{Semantics: true})
	if res.Parsed != 2 || !res.Committed {
		t.Errorf("Parsed %d, committed %v; want the package read again", res.Parsed, res.Committed)
	}
	checkSemanticInvariant(t, r)
	_, c = head(t, r)
	v, _ := semVersions(t, r, c)
	if v["a.go"] == nil || len(v["a.go"].Items) != 1 || v["a.go"].Items[0].Name != "A2" {
		t.Errorf("file version of a.go = %+v, want A2", v["a.go"])
	}
}

// TestIngestMerge checks that two heads which ingested different files
// reconcile into a merge whose root tree and semantic snapshot have
// both.
func TestIngestMerge(t *testing.T) {
	r := NewTestRepo(t)
	writeDated(t, r, map[string]string{"go.mod": "module example.com/m\n", "a/a.go": "package a\n\nfunc A() {}\n"})
	mustIngest(t, r, IngestOptions{Semantics: true})
	base, _ := head(t, r)

	writeDated(t, r, map[string]string{"b/b.go": "package b\n\nfunc B() {}\n"})
	mustIngest(t, r, IngestOptions{Semantics: true, Paths: []string{"b"}, Message: "left"})
	left, _ := head(t, r)
	// Another clone, at base, ingests c/ only.
	if err := r.refStore.Update(refs.Main, base, refs.Any()); err != nil {
		t.Fatal(err)
	}
	writeDated(t, r, map[string]string{"c/c.py": "def c():\n    pass\n"})
	mustIngest(t, r, IngestOptions{Semantics: true, Paths: []string{"c"}, Message: "right"})
	right, _ := head(t, r)
	AddHead(t, r, refs.Main, left)

	res := mustIngest(t, r, IngestOptions{Semantics: true, Paths: []string{"a"}})
	if len(res.Reconciled) != 1 || !res.Reconciled[0].Merged {
		t.Fatalf("Reconciled = %+v, want one merge", res.Reconciled)
	}
	if res.Committed {
		t.Errorf("Ingest committed after the merge: %s", res.Message)
	}
	h, c := head(t, r)
	if h != res.Reconciled[0].Result || !slices.Equal(c.Parents, sortIDs(left, right)) {
		t.Errorf("main = %s with parents %s, want the merge of %s", h.Short(), shorts(c.Parents), shorts([]object.ID{left, right}))
	}
	want := []string{"a/a.go", "b/b.go", "c/c.py", "go.mod"}
	if got := sortedKeys(rootPaths(t, r, c)); !slices.Equal(got, want) {
		t.Errorf("merged root tree %q, want %q", got, want)
	}
	v, _ := semVersions(t, r, c)
	if got := sortedKeys(v); !slices.Equal(got, want) {
		t.Errorf("merged semantic snapshot %q, want %q", got, want)
	}
	checkSemanticInvariant(t, r)
}

// TestIngestMergeSameUnit checks the semantic snapshot of a merge where
// one head changed a file and the newer head only that file's version
// (by changing another file of its package): the merge keeps no version
// that does not describe its tree's content, and the next ingestion with
// Semantics gives the file a current one.
func TestIngestMergeSameUnit(t *testing.T) {
	r := NewTestRepo(t)
	writeDated(t, r, map[string]string{
		"go.mod": "module example.com/m\n",
		"a/a.go": "package a\n\nfunc A() { helper() }\n",
		"a/b.go": "package a\n\nfunc B() {}\n",
		"c/c.go": "package c\n",
	})
	mustIngest(t, r, IngestOptions{Semantics: true})
	base, _ := head(t, r)

	writeDated(t, r, map[string]string{"a/a.go": "package a\n\n// A calls.\nfunc A() { helper() }\n"})
	mustIngest(t, r, IngestOptions{Semantics: true, Paths: []string{"a/a.go"}, Message: "left"})
	left, _ := head(t, r)

	if err := r.refStore.Update(refs.Main, base, refs.Any()); err != nil {
		t.Fatal(err)
	}
	r.Clock = clock.Fixed(TestTime.Add(time.Hour)) // the newer head
	writeDated(t, r, map[string]string{"a/b.go": "package a\n\nfunc B() {}\n\nfunc helper() {}\n"})
	mustIngest(t, r, IngestOptions{Semantics: true, Paths: []string{"a/b.go"}, Message: "right"})
	right, rc := head(t, r)
	if _, ids := semVersions(t, r, rc); ids["a/a.go"] == semIDs(t, r, base)["a/a.go"] {
		t.Fatal("fixture: the right head did not change a/a.go's version")
	}
	AddHead(t, r, refs.Main, left)

	recs := reconcile(t, r)
	if len(recs) != 1 || !recs[0].Merged {
		t.Fatalf("Reconciled = %+v, want one merge", recs)
	}
	checkSemanticInvariant(t, r)
	_, c := head(t, r)
	if !slices.Equal(c.Parents, sortIDs(left, right)) {
		t.Fatalf("head is not the merge")
	}
	res := mustIngest(t, r, IngestOptions{Semantics: true})
	checkSemanticInvariant(t, r)
	_, c = head(t, r)
	v, _ := semVersions(t, r, c)
	if res.Added+res.Modified+res.Removed != 0 || v["a/a.go"] == nil || v["a/b.go"] == nil {
		t.Errorf("after the merge, ingestion changed %d files; versions of %q", res.Added+res.Modified+res.Removed, sortedKeys(v))
	}
}

// semIDs returns the file version ids of a commit's semantic snapshot.
func semIDs(t testing.TB, r *Repo, commit object.ID) map[string]object.ID {
	t.Helper()
	c, err := r.ReadCommit(commit)
	if err != nil {
		t.Fatal(err)
	}
	_, ids := semVersions(t, r, c)
	return ids
}

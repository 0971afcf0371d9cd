package repo

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// writeRaw writes a file under the store root directly, replacing a
// read-only one, as a damaged disk or a hand edit would.
func writeRaw(root, rel, content string) error {
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

// cloneRepo copies the store of r into a new temporary project and opens
// it with r's clock. Copying plain files is much faster than building a
// store through the durable write paths, which fsync at every step.
func cloneRepo(t *testing.T, r *Repo) *Repo {
	t.Helper()
	root := filepath.Join(t.TempDir(), DirName)
	if err := os.CopyFS(root, os.DirFS(r.Root)); err != nil {
		t.Fatal(err)
	}
	c, err := Open(root, Options{Clock: r.Clock})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// dirNames lists the names in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestInitLayout(t *testing.T) {
	project := filepath.Join(t.TempDir(), "myproject")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := Init(project, InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(project, DirName)
	if r.Root != root {
		t.Errorf("Root = %q, want %q", r.Root, root)
	}
	if got, want := dirNames(t, project), []string{DirName}; !slices.Equal(got, want) {
		t.Errorf("project holds %v, want only %v (no temporary directories)", got, want)
	}
	if st, err := os.Stat(root); err != nil {
		t.Error(err)
	} else if st.Mode().Perm() != 0o755 {
		t.Errorf(".ctx mode = %v, want 0755 (not MkdirTemp's 0700)", st.Mode())
	}
	if got, want := dirNames(t, root), []string{".gitattributes", ".gitignore", "HEAD", "config.toml", "narrative", "objects", "refs"}; !slices.Equal(got, want) {
		t.Errorf(".ctx holds %v, want %v", got, want)
	}
	if got := readFile(t, filepath.Join(root, "narrative", "README.md")); got != NarrativeReadme {
		t.Errorf("narrative/README.md = %q", got)
	}
	if got := readFile(t, filepath.Join(root, "HEAD")); got != "ref: refs/main\n" {
		t.Errorf("HEAD = %q", got)
	}
	if got := readFile(t, filepath.Join(root, ".gitignore")); got != GitIgnore {
		t.Errorf(".gitignore = %q, want GitIgnore", got)
	}
	if got := readFile(t, filepath.Join(root, ".gitattributes")); got != GitAttributes {
		t.Errorf(".gitattributes = %q, want GitAttributes", got)
	}
	want := DefaultConfig("myproject")
	if got := readFile(t, filepath.Join(root, "config.toml")); got != string(want.Text()) {
		t.Errorf("config.toml = %q, want DefaultConfig(\"myproject\").Text()", got)
	}
	if !reflect.DeepEqual(r.Config, want) {
		t.Errorf("Config = %+v, want %+v", r.Config, want)
	}
	for _, ignored := range []string{"/index/", "/LOCK", "/STAGE", "*.tmp"} {
		if !strings.Contains(GitIgnore, ignored+"\n") {
			t.Errorf("GitIgnore does not exclude %s", ignored)
		}
	}

	// refs/main has one head: the root commit of the empty tree.
	heads, err := r.Refs.Heads(refs.Main)
	if err != nil || len(heads) != 1 {
		t.Fatalf("heads of main = %v, %v", heads, err)
	}
	if got := dirNames(t, filepath.Join(root, "refs", "main")); !slices.Equal(got, []string{heads[0].String()}) {
		t.Errorf("refs/main holds %v", got)
	}
	c, err := r.ReadCommit(heads[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Parents) != 0 || c.TimestampUnix != 0 || c.Message != InitialMessage || c.Author != "" {
		t.Errorf("root commit = %+v", c)
	}
	if files := TreeFiles(t, r, heads[0]); len(files) != 0 {
		t.Errorf("root tree holds %v, want nothing", files)
	}
	ids, strays, err := r.Objects.List(t.Context())
	if err != nil || len(ids) != 2 || len(strays) != 0 {
		t.Errorf("objects = %v, strays %v, %v; want the commit and its tree", ids, strays, err)
	}
	rep, err := r.Verify(t.Context(), VerifyOptions{})
	if err != nil || !rep.OK() || len(rep.Warnings) > 0 {
		t.Errorf("Verify of a new store = %+v, %v", rep, err)
	}
}

func TestInitRootCommitIsShared(t *testing.T) {
	var roots []object.ID
	for _, opts := range []InitOptions{{}, {RepoID: "other"}, {NoGit: true}} {
		r, err := Init(t.TempDir(), opts)
		if err != nil {
			t.Fatal(err)
		}
		id, err := r.Resolve("main")
		if err != nil {
			t.Fatal(err)
		}
		roots = append(roots, id)
	}
	for _, id := range roots[1:] {
		if id != roots[0] {
			t.Errorf("root commits differ: %s and %s", roots[0], id)
		}
	}
	// The root commit is fixed by the format; a change breaks the merging
	// of stores created by different versions of ctx.
	tree, err := object.PutTyped(object.NewMemStore(), &object.Tree{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := object.PutTyped(object.NewMemStore(), &object.Commit{RootTree: tree, Message: InitialMessage})
	if err != nil {
		t.Fatal(err)
	}
	if roots[0] != want {
		t.Errorf("root commit %s, want %s", roots[0], want)
	}
}

func TestInitExists(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, project string)
	}{
		{"store", func(t *testing.T, project string) {
			if _, err := Init(project, InitOptions{}); err != nil {
				t.Fatal(err)
			}
		}},
		{"empty directory", func(t *testing.T, project string) {
			if err := os.Mkdir(filepath.Join(project, DirName), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"file", func(t *testing.T, project string) {
			if err := os.WriteFile(filepath.Join(project, DirName), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			project := t.TempDir()
			tc.setup(t, project)
			before := dirNames(t, project)
			if _, err := Init(project, InitOptions{}); !errors.Is(err, ErrExists) {
				t.Fatalf("Init over an existing %s: %v, want ErrExists", tc.name, err)
			}
			if got := dirNames(t, project); !slices.Equal(got, before) {
				t.Errorf("failed Init left %v, had %v", got, before)
			}

			r, err := Init(project, InitOptions{Force: true, RepoID: "forced"})
			if err != nil {
				t.Fatalf("Init with Force: %v", err)
			}
			if r.Config.Repo.ID != "forced" {
				t.Errorf("config id = %q after Force", r.Config.Repo.ID)
			}
			if got := dirNames(t, project); !slices.Equal(got, []string{DirName}) {
				t.Errorf("project holds %v after Force, want only %s", got, DirName)
			}
			rep, err := r.Verify(t.Context(), VerifyOptions{})
			if err != nil || !rep.OK() || rep.Objects != 2 {
				t.Errorf("Verify after Force = %+v, %v", rep, err)
			}
		})
	}
}

func TestInitForceReplaces(t *testing.T) {
	project := t.TempDir()
	r := newRepoIn(t, project)
	c := CommitFiles(t, r, TestTime, map[string]string{"a": "1"}, "work", mustResolve(t, r, "main"))
	if err := r.refStore.Update(refs.Main, c, refs.Any()); err != nil {
		t.Fatal(err)
	}
	if err := r.refStore.Update("feature/x", c, refs.Absent()); err != nil {
		t.Fatal(err)
	}
	r2, err := Init(project, InitOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := r2.Objects.Has(c); ok {
		t.Error("old commit survived Init with Force")
	}
	all, err := r2.Refs.List()
	if err != nil || len(all) != 1 || all[0].Name != refs.Main {
		t.Errorf("refs after Force = %v, %v; want only main", all, err)
	}
	if got := dirNames(t, project); !slices.Equal(got, []string{DirName}) {
		t.Errorf("project holds %v after Force", got)
	}
}

func newRepoIn(t *testing.T, project string) *Repo {
	t.Helper()
	r, err := Init(project, InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestInitNoGit(t *testing.T) {
	project := t.TempDir()
	r, err := Init(project, InitOptions{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(r.Root, ".gitignore")); got != GitIgnoreLocal {
		t.Errorf(".gitignore = %q, want GitIgnoreLocal", got)
	}
	if !strings.Contains(GitIgnoreLocal, "\n*\n") {
		t.Errorf("GitIgnoreLocal does not ignore everything: %q", GitIgnoreLocal)
	}
	if exists(filepath.Join(r.Root, ".gitattributes")) {
		t.Error("NoGit store has .gitattributes")
	}
}

func TestInitErrors(t *testing.T) {
	t.Run("missing directory is created", func(t *testing.T) {
		r, err := Init(filepath.Join(t.TempDir(), "new", "project"), InitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Config.Repo.ID != "project" {
			t.Fatalf("repo id %q, want project", r.Config.Repo.ID)
		}
	})
	t.Run("file", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Init(f, InitOptions{}); !errors.Is(err, ErrNotDirectory) {
			t.Fatalf("Init of a file: %v, want ErrNotDirectory", err)
		}
	})
	t.Run("invalid repo id", func(t *testing.T) {
		project := t.TempDir()
		if _, err := Init(project, InitOptions{RepoID: "a\nb"}); !errors.Is(err, ErrConfig) {
			t.Fatalf("Init with a bad id: %v, want ErrConfig", err)
		}
		if got := dirNames(t, project); len(got) != 0 {
			t.Errorf("failed Init left %v", got)
		}
	})
}

func TestOpen(t *testing.T) {
	project := t.TempDir()
	r := newRepoIn(t, project)
	r2, err := Open(r.Root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r2.Root != r.Root || !reflect.DeepEqual(r2.Config, r.Config) || r2.Clock == nil {
		t.Errorf("Open = %+v", r2)
	}
	if got := r2.Rel(filepath.Join(r.Root, "objects", "ab")); got != "objects/ab" {
		t.Errorf("Rel = %q", got)
	}

	t.Run("not a store", func(t *testing.T) {
		if _, err := Open(project, Options{}); !errors.Is(err, ErrNotAStore) {
			t.Errorf("Open of the project directory: %v, want ErrNotAStore", err)
		}
	})
	t.Run("unknown config key", func(t *testing.T) {
		if err := os.WriteFile(filepath.Join(r.Root, "config.toml"), []byte("[repo]\nid = \"x\"\nbogus = 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(r.Root, Options{})
		if err != nil || !strings.Contains(s.Config.UnknownKeysWarning(), "repo.bogus") {
			t.Errorf("Open with an unknown key: %v, want the store, with a warning naming repo.bogus", err)
		}
	})
	t.Run("bad config", func(t *testing.T) {
		if err := os.WriteFile(filepath.Join(r.Root, "config.toml"), []byte("[repo]\nid = \"x\"\n[storage]\ncompression_level = 99\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(r.Root, Options{}); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "compression_level") {
			t.Errorf("Open with a value out of range: %v, want ErrConfig naming compression_level", err)
		}
	})
	t.Run("missing config", func(t *testing.T) {
		if err := os.Remove(filepath.Join(r.Root, "config.toml")); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(r.Root, Options{}); !errors.Is(err, ErrConfig) {
			t.Errorf("Open without config.toml: %v, want ErrConfig", err)
		}
	})
}

func TestLocate(t *testing.T) {
	base := t.TempDir()
	// The search walks up past the temporary directory; a store above it
	// would make the "not found" cases find it instead.
	for d := filepath.Dir(base); ; d = filepath.Dir(d) {
		if isStore(filepath.Join(d, DirName)) || isStore(d) {
			t.Skipf("%s holds a ctx store; cannot test a failed search", d)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	project := filepath.Join(base, "project")
	sub := filepath.Join(project, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	r := newRepoIn(t, project)
	nested := filepath.Join(project, "a", "inner")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	inner := newRepoIn(t, nested)
	half := filepath.Join(base, "half", DirName) // objects/ but no HEAD
	if err := os.MkdirAll(filepath.Join(half, "objects"), 0o755); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		dir    string
		walkUp bool
		want   string // "" means ErrNotAStore
	}{
		{"store itself", r.Root, false, r.Root},
		{"store itself walking", r.Root, true, r.Root},
		{"project", project, false, r.Root},
		{"project walking", project, true, r.Root},
		{"relative path", relTo(t, project), false, r.Root},
		{"subdirectory", sub, true, r.Root},
		{"subdirectory without walking", sub, false, ""},
		{"inside objects", filepath.Join(r.Root, "objects"), true, r.Root},
		{"nested store wins", filepath.Join(nested, "x"), true, inner.Root},
		{"nested project", nested, false, inner.Root},
		{"outside", base, true, ""},
		{"outside without walking", base, false, ""},
		{"objects without HEAD", filepath.Dir(half), true, ""},
		{"missing directory walking", filepath.Join(sub, "missing"), true, r.Root},
	}
	if err := os.MkdirAll(filepath.Join(nested, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Locate(tc.dir, tc.walkUp)
			if tc.want == "" {
				if !errors.Is(err, ErrNotAStore) {
					t.Fatalf("Locate(%s) = %q, %v; want ErrNotAStore", tc.dir, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Locate(%s) = %q, %v; want %q", tc.dir, got, err, tc.want)
			}
		})
	}
}

// relTo returns dir relative to the working directory, or skips the
// test when there is no such path.
func relTo(t *testing.T, dir string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Skip(err)
	}
	rel, err := filepath.Rel(wd, dir)
	if err != nil {
		t.Skip(err)
	}
	if _, err := os.Stat(rel); errors.Is(err, fs.ErrNotExist) {
		t.Skip("no relative path")
	}
	return rel
}

func mustResolve(t testing.TB, r *Repo, rev string) object.ID {
	t.Helper()
	id, err := r.Resolve(rev)
	if err != nil {
		t.Fatalf("Resolve(%q): %v", rev, err)
	}
	return id
}

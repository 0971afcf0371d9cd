package repo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fxamacker/cbor/v2"

	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
)

// verifyFixture is a store whose main names c1, a child of the root
// commit, holding a.txt and src/main.go.
type verifyFixture struct {
	r                 *Repo
	root, c1          object.ID
	tree, src         object.ID // c1's root tree and its src subtree
	blob, srcBlob     object.ID // a.txt and src/main.go
	rootTree          object.ID // the root commit's (empty) tree
	made              object.ID // an object a damage function wrote
	objects, commits  int
	trees, blobsCount int
}

func newVerifyFixture(t *testing.T) *verifyFixture {
	t.Helper()
	r := NewTestRepo(t)
	f := &verifyFixture{r: r, root: mustResolve(t, r, "main")}
	f.c1 = CommitFiles(t, r, at(10), map[string]string{"a.txt": "hello", "src/main.go": "package main"}, "c1", f.root)
	if err := r.refStore.Update(refs.Main, f.c1, refs.Among(f.root)); err != nil {
		t.Fatal(err)
	}
	f.tree = mustResolve(t, r, "main:")
	f.src = mustResolve(t, r, "main:src")
	f.blob = mustResolve(t, r, "main:a.txt")
	f.srcBlob = mustResolve(t, r, "main:src/main.go")
	f.rootTree = mustResolve(t, r, "main^:")
	f.objects, f.commits, f.trees, f.blobsCount = 7, 2, 3, 2
	return f
}

// clone returns a copy of f on a copy of its store.
func (f *verifyFixture) clone(t *testing.T) *verifyFixture {
	t.Helper()
	c := *f
	c.r = cloneRepo(t, f.r)
	return &c
}

func (f *verifyFixture) path(id object.ID) string {
	return filepath.Join(f.r.Root, filepath.FromSlash(object.RelPath(id)))
}

// replaceFile replaces a (read-only) object or ref file.
func replaceFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o444); err != nil {
		t.Fatal(err)
	}
}

func removeFile(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

// putRaw stores a typed payload as is, bypassing Encode's checks, under the
// name that its bytes hash to.
func putRaw(t *testing.T, r *Repo, payload []byte) object.ID {
	t.Helper()
	id, err := r.Objects.Put(object.KindTyped, payload)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func encode(t *testing.T, v object.Typed) []byte {
	t.Helper()
	b, err := object.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// coreDet encodes v in Core Deterministic Encoding, the form of every
// typed payload, without the checks of object.Encode.
func coreDet(t *testing.T, v any) []byte {
	t.Helper()
	em, err := cbor.CoreDetEncOptions().EncMode()
	if err != nil {
		t.Fatal(err)
	}
	b, err := em.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestVerifyClean(t *testing.T) {
	f := newVerifyFixture(t)
	for _, workers := range []int{0, 1, 3} {
		rep, err := f.r.Verify(t.Context(), VerifyOptions{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.OK() || len(rep.Warnings) > 0 {
			t.Fatalf("Verify of a clean store: problems %v, warnings %v", rep.Problems, rep.Warnings)
		}
		if rep.Objects != f.objects || rep.Blobs != f.blobsCount || rep.Typed["commit"] != f.commits || rep.Typed["tree"] != f.trees || len(rep.Typed) != 2 {
			t.Errorf("counts: %d objects, %d blobs, %v; want %d, %d, %d commits, %d trees", rep.Objects, rep.Blobs, rep.Typed, f.objects, f.blobsCount, f.commits, f.trees)
		}
		if rep.PayloadBytes == 0 || rep.StoredBytes <= 0 {
			t.Errorf("sizes: payload %d, stored %d", rep.PayloadBytes, rep.StoredBytes)
		}
		if len(rep.Refs) != 1 || rep.Refs[0].Name != refs.Main || len(rep.Refs[0].Heads) != 1 || rep.Refs[0].Heads[0] != f.c1 {
			t.Errorf("Refs = %v", rep.Refs)
		}
	}
}

func TestVerifyCancelled(t *testing.T) {
	f := newVerifyFixture(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := f.r.Verify(ctx, VerifyOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Verify with a cancelled context: %v, want context.Canceled", err)
	}
}

func TestVerifyDamage(t *testing.T) {
	type want struct {
		err  error // the sentinel a Problem wraps
		id   func(f *verifyFixture) object.ID
		path func(f *verifyFixture) string // "" : any
		in   string                        // the Problem's message contains this
	}
	objPath := func(id func(f *verifyFixture) object.ID) func(f *verifyFixture) string {
		return func(f *verifyFixture) string { return object.RelPath(id(f)) }
	}
	blob := func(f *verifyFixture) object.ID { return f.blob }
	c1 := func(f *verifyFixture) object.ID { return f.c1 }
	tree := func(f *verifyFixture) object.ID { return f.tree }
	madeID := func(f *verifyFixture) object.ID { return f.made }
	fixed := func(p string) func(*verifyFixture) string { return func(*verifyFixture) string { return p } }

	tests := []struct {
		name     string
		damage   func(t *testing.T, f *verifyFixture)
		problems []want
		more     bool   // Verify may report more problems than these
		warning  string // a warning contains this
	}{
		{
			name: "flipped byte",
			damage: func(t *testing.T, f *verifyFixture) {
				b, err := os.ReadFile(f.path(f.blob))
				if err != nil {
					t.Fatal(err)
				}
				b[len(b)/2] ^= 0x40
				replaceFile(t, f.path(f.blob), b)
			},
			// The tree naming the blob is not blamed as well.
			problems: []want{{err: object.ErrHashMismatch, id: blob, path: objPath(blob)}},
		},
		{
			name: "flipped last byte",
			damage: func(t *testing.T, f *verifyFixture) {
				b, err := os.ReadFile(f.path(f.srcBlob))
				if err != nil {
					t.Fatal(err)
				}
				b[len(b)-1] ^= 1
				replaceFile(t, f.path(f.srcBlob), b)
			},
			problems: []want{{err: object.ErrHashMismatch, id: func(f *verifyFixture) object.ID { return f.srcBlob }}},
		},
		{
			name: "truncated file",
			damage: func(t *testing.T, f *verifyFixture) {
				b, err := os.ReadFile(f.path(f.tree))
				if err != nil {
					t.Fatal(err)
				}
				replaceFile(t, f.path(f.tree), b[:len(b)/2])
			},
			problems: []want{{err: object.ErrHashMismatch, id: tree, path: objPath(tree)}},
		},
		{
			name: "empty file",
			damage: func(t *testing.T, f *verifyFixture) {
				replaceFile(t, f.path(f.blob), nil)
			},
			problems: []want{{err: object.ErrHashMismatch, id: blob}},
		},
		{
			name: "another object's file under the name",
			damage: func(t *testing.T, f *verifyFixture) {
				b, err := os.ReadFile(f.path(f.srcBlob))
				if err != nil {
					t.Fatal(err)
				}
				replaceFile(t, f.path(f.blob), b)
			},
			problems: []want{{err: object.ErrHashMismatch, id: blob}},
		},
		{
			name: "damaged head commit",
			damage: func(t *testing.T, f *verifyFixture) {
				replaceFile(t, f.path(f.c1), []byte("not zstd"))
			},
			problems: []want{
				{err: object.ErrHashMismatch, id: c1, path: objPath(c1)},
				{err: refs.ErrCorrupt, id: c1, path: fixed("refs/main"), in: "missing or damaged"},
			},
		},
		{
			name:     "missing tree of a commit",
			damage:   func(t *testing.T, f *verifyFixture) { removeFile(t, f.path(f.tree)) },
			problems: []want{{err: ErrDanglingLink, id: c1, path: objPath(c1), in: "root_tree"}},
		},
		{
			name:     "missing subtree",
			damage:   func(t *testing.T, f *verifyFixture) { removeFile(t, f.path(f.src)) },
			problems: []want{{err: ErrDanglingLink, id: tree, in: "entries[src]"}},
		},
		{
			name:     "missing blob",
			damage:   func(t *testing.T, f *verifyFixture) { removeFile(t, f.path(f.blob)) },
			problems: []want{{err: ErrDanglingLink, id: tree, in: "entries[a.txt]"}},
		},
		{
			name:     "missing parent",
			damage:   func(t *testing.T, f *verifyFixture) { removeFile(t, f.path(f.root)) },
			problems: []want{{err: ErrOrphanCommit, id: c1, path: objPath(c1), in: "parents[0]"}},
		},
		{
			name: "missing parent of a work commit",
			damage: func(t *testing.T, f *verifyFixture) {
				f.made = putRaw(t, f.r, encode(t, &object.WorkCommit{Parents: []object.ID{object.Sum(object.KindTyped, []byte("gone"))}, Base: f.c1, SessionID: "s", StepKind: object.StepNote}))
			},
			problems: []want{{err: ErrDanglingLink, id: madeID}}, // E009 is for a commit's parents (FORMAT.md §4.6)
		},
		{
			name: "missing base of a work commit",
			damage: func(t *testing.T, f *verifyFixture) {
				f.made = putRaw(t, f.r, encode(t, &object.WorkCommit{Base: object.Sum(object.KindTyped, []byte("gone")), SessionID: "s", StepKind: object.StepNote}))
			},
			problems: []want{{err: ErrDanglingLink, id: madeID, in: "base"}},
		},
		{
			name: "commit whose root tree is a blob",
			damage: func(t *testing.T, f *verifyFixture) {
				f.made = putRaw(t, f.r, encode(t, &object.Commit{Parents: []object.ID{f.c1}, RootTree: f.blob, Message: "bad"}))
			},
			problems: []want{{err: ErrWrongTarget, id: madeID, path: objPath(madeID), in: "root_tree"}},
		},
		{
			name: "commit whose parent is a tree",
			damage: func(t *testing.T, f *verifyFixture) {
				f.made = putRaw(t, f.r, encode(t, &object.Commit{Parents: []object.ID{f.tree}, RootTree: f.tree, Message: "bad"}))
			},
			problems: []want{{err: ErrWrongTarget, id: madeID, in: "parents[0]"}},
		},
		{
			name: "tree entry of kind tree naming a blob",
			damage: func(t *testing.T, f *verifyFixture) {
				f.made = putRaw(t, f.r, encode(t, &object.Tree{Entries: []object.TreeEntry{{Name: "d", Kind: object.EntryTree, ID: f.blob}}}))
			},
			problems: []want{{err: ErrWrongTarget, id: madeID}},
		},
		{
			name: "tree entry of kind blob naming a tree",
			damage: func(t *testing.T, f *verifyFixture) {
				f.made = putRaw(t, f.r, encode(t, &object.Tree{Entries: []object.TreeEntry{{Name: "f", Kind: object.EntryBlob, ID: f.src}}}))
			},
			problems: []want{{err: ErrWrongTarget, id: madeID}},
		},
		{
			name: "non-canonical integer",
			damage: func(t *testing.T, f *verifyFixture) {
				// An empty tree with its entries array's length in
				// two bytes (0x98 0x00) instead of one (0x80).
				p := encode(t, &object.Tree{})
				if p[len(p)-1] != 0x80 {
					t.Fatalf("fixture: empty tree encodes as %x", p)
				}
				f.made = putRaw(t, f.r, append(p[:len(p)-1:len(p)-1], 0x98, 0x00))
			},
			problems: []want{{err: object.ErrDecode, id: madeID, path: objPath(madeID), in: "Core Deterministic"}},
		},
		{
			name: "unsorted map keys",
			damage: func(t *testing.T, f *verifyFixture) {
				// {"tree": {"zz": 0, "entries": []}} with its two keys
				// in the wrong order: canonical order puts the shorter
				// key first.
				p := []byte{0xa1, 0x64, 't', 'r', 'e', 'e', 0xa2, 0x67, 'e', 'n', 't', 'r', 'i', 'e', 's', 0x80, 0x62, 'z', 'z', 0x00}
				f.made = putRaw(t, f.r, p)
			},
			problems: []want{{err: object.ErrDecode, id: madeID}},
		},
		{
			name: "indefinite length",
			damage: func(t *testing.T, f *verifyFixture) {
				p := []byte{0xa1, 0x64, 't', 'r', 'e', 'e', 0xa1, 0x67, 'e', 'n', 't', 'r', 'i', 'e', 's', 0x9f, 0xff}
				f.made = putRaw(t, f.r, p)
			},
			problems: []want{{err: object.ErrDecode, id: madeID}},
		},
		{
			name: "not a CBOR map",
			damage: func(t *testing.T, f *verifyFixture) {
				f.made = putRaw(t, f.r, []byte{0x01})
			},
			problems: []want{{err: object.ErrDecode, id: madeID}},
		},
		{
			name: "unknown type",
			damage: func(t *testing.T, f *verifyFixture) {
				f.made = putRaw(t, f.r, coreDet(t, map[string]any{"frobnicator": map[string]any{"x": 1}}))
			},
			problems: []want{{err: object.ErrDecode, id: madeID, in: `unknown type "frobnicator"`}},
		},
		{
			name: "invalid tree",
			damage: func(t *testing.T, f *verifyFixture) {
				// Canonical bytes, but the entries are out of order.
				f.made = putRaw(t, f.r, coreDet(t, map[string]any{"tree": map[string]any{"entries": []object.TreeEntry{
					{Name: "z", Kind: object.EntryBlob, ID: f.blob},
					{Name: "a", Kind: object.EntryBlob, ID: f.blob},
				}}}))
			},
			problems: []want{{err: object.ErrDecode, id: madeID, in: "not sorted"}},
		},
		{
			name: "ref head whose object is missing",
			damage: func(t *testing.T, f *verifyFixture) {
				f.made = object.Sum(object.KindTyped, []byte("gone"))
				if err := f.r.refStore.Update("feature/x", f.made, refs.Absent()); err != nil {
					t.Fatal(err)
				}
			},
			problems: []want{{err: refs.ErrCorrupt, id: madeID, path: fixed("refs/feature/x"), in: "missing"}},
		},
		{
			name: "corrupt head file",
			damage: func(t *testing.T, f *verifyFixture) {
				replaceFile(t, filepath.Join(f.r.Root, "refs", "main", f.c1.String()), []byte("garbage\n"))
			},
			problems: []want{{err: refs.ErrCorrupt, in: "refs/main/" + "%c1"}},
		},
		{
			name: "stray file among refs",
			damage: func(t *testing.T, f *verifyFixture) {
				replaceFile(t, filepath.Join(f.r.Root, "refs", "main", "notes"), []byte("x"))
			},
			problems: []want{{err: refs.ErrCorrupt, in: "refs/main/notes"}},
		},
		{
			name: "corrupt HEAD",
			damage: func(t *testing.T, f *verifyFixture) {
				replaceFile(t, filepath.Join(f.r.Root, "HEAD"), []byte("ref: nowhere at all\n"))
			},
			problems: []want{{err: refs.ErrCorrupt, in: "HEAD"}},
		},
		{
			name: "HEAD names a ref with no head",
			damage: func(t *testing.T, f *verifyFixture) {
				removeFile(t, filepath.Join(f.r.Root, "refs", "main", f.c1.String()))
			},
			problems: []want{{err: refs.ErrNotFound, path: fixed("HEAD"), in: "main"}},
		},
		{
			name: "corrupt STAGE",
			damage: func(t *testing.T, f *verifyFixture) {
				replaceFile(t, filepath.Join(f.r.Root, "STAGE"), []byte("nope\n"))
			},
			problems: []want{{err: refs.ErrCorrupt, in: "STAGE"}},
			// Reported twice, by Refs.Check and by the failing
			// Refs.List, which also stops the checks of the refs'
			// heads.
			more: true,
		},
		{
			name: "temporary file among refs",
			damage: func(t *testing.T, f *verifyFixture) {
				replaceFile(t, filepath.Join(f.r.Root, "refs", "main", "."+f.root.String()+".123.tmp"), []byte("partial"))
			},
			warning: "refs/main/." + "%root" + ".123.tmp: temporary file",
		},
		{
			name: "temporary file among objects",
			damage: func(t *testing.T, f *verifyFixture) {
				p := f.path(f.blob) + ".456.tmp"
				replaceFile(t, p, []byte("partial"))
			},
			warning: "temporary file left by an interrupted write",
		},
		{
			name: "temporary file at the top",
			damage: func(t *testing.T, f *verifyFixture) {
				replaceFile(t, filepath.Join(f.r.Root, ".config.toml.789.tmp"), []byte("partial"))
			},
			warning: ".config.toml.789.tmp: temporary file",
		},
		{
			name: "temporary file in a subdirectory",
			damage: func(t *testing.T, f *verifyFixture) {
				replaceFile(t, filepath.Join(f.r.Root, "sessions", "s1", "x.tmp"), []byte("partial"))
			},
			warning: "sessions/s1/x.tmp",
		},
		{
			name: "unexpected file among objects",
			damage: func(t *testing.T, f *verifyFixture) {
				replaceFile(t, filepath.Join(f.r.Root, "objects", "README"), []byte("hi"))
			},
			warning: "objects/README: unexpected file",
		},
		{
			name: "object in the wrong shard",
			damage: func(t *testing.T, f *verifyFixture) {
				b, err := os.ReadFile(f.path(f.blob))
				if err != nil {
					t.Fatal(err)
				}
				shard := "00"
				if strings.HasPrefix(f.blob.String(), shard) {
					shard = "ff"
				}
				replaceFile(t, filepath.Join(f.r.Root, "objects", shard, f.blob.String()), b)
			},
			warning: "unexpected file",
		},
		{
			name: "ref with a stale head",
			damage: func(t *testing.T, f *verifyFixture) {
				AddHead(t, f.r, refs.Main, f.root)
			},
			warning: "refs/main has 1 stale head(s)",
		},
		{
			name: "ref with two heads",
			damage: func(t *testing.T, f *verifyFixture) {
				other := CommitFiles(t, f.r, at(20), map[string]string{"other": "x"}, "other", f.root)
				AddHead(t, f.r, refs.Main, other)
			},
			warning: "refs/main has 2 heads (after a git merge)",
		},
		{
			name: "fields from a newer ctx",
			damage: func(t *testing.T, f *verifyFixture) {
				var v map[string]map[string]any
				if err := cbor.Unmarshal(encode(t, &object.Commit{Parents: []object.ID{f.c1}, RootTree: f.tree, Message: "future"}), &v); err != nil {
					t.Fatal(err)
				}
				v["commit"]["zz_future_field"] = "x"
				f.made = putRaw(t, f.r, coreDet(t, v))
			},
			warning: "fields this version of ctx does not know",
		},
	}
	template := newVerifyFixture(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := template.clone(t)
			tc.damage(t, f)
			rep, err := f.r.Verify(t.Context(), VerifyOptions{})
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if tc.warning != "" {
				if !rep.OK() {
					t.Errorf("Verify reported problems %v; want only a warning", rep.Problems)
				}
				w := strings.NewReplacer("%root", f.root.String(), "%c1", f.c1.String()).Replace(tc.warning)
				found := false
				for _, got := range rep.Warnings {
					found = found || strings.Contains(got, w)
				}
				if !found {
					t.Errorf("warnings %q, want one containing %q", rep.Warnings, w)
				}
				return
			}
			if rep.OK() {
				t.Fatalf("Verify found nothing wrong (warnings %q)", rep.Warnings)
			}
			if len(rep.Problems) != len(tc.problems) && !tc.more {
				t.Errorf("Verify found %d problems, want %d:\n%s", len(rep.Problems), len(tc.problems), problemList(rep.Problems))
			}
			for _, w := range tc.problems {
				in := strings.NewReplacer("%root", f.root.String(), "%c1", f.c1.String()).Replace(w.in)
				found := false
				for _, p := range rep.Problems {
					ok := errors.Is(p, w.err) && strings.Contains(p.Error(), in)
					if w.id != nil {
						ok = ok && p.ID == w.id(f)
					}
					if w.path != nil {
						ok = ok && p.Path == w.path(f)
					}
					found = found || ok
				}
				if !found {
					t.Errorf("no problem wraps %v and contains %q (id %v, path %v); got:\n%s", w.err, in, w.id != nil, w.path != nil, problemList(rep.Problems))
				}
			}
			for _, p := range rep.Problems {
				if p.Error() == "" || p.Unwrap() == nil {
					t.Errorf("problem %#v has no message or cause", p)
				}
			}
		})
	}
}

func problemList(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("  " + p.Error() + "\n")
	}
	return b.String()
}

func TestVerifyProblemsSorted(t *testing.T) {
	f := newVerifyFixture(t)
	for _, id := range []object.ID{f.blob, f.srcBlob, f.src} {
		replaceFile(t, f.path(id), []byte("junk"))
	}
	rep, err := f.r.Verify(t.Context(), VerifyOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 3 {
		t.Fatalf("problems:\n%s", problemList(rep.Problems))
	}
	for i := 1; i < len(rep.Problems); i++ {
		if rep.Problems[i-1].Path > rep.Problems[i].Path {
			t.Errorf("problems not sorted by path:\n%s", problemList(rep.Problems))
		}
	}
	if rep.Objects != f.objects-3 {
		t.Errorf("Objects = %d, want the %d intact ones", rep.Objects, f.objects-3)
	}
}

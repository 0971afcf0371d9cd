package workset

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/clock"
)

const testFS = "hostfs"

// newStore returns a working set in a temporary .ctx directory, and a
// temporary project directory (symlinks resolved).
func newStore(t *testing.T) (*Store, string) {
	t.Helper()
	root := filepath.Join(t.TempDir(), ".ctx")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Open(root, Options{Clock: clock.Fixed(time.Unix(1790000000, 0)), FilesystemID: testFS})
	if err != nil {
		t.Fatal(err)
	}
	proj, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s, proj
}

func write(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// update runs fn on session "s1" and saves it.
func update(t *testing.T, s *Store, fn func(*Session) error) {
	t.Helper()
	if err := s.Update(context.Background(), "s1", fn); err != nil {
		t.Fatal(err)
	}
}

func load(t *testing.T, s *Store) *Session {
	t.Helper()
	sess, err := s.Load("s1")
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

func TestIndexProtocol(t *testing.T) {
	type step struct {
		op      string // read, discover, tombstone, edit (changes the file, no indexing), rm
		content string
		want    Outcome
	}
	tests := []struct {
		name     string
		steps    []step
		versions int
		latest   func(*FileVersion) bool
	}{
		{"new file is created", []step{{op: "read", content: "a", want: Created}}, 1,
			func(v *FileVersion) bool { return v.FileHash != nil && v.CharCount == 1 && !v.Stub() }},
		{"same bytes are unchanged", []step{{op: "read", content: "a", want: Created}, {op: "read", want: Unchanged}}, 1, nil},
		{"changed bytes are updated", []step{{op: "read", content: "a", want: Created}, {op: "edit", content: "bb"}, {op: "read", want: Updated}}, 2,
			func(v *FileVersion) bool { return v.CharCount == 2 && v.N == 2 }},
		{"stub then read is updated", []step{{op: "discover", content: "abc", want: Created}, {op: "read", want: Updated}}, 2,
			func(v *FileVersion) bool { return !v.Stub() && v.CharCount == 3 }},
		{"discovery never overwrites", []step{{op: "read", content: "abc", want: Created}, {op: "discover", want: Unchanged}}, 1,
			func(v *FileVersion) bool { return !v.Stub() }},
		{"a stub has null hashes", []step{{op: "discover", content: "x.go", want: Created}}, 1,
			func(v *FileVersion) bool {
				return v.Stub() && v.FileHash == nil && v.ContentHash == nil && v.Blob == nil && v.CharCount == 0 && v.FileType == "go"
			}},
		{"deleted is a null version", []step{{op: "read", content: "a", want: Created}, {op: "rm"}, {op: "tombstone", want: Updated}}, 2,
			func(v *FileVersion) bool {
				return v.Deleted && v.FileHash == nil && v.ContentHash == nil && v.Blob == nil
			}},
		{"deleted twice is unchanged", []step{{op: "read", content: "a", want: Created}, {op: "rm"}, {op: "tombstone", want: Updated}, {op: "tombstone", want: Unchanged}}, 2, nil},
		{"recreated after deletion is updated", []step{{op: "read", content: "a", want: Created}, {op: "rm"}, {op: "tombstone", want: Updated}, {op: "edit", content: "a"}, {op: "read", want: Updated}}, 3,
			func(v *FileVersion) bool { return !v.Deleted && v.CharCount == 1 }},
		{"binary has a file hash, no content", []step{{op: "read", content: "a\x00b", want: Created}}, 1,
			func(v *FileVersion) bool {
				return v.Binary && v.FileHash != nil && v.ContentHash == nil && v.Blob == nil
			}},
		{"unicode counts characters", []step{{op: "read", content: "héllo", want: Created}}, 1,
			func(v *FileVersion) bool { return v.CharCount == 5 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, proj := newStore(t)
			p := filepath.Join(proj, "f.go")
			src := Source{Type: SourceFilesystem, FilesystemID: testFS, Path: filepath.ToSlash(p)}
			for i, st := range tt.steps {
				if st.content != "" {
					write(t, p, st.content)
				}
				var out Outcome
				var err error
				switch st.op {
				case "read":
					var b []byte
					b, err = os.ReadFile(p)
					if err == nil {
						_, out, err = s.Index(src, b)
					}
				case "discover":
					_, out, err = s.Discover(src)
				case "tombstone":
					_, out, err = s.Tombstone(src)
				case "rm":
					err = os.Remove(p)
				}
				if err != nil {
					t.Fatalf("step %d %s: %v", i, st.op, err)
				}
				if st.want != 0 && out != st.want {
					t.Fatalf("step %d %s: outcome %s, want %s", i, st.op, out, st.want)
				}
			}
			f, err := s.File(FileID(src))
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Versions) != tt.versions {
				t.Errorf("%d versions, want %d", len(f.Versions), tt.versions)
			}
			if tt.latest != nil && !tt.latest(f.Latest()) {
				t.Errorf("latest version %+v", *f.Latest())
			}
			for i, v := range f.Versions {
				if v.ObjectHash != objectHash(v.FileHash, v.ContentHash, metadataHash(v.FileType, v.CharCount)) {
					t.Errorf("version %d: object hash does not match its parts", i+1)
				}
			}
			if l := f.Latest(); l.Blob != nil {
				b, err := s.Content(l)
				if err != nil || hashBytes(b) != *l.ContentHash {
					t.Errorf("content %q, %v: does not hash to content_hash", b, err)
				}
			}
		})
	}
}

func TestIdentity(t *testing.T) {
	a := Source{Type: SourceFilesystem, FilesystemID: "fs1", Path: "/p/a.go"}
	b := Source{Type: SourceFilesystem, FilesystemID: "fs2", Path: "/p/a.go"}
	if FileID(a) == FileID(b) {
		t.Error("the same path on two file systems is one object")
	}
	if FileID(a) != FileID(Source{Type: SourceFilesystem, FilesystemID: "fs1", Path: "/p/a.go"}) {
		t.Error("identity is not stable")
	}
	if CallID("x") == FileID(a) || CallID("x") == CallID("y") {
		t.Error("call identities collide")
	}
}

func TestSymlinkIsOneObject(t *testing.T) {
	s, proj := newStore(t)
	write(t, filepath.Join(proj, "real", "a.go"), "package a\n")
	if err := os.Symlink(filepath.Join(proj, "real"), filepath.Join(proj, "link")); err != nil {
		t.Skip(err)
	}
	var a, b Change
	update(t, s, func(sess *Session) error {
		var err error
		if a, err = sess.ReadFile(filepath.ToSlash(filepath.Join(proj, "real", "a.go")), nil); err != nil {
			return err
		}
		b, err = sess.ReadFile(filepath.ToSlash(filepath.Join(proj, "link", "a.go")), nil)
		return err
	})
	if a.ID != b.ID || b.Outcome != Unchanged {
		t.Errorf("through a link: %+v, %+v", a, b)
	}
}

func TestSessionSets(t *testing.T) {
	s, proj := newStore(t)
	write(t, filepath.Join(proj, "a.go"), "package a\n")
	write(t, filepath.Join(proj, "b.go"), "package b\n")
	a := filepath.ToSlash(filepath.Join(proj, "a.go"))
	var id ID
	update(t, s, func(sess *Session) error {
		ch, err := sess.ReadFile(a, nil)
		id = ch.ID
		return err
	})
	sess := load(t, s)
	if !has(sess.Index, id) || !has(sess.Pool, id) || !has(sess.Active, id) {
		t.Fatalf("a read file is not index, pool and active: %+v", sess.State)
	}
	update(t, s, func(sess *Session) error {
		if _, err := sess.Deactivate(id.String()[:6]); err != nil {
			return err
		}
		_, err := sess.Pin(a)
		return err
	})
	sess = load(t, s)
	if has(sess.Active, id) || !has(sess.Pool, id) || !has(sess.Pinned, id) {
		t.Fatalf("after deactivate and pin: %+v", sess.State)
	}
	// Another session sees the same object, but not this session's sets.
	if err := s.Update(context.Background(), "s2", func(o *Session) error {
		ch, err := o.ReadFile(a, nil)
		if err == nil && (ch.ID != id || ch.Outcome != Unchanged) {
			t.Errorf("second session: %+v", ch)
		}
		if len(o.Pinned) != 0 {
			t.Error("pins leak between sessions")
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"zzzz", "/nowhere/x.go", "abc"} {
		err := s.Update(context.Background(), "s1", func(sess *Session) error { _, err := sess.Activate(bad); return err })
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("activate %q: %v, want ErrNotFound", bad, err)
		}
	}
	// A stub is read on activation; a stub whose file is gone fails and
	// changes nothing.
	update(t, s, func(sess *Session) error {
		_, err := sess.Tool(ToolInput{Tool: "find", Output: []byte("./b.go\n./gone.go\n"), Cwd: filepath.ToSlash(proj)})
		return err
	})
	sess = load(t, s)
	items, err := sess.Items()
	if err != nil {
		t.Fatal(err)
	}
	var stub *Item
	for i := range items {
		if strings.HasSuffix(items[i].Path, "/b.go") {
			stub = &items[i]
		}
		if strings.HasSuffix(items[i].Path, "/gone.go") {
			t.Error("a path that is no file became a stub")
		}
	}
	if stub == nil || stub.State != "unread" || stub.Level != "metadata" {
		t.Fatalf("stub: %+v", stub)
	}
	update(t, s, func(sess *Session) error {
		ch, err := sess.Activate(stub.ID.String())
		if err == nil && ch.Outcome != Updated {
			t.Errorf("activating a stub: %+v", ch)
		}
		return err
	})
	if it, _ := load(t, s).Items(); it[len(it)-2].State != "read" && it[len(it)-1].State != "read" {
		t.Errorf("the stub was not read: %+v", it)
	}
	if err := os.Remove(filepath.Join(proj, "b.go")); err != nil {
		t.Fatal(err)
	}
	update(t, s, func(sess *Session) error {
		chs, err := sess.Sync(nil)
		for _, c := range chs {
			if strings.HasSuffix(c.Path, "/b.go") && (c.Note != "deleted" || c.Outcome != Updated) {
				t.Errorf("sync of a deleted file: %+v", c)
			}
		}
		return err
	})
	before := load(t, s).State
	err = s.Update(context.Background(), "s1", func(sess *Session) error {
		if _, err := sess.Deactivate(stub.ID.String()); err != nil {
			return err
		}
		_, err := sess.Activate(stub.ID.String())
		return err
	})
	if !errors.Is(err, ErrUnreadable) {
		t.Errorf("activating a deleted file: %v", err)
	}
	if after := load(t, s).State; len(after.Active) != len(before.Active) {
		t.Error("a failed command changed the state")
	}
}

func TestDecodeStateInvariants(t *testing.T) {
	id := "aa" + strings.Repeat("0", 62)
	other := "bb" + strings.Repeat("0", 62)
	base := `{"version":1,"session":"s","system":null,"mounts":[],"index":[%I],"pool":[%P],"active":[%A],"pinned":[%N],"turns":[],"toolcalls":[],"window":{"per_turn":5,"turns":3}}`
	mk := func(i, p, a, n string) string {
		r := strings.NewReplacer("%I", i, "%P", p, "%A", a, "%N", n)
		return r.Replace(base)
	}
	q := func(s string) string { return `"` + s + `"` }
	tests := []struct {
		name, doc string
		ok        bool
	}{
		{"empty", mk("", "", "", ""), true},
		{"active in pool in index", mk(q(id), q(id), q(id), q(id)), true},
		{"active not in pool", mk(q(id), "", q(id), ""), false},
		{"pool not in index", mk("", q(id), "", ""), false},
		{"pinned not in index", mk(q(id), "", "", q(other)), false},
		{"index repeats", mk(q(id)+","+q(id), "", "", ""), false},
		{"other version", strings.Replace(mk("", "", "", ""), `"version":1`, `"version":2`, 1), false},
		{"unknown key", strings.Replace(mk("", "", "", ""), `{"version"`, `{"x":1,"version"`, 1), false},
		{"trailing data", mk("", "", "", "") + "{}", false},
		{"bad window", strings.Replace(mk("", "", "", ""), `"per_turn":5`, `"per_turn":0`, 1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeState([]byte(tt.doc))
			if (err == nil) != tt.ok {
				t.Fatalf("DecodeState: %v, want ok=%v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrState) {
				t.Errorf("error %v does not wrap ErrState", err)
			}
		})
	}
}

package refs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/object"
)

// testID returns a distinct ID per label. The refs store never reads the
// objects its refs name, so no object needs to exist.
func testID(label string) object.ID { return object.Sum(object.KindBlob, []byte(label)) }

var (
	idA = testID("a")
	idB = testID("b")
	idC = testID("c")
)

func newTestStore(t *testing.T) (*Store, string) {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "HEAD"), []byte("ref: refs/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return NewStore(root), root
}

// writeHead writes a head file directly, as a git merge of two clones does.
func writeHead(t *testing.T, root string, n Name, id object.ID) {
	t.Helper()
	writeFile(t, filepath.Join(root, "refs", filepath.FromSlash(string(n)), id.String()), id.String()+"\n")
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sortedIDs(ids ...object.ID) []object.ID {
	out := slices.Clone(ids)
	sort.Slice(out, func(i, j int) bool { return out[i].Compare(out[j]) < 0 })
	return out
}

// heads returns the heads of n, or nil if it does not exist.
func heads(t *testing.T, s *Store, n Name) []object.ID {
	t.Helper()
	hs, err := s.Heads(n)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatalf("Heads(%s): %v", n, err)
	}
	return hs
}

func checkHeads(t *testing.T, s *Store, n Name, want ...object.ID) {
	t.Helper()
	got := heads(t, s, n)
	want = sortedIDs(want...)
	if len(want) == 0 {
		want = nil
	}
	if !slices.Equal(got, want) {
		t.Fatalf("heads of %s = %s, want %s", n, idList(got), idList(want))
	}
}

func idList(ids []object.ID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.Short()
	}
	return "[" + strings.Join(s, " ") + "]"
}

// checkChanged checks that err is a *ChangedError for n whose Actual is
// actual.
func checkChanged(t *testing.T, err error, n Name, actual ...object.ID) {
	t.Helper()
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("error %v, want ErrChanged", err)
	}
	var ce *ChangedError
	if !errors.As(err, &ce) {
		t.Fatalf("error %T %v, want a *ChangedError", err, err)
	}
	if ce.Name != n {
		t.Errorf("ChangedError.Name = %q, want %q", ce.Name, n)
	}
	actual = sortedIDs(actual...)
	if len(actual) == 0 {
		actual = nil
	}
	if !slices.Equal(ce.Actual, actual) {
		t.Errorf("ChangedError.Actual = %s, want %s", idList(ce.Actual), idList(actual))
	}
	if ce.Expected == "" {
		t.Errorf("ChangedError.Expected is empty")
	}
	if len(actual) == 0 && !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("message %q does not say the ref does not exist", err)
	}
	for _, id := range actual {
		if !strings.Contains(err.Error(), id.String()) {
			t.Errorf("message %q does not name head %s", err, id)
		}
	}
}

func TestUpdate(t *testing.T) {
	tests := []struct {
		name    string
		initial []object.ID
		to      object.ID
		exp     Expect
		changed bool        // the update fails with a *ChangedError
		want    []object.ID // heads afterwards
	}{
		{name: "absent/missing", to: idB, exp: Absent(), want: []object.ID{idB}},
		{name: "absent/exists", initial: []object.ID{idA}, to: idB, exp: Absent(), changed: true},
		{name: "absent/same value", initial: []object.ID{idB}, to: idB, exp: Absent(), changed: true},
		{name: "any/missing", to: idB, exp: Any(), want: []object.ID{idB}},
		{name: "any/one head", initial: []object.ID{idA}, to: idB, exp: Any(), want: []object.ID{idB}},
		{name: "any/replaces every head", initial: []object.ID{idA, idC}, to: idB, exp: Any(), want: []object.ID{idB}},
		{name: "any/already the head", initial: []object.ID{idB}, to: idB, exp: Any(), want: []object.ID{idB}},
		{name: "any/already one of the heads", initial: []object.ID{idA, idB}, to: idB, exp: Any(), want: []object.ID{idB}},
		{name: "among/one head", initial: []object.ID{idA}, to: idB, exp: Among(idA), want: []object.ID{idB}},
		{name: "among/keeps other heads", initial: []object.ID{idA, idC}, to: idB, exp: Among(idA), want: []object.ID{idB, idC}},
		{name: "among/replaces the listed heads", initial: []object.ID{idA, idC}, to: idB, exp: Among(idA, idC), want: []object.ID{idB}},
		{name: "among/to one of the listed", initial: []object.ID{idA, idB}, to: idB, exp: Among(idA, idB), want: []object.ID{idB}},
		{name: "among/to a kept head", initial: []object.ID{idA, idB}, to: idB, exp: Among(idA), want: []object.ID{idB}},
		{name: "among/to itself", initial: []object.ID{idA, idB}, to: idB, exp: Among(idB), want: []object.ID{idA, idB}},
		{name: "among/other value", initial: []object.ID{idC}, to: idB, exp: Among(idA), changed: true},
		{name: "among/missing", to: idB, exp: Among(idA), changed: true},
		{name: "among/one of two listed missing", initial: []object.ID{idA}, to: idB, exp: Among(idA, idC), changed: true},
		{name: "among none/adds a head", initial: []object.ID{idA}, to: idB, exp: Among(), want: []object.ID{idA, idB}},
		{name: "among none/missing", to: idB, exp: Among(), want: []object.ID{idB}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, root := newTestStore(t)
			n := Name("feature/x")
			for _, h := range tc.initial {
				writeHead(t, root, n, h)
			}
			err := s.Update(n, tc.to, tc.exp)
			if tc.changed {
				checkChanged(t, err, n, tc.initial...)
				checkHeads(t, s, n, tc.initial...)
				return
			}
			if err != nil {
				t.Fatalf("Update: %v", err)
			}
			checkHeads(t, s, n, tc.want...)
			for _, h := range tc.want {
				b, err := os.ReadFile(filepath.Join(root, "refs", "feature", "x", h.String()))
				if err != nil {
					t.Fatal(err)
				}
				if string(b) != h.String()+"\n" {
					t.Errorf("head file %s holds %q", h.Short(), b)
				}
			}
			if problems := s.Check(); len(problems) > 0 {
				t.Errorf("Check after Update: %v", problems)
			}
		})
	}
}

func TestUpdateZeroID(t *testing.T) {
	for _, n := range []Name{Main, STAGE, HEAD} {
		t.Run(string(n), func(t *testing.T) {
			s, root := newTestStore(t)
			if err := s.Update(n, object.Zero, Any()); !errors.Is(err, ErrInvalidName) {
				t.Fatalf("Update(%s, zero): %v, want ErrInvalidName", n, err)
			}
			for _, p := range []string{"refs", "STAGE"} {
				if _, err := os.Stat(filepath.Join(root, p)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s exists after a rejected update (%v)", p, err)
				}
			}
		})
	}
}

func TestDelete(t *testing.T) {
	tests := []struct {
		name     string
		initial  []object.ID
		exp      Expect
		notFound bool
		changed  bool
		want     []object.ID
	}{
		{name: "any/one head", initial: []object.ID{idA}, exp: Any()},
		{name: "any/two heads", initial: []object.ID{idA, idB}, exp: Any()},
		{name: "any/missing", exp: Any(), notFound: true},
		{name: "absent/missing", exp: Absent()},
		{name: "absent/exists", initial: []object.ID{idA}, exp: Absent(), changed: true},
		{name: "among/the head", initial: []object.ID{idA}, exp: Among(idA)},
		{name: "among/one of two", initial: []object.ID{idA, idB}, exp: Among(idA), want: []object.ID{idB}},
		{name: "among/both", initial: []object.ID{idA, idB}, exp: Among(idB, idA)},
		{name: "among/other value", initial: []object.ID{idB}, exp: Among(idA), changed: true},
		{name: "among/missing", exp: Among(idA), notFound: true},
		{name: "among none/keeps every head", initial: []object.ID{idA, idB}, exp: Among(), want: []object.ID{idA, idB}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, root := newTestStore(t)
			n := Name("feature/x")
			for _, h := range tc.initial {
				writeHead(t, root, n, h)
			}
			err := s.Delete(n, tc.exp)
			switch {
			case tc.notFound:
				if !errors.Is(err, ErrNotFound) {
					t.Fatalf("Delete: %v, want ErrNotFound", err)
				}
			case tc.changed:
				checkChanged(t, err, n, tc.initial...)
				checkHeads(t, s, n, tc.initial...)
				return
			case err != nil:
				t.Fatalf("Delete: %v", err)
			}
			checkHeads(t, s, n, tc.want...)
			_, err = os.Stat(filepath.Join(root, "refs", "feature"))
			if len(tc.want) == 0 && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("refs/feature left behind (%v)", err)
			}
			if len(tc.want) > 0 && err != nil {
				t.Errorf("refs/feature: %v", err)
			}
			if _, err := os.Stat(filepath.Join(root, "refs")); len(tc.initial) > 0 && err != nil {
				t.Errorf("refs/ itself was removed: %v", err)
			}
		})
	}
}

func TestDeletePrunesOnlyEmptyDirs(t *testing.T) {
	s, root := newTestStore(t)
	for _, n := range []Name{"a/b/c", "a/d", "e"} {
		if err := s.Update(n, idA, Absent()); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		del     Name
		gone    []string
		remains []string
	}{
		{"a/b/c", []string{"refs/a/b"}, []string{"refs/a", "refs/a/d", "refs/e"}},
		{"a/d", []string{"refs/a"}, []string{"refs/e"}},
		{"e", []string{"refs/e"}, []string{"refs"}},
	}
	for _, st := range steps {
		if err := s.Delete(st.del, Among(idA)); err != nil {
			t.Fatalf("Delete(%s): %v", st.del, err)
		}
		for _, p := range st.gone {
			if _, err := os.Stat(filepath.Join(root, p)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("after deleting %s: %s still exists (%v)", st.del, p, err)
			}
		}
		for _, p := range st.remains {
			if _, err := os.Stat(filepath.Join(root, p)); err != nil {
				t.Errorf("after deleting %s: %v", st.del, err)
			}
		}
	}
}

func TestDeleteKeepsParentRefWithHeads(t *testing.T) {
	s, root := newTestStore(t)
	// "a" has a head and a child ref "a/b": deleting the child must not
	// remove the parent's directory, which still holds a head.
	if err := s.Update("a", idA, Absent()); err != nil {
		t.Fatal(err)
	}
	if err := s.Update("a/b", idB, Absent()); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete("a/b", Any()); err != nil {
		t.Fatal(err)
	}
	checkHeads(t, s, "a", idA)
	checkHeads(t, s, "a/b")
	if _, err := os.Stat(filepath.Join(root, "refs", "a", "b")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("refs/a/b left behind (%v)", err)
	}
}

func TestStage(t *testing.T) {
	s, root := newTestStore(t)
	path := filepath.Join(root, "STAGE")
	checkFile := func(want string) {
		t.Helper()
		b, err := os.ReadFile(path)
		if want == "" {
			if !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("STAGE exists (%q, %v), want none", b, err)
			}
			return
		}
		if err != nil || string(b) != want {
			t.Fatalf("STAGE holds %q (%v), want %q", b, err, want)
		}
	}

	if _, err := s.Heads(STAGE); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Heads(STAGE) before any update: %v, want ErrNotFound", err)
	}
	checkChanged(t, s.Update(STAGE, idB, Among(idA)), STAGE)
	if err := s.Update(STAGE, idA, Absent()); err != nil {
		t.Fatal(err)
	}
	checkFile(idA.String() + "\n")
	checkHeads(t, s, STAGE, idA)
	checkChanged(t, s.Update(STAGE, idB, Absent()), STAGE, idA)
	checkChanged(t, s.Update(STAGE, idB, Among(idC)), STAGE, idA)
	if err := s.Update(STAGE, idB, Among(idA)); err != nil {
		t.Fatal(err)
	}
	checkHeads(t, s, STAGE, idB)
	if err := s.Update(STAGE, idC, Any()); err != nil {
		t.Fatal(err)
	}
	checkFile(idC.String() + "\n")
	if _, err := os.Stat(filepath.Join(root, "refs")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("STAGE updates created refs/ (%v)", err)
	}

	refs, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 1 || refs[0].Name != STAGE || !slices.Equal(refs[0].Heads, []object.ID{idC}) {
		t.Errorf("List = %v, want only STAGE", refs)
	}

	checkChanged(t, s.Delete(STAGE, Among(idA)), STAGE, idC)
	checkChanged(t, s.Delete(STAGE, Absent()), STAGE, idC)
	if err := s.Delete(STAGE, Among(idC)); err != nil {
		t.Fatal(err)
	}
	checkFile("")
	if err := s.Delete(STAGE, Any()); !errors.Is(err, ErrNotFound) {
		t.Errorf("Delete of a missing STAGE: %v, want ErrNotFound", err)
	}
	if err := s.Delete(STAGE, Absent()); err != nil {
		t.Errorf("Delete(STAGE, Absent) of a missing STAGE: %v", err)
	}
}

func TestStageCorrupt(t *testing.T) {
	for _, content := range []string{"", "\n", "garbage\n", idA.String(), strings.ToUpper(idA.String()) + "\n", idA.String() + "\n\n", idA.String()[:63] + "\n"} {
		t.Run(content, func(t *testing.T) {
			s, root := newTestStore(t)
			if content == idA.String() {
				// A missing final newline is tolerated.
				writeFile(t, filepath.Join(root, "STAGE"), content)
				checkHeads(t, s, STAGE, idA)
				return
			}
			writeFile(t, filepath.Join(root, "STAGE"), content)
			if _, err := s.Heads(STAGE); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Heads: %v, want ErrCorrupt", err)
			}
			// List leaves a damaged STAGE out (Check reports it), so that
			// the other refs can still be listed and checked.
			if refs, err := s.List(); err != nil || len(refs) != 0 {
				t.Errorf("List = %v, %v; want no refs", refs, err)
			}
			if err := s.Update(STAGE, idB, Any()); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Update: %v, want ErrCorrupt", err)
			}
			if !hasProblem(s.Check(), ErrCorrupt, "STAGE") {
				t.Errorf("Check = %v, want a corrupt STAGE", s.Check())
			}
		})
	}
}

func TestTarget(t *testing.T) {
	s, root := newTestStore(t)
	headPath := filepath.Join(root, "HEAD")
	if got, err := s.Target(); err != nil || got != Main {
		t.Fatalf("Target = %q, %v; want main", got, err)
	}
	if err := s.Update(HEAD, idA, Absent()); err != nil {
		t.Fatal(err)
	}
	checkHeads(t, s, Main, idA)
	checkHeads(t, s, HEAD, idA)
	if err := s.Update(HEAD, idB, Among(idA)); err != nil {
		t.Fatal(err)
	}
	checkHeads(t, s, Main, idB)

	if err := s.SetTarget("feature/x"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(headPath); err != nil || string(b) != "ref: refs/feature/x\n" {
		t.Fatalf("HEAD holds %q, %v", b, err)
	}
	if _, err := s.Heads(HEAD); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Heads(HEAD) naming a missing ref: %v, want ErrNotFound", err)
	}
	if err := s.Update(HEAD, idC, Absent()); err != nil {
		t.Fatal(err)
	}
	checkHeads(t, s, "feature/x", idC)
	checkHeads(t, s, Main, idB)
	if err := s.Delete(HEAD, Any()); err != nil {
		t.Fatal(err)
	}
	checkHeads(t, s, "feature/x")
	checkHeads(t, s, Main, idB)

	for _, n := range []Name{HEAD, STAGE} {
		if err := s.SetTarget(n); !errors.Is(err, ErrInvalidName) {
			t.Errorf("SetTarget(%s): %v, want ErrInvalidName", n, err)
		}
	}
	if got, err := s.Target(); err != nil || got != "feature/x" {
		t.Errorf("Target after rejected SetTarget = %q, %v", got, err)
	}

	if err := os.Remove(headPath); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Target(); !errors.Is(err, ErrNotFound) {
		t.Errorf("Target without HEAD: %v, want ErrNotFound", err)
	}
	if _, err := s.Heads(HEAD); !errors.Is(err, ErrNotFound) {
		t.Errorf("Heads(HEAD) without HEAD: %v, want ErrNotFound", err)
	}
	if !hasProblem(s.Check(), ErrNotFound, "HEAD") {
		t.Errorf("Check without HEAD = %v", s.Check())
	}
}

func TestTargetContent(t *testing.T) {
	tests := []struct {
		content string
		want    Name // "" means corrupt
	}{
		{"ref: refs/main\n", Main},
		{"ref: refs/main", Main},
		{"ref: main\n", ""}, // FORMAT.md §6.2: "ref: refs/<name>"
		{"ref: refs/HEAD\n", ""},
		{"ref: refs/refs/main\n", ""},
		{"ref: refs/feature/x\n", "feature/x"},
		{"", ""},
		{"\n", ""},
		{"garbage\n", ""},
		{"ref:refs/main\n", ""},
		{"ref:  refs/main\n", ""},
		{"ref: refs/main\n\n", ""},
		{"ref: refs/main\r\n", ""},
		{"ref: refs/main\nref: refs/other\n", ""},
		{"ref: HEAD\n", ""},
		{"ref: STAGE\n", ""},
		{"ref: refs/a b\n", ""},
		{"ref: refs/../x\n", ""},
		{"ref: \n", ""},
		{idA.String() + "\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.content, func(t *testing.T) {
			s, root := newTestStore(t)
			writeFile(t, filepath.Join(root, "HEAD"), tc.content)
			writeHead(t, root, Main, idA)
			got, err := s.Target()
			if tc.want != "" {
				if err != nil || got != tc.want {
					t.Fatalf("Target = %q, %v; want %q", got, err, tc.want)
				}
				return
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Target = %q, %v; want ErrCorrupt", got, err)
			}
			if _, err := s.Heads(HEAD); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Heads(HEAD): %v, want ErrCorrupt", err)
			}
			if err := s.Update(HEAD, idB, Any()); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Update(HEAD): %v, want ErrCorrupt", err)
			}
			if err := s.Delete(HEAD, Any()); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Delete(HEAD): %v, want ErrCorrupt", err)
			}
			checkHeads(t, s, Main, idA)
			if !hasProblem(s.Check(), ErrCorrupt, "HEAD") {
				t.Errorf("Check = %v, want a corrupt HEAD", s.Check())
			}
		})
	}
}

func TestHeadsIgnoresOtherFiles(t *testing.T) {
	s, root := newTestStore(t)
	writeHead(t, root, Main, idB)
	writeHead(t, root, Main, idA)
	dir := filepath.Join(root, "refs", "main")
	writeFile(t, filepath.Join(dir, "."+idC.String()+".123.tmp"), idC.String()+"\n")
	writeFile(t, filepath.Join(dir, "README"), "x")
	writeFile(t, filepath.Join(dir, strings.ToUpper(idC.String())), idC.String()+"\n")
	checkHeads(t, s, Main, idA, idB)
	if hs := heads(t, s, Main); hs[0].Compare(hs[1]) >= 0 {
		t.Errorf("heads not sorted: %s", idList(hs))
	}
}

func TestList(t *testing.T) {
	s, root := newTestStore(t)
	if got, err := s.List(); err != nil || len(got) != 0 {
		t.Fatalf("List of an empty store = %v, %v", got, err)
	}
	for _, u := range []struct {
		n  Name
		id object.ID
	}{{"zeta", idA}, {Main, idB}, {"feature/x", idC}, {"feature", idA}, {"feature/y/z", idB}} {
		if err := s.Update(u.n, u.id, Absent()); err != nil {
			t.Fatal(err)
		}
	}
	writeHead(t, root, "zeta", idC)
	if err := os.MkdirAll(filepath.Join(root, "refs", "empty", "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(STAGE, idC, Absent()); err != nil {
		t.Fatal(err)
	}
	got, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	want := []Ref{
		{"feature", []object.ID{idA}},
		{"feature/x", []object.ID{idC}},
		{"feature/y/z", []object.ID{idB}},
		{Main, []object.ID{idB}},
		{"zeta", sortedIDs(idA, idC)},
		{STAGE, []object.ID{idC}},
	}
	if len(got) != len(want) {
		t.Fatalf("List = %v, want %v", got, want)
	}
	for i := range want {
		if got[i].Name != want[i].Name || !slices.Equal(got[i].Heads, want[i].Heads) {
			t.Errorf("List[%d] = %s %s, want %s %s", i, got[i].Name, idList(got[i].Heads), want[i].Name, idList(want[i].Heads))
		}
	}
}

// hasProblem reports whether one of problems wraps target and mentions
// every one of words.
func hasProblem(problems []error, target error, words ...string) bool {
	for _, p := range problems {
		if !errors.Is(p, target) {
			continue
		}
		ok := true
		for _, w := range words {
			ok = ok && strings.Contains(p.Error(), w)
		}
		if ok {
			return true
		}
	}
	return false
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, root string)
		words  []string // nil: Check reports nothing
	}{
		{name: "clean", damage: func(t *testing.T, root string) {}},
		{name: "temporary file ignored", damage: func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, "refs", "main", "."+idB.String()+".42.tmp"), "partial")
		}},
		{name: "temporary file in refs/ ignored", damage: func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, "refs", "x.tmp"), "")
		}},
		{name: "empty ref directory", damage: func(t *testing.T, root string) {
			if err := os.MkdirAll(filepath.Join(root, "refs", "feature", "x"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "head file holds another id", words: []string{"refs/main/" + idB.String(), "does not hold its own id"}, damage: func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, "refs", "main", idB.String()), idC.String()+"\n")
		}},
		{name: "head file without newline", words: []string{"refs/main/" + idB.String()}, damage: func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, "refs", "main", idB.String()), idB.String())
		}},
		{name: "empty head file", words: []string{"refs/main/" + idB.String()}, damage: func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, "refs", "main", idB.String()), "")
		}},
		{name: "stray file", words: []string{"stray file refs/main/notes.txt"}, damage: func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, "refs", "main", "notes.txt"), "hi")
		}},
		{name: "stray file at top", words: []string{"stray file refs/README"}, damage: func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, "refs", "README"), "hi")
		}},
		{name: "uppercase head file", words: []string{"stray file refs/main/" + strings.ToUpper(idB.String())}, damage: func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, "refs", "main", strings.ToUpper(idB.String())), idB.String()+"\n")
		}},
		{name: "bad directory name", words: []string{"directory refs/bad name"}, damage: func(t *testing.T, root string) {
			writeHead(t, root, "bad name", idB)
		}},
		{name: "hidden directory", words: []string{"directory refs/main/.git"}, damage: func(t *testing.T, root string) {
			if err := os.MkdirAll(filepath.Join(root, "refs", "main", ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "directory named like a head", words: []string{"directory refs/main/" + idB.String()}, damage: func(t *testing.T, root string) {
			if err := os.MkdirAll(filepath.Join(root, "refs", "main", idB.String()), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "corrupt STAGE", words: []string{"STAGE"}, damage: func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, "STAGE"), "nope\n")
		}},
		{name: "corrupt HEAD", words: []string{"HEAD"}, damage: func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, "HEAD"), "nope\n")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, root := newTestStore(t)
			if err := s.Update(Main, idA, Absent()); err != nil {
				t.Fatal(err)
			}
			if err := s.Update(STAGE, idA, Absent()); err != nil {
				t.Fatal(err)
			}
			tc.damage(t, root)
			problems := s.Check()
			if tc.words == nil {
				if len(problems) > 0 {
					t.Fatalf("Check = %v, want no problems", problems)
				}
				return
			}
			if len(problems) != 1 {
				t.Errorf("Check = %v, want one problem", problems)
			}
			if !hasProblem(problems, ErrCorrupt, tc.words...) {
				t.Errorf("Check = %v, want ErrCorrupt mentioning %q", problems, tc.words)
			}
		})
	}
}

func TestCheckWithoutRefsDir(t *testing.T) {
	s, _ := newTestStore(t)
	if problems := s.Check(); len(problems) > 0 {
		t.Errorf("Check of a store with no refs/ = %v", problems)
	}
}

func TestExpectString(t *testing.T) {
	tests := []struct {
		exp  Expect
		want string
	}{
		{Any(), "any value"},
		{Absent(), "no ref"},
		{Among(idA), "head " + idA.String()},
		{Among(idA, idB), "head " + idA.String() + ", " + idB.String()},
	}
	for _, tc := range tests {
		if got := tc.exp.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

package repo

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
)

// lookupPath returns the ID at path in commit's tree, walking the trees
// directly rather than through Resolve.
func lookupPath(t *testing.T, r *Repo, commit object.ID, path string) object.ID {
	t.Helper()
	c, err := r.ReadCommit(commit)
	if err != nil {
		t.Fatal(err)
	}
	id := c.RootTree
	if path == "" {
		return id
	}
	for _, el := range strings.Split(path, "/") {
		tr := new(object.Tree)
		if err := object.GetTyped(r.Objects, id, tr); err != nil {
			t.Fatal(err)
		}
		e, ok := tr.Lookup(el)
		if !ok {
			t.Fatalf("no %s in %s", path, commit.Short())
		}
		id = e.ID
	}
	return id
}

func TestResolve(t *testing.T) {
	h := newHistory(t)
	r := h.r
	if err := r.refStore.Update("feature/x", h.side, refs.Absent()); err != nil {
		t.Fatal(err)
	}
	// A ref whose stale head (an ancestor) a crash left behind.
	AddHead(t, r, "stale", h.c1)
	AddHead(t, r, "stale", h.c2)
	// A ref named like hex wins over an object ID prefix.
	hexName := h.c1.String()[:8]
	if err := r.refStore.Update(refs.Name(hexName), h.c2, refs.Absent()); err != nil {
		t.Fatal(err)
	}
	treeOfTip := lookupPath(t, r, h.tip, "")

	tests := []struct {
		rev  string
		want object.ID
	}{
		{"main", h.tip},
		{"refs/main", h.tip},
		{"HEAD", h.tip},
		{"feature/x", h.side},
		{"refs/feature/x", h.side},
		{"stale", h.c2},
		{hexName, h.c2},
		{h.c2.String(), h.c2},
		{strings.ToUpper(h.c2.String()), h.c2},
		{h.side.String()[:12], h.side},
		{strings.ToUpper(h.side.String()[:12]), h.side},
		{h.root.String()[:20], h.root},
		{"main^0", h.tip},
		{"main~0", h.tip},
		{"main^0^0~0", h.tip},
		{"main^", h.m},
		{"main^1", h.m},
		{"main~", h.m},
		{"main~1", h.m},
		{"main^^", h.c2},
		{"main^^1", h.c2},
		{"main~2", h.c2},
		{"main^^2", h.side},
		{"main~1^2", h.side},
		{"main~1^1", h.c2},
		{"main~1^2~1", h.c1},
		{"main~1^2^", h.c1},
		{"main~3", h.c1},
		{"main~4", h.root},
		{"main~~~~", h.root},
		{"main^^^^", h.root},
		{"main~2^", h.c1},
		{"HEAD~1^2", h.side},
		{h.m.String()[:10] + "^2", h.side},
		{"main:", treeOfTip},
		{"main:/", treeOfTip},
		{"main:a.txt", lookupPath(t, r, h.tip, "a.txt")},
		{"main:src", lookupPath(t, r, h.tip, "src")},
		{"main:src/", lookupPath(t, r, h.tip, "src")},
		{"main:/src/main.go", lookupPath(t, r, h.tip, "src/main.go")},
		{"main:src/util/u.go", lookupPath(t, r, h.tip, "src/util/u.go")},
		{"main~3:a.txt", lookupPath(t, r, h.c1, "a.txt")},
		{"main~1^2:side.txt", lookupPath(t, r, h.side, "side.txt")},
		{treeOfTip.String() + ":src/main.go", lookupPath(t, r, h.tip, "src/main.go")},
		{treeOfTip.String()[:8] + ":", treeOfTip},
		{lookupPath(t, r, h.tip, "src").String() + ":util/u.go", lookupPath(t, r, h.tip, "src/util/u.go")},
	}
	for _, tc := range tests {
		t.Run(tc.rev, func(t *testing.T) {
			got, err := r.Resolve(tc.rev)
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tc.rev, err)
			}
			if got != tc.want {
				t.Fatalf("Resolve(%q) = %s, want %s", tc.rev, got.Short(), tc.want.Short())
			}
		})
	}
	if lookupPath(t, r, h.tip, "a.txt") == lookupPath(t, r, h.c1, "a.txt") {
		t.Fatal("fixture: a.txt should differ between c1 and tip")
	}
}

func TestResolveErrors(t *testing.T) {
	h := newHistory(t)
	r := h.r
	blob := lookupPath(t, r, h.tip, "a.txt")
	missing := object.Sum(object.KindTyped, []byte("missing"))
	tests := []struct {
		rev  string
		want error
	}{
		{"", ErrInvalidRev},
		{"^", ErrInvalidRev},
		{"~1", ErrInvalidRev},
		{":a.txt", ErrInvalidRev},
		{"main^x", ErrInvalidRev},
		{"main^1x", ErrInvalidRev},
		{"main~-1", ErrInvalidRev},
		{"main^+1", ErrInvalidRev},
		{"main~1 ", ErrInvalidRev},
		{"main^3", ErrInvalidRev},
		{"main^^3", ErrInvalidRev},
		{"main~5", ErrInvalidRev},
		{"main~4^", ErrInvalidRev},
		{"main~99999999999999999999", ErrInvalidRev},
		{"main^2097153", ErrInvalidRev},
		{"main@{1}", ErrInvalidRev},
		{"a b", ErrInvalidRev},
		{"../main", ErrInvalidRev},
		{"main:../a.txt", ErrInvalidRev},
		{"main:src/../a.txt", ErrInvalidRev},
		{"main:src//main.go", ErrInvalidRev},
		{"nosuch", refs.ErrNotFound},
		{"refs/nosuch", refs.ErrNotFound},
		{"feature/none", refs.ErrNotFound},
		{"nosuch^", refs.ErrNotFound},
		{"nosuch:a.txt", refs.ErrNotFound},
		{"STAGE", refs.ErrNotFound},
		{"abc", refs.ErrNotFound}, // too short to be an ID prefix
		{missing.String(), object.ErrNotFound},
		{missing.String()[:20], object.ErrNotFound},
		{"main:nosuch", object.ErrNotFound},
		{"main:src/nosuch.go", object.ErrNotFound},
		{"main:a.txt/x", object.ErrDecode},
		{blob.String() + ":", object.ErrDecode},
		{blob.String() + ":x", object.ErrDecode},
		{blob.String() + "^", ErrNotCommit},
		{"main:^", object.ErrNotFound},
		{"main:a.txt^", object.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.rev, func(t *testing.T) {
			got, err := r.Resolve(tc.rev)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Resolve(%q) = %s, %v; want %v", tc.rev, got.Short(), err, tc.want)
			}
			if got != object.Zero {
				t.Errorf("Resolve(%q) returned %s with its error", tc.rev, got.Short())
			}
		})
	}
}

func TestResolveAmbiguous(t *testing.T) {
	r := NewTestRepo(t)
	// Find two blobs whose IDs share their first MinPrefix hex digits
	// (a birthday search over 16 bits: a few hundred hashes).
	first := make(map[string]string)
	var a, b string
	for i := 0; a == ""; i++ {
		content := "blob " + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + itoa(i)
		p := object.Sum(object.KindBlob, []byte(content)).String()[:object.MinPrefix]
		if other, ok := first[p]; ok {
			a, b = other, content
		}
		first[p] = content
	}
	ida, err := r.Objects.Put(object.KindBlob, []byte(a))
	if err != nil {
		t.Fatal(err)
	}
	idb, err := r.Objects.Put(object.KindBlob, []byte(b))
	if err != nil {
		t.Fatal(err)
	}
	prefix := ida.String()[:object.MinPrefix]
	_, err = r.Resolve(prefix)
	if !errors.Is(err, object.ErrAmbiguous) {
		t.Fatalf("Resolve(%q): %v, want object.ErrAmbiguous", prefix, err)
	}
	var ae *object.AmbiguousError
	if !errors.As(err, &ae) || !slices.Equal(sortIDs(ae.Candidates...), sortIDs(ida, idb)) {
		t.Errorf("AmbiguousError = %+v", ae)
	}
	// One more digit may or may not tell them apart; the full IDs do.
	for _, id := range []object.ID{ida, idb} {
		if got := mustResolve(t, r, id.String()); got != id {
			t.Errorf("Resolve(%s) = %s", id, got)
		}
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

func TestResolveDiverged(t *testing.T) {
	h := newHistory(t)
	r := h.r
	// side is an ancestor of tip (through m): main still has one
	// effective head.
	AddHead(t, r, refs.Main, h.side)
	if got := mustResolve(t, r, "main"); got != h.tip {
		t.Fatalf("Resolve(main) with a stale head = %s, want tip", got.Short())
	}
	other := CommitFiles(t, r, at(60), map[string]string{"other": "x"}, "other", h.c2)
	AddHead(t, r, refs.Main, other)
	want := sortIDs(h.tip, other)
	for _, rev := range []string{"main", "refs/main", "HEAD", "main^", "main~2", "main:a.txt", "HEAD:"} {
		t.Run(rev, func(t *testing.T) {
			_, err := r.Resolve(rev)
			if !errors.Is(err, ErrDiverged) {
				t.Fatalf("Resolve(%q): %v, want ErrDiverged", rev, err)
			}
			var de *DivergedError
			if !errors.As(err, &de) {
				t.Fatalf("Resolve(%q): %T, want *DivergedError", rev, err)
			}
			if de.Name != refs.Main || !slices.Equal(de.Heads, want) {
				t.Errorf("DivergedError = %s %s, want main %s", de.Name, shorts(de.Heads), shorts(want))
			}
			for _, id := range want {
				if !strings.Contains(err.Error(), id.Short()) {
					t.Errorf("message %q does not name %s", err, id.Short())
				}
			}
		})
	}
	// Object IDs and other refs still resolve.
	if got := mustResolve(t, r, other.String()[:10]+"^"); got != h.c2 {
		t.Errorf("Resolve(other^) = %s", got.Short())
	}
}

func TestResolveCorruptHEAD(t *testing.T) {
	h := newHistory(t)
	if err := writeRaw(h.r.Root, "HEAD", "garbage\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.r.Resolve("HEAD"); !errors.Is(err, refs.ErrCorrupt) {
		t.Errorf("Resolve(HEAD) with a corrupt HEAD: %v, want refs.ErrCorrupt", err)
	}
	if got := mustResolve(t, h.r, "main"); got != h.tip {
		t.Errorf("Resolve(main) = %s", got.Short())
	}
}

func TestTreeOf(t *testing.T) {
	h := newHistory(t)
	tree := lookupPath(t, h.r, h.tip, "")
	for _, id := range []object.ID{h.tip, tree} {
		if got, err := h.r.TreeOf(id); err != nil || got != tree {
			t.Errorf("TreeOf(%s) = %s, %v; want %s", id.Short(), got.Short(), err, tree.Short())
		}
	}
	w, err := object.PutTyped(h.r.Objects, &object.WorkCommit{Base: h.tip, SessionID: "s", StepKind: object.StepNote})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []object.ID{lookupPath(t, h.r, h.tip, "a.txt"), w} {
		if _, err := h.r.TreeOf(id); !errors.Is(err, object.ErrDecode) {
			t.Errorf("TreeOf(%s): %v, want object.ErrDecode", id.Short(), err)
		}
	}
}

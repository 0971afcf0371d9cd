package repo

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
)

func lock(t *testing.T, r *Repo) *Writer {
	t.Helper()
	w, err := r.Lock(t.Context(), LockOptions{Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Unlock(); err != nil {
			t.Error(err)
		}
	})
	return w
}

func reconcile(t *testing.T, r *Repo) []Reconciled {
	t.Helper()
	w, err := r.Lock(t.Context(), LockOptions{Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Unlock()
	recs, err := w.Reconcile(t.Context())
	if err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	return recs
}

func objectCount(t *testing.T, r *Repo) int {
	t.Helper()
	ids, strays, err := r.Objects.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(strays) > 0 {
		t.Errorf("object store holds strays: %v", strays)
	}
	return len(ids)
}

func checkRawHeads(t *testing.T, r *Repo, n refs.Name, want ...object.ID) {
	t.Helper()
	got, err := r.Refs.Heads(n)
	if err != nil {
		t.Fatalf("heads of %s: %v", n, err)
	}
	if want = sortIDs(want...); !slices.Equal(got, want) {
		t.Fatalf("heads of %s = %s, want %s", n, shorts(got), shorts(want))
	}
}

func TestReconcileNothingToDo(t *testing.T) {
	h := newHistory(t)
	if err := h.r.refStore.Update("feature/x", h.side, refs.Absent()); err != nil {
		t.Fatal(err)
	}
	if err := h.r.refStore.Update(refs.STAGE, h.c1, refs.Absent()); err != nil {
		t.Fatal(err)
	}
	before := objectCount(t, h.r)
	if recs := reconcile(t, h.r); len(recs) != 0 {
		t.Errorf("Reconcile = %+v, want nothing", recs)
	}
	if objectCount(t, h.r) != before {
		t.Error("Reconcile wrote objects")
	}
	checkRawHeads(t, h.r, refs.Main, h.tip)
	checkRawHeads(t, h.r, refs.STAGE, h.c1)
}

func TestReconcileDropsStaleHeads(t *testing.T) {
	h := newHistory(t)
	r := h.r
	AddHead(t, r, refs.Main, h.c1)
	AddHead(t, r, refs.Main, h.side)
	AddHead(t, r, refs.Main, h.root)
	AddHead(t, r, "feature/x", h.c1)
	AddHead(t, r, "feature/x", h.c2)
	before := objectCount(t, r)
	recs := reconcile(t, r)
	if objectCount(t, r) != before {
		t.Error("dropping stale heads wrote objects")
	}
	want := []Reconciled{
		{Ref: "feature/x", Heads: sortIDs(h.c1, h.c2), Result: h.c2},
		{Ref: refs.Main, Heads: sortIDs(h.c1, h.side, h.root, h.tip), Result: h.tip},
	}
	if len(recs) != len(want) {
		t.Fatalf("Reconcile = %+v, want %+v", recs, want)
	}
	for i, w := range want {
		g := recs[i]
		if g.Ref != w.Ref || !slices.Equal(g.Heads, w.Heads) || g.Result != w.Result || g.Merged || len(g.Conflicts) > 0 {
			t.Errorf("Reconcile[%d] = %+v, want %+v", i, g, w)
		}
	}
	checkRawHeads(t, r, refs.Main, h.tip)
	checkRawHeads(t, r, "feature/x", h.c2)
	if recs := reconcile(t, r); len(recs) != 0 {
		t.Errorf("second Reconcile = %+v, want nothing", recs)
	}
}

// diverge makes left and right, two children of a common base commit of
// baseFiles, the two heads of main, and returns them. With baseFiles nil
// the two have no common ancestor.
func diverge(t *testing.T, r *Repo, baseFiles, leftFiles, rightFiles map[string]string, leftTime, rightTime int64) (left, right object.ID) {
	t.Helper()
	var parents []object.ID
	if baseFiles != nil {
		root := mustResolve(t, r, "main")
		parents = []object.ID{CommitFiles(t, r, at(10), baseFiles, "base", root)}
	}
	left = CommitFiles(t, r, at(leftTime), leftFiles, "left", parents...)
	right = CommitFiles(t, r, at(rightTime), rightFiles, "right", parents...)
	if left == right {
		t.Fatal("fixture: left and right are the same commit")
	}
	if err := r.refStore.Update(refs.Main, left, refs.Any()); err != nil {
		t.Fatal(err)
	}
	AddHead(t, r, refs.Main, right)
	return left, right
}

// checkMerge checks that rec is the reconciliation of main's heads into a
// merge commit of the given files and conflicts, and returns the commit.
func checkMerge(t *testing.T, r *Repo, rec Reconciled, heads []object.ID, files map[string]string, conflicts []string) *object.Commit {
	t.Helper()
	heads = sortIDs(heads...)
	if rec.Ref != refs.Main || !rec.Merged || !slices.Equal(rec.Heads, heads) {
		t.Errorf("Reconciled = %+v, want a merge of main's heads %s", rec, shorts(heads))
	}
	if len(conflicts) == 0 {
		conflicts = nil
	}
	if !slices.Equal(rec.Conflicts, conflicts) {
		t.Errorf("conflicts = %q, want %q", rec.Conflicts, conflicts)
	}
	checkRawHeads(t, r, refs.Main, rec.Result)
	c, err := r.ReadCommit(rec.Result)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Parents, heads) {
		t.Errorf("merge parents = %s, want %s (sorted)", shorts(c.Parents), shorts(heads))
	}
	var maxTime int64
	for _, h := range heads {
		p, err := r.ReadCommit(h)
		if err != nil {
			t.Fatal(err)
		}
		maxTime = max(maxTime, p.TimestampUnix)
	}
	if c.TimestampUnix != maxTime {
		t.Errorf("merge time = %d, want the latest head's %d", c.TimestampUnix, maxTime)
	}
	wantMsg := "Merge " + itoa(len(heads)) + " heads of refs/main"
	if len(conflicts) > 0 {
		wantMsg += "\n\nBoth sides changed these paths; the newer side was kept:\n  " + strings.Join(conflicts, "\n  ")
	}
	if c.Message != wantMsg {
		t.Errorf("merge message = %q, want %q", c.Message, wantMsg)
	}
	if c.Author != "" || len(c.EdgeBatches) > 0 || len(c.NarrativeRefs) > 0 {
		t.Errorf("merge commit = %+v", c)
	}
	if got := TreeFiles(t, r, rec.Result); !maps.Equal(got, files) {
		t.Errorf("merged files = %q, want %q", got, files)
	}
	return c
}

func TestReconcileMergesTrees(t *testing.T) {
	const older, newer = 20, 30
	tests := []struct {
		name        string
		base        map[string]string // nil: no common ancestor
		left, right map[string]string
		leftNewer   bool
		want        map[string]string
		conflicts   []string
	}{
		{
			name: "one side adds a file",
			base: map[string]string{"k": "1"},
			left: map[string]string{"k": "1", "a": "A"}, right: map[string]string{"k": "1"},
			want: map[string]string{"k": "1", "a": "A"},
		},
		{
			name: "one side adds a file, older",
			base: map[string]string{"k": "1"},
			left: map[string]string{"k": "1", "a": "A"}, right: map[string]string{"k": "1"}, leftNewer: true,
			want: map[string]string{"k": "1", "a": "A"},
		},
		{
			name: "both add different files",
			base: map[string]string{"k": "1"},
			left: map[string]string{"k": "1", "a": "A"}, right: map[string]string{"k": "1", "b": "B"},
			want: map[string]string{"k": "1", "a": "A", "b": "B"},
		},
		{
			name: "both add the same file alike",
			base: map[string]string{"k": "1"},
			left: map[string]string{"k": "1", "a": "A", "l": "L"}, right: map[string]string{"k": "1", "a": "A"},
			want: map[string]string{"k": "1", "a": "A", "l": "L"},
		},
		{
			name: "both add the same file differently",
			base: map[string]string{"k": "1"},
			left: map[string]string{"k": "1", "a": "left"}, right: map[string]string{"k": "1", "a": "right"}, leftNewer: true,
			want: map[string]string{"k": "1", "a": "left"}, conflicts: []string{"a"},
		},
		{
			name: "one side deletes",
			base: map[string]string{"k": "1", "d": "D"},
			left: map[string]string{"k": "1", "d": "D"}, right: map[string]string{"k": "1"},
			want: map[string]string{"k": "1"},
		},
		{
			name: "one side deletes, newer keeps",
			base: map[string]string{"k": "1", "d": "D"},
			left: map[string]string{"k": "1", "d": "D", "x": "x"}, right: map[string]string{"k": "1"}, leftNewer: true,
			want: map[string]string{"k": "1", "x": "x"},
		},
		{
			name: "both delete",
			base: map[string]string{"k": "1", "d": "D"},
			left: map[string]string{"k": "1", "x": "x"}, right: map[string]string{"k": "1"},
			want: map[string]string{"k": "1", "x": "x"},
		},
		{
			name: "one side modifies",
			base: map[string]string{"k": "1", "m": "old"},
			left: map[string]string{"k": "1", "m": "new"}, right: map[string]string{"k": "1", "m": "old", "r": "R"},
			want: map[string]string{"k": "1", "m": "new", "r": "R"},
		},
		{
			name: "both modify alike",
			base: map[string]string{"k": "1", "m": "old"},
			left: map[string]string{"k": "1", "m": "new", "l": "L"}, right: map[string]string{"k": "1", "m": "new"},
			want: map[string]string{"k": "1", "m": "new", "l": "L"},
		},
		{
			name: "both modify differently, left newer",
			base: map[string]string{"k": "1", "m": "old"},
			left: map[string]string{"k": "1", "m": "left"}, right: map[string]string{"k": "1", "m": "right", "r": "R"}, leftNewer: true,
			want: map[string]string{"k": "1", "m": "left", "r": "R"}, conflicts: []string{"m"},
		},
		{
			name: "both modify differently, right newer",
			base: map[string]string{"k": "1", "m": "old"},
			left: map[string]string{"k": "1", "m": "left", "l": "L"}, right: map[string]string{"k": "1", "m": "right"},
			want: map[string]string{"k": "1", "m": "right", "l": "L"}, conflicts: []string{"m"},
		},
		{
			name: "modify against delete, modifier newer",
			base: map[string]string{"k": "1", "m": "old"},
			left: map[string]string{"k": "1", "m": "new"}, right: map[string]string{"k": "1"}, leftNewer: true,
			want: map[string]string{"k": "1", "m": "new"}, conflicts: []string{"m"},
		},
		{
			name: "modify against delete, deleter newer",
			base: map[string]string{"k": "1", "m": "old"},
			left: map[string]string{"k": "1", "m": "new"}, right: map[string]string{"k": "1"},
			want: map[string]string{"k": "1"}, conflicts: []string{"m"},
		},
		{
			name: "several conflicts sorted",
			base: map[string]string{"k": "1", "a": "0", "z": "0", "d/m": "0"},
			left: map[string]string{"k": "1", "a": "L", "z": "L", "d/m": "L"}, right: map[string]string{"k": "1", "a": "R", "z": "R", "d/m": "R"},
			want:      map[string]string{"k": "1", "a": "R", "z": "R", "d/m": "R"},
			conflicts: []string{"a", "d/m", "z"},
		},
		{
			name: "nested directories merge recursively",
			base: map[string]string{"k": "1", "d/x": "1", "d/e/y": "1", "d/e/f/g": "1"},
			left: map[string]string{"k": "1", "d/x": "2", "d/e/y": "1", "d/e/f/g": "1", "d/e/f/l": "L"},
			right: map[string]string{"k": "1", "d/x": "1", "d/e/y": "1", "d/e/f/g": "1", "d/e/z": "3", "d/e/f/r": "R",
				"n/new": "N"},
			want: map[string]string{"k": "1", "d/x": "2", "d/e/y": "1", "d/e/z": "3", "d/e/f/g": "1", "d/e/f/l": "L", "d/e/f/r": "R",
				"n/new": "N"},
		},
		{
			name: "nested conflict names its path",
			base: map[string]string{"k": "1", "d/e/f": "0", "d/e/g": "0"},
			left: map[string]string{"k": "1", "d/e/f": "L", "d/e/g": "L"}, right: map[string]string{"k": "1", "d/e/f": "R", "d/e/g": "0"}, leftNewer: true,
			want: map[string]string{"k": "1", "d/e/f": "L", "d/e/g": "L"}, conflicts: []string{"d/e/f"},
		},
		{
			name: "directory emptied by the merge disappears",
			base: map[string]string{"k": "1", "d/a": "A", "d/b": "B"},
			left: map[string]string{"k": "1", "d/b": "B"}, right: map[string]string{"k": "1", "d/a": "A"},
			want: map[string]string{"k": "1"},
		},
		{
			name: "nested directory emptied by the merge disappears",
			base: map[string]string{"k": "1", "d/e/a": "A", "d/e/b": "B", "d/c": "C"},
			left: map[string]string{"k": "1", "d/e/b": "B", "d/c": "C"}, right: map[string]string{"k": "1", "d/e/a": "A", "d/c": "C"},
			want: map[string]string{"k": "1", "d/c": "C"},
		},
		{
			name: "everything deleted",
			base: map[string]string{"a": "A", "b": "B"},
			left: map[string]string{"b": "B"}, right: map[string]string{"a": "A"},
			want: map[string]string{},
		},
		{
			name: "one side deletes a directory",
			base: map[string]string{"k": "1", "d/a": "A", "d/b": "B"},
			left: map[string]string{"k": "1"}, right: map[string]string{"k": "1", "d/a": "A", "d/b": "B", "r": "R"},
			want: map[string]string{"k": "1", "r": "R"},
		},
		{
			name: "file against directory, file newer",
			base: map[string]string{"k": "1"},
			left: map[string]string{"k": "1", "x": "file"}, right: map[string]string{"k": "1", "x/y": "in dir"}, leftNewer: true,
			want: map[string]string{"k": "1", "x": "file"}, conflicts: []string{"x"},
		},
		{
			name: "file against directory, directory newer",
			base: map[string]string{"k": "1"},
			left: map[string]string{"k": "1", "x": "file"}, right: map[string]string{"k": "1", "x/y": "in dir"},
			want: map[string]string{"k": "1", "x/y": "in dir"}, conflicts: []string{"x"},
		},
		{
			name: "file becomes a directory on one side",
			base: map[string]string{"k": "1", "x": "file"},
			left: map[string]string{"k": "1", "x/y": "in dir"}, right: map[string]string{"k": "1", "x": "file", "r": "R"}, leftNewer: true,
			want: map[string]string{"k": "1", "x/y": "in dir", "r": "R"},
		},
		{
			name: "no common ancestor",
			left: map[string]string{"k": "1", "a": "A"}, right: map[string]string{"k": "1", "b": "B"},
			want: map[string]string{"k": "1", "a": "A", "b": "B"},
		},
		{
			name: "no common ancestor, conflict",
			left: map[string]string{"k": "L"}, right: map[string]string{"k": "R"}, leftNewer: true,
			want: map[string]string{"k": "L"}, conflicts: []string{"k"},
		},
	}
	template := NewTestRepo(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := cloneRepo(t, template)
			lt, rt := int64(older), int64(newer)
			if tc.leftNewer {
				lt, rt = rt, lt
			}
			left, right := diverge(t, r, tc.base, tc.left, tc.right, lt, rt)
			if _, err := r.Resolve("main"); !errors.Is(err, ErrDiverged) {
				t.Fatalf("fixture: Resolve(main) = %v, want ErrDiverged", err)
			}
			recs := reconcile(t, r)
			if len(recs) != 1 {
				t.Fatalf("Reconcile = %+v, want one ref", recs)
			}
			checkMerge(t, r, recs[0], []object.ID{left, right}, tc.want, tc.conflicts)
			if got := mustResolve(t, r, "main"); got != recs[0].Result {
				t.Errorf("Resolve(main) = %s after Reconcile, want %s", got.Short(), recs[0].Result.Short())
			}
			rep, err := r.Verify(t.Context(), VerifyOptions{})
			if err != nil || !rep.OK() || len(rep.Warnings) > 0 {
				t.Errorf("Verify after Reconcile: %v, %+v", err, rep)
			}
		})
	}
}

func TestMergeTieBreakByID(t *testing.T) {
	// Equal times: the head with the greater ID is the newer one.
	for _, tc := range []struct{ l, r string }{{"x", "y"}, {"y", "x"}, {"one", "two"}, {"p", "q"}} {
		t.Run(tc.l+"-"+tc.r, func(t *testing.T) {
			t.Parallel()
			r := NewTestRepo(t)
			base := map[string]string{"m": "old"}
			left, right := diverge(t, r, base, map[string]string{"m": tc.l}, map[string]string{"m": tc.r}, 20, 20)
			winner := tc.l
			if right.Compare(left) > 0 {
				winner = tc.r
			}
			recs := reconcile(t, r)
			if len(recs) != 1 {
				t.Fatalf("Reconcile = %+v", recs)
			}
			checkMerge(t, r, recs[0], []object.ID{left, right}, map[string]string{"m": winner}, []string{"m"})
		})
	}
}

func TestMergeThreeHeads(t *testing.T) {
	r := NewTestRepo(t)
	root := mustResolve(t, r, "main")
	base := CommitFiles(t, r, at(10), map[string]string{"k": "1", "f": "0", "d/x": "0"}, "base", root)
	a := CommitFiles(t, r, at(20), map[string]string{"k": "1", "f": "A", "d/x": "0", "a": "A"}, "a", base)
	b := CommitFiles(t, r, at(40), map[string]string{"k": "1", "f": "B", "d/x": "0", "b": "B", "d/b": "B"}, "b", base)
	c := CommitFiles(t, r, at(30), map[string]string{"k": "2", "f": "C", "d/x": "0", "c": "C"}, "c", base)
	if err := r.refStore.Update(refs.Main, a, refs.Any()); err != nil {
		t.Fatal(err)
	}
	for _, h := range []object.ID{b, c, base} {
		AddHead(t, r, refs.Main, h)
	}
	recs := reconcile(t, r)
	if len(recs) != 1 {
		t.Fatalf("Reconcile = %+v", recs)
	}
	rec := recs[0]
	if !slices.Equal(rec.Heads, sortIDs(a, b, c, base)) {
		t.Errorf("Reconciled.Heads = %s, want all four heads", shorts(rec.Heads))
	}
	rec.Heads = sortIDs(a, b, c) // base is dropped as an ancestor, not merged
	// f changed on all three sides: the newest head (b) wins; the path is
	// reported once even though two merge steps saw it.
	checkMerge(t, r, rec, []object.ID{a, b, c}, map[string]string{
		"k": "2", "f": "B", "d/x": "0", "d/b": "B", "a": "A", "b": "B", "c": "C",
	}, []string{"f"})
}

func TestReconcileIsDeterministic(t *testing.T) {
	build := func() (*Repo, []Reconciled) {
		r := NewTestRepo(t)
		root := mustResolve(t, r, "main")
		diverge(t, r, map[string]string{"k": "1", "m": "0"},
			map[string]string{"k": "1", "m": "L", "a": "A"},
			map[string]string{"k": "1", "m": "R", "b": "B"}, 20, 30)
		x := CommitFiles(t, r, at(5), map[string]string{"x": "1"}, "x", root)
		y := CommitFiles(t, r, at(6), map[string]string{"y": "1"}, "y", root)
		if err := r.refStore.Update("feature/x", x, refs.Absent()); err != nil {
			t.Fatal(err)
		}
		AddHead(t, r, "feature/x", y)
		return r, reconcile(t, r)
	}
	r1, recs1 := build()
	r2, recs2 := build()
	if r1.Root == r2.Root {
		t.Fatal("fixture: one store")
	}
	if len(recs1) != 2 || len(recs2) != 2 {
		t.Fatalf("Reconcile = %+v and %+v, want two refs each", recs1, recs2)
	}
	for i := range recs1 {
		if recs1[i].Ref != recs2[i].Ref || recs1[i].Result != recs2[i].Result || !recs1[i].Merged {
			t.Errorf("stores disagree on %s: %s and %s", recs1[i].Ref, recs1[i].Result.Short(), recs2[i].Result.Short())
		}
	}
	if recs1[0].Ref != "feature/x" || recs1[1].Ref != refs.Main {
		t.Errorf("refs reconciled in order %s, %s; want by name", recs1[0].Ref, recs1[1].Ref)
	}
	if !strings.HasPrefix(mustCommit(t, r1, recs1[0].Result).Message, "Merge 2 heads of refs/feature/x") {
		t.Errorf("merge of feature/x: message %q", mustCommit(t, r1, recs1[0].Result).Message)
	}

	// Merge itself ignores the order of its heads and who runs it.
	heads := mustCommit(t, r1, recs1[1].Result).Parents
	for _, order := range [][]object.ID{heads, {heads[1], heads[0]}} {
		m, err := r2.Merge(r2.Objects, order, "refs/main")
		if err != nil {
			t.Fatal(err)
		}
		if m.ID != recs1[1].Result {
			t.Errorf("Merge(%s) = %s, want %s", shorts(order), m.ID.Short(), recs1[1].Result.Short())
		}
	}
}

func mustCommit(t *testing.T, r *Repo, id object.ID) *object.Commit {
	t.Helper()
	c, err := r.ReadCommit(id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestReconcileNotACommit(t *testing.T) {
	h := newHistory(t)
	r := h.r
	blob := lookupPath(t, r, h.tip, "a.txt")
	// feature/a reconciles fine and comes first; main cannot be merged.
	if err := r.refStore.Update("feature/a", h.c2, refs.Absent()); err != nil {
		t.Fatal(err)
	}
	AddHead(t, r, "feature/a", h.side)
	AddHead(t, r, refs.Main, blob)
	// A ref that cannot be merged is left alone and reported; the others
	// are still reconciled.
	recs, err := lock(t, r).Reconcile(t.Context())
	if err != nil {
		t.Fatalf("Reconcile with a blob head: %v", err)
	}
	if len(recs) != 2 || recs[0].Ref != "feature/a" || !recs[0].Merged || recs[1].Ref != refs.Main || !strings.Contains(recs[1].Skipped, "not a readable commit") {
		t.Errorf("Reconcile reported %+v, want feature/a merged and main skipped", recs)
	}
	checkRawHeads(t, r, refs.Main, h.tip, blob)
	checkRawHeads(t, r, "feature/a", recs[0].Result)
	objectCount(t, r) // no temporary files left behind
}

func TestMergeErrors(t *testing.T) {
	h := newHistory(t)
	r := h.r
	if _, err := r.Merge(r.Objects, []object.ID{h.c2}, "x"); err == nil {
		t.Error("Merge of one head succeeded")
	}
	if _, err := r.Merge(r.Objects, nil, "x"); err == nil {
		t.Error("Merge of no heads succeeded")
	}
	tree := lookupPath(t, r, h.tip, "")
	if _, err := r.Merge(r.Objects, []object.ID{h.c2, tree}, "x"); !errors.Is(err, ErrNotCommit) {
		t.Errorf("Merge with a tree: %v, want ErrNotCommit", err)
	}
	missing := object.Sum(object.KindTyped, []byte("missing"))
	if _, err := r.Merge(r.Objects, []object.ID{h.c2, missing}, "x"); !errors.Is(err, object.ErrNotFound) {
		t.Errorf("Merge with a missing head: %v, want object.ErrNotFound", err)
	}
}

func TestMergeBatchAborted(t *testing.T) {
	// A merge writes only through w: with a batch that is never
	// committed, nothing reaches the store.
	r := NewTestRepo(t)
	left, right := diverge(t, r, map[string]string{"k": "1"}, map[string]string{"k": "1", "a": "A"}, map[string]string{"k": "1", "b": "B"}, 20, 30)
	before := objectCount(t, r)
	b := r.Objects.NewBatch()
	m, err := r.Merge(b, []object.ID{left, right}, "refs/main")
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := r.Objects.Has(m.ID); ok {
		t.Error("merge commit visible before the batch is committed")
	}
	b.Abort()
	if got := objectCount(t, r); got != before {
		t.Errorf("%d objects after an aborted merge, want %d", got, before)
	}
}

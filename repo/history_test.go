package repo

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
)

// at returns TestTime plus sec seconds.
func at(sec int64) time.Time { return TestTime.Add(time.Duration(sec) * time.Second) }

func sortIDs(ids ...object.ID) []object.ID {
	out := slices.Clone(ids)
	sort.Slice(out, func(i, j int) bool { return out[i].Compare(out[j]) < 0 })
	return out
}

func shorts(ids []object.ID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.Short()
	}
	return "[" + strings.Join(s, " ") + "]"
}

// history is a small history that refs/main names:
//
//	root ── c1 ── c2 ──── m ── tip
//	          \          /
//	           └─ side ─┘
//
// root is the store's root commit (time 0); the others are 10 s apart in
// the order c1, c2, side, m, tip. m's parents are c2 then side.
type history struct {
	r                          *Repo
	root, c1, c2, side, m, tip object.ID
}

var historyFiles = map[string]map[string]string{
	"c1":   {"a.txt": "a1", "src/main.go": "package main"},
	"c2":   {"a.txt": "a2", "src/main.go": "package main"},
	"side": {"a.txt": "a1", "side.txt": "side", "src/main.go": "package main"},
	"m":    {"a.txt": "a2", "side.txt": "side", "src/main.go": "package main"},
	"tip":  {"a.txt": "a2", "side.txt": "side", "src/main.go": "package main", "src/util/u.go": "package util"},
}

func newHistory(t *testing.T) *history {
	t.Helper()
	r := NewTestRepo(t)
	h := &history{r: r, root: mustResolve(t, r, "main")}
	h.c1 = CommitFiles(t, r, at(10), historyFiles["c1"], "c1", h.root)
	h.c2 = CommitFiles(t, r, at(20), historyFiles["c2"], "c2", h.c1)
	h.side = CommitFiles(t, r, at(30), historyFiles["side"], "side", h.c1)
	h.m = CommitFiles(t, r, at(40), historyFiles["m"], "m", h.c2, h.side)
	h.tip = CommitFiles(t, r, at(50), historyFiles["tip"], "tip", h.m)
	if err := r.refStore.Update(refs.Main, h.tip, refs.Among(h.root)); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestHeadsEffective(t *testing.T) {
	h := newHistory(t)
	r := h.r
	blob, err := r.Objects.Put(object.KindBlob, []byte("not a commit"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		heads []object.ID
		want  []object.ID
	}{
		{"one head", []object.ID{h.c2}, []object.ID{h.c2}},
		{"stale parent", []object.ID{h.c1, h.c2}, []object.ID{h.c2}},
		{"stale ancestor", []object.ID{h.root, h.tip}, []object.ID{h.tip}},
		{"chain", []object.ID{h.c1, h.c2, h.m, h.tip}, []object.ID{h.tip}},
		{"through a second parent", []object.ID{h.side, h.m}, []object.ID{h.m}},
		{"diverged", []object.ID{h.c2, h.side}, []object.ID{h.c2, h.side}},
		{"diverged with a stale ancestor", []object.ID{h.c1, h.c2, h.side}, []object.ID{h.c2, h.side}},
		{"not a commit stays", []object.ID{blob, h.c2}, []object.ID{blob, h.c2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := refs.Name("test/" + strings.ReplaceAll(tc.name, " ", "-"))
			for _, id := range tc.heads {
				AddHead(t, r, n, id)
			}
			got, err := r.Heads(n)
			if err != nil {
				t.Fatal(err)
			}
			if want := sortIDs(tc.want...); !slices.Equal(got, want) {
				t.Errorf("Heads = %s, want %s", shorts(got), shorts(want))
			}
			raw, err := r.Refs.Heads(n)
			if err != nil || len(raw) != len(tc.heads) {
				t.Errorf("Heads changed the head files: %s, %v", shorts(raw), err)
			}
		})
	}
	if _, err := r.Heads("nosuch"); !errors.Is(err, refs.ErrNotFound) {
		t.Errorf("Heads of a missing ref: %v, want refs.ErrNotFound", err)
	}
}

func TestLog(t *testing.T) {
	h := newHistory(t)
	all := []object.ID{h.tip, h.m, h.side, h.c2, h.c1, h.root}
	tests := []struct {
		name   string
		starts []object.ID
		limit  int
		want   []object.ID
	}{
		{"all", []object.ID{h.tip}, 0, all},
		{"negative limit is all", []object.ID{h.tip}, -1, all},
		{"limit", []object.ID{h.tip}, 3, all[:3]},
		{"limit over size", []object.ID{h.tip}, 100, all},
		{"merge visits shared ancestors once", []object.ID{h.m}, 0, all[1:]},
		{"two starts", []object.ID{h.c2, h.side}, 0, []object.ID{h.side, h.c2, h.c1, h.root}},
		{"start repeated", []object.ID{h.c2, h.c2}, 0, []object.ID{h.c2, h.c1, h.root}},
		{"start is an ancestor of another", []object.ID{h.c1, h.tip}, 0, all},
		{"root", []object.ID{h.root}, 0, []object.ID{h.root}},
		{"none", nil, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			es, err := h.r.Log(t.Context(), tc.starts, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]object.ID, len(es))
			for i, e := range es {
				got[i] = e.ID
				if e.Commit == nil || e.Work != nil {
					t.Errorf("entry %s: %+v", e.ID.Short(), e)
				}
			}
			if len(tc.want) == 0 {
				tc.want = []object.ID{}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Log = %s, want %s", shorts(got), shorts(tc.want))
			}
		})
	}
}

func TestLogTiesByID(t *testing.T) {
	r := NewTestRepo(t)
	root := mustResolve(t, r, "main")
	// Four commits at the same time on top of root, then a merge of all.
	var same []object.ID
	for i := range 4 {
		same = append(same, CommitFiles(t, r, at(10), map[string]string{"f": string(rune('a' + i))}, "same time", root))
	}
	m := CommitFiles(t, r, at(10), map[string]string{"f": "m"}, "merge", same...)
	es, err := r.Log(t.Context(), []object.ID{m}, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]object.ID, len(es))
	for i, e := range es {
		got[i] = e.ID
	}
	// The merge comes first because nothing else is reached before it;
	// its parents share its time and follow by ID; root, older, is last.
	want := append([]object.ID{m}, sortIDs(same...)...)
	want = append(want, root)
	if !slices.Equal(got, want) {
		t.Errorf("Log = %s, want %s", shorts(got), shorts(want))
	}
}

func TestLogWorkCommits(t *testing.T) {
	h := newHistory(t)
	w1, err := object.PutTyped(h.r.Objects, &object.WorkCommit{Base: h.c2, SessionID: "s", CreatedAt: at(25).Unix(), StepKind: object.StepNote})
	if err != nil {
		t.Fatal(err)
	}
	w2, err := object.PutTyped(h.r.Objects, &object.WorkCommit{Parents: []object.ID{w1}, Base: h.c2, SessionID: "s", CreatedAt: at(60).Unix(), StepKind: object.StepFileWrite})
	if err != nil {
		t.Fatal(err)
	}
	es, err := h.r.Log(t.Context(), []object.ID{h.m, w2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []object.ID
	for _, e := range es {
		got = append(got, e.ID)
	}
	// Work commits follow their parents, not their base.
	want := []object.ID{w2, h.m, h.side, w1, h.c2, h.c1, h.root}
	if !slices.Equal(got, want) {
		t.Fatalf("Log = %s, want %s", shorts(got), shorts(want))
	}
	if es[0].Work == nil || es[0].Time() != at(60).Unix() || !slices.Equal(es[0].Parents(), []object.ID{w1}) {
		t.Errorf("work entry = %+v", es[0])
	}
	if _, err := h.r.ReadCommit(w1); !errors.Is(err, ErrNotCommit) {
		t.Errorf("ReadCommit of a work commit: %v, want ErrNotCommit", err)
	}
}

func TestLogErrors(t *testing.T) {
	h := newHistory(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := h.r.Log(ctx, []object.ID{h.tip}, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Log with a cancelled context: %v, want context.Canceled", err)
	}
	missing := object.Sum(object.KindTyped, []byte("missing"))
	if _, err := h.r.Log(t.Context(), []object.ID{missing}, 0); !errors.Is(err, object.ErrNotFound) {
		t.Errorf("Log from a missing commit: %v, want object.ErrNotFound", err)
	}
	tree := mustResolve(t, h.r, "main:")
	if _, err := h.r.Log(t.Context(), []object.ID{tree}, 0); !errors.Is(err, ErrNotCommit) {
		t.Errorf("Log from a tree: %v, want ErrNotCommit", err)
	}
}

func TestReadEntry(t *testing.T) {
	h := newHistory(t)
	blob := mustResolve(t, h.r, "main:a.txt")
	tree := mustResolve(t, h.r, "main:")
	for _, id := range []object.ID{blob, tree} {
		if _, err := h.r.ReadEntry(id); !errors.Is(err, ErrNotCommit) {
			t.Errorf("ReadEntry(%s): %v, want ErrNotCommit", id.Short(), err)
		}
	}
	e, err := h.r.ReadEntry(h.m)
	if err != nil {
		t.Fatal(err)
	}
	if e.ID != h.m || e.Time() != at(40).Unix() || !slices.Equal(e.Parents(), []object.ID{h.c2, h.side}) || e.Commit.Message != "m" || e.Commit.Author != "test" {
		t.Errorf("ReadEntry(m) = %+v %+v", e, e.Commit)
	}
}

func TestCommitTree(t *testing.T) {
	h := newHistory(t)
	r := h.r
	tree := mustResolve(t, r, "main:")
	blob := mustResolve(t, r, "main:a.txt")
	missing := object.Sum(object.KindTyped, []byte("missing"))

	id, err := r.CommitTree(tree, []object.ID{h.tip, h.side}, "msg", "me")
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.ReadCommit(id)
	if err != nil {
		t.Fatal(err)
	}
	want := object.Commit{Parents: []object.ID{h.tip, h.side}, TimestampUnix: TestTime.Unix(), Author: "me", Message: "msg", RootTree: tree}
	if c.RootTree != want.RootTree || !slices.Equal(c.Parents, want.Parents) || c.TimestampUnix != want.TimestampUnix || c.Author != want.Author || c.Message != want.Message {
		t.Errorf("commit = %+v, want %+v", c, want)
	}
	again, err := r.CommitTree(tree, []object.ID{h.tip, h.side}, "msg", "me")
	if err != nil || again != id {
		t.Errorf("same commit again = %s, %v; want %s", again.Short(), err, id.Short())
	}

	tests := []struct {
		name    string
		tree    object.ID
		parents []object.ID
		want    error
	}{
		{"tree is a blob", blob, nil, object.ErrDecode},
		{"tree is a commit", h.tip, nil, object.ErrDecode},
		{"tree missing", missing, nil, object.ErrNotFound},
		{"parent is a tree", tree, []object.ID{tree}, ErrNotCommit},
		{"parent missing", tree, []object.ID{h.tip, missing}, object.ErrNotFound},
		{"repeated parent", tree, []object.ID{h.tip, h.tip}, object.ErrInvalidArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := r.CommitTree(tc.tree, tc.parents, "x", ""); !errors.Is(err, tc.want) {
				t.Errorf("CommitTree: %v, want %v", err, tc.want)
			}
		})
	}
}

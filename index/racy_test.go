package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// TestRacyNarrativeFile rewrites a narrative file so that its stat data
// do not change (as a same-size rewrite within one tick of a coarse clock
// does, forged here by the stat hook): when the build could not trust the
// file's stat data (its time not before the build began), the content's
// hash shows the change and the index answers with the new text; when it
// could, the file is taken as unchanged (the hook then hides what no
// clock would).
func TestRacyNarrativeFile(t *testing.T) {
	r := repo.NewTestRepo(t)
	sp := r.Narrative()
	w, err := r.Lock(context.Background(), repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Unlock()
	racy, err := w.Narrative().Add(narrative.NewNode{Type: narrative.Fact, Content: "The retry budget is alpha"})
	if err != nil {
		t.Fatal(err)
	}
	calm, err := w.Narrative().Add(narrative.NewNode{Type: narrative.Fact, Content: "The queue depth is gamma"})
	if err != nil {
		t.Fatal(err)
	}
	file := func(n *narrative.Node) string { return filepath.Join(sp.Root, filepath.FromSlash(n.Path)) }
	// A time the build cannot have begun after: the file is racy.
	future := time.Now().Add(time.Hour)
	mustDo(t, os.Chtimes(file(racy), future, future))

	ix, _, err := Open(context.Background(), r, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	built := ix.narr.manifest().Narrative
	ix.Close()
	var racyStat, calmStat FileStat
	for _, f := range built {
		switch f.Path {
		case racy.Path:
			racyStat = f
		case calm.Path:
			calmStat = f
		}
	}
	content, err := os.ReadFile(file(racy))
	if err != nil {
		t.Fatal(err)
	}
	if want := object.Sum(object.KindBlob, content).String(); racyStat.Sum != want {
		t.Fatalf("the racy file's hash is %q, want %q", racyStat.Sum, want)
	}
	if st, err := Check(r); err != nil || !st.Fresh {
		t.Fatalf("unchanged, the racy file makes the index stale: %+v, %v", st, err)
	}

	// rewrite replaces a word of n's file by another of its length and
	// forges the stat data the index recorded for it.
	forged := map[string]FileStat{}
	defer func() { statNarrative = narrativeStats }()
	statNarrative = func(root string) ([]FileStat, error) {
		fs, err := narrativeStats(root)
		for i, f := range fs {
			if old, ok := forged[f.Path]; ok {
				old.Sum = ""
				fs[i] = old
			}
		}
		return fs, err
	}
	rewrite := func(n *narrative.Node, stat FileStat, from, to string) {
		b, err := os.ReadFile(file(n))
		if err != nil {
			t.Fatal(err)
		}
		mustDo(t, os.WriteFile(file(n), []byte(strings.Replace(string(b), from, to, 1)), 0o644))
		forged[n.Path] = stat
	}
	search := func(q string) int {
		ix, _, err := Open(context.Background(), r, BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		hits, _, err := ix.Search(q, SearchOptions{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return len(hits)
	}

	rewrite(racy, racyStat, "alpha", "omega")
	if st, err := Check(r); err != nil || st.Fresh || st.Reason != "1 narrative file(s) changed" {
		t.Fatalf("the racy file rewritten: status %+v, %v; want stale, 1 file changed", st, err)
	}
	if search("omega") != 1 || search("alpha") != 0 {
		t.Fatal("the racy file rewritten: the index does not answer with its new content")
	}
	if st, err := Check(r); err != nil || !st.Fresh {
		t.Fatalf("after the update: status %+v, %v; want fresh", st, err)
	}

	// A file the build could trust (its time before the build's start)
	// changes its stat data with any rewrite: only forged ones hide it.
	if calmStat.Sum != "" {
		t.Skip("the second note was written in the tick the build began")
	}
	rewrite(calm, calmStat, "gamma", "delta")
	if st, err := Check(r); err != nil || !st.Fresh {
		t.Fatalf("a trusted file with forged stat data: status %+v, %v; want fresh", st, err)
	}
}

func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	mustDo(t, os.WriteFile(filepath.Join(dir, "a.md"), []byte("now"), 0o644))
	now := object.Sum(object.KindBlob, []byte("now")).String()
	then := object.Sum(object.KindBlob, []byte("then")).String()
	st := FileStat{Path: "a.md", Size: 3, ModNano: 5, ChangeNano: 6, Ino: 7}
	with := func(sum string) FileStat { f := st; f.Sum = sum; return f }
	moved := st
	moved.ModNano++
	gone := with(now)
	gone.Path = "gone.md"
	for _, tc := range []struct {
		name  string
		a, b  FileStat
		check bool
		want  bool
	}{
		{"equal stat data", st, st, true, true},
		{"a time differs", st, moved, true, false},
		{"built racy, content unchanged", with(now), st, true, true},
		{"built racy, content changed", with(then), st, true, false},
		{"racy now, built trusted", st, with(now), true, true},
		{"hashed twice, equal", with(then), with(then), false, true},
		{"hashed twice, different", with(then), with(now), true, false},
		{"racy, no check", with(now), st, false, false},
		{"racy, file gone", gone, FileStat{Path: "gone.md", Size: 3, ModNano: 5, ChangeNano: 6, Ino: 7}, true, false},
		{"unreadable when built", with(unreadableSum), st, true, false},
	} {
		var c *racyCheck
		if tc.check {
			c = newRacyCheck(dir)
		}
		if got := sameFile(tc.a, tc.b, c); got != tc.want {
			t.Errorf("%s: sameFile = %v, want %v", tc.name, got, tc.want)
		}
		if c != nil {
			if got := sameFile(tc.b, tc.a, c); got != tc.want {
				t.Errorf("%s, reversed: sameFile = %v, want %v", tc.name, got, tc.want)
			}
		}
	}
}

// TestMarkRacy checks which files a build beginning at a time hashes: those
// modified or changed at or after it.
func TestMarkRacy(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"old.md", "mod.md", "chg.md", "gone.md"} {
		if n != "gone.md" {
			mustDo(t, os.WriteFile(filepath.Join(dir, n), []byte(n), 0o644))
		}
	}
	m := &Manifest{racy: newRacyCheck(dir), Narrative: []FileStat{
		{Path: "chg.md", ModNano: 50, ChangeNano: 100},
		{Path: "gone.md", ModNano: 100, ChangeNano: 100},
		{Path: "mod.md", ModNano: 100, ChangeNano: 99},
		{Path: "old.md", ModNano: 99, ChangeNano: 99},
	}}
	markRacy(m, 100)
	want := map[string]string{
		"chg.md":  object.Sum(object.KindBlob, []byte("chg.md")).String(),
		"gone.md": unreadableSum,
		"mod.md":  object.Sum(object.KindBlob, []byte("mod.md")).String(),
		"old.md":  "",
	}
	for _, f := range m.Narrative {
		if f.Sum != want[f.Path] {
			t.Errorf("%s: Sum %q, want %q", f.Path, f.Sum, want[f.Path])
		}
	}
}

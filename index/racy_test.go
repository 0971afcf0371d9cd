package index

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
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
	// The other file the build must trust: its clock has ticked since.
	tickAfter(t, file(calm))

	ix, _, err := Open(context.Background(), r, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	built := partManifest(t, ix.Narrative()).Narrative
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
		t.Fatal("a file written before the clock ticked is racy")
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

// TestRacyRead checks which files a build from a manifest hashes, and
// that it hashes the bytes its parse reads: those the narrative parses
// (ending in .md), modified or changed at or after the build's start, and
// read.
func TestRacyRead(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"old.md", "mod.md", "chg.md", "notes.txt"} {
		mustDo(t, os.WriteFile(filepath.Join(dir, n), []byte("# "+n+"\n"), 0o644))
	}
	mustDo(t, os.Mkdir(filepath.Join(dir, "dir.md"), 0o755)) // not a regular file: not read
	dirStat := statOf(t, dir, "dir.md")                      // its stat data as they are
	m := &Manifest{since: 100, Narrative: []FileStat{
		{Path: "chg.md", ModNano: 50, ChangeNano: 100},
		dirStat,
		{Path: "gone.md", ModNano: 100, ChangeNano: 100},
		{Path: "mod.md", ModNano: 100, ChangeNano: 99},
		{Path: "notes.txt", ModNano: 100, ChangeNano: 100},
		{Path: "old.md", ModNano: 99, ChangeNano: 99},
	}}
	rr := newRacyRead(m)
	read := map[string][]byte{}
	sp := rr.space(&narrative.Space{Root: dir})
	hook := sp.OnRead
	sp.OnRead = func(p string, src []byte) { read[p] = src; hook(p, src) }
	sp.LoadFiles([]string{"chg.md", "dir.md", "gone.md", "mod.md", "notes.txt", "old.md"})
	want := map[string]string{
		"chg.md": object.Sum(object.KindBlob, read["chg.md"]).String(),
		"mod.md": object.Sum(object.KindBlob, read["mod.md"]).String(),
		"dir.md": unreadSum, // found, not read: racy or not
	}
	if len(read["chg.md"]) == 0 {
		t.Fatal("the parse did not report reading chg.md")
	}
	got := rr.stats(m.Narrative)
	for _, f := range got {
		if f.Sum != want[f.Path] {
			t.Errorf("%s: Sum %q, want %q", f.Path, f.Sum, want[f.Path])
		}
	}
	// A file the parse found but could not read (dir.md) stays; one it
	// did not find (gone.md, racy) is left out, so that one of that name
	// there later reads as added.
	paths := func(fs []FileStat) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Path)
		}
		return out
	}
	if want := []string{"chg.md", "dir.md", "mod.md", "notes.txt", "old.md"}; !slices.Equal(paths(got), want) {
		t.Errorf("stats kept %v, want %v", paths(got), want)
	}
	// Not racy, a file the parse did not find is left out too, even if
	// it is there again as its stat data record it: a directory of its
	// path moved away and back keeps them.
	mustDo(t, os.WriteFile(filepath.Join(dir, "calm.md"), []byte("# calm\n"), 0o644))
	calmStat := statOf(t, dir, "calm.md")
	calm := &Manifest{since: max(calmStat.ModNano, calmStat.ChangeNano) + 1, Narrative: []FileStat{calmStat}}
	rr = newRacyRead(calm)
	rr.space(&narrative.Space{Root: dir}).LoadFiles(nil) // none read
	if got := rr.stats(calm.Narrative); len(got) != 0 {
		t.Errorf("an unread file not racy: stats kept %v, want none", got)
	}
	// Of a narrative delta's parse, only the files it was given.
	rr = newRacyRead(m)
	rr.only = map[string]bool{"chg.md": true}
	rr.space(&narrative.Space{Root: dir}).LoadFiles([]string{"chg.md"})
	if got := rr.stats(m.Narrative); len(got) != len(m.Narrative) {
		t.Errorf("a delta's stats left out files it was not given: %v", got)
	}
	for _, f := range m.Narrative {
		if f.Sum != "" {
			t.Errorf("%s: the manifest taken now was changed", f.Path)
		}
	}
	// A build not kept (since 0) hashes nothing.
	m.since = 0
	if rr := newRacyRead(m); len(rr.racy) != 0 {
		t.Errorf("a build not kept hashes %v", rr.racy)
	}
}

// TestDeltaStats checks the hashes a narrative delta's manifest keeps:
// the racy reads of the files it parsed, the base's for the others.
func TestDeltaStats(t *testing.T) {
	base := []FileStat{{Path: "a.md", Sum: "A"}, {Path: "b.md", Sum: "B"}, {Path: "c.md"}}
	now := []FileStat{{Path: "a.md"}, {Path: "b.md", Sum: "B2"}, {Path: "c.md"}, {Path: "d.md", Sum: "D"}}
	parsed := map[string]bool{narrativePath("b.md"): true, narrativePath("d.md"): true}
	got := deltaStats(base, now, parsed)
	want := []FileStat{{Path: "a.md", Sum: "A"}, {Path: "b.md", Sum: "B2"}, {Path: "c.md"}, {Path: "d.md", Sum: "D"}}
	if !slices.Equal(got, want) {
		t.Errorf("deltaStats = %v, want %v", got, want)
	}
}

// tickAfter writes a file beside path until the file system's clock has
// moved past path's modification and change times (a coarse clock ticks
// every few milliseconds): a build that begins after it trusts path's stat
// data.
func tickAfter(t *testing.T, path string) {
	t.Helper()
	st, err := statAt(mustOpen(t, filepath.Dir(path)), filepath.Base(path))
	if err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(t.TempDir(), "tick")
	for i := 0; ; i++ {
		mustDo(t, os.WriteFile(probe, []byte{byte(i)}, 0o644))
		info, err := os.Stat(probe)
		if err != nil {
			t.Fatal(err)
		}
		if now := info.ModTime().UnixNano(); now > st.ModNano && now > st.ChangeNano {
			return
		}
		if i > 1e6 {
			t.Fatal("the file system's clock does not move")
		}
	}
}

func mustOpen(t *testing.T, dir string) *os.File {
	t.Helper()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestFileRemovedDuringBuild removes a narrative file after a build took
// its stat data and before the build parsed it, then puts it back with
// those stat data (forged by the stat hook, as the same inode back within
// one tick would keep them): the index holds nothing of the file, so it
// must read as stale, and then answer with the file's content.
func TestFileRemovedDuringBuild(t *testing.T) {
	r := repo.NewTestRepo(t)
	w, err := r.Lock(context.Background(), repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n, err := w.Narrative().Add(narrative.NewNode{Type: narrative.Fact, Content: "The retry budget is kappa"})
	w.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(r.Narrative().Root, filepath.FromSlash(n.Path))
	aside := filepath.Join(t.TempDir(), "aside")
	var taken FileStat
	calls := 0
	defer func() { statNarrative = narrativeStats }()
	statNarrative = func(root string) ([]FileStat, error) {
		calls++
		if calls > 1 {
			// The file is back, with the stat data the build took.
			fs, err := narrativeStats(root)
			for i, f := range fs {
				if f.Path == taken.Path {
					fs[i] = taken
				}
			}
			return fs, err
		}
		fs, err := narrativeStats(root)
		for _, f := range fs {
			if f.Path == n.Path {
				taken = f
			}
		}
		mustDo(t, os.Rename(file, aside)) // removed after the stat, before the parse
		return fs, err
	}
	if _, _, err := Rebuild(context.Background(), r, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	if taken.Path == "" {
		t.Fatal("the build did not stat the file")
	}
	mustDo(t, os.Rename(aside, file))
	if st, err := Check(r); err != nil || st.Fresh {
		t.Fatalf("the file removed during the build and back: status %+v, %v; want stale", st, err)
	}
	ix, _, err := Open(context.Background(), r, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if hits, _, err := ix.Search("kappa", SearchOptions{}); err != nil || len(hits) != 1 {
		t.Fatalf("search kappa: %d hits, %v; want the file's node", len(hits), err)
	}
}

// TestRemovedAndBackBeforeRestat removes a racy narrative file before the
// parse and puts it back, with the stat data the build took (as the same
// inode back within one tick keeps them), before the build stats its
// unread files again: the manifest must not keep it.
func TestRemovedAndBackBeforeRestat(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.md")
	mustDo(t, os.WriteFile(file, []byte("# f\n"), 0o644))
	m := &Manifest{since: 1, Narrative: []FileStat{statOf(t, dir, "f.md")}} // racy
	rr := newRacyRead(m)
	aside := filepath.Join(t.TempDir(), "aside")
	mustDo(t, os.Rename(file, aside)) // removed before the parse
	if c, err := rr.space(&narrative.Space{Root: dir}).Load(); err != nil || len(c.IDs()) != 0 {
		t.Fatalf("the parse found the file: %v", err)
	}
	mustDo(t, os.Rename(aside, file)) // back before the stat again
	now := statOf(t, dir, "f.md")
	m.Narrative[0] = now // the same stat data, as within one tick
	built := &Manifest{Narrative: rr.stats(m.Narrative)}
	cur := &Manifest{Narrative: []FileStat{now}, racy: newRacyCheck(dir)}
	if narrativeEqual(built, cur) {
		t.Fatalf("a racy file unread by the parse: the manifest kept %v, which reads as fresh", built.Narrative)
	}
}

// TestRacyTooLargeFileStays gives a narrative file too large to parse a
// time in the future (so that every build distrusts it): the parse finds
// it and cannot read it, so the index holds nothing of it by rule, and
// the index must read as fresh after a build, not be rebuilt by every
// command until that time.
func TestRacyTooLargeFileStays(t *testing.T) {
	r := repo.NewTestRepo(t)
	big := filepath.Join(r.Narrative().Root, "notes", "big.md")
	mustDo(t, os.MkdirAll(filepath.Dir(big), 0o755))
	mustDo(t, os.WriteFile(big, make([]byte, narrative.MaxFileBytes+1), 0o644))
	future := time.Now().Add(time.Hour)
	mustDo(t, os.Chtimes(big, future, future))
	ix, _, err := Open(context.Background(), r, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if st, err := Check(r); err != nil || !st.Fresh {
		t.Fatalf("after a build, with a racy file too large to read: status %+v, %v; want fresh", st, err)
	}
}

// statOf returns the stat data of the file rel (slash-separated) under
// root, as narrativeStats takes them.
func statOf(t *testing.T, root, rel string) FileStat {
	t.Helper()
	d, err := os.Open(filepath.Join(root, filepath.FromSlash(path.Dir(rel))))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	st, err := statAt(d, path.Base(rel))
	if err != nil {
		t.Fatal(err)
	}
	st.Path = rel
	return st
}

// TestUnreadDuringParse makes a narrative file unreadable, or gone, only
// while the parse runs, and puts it back with the stat data the build
// took (forged where the file system would show the change within one
// tick): in each case the built manifest must not read as fresh.
func TestUnreadDuringParse(t *testing.T) {
	for _, tc := range []struct {
		name         string
		racy         bool
		break_, mend func(t *testing.T, dir string)
	}{
		{"too large while parsed, racy", true,
			func(t *testing.T, dir string) {
				mustDo(t, os.WriteFile(filepath.Join(dir, "sub", "f.md"), make([]byte, narrative.MaxFileBytes+1), 0o644))
			},
			func(t *testing.T, dir string) {
				mustDo(t, os.WriteFile(filepath.Join(dir, "sub", "f.md"), []byte("# f\n"), 0o644))
			}},
		{"directory replaced by a file while parsed", false,
			func(t *testing.T, dir string) {
				mustDo(t, os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "aside")))
				mustDo(t, os.WriteFile(filepath.Join(dir, "sub"), []byte("x"), 0o644))
			},
			func(t *testing.T, dir string) {
				mustDo(t, os.Remove(filepath.Join(dir, "sub")))
				mustDo(t, os.Rename(filepath.Join(dir, "aside"), filepath.Join(dir, "sub")))
			}},
		{"directory moved away and back", false,
			func(t *testing.T, dir string) {
				mustDo(t, os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "aside")))
			},
			func(t *testing.T, dir string) {
				mustDo(t, os.Rename(filepath.Join(dir, "aside"), filepath.Join(dir, "sub")))
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			mustDo(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
			mustDo(t, os.WriteFile(filepath.Join(dir, "sub", "f.md"), []byte("# f\n"), 0o644))
			st := statOf(t, dir, "sub/f.md")
			m := &Manifest{since: max(st.ModNano, st.ChangeNano) + 1, Narrative: []FileStat{st}}
			if tc.racy {
				m.since = 1
			}
			rr := newRacyRead(m)
			tc.break_(t, dir)
			rr.space(&narrative.Space{Root: dir}).LoadFiles([]string{"sub/f.md"})
			tc.mend(t, dir)
			built := &Manifest{Narrative: rr.stats(m.Narrative)}
			cur := &Manifest{Narrative: []FileStat{st}, racy: newRacyCheck(dir)} // the stat data taken, as if unchanged
			if narrativeEqual(built, cur) {
				t.Fatalf("the built manifest %v reads as fresh", built.Narrative)
			}
		})
	}
}

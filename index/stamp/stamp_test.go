package stamp

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func sample() *Stamp {
	return &Stamp{
		Format: "record2-table1-text1", Session: "s-1", Since: 1_796_000_000_000_000_000,
		Segs: [NSegs]string{"seg-a", "", "seg-b", "seg-c"},
		Entries: []Entry{
			{".", Stat{Kind: Dir, Size: 4096, ModNano: 1, ChangeNano: 2, Ino: 3}},
			{"STAGE", Stat{Kind: Absent}},
			{"narrative/notes/a b.md", Stat{Kind: File, Size: 12, ModNano: 5, ChangeNano: 6, Ino: 7}},
		},
	}
}

func TestRoundTrip(t *testing.T) {
	for _, s := range []*Stamp{sample(), {Format: "f", Since: 1, Segs: [NSegs]string{"seg-x", "", "seg-y", ""}}} {
		got, err := Parse(s.Marshal())
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Entries) == 0 {
			s.Entries = []Entry{}
		}
		if !reflect.DeepEqual(got, s) {
			t.Errorf("round trip:\n%+v\nwant\n%+v", got, s)
		}
	}
}

func TestParseRejects(t *testing.T) {
	good := string(sample().Marshal())
	lines := strings.SplitAfter(good, "\n")
	with := func(i int, l string) string {
		c := append([]string(nil), lines...)
		c[i] = l
		return strings.Join(c, "")
	}
	for name, text := range map[string]string{
		"empty":              "",
		"no final newline":   strings.TrimSuffix(good, "\n"),
		"other version":      with(0, "ctx-index-stamp 2\n"),
		"no format":          with(1, "format \n"),
		"no session":         with(2, "sessions -\n"),
		"no time":            with(3, "since\n"),
		"negative time":      with(3, "since -5\n"),
		"zero time":          with(3, "since 0\n"),
		"segments short":     with(4, "segments seg-a - seg-b\n"),
		"segment with slash": with(4, "segments seg-a/x - seg-b -\n"),
		"not a segment":      with(4, "segments index - seg-b -\n"),
		"no code segment":    with(4, "segments - - seg-b -\n"),
		"bad kind":           with(5, "x 4096 1 2 3 .\n"),
		"bad number":         with(5, "d 4096 1 2 -3 .\n"),
		"fields short":       with(5, "d 4096 1 2 .\n"),
		"absolute path":      with(5, "d 4096 1 2 3 /etc\n"),
		"unclean path":       with(5, "d 4096 1 2 3 a//b\n"),
		"parent path":        with(5, "d 4096 1 2 3 ../b\n"),
		"backslash":          with(5, "d 4096 1 2 3 a\\b\n"),
		"empty path":         with(5, "d 4096 1 2 3 \n"),
	} {
		if _, err := Parse([]byte(text)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

// entries returns the stat data of paths under root, as a writer takes it.
func entries(t *testing.T, root string, paths ...string) []Entry {
	t.Helper()
	var out []Entry
	for _, p := range paths {
		st, err := Lstat(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Entry{Path: p, Stat: st})
	}
	return out
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCheck changes what a stamp records in each way a store changes,
// and checks that the stamp no longer holds.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, root string)
	}{
		{"a file edited", func(t *testing.T, root string) { write(t, filepath.Join(root, "d", "f"), "changed") }},
		{"a file replaced by one of the same size", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "d", "f.tmp"), "hello")
			if err := os.Rename(filepath.Join(root, "d", "f.tmp"), filepath.Join(root, "d", "f")); err != nil {
				t.Fatal(err)
			}
		}},
		{"same size and time, another content", func(t *testing.T, root string) {
			p := filepath.Join(root, "d", "f")
			info, _ := os.Stat(p)
			write(t, p, "HELLO")
			os.Chtimes(p, info.ModTime(), info.ModTime()) // the change time still moves
		}},
		{"a file added to a directory", func(t *testing.T, root string) { write(t, filepath.Join(root, "d", "g"), "new") }},
		{"a file removed", func(t *testing.T, root string) { os.Remove(filepath.Join(root, "d", "f")) }},
		{"an absent file created", func(t *testing.T, root string) { write(t, filepath.Join(root, "STAGE"), "x") }},
		{"a directory replaced by a file", func(t *testing.T, root string) {
			os.RemoveAll(filepath.Join(root, "d"))
			write(t, filepath.Join(root, "d"), "x")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			os.Mkdir(filepath.Join(root, "d"), 0o755)
			write(t, filepath.Join(root, "d", "f"), "hello")
			s := &Stamp{Format: "f", Since: time.Now().Add(time.Hour).UnixNano(), Segs: [NSegs]string{"seg-a", "", "seg-b", ""},
				Entries: entries(t, root, ".", "d", "d/f", "STAGE")}
			if why := s.Check(root); why != "" {
				t.Fatalf("before the change: %s", why)
			}
			tc.change(t, root)
			if why := s.Check(root); why == "" {
				t.Fatal("the stamp still holds")
			}
		})
	}
}

// TestRacy: an entry changed at or after the stamp's time does not
// hold, though it has not changed since.
func TestRacy(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "f"), "x")
	e := entries(t, root, "f")
	for _, tc := range []struct {
		since time.Duration // after the file's change time
		holds bool
	}{{time.Hour, true}, {1, true}, {0, false}, {-time.Hour, false}} {
		s := &Stamp{Format: "f", Since: e[0].Stat.ChangeNano + int64(tc.since), Entries: e}
		if why := s.Check(root); (why == "") != tc.holds {
			t.Errorf("since %v: %q, want holds %v", tc.since, why, tc.holds)
		}
	}
}

func TestRead(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "index"), 0o755)
	if _, why := Read(root, "f", ""); why == "" {
		t.Fatal("read a stamp that is not there")
	}
	write(t, filepath.Join(root, "HEAD"), "ref: refs/main\n")
	// Not index/ itself, which writing the stamp changes. The stamp's time
	// is the file system's, when it is written: a file written in the
	// same tick of its clock makes it racy, and it is not written.
	s := &Stamp{Format: "f", Session: "s", Segs: [NSegs]string{"seg-a", "", "seg-b", ""}, Entries: entries(t, root, ".", "HEAD")}
	for !written(t, root, s) {
		s.Entries = entries(t, root, ".", "HEAD")
	}
	for _, tc := range []struct {
		format, session string
		ok              bool
	}{{"f", "s", true}, {"g", "s", false}, {"f", "", false}} {
		got, why := Read(root, tc.format, tc.session)
		if (got != nil) != tc.ok {
			t.Errorf("Read(%q, %q) = %v, %q", tc.format, tc.session, got, why)
		}
	}
	write(t, Path(root), "garbage\n")
	if got, why := Read(root, "f", "s"); got != nil || !strings.Contains(why, "corrupt") {
		t.Errorf("a garbled stamp: %v, %q", got, why)
	}
}

// written writes s and reports whether Write did.
func written(t *testing.T, root string, s *Stamp) bool {
	t.Helper()
	ok, err := Write(root, s)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestWriteDeclines: Write writes no stamp whose entries changed since
// they were taken.
func TestWriteDeclines(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "index"), 0o755)
	write(t, filepath.Join(root, "HEAD"), "a")
	s := &Stamp{Format: "f", Segs: [NSegs]string{"seg-a", "", "seg-b", ""}, Entries: entries(t, root, "HEAD")}
	write(t, filepath.Join(root, "HEAD"), "bb")
	if written(t, root, s) {
		t.Fatal("wrote a stamp of a file that changed")
	}
	if _, err := os.Stat(Path(root)); !os.IsNotExist(err) {
		t.Fatalf("a stamp is there: %v", err)
	}
	if left, _ := os.ReadDir(filepath.Join(root, "index")); len(left) != 0 {
		t.Fatalf("a declined stamp left %s", left[0].Name())
	}
}

func FuzzParse(f *testing.F) {
	f.Add(sample().Marshal())
	f.Add([]byte("ctx-index-stamp 1\nformat f\nsession -\nsince 1\nsegments seg-a - seg-b -\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		again, err := Parse(s.Marshal())
		if err != nil {
			t.Fatalf("a parsed stamp does not parse again: %v", err)
		}
		if !reflect.DeepEqual(again, s) {
			t.Fatalf("round trip: %+v, want %+v", again, s)
		}
	})
}

// TestCheckMany: a stamp of many entries is checked on every core, and
// still finds the one that changed, wherever it is.
func TestCheckMany(t *testing.T) {
	root := t.TempDir()
	var paths []string
	for i := range 1000 {
		p := fmt.Sprintf("n%04d.md", i)
		write(t, filepath.Join(root, p), "x")
		paths = append(paths, p)
	}
	s := &Stamp{Format: "f", Since: time.Now().Add(time.Hour).UnixNano(), Entries: entries(t, root, paths...)}
	if why := s.Check(root); why != "" {
		t.Fatal(why)
	}
	for _, i := range []int{0, 499, 999} {
		write(t, filepath.Join(root, paths[i]), "changed")
		if why := s.Check(root); !strings.Contains(why, paths[i]) {
			t.Errorf("entry %d changed: %q", i, why)
		}
		write(t, filepath.Join(root, paths[i]), "x")
		s.Entries = entries(t, root, paths...)
	}
}

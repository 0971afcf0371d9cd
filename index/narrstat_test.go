package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/narrative"
)

// walkStats is what narrativeStats replaces: filepath.WalkDir with a stat
// of each regular file.
func walkStats(root string) ([]FileStat, error) {
	var out []FileStat
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == root {
				return fs.SkipDir
			}
			return err
		}
		if p != root && !narrative.ListedName(d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		st := FileStat{Path: filepath.ToSlash(rel), Size: info.Size(), ModNano: info.ModTime().UnixNano()}
		statExtra(p, &st)
		out = append(out, st)
		return nil
	})
	slices.SortFunc(out, func(a, b FileStat) int { return strings.Compare(a.Path, b.Path) })
	return out, err
}

// TestNarrativeStats checks narrativeStats against a walk of the tree:
// nested directories, names that sort differently as paths and as
// names, symbolic links (to files and directories: not followed), an
// empty directory, many files (statted on every core), and no directory.
func TestNarrativeStats(t *testing.T) {
	root := filepath.Join(t.TempDir(), "narrative")
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := narrativeStats(root); err != nil || len(got) != 0 {
		t.Fatalf("no directory: %v, %v", got, err)
	}
	// A root that is a file, or a symbolic link to a directory: the
	// narrative reads nothing there.
	if err := os.WriteFile(root, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := narrativeStats(root); err != nil || len(got) != 0 {
		t.Fatalf("a file: %v, %v", got, err)
	}
	os.Remove(root)
	elsewhere := t.TempDir()
	if err := os.WriteFile(filepath.Join(elsewhere, "a.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, root); err != nil {
		t.Fatal(err)
	}
	if got, err := narrativeStats(root); err != nil || len(got) != 0 {
		t.Fatalf("a symbolic link: %v, %v", got, err)
	}
	os.Remove(root)
	write("README.md", "# narrative\n")
	write("decisions.md", "")
	write("log/2026-11-23.md", "log\n")
	write("a-b/x.md", "x")
	write("a/b/c.md", "deep")
	write("a.b", "dot")
	// What the narrative never reads: hidden and temporary files and
	// directories.
	for _, p := range []string{".drafts/a.md", "observations/.o1.md.swp", "x.md.tmp", "log/.2026-11-23.md.42.tmp", "old.tmp/y.md"} {
		write(p, "hidden")
	}
	for i := range 700 {
		write(fmt.Sprintf("observations/o%d.md", i), strings.Repeat("o", i))
	}
	if err := os.MkdirAll(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "README.md"), filepath.Join(root, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "log"), filepath.Join(root, "logs")); err != nil {
		t.Fatal(err)
	}
	got, err := narrativeStats(root)
	if err != nil {
		t.Fatal(err)
	}
	want, err := walkStats(root)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("narrativeStats: %d files, walk: %d\n%v\n%v", len(got), len(want), got[:min(5, len(got))], want[:min(5, len(want))])
	}
	if len(got) < 700 {
		t.Fatalf("%d files", len(got))
	}
	for _, f := range got {
		if strings.Contains(f.Path, ".tmp") || strings.Contains(f.Path, "/.") || strings.HasPrefix(f.Path, ".") {
			t.Errorf("a hidden or temporary file listed: %s", f.Path)
		}
	}
}

func BenchmarkNarrativeStats(b *testing.B) {
	root := b.TempDir()
	for i := range 5000 {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("observation-%d.md", i)), []byte("x"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("narrativeStats", func(b *testing.B) {
		for b.Loop() {
			if _, err := narrativeStats(root); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			if _, err := walkStats(root); err != nil {
				b.Fatal(err)
			}
		}
	})
}

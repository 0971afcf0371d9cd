package clock

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFixed(t *testing.T) {
	at := time.Unix(1790000000, 0)
	if got := Fixed(at).Now(); !got.Equal(at) {
		t.Fatalf("Fixed.Now = %v, want %v", got, at)
	}
}

// TestNoWallClockInLibraries enforces that library code takes its time
// from a Clock: time.Now may appear only in this package, in tests and in
// benchmark programs under bench/.
func TestNoWallClockInLibraries(t *testing.T) {
	root := "../.."
	allowed := map[string]bool{"internal/clock/clock.go": true}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (d.Name() == "testdata" || d.Name() == "bench" || strings.HasPrefix(d.Name(), ".")) {
			return fs.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if allowed[rel] {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), "time.Now()") {
			t.Errorf("%s calls time.Now(); take an internal/clock.Clock instead", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Package demo holds the demo project that `ctx demo` runs on: a small Go
// networking library with a retry feature, the scenario of the design's
// end-to-end example (appendix A.5).
package demo

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/rogpeppe/go-internal/txtar"
)

//go:embed project.txtar
var archive []byte

// Files returns the demo project's files by slash-separated path, sorted.
func Files() []txtar.File {
	a := txtar.Parse(archive)
	files := append([]txtar.File(nil), a.Files...)
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files
}

// Extract writes the demo project into dir, which must exist.
func Extract(dir string) error {
	for _, f := range Files() {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	return nil
}

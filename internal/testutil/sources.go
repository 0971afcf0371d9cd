// Package testutil holds helpers shared by tests of several packages.
package testutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// DependOnSources reads every Go source file of the module (and go.mod and
// go.sum) so that `go test` caches the calling test's result only as long
// as none of them changes. Tests that build the ctx binary with `go build`
// need this: the go command cannot see what a subprocess compiled.
func DependOnSources(tb testing.TB) {
	tb.Helper()
	root, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			tb.Fatal("testutil: no go.mod above the working directory")
		}
		root = parent
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".txtar") || d.Name() == "go.mod" || d.Name() == "go.sum" {
			_, err := os.ReadFile(p)
			return err
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

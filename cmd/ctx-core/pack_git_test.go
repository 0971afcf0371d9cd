package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGitMergeOfPacks lets two clones of a store each add code and pack
// their objects on their own, then merges them with plain git both ways
// (merge and rebase): no conflict, ctx verify is clean, and both sides'
// commits and files read, from packs or loose.
func TestGitMergeOfPacks(t *testing.T) {
	git := lookGit(t)
	ctx, _ := binaries(t)
	top := t.TempDir()
	genv := append(gitEnv(top), "CTX_DATE=1790000000")
	g := func(dir string, args ...string) string { t.Helper(); return must(t, dir, genv, "", git, args...) }
	c := func(dir string, args ...string) string { t.Helper(); return must(t, dir, genv, "", ctx, args...) }

	origin := filepath.Join(top, "origin")
	writeFiles(t, origin, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "a/a.go": "package a\n\n// A is the first.\nfunc A() int { return 1 }\n"})
	g(origin, "init", "-q", "-b", "main")
	c(origin, "init")
	c(origin, "add", "code", "-q")
	c(origin, "gc", "--pack") // the shared history starts packed
	g(origin, "add", "-A")
	g(origin, "commit", "-q", "-m", "Add ctx store")
	for _, mode := range []string{"--no-rebase", "--rebase"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			ada, bob := filepath.Join(dir, "ada"), filepath.Join(dir, "bob")
			g(dir, "clone", "-q", origin, ada)
			g(dir, "clone", "-q", origin, bob)
			writeFiles(t, ada, map[string]string{"b/b.go": "package b\n\n// Ada writes B.\nfunc B() int { return 2 }\n"})
			writeFiles(t, bob, map[string]string{"c/c.go": "package c\n\n// Bob writes C.\nfunc C() int { return 3 }\n"})
			for _, d := range []string{ada, bob} {
				c(d, "add", "code", "-q")
				c(d, "add", "note", "packing in "+filepath.Base(d))
				c(d, "commit", "-m", "note of "+filepath.Base(d))
				c(d, "gc", "--pack", "--aggressive")
				g(d, "add", "-A")
				g(d, "commit", "-q", "-m", "work of "+filepath.Base(d))
			}
			g(ada, "pull", "-q", mode, bob, "main")
			if st := g(ada, "status", "--porcelain"); st != "" {
				t.Fatalf("git status after the pull:\n%s", st)
			}
			if out := c(ada, "verify"); !strings.Contains(out, "ok: no problems found") {
				t.Fatalf("verify after the pull:\n%s", out)
			}
			c(ada, "reconcile")
			for _, f := range []string{"a/a.go", "b/b.go", "c/c.go"} {
				if out := c(ada, "cat-object", "-p", "main:"+f); !strings.Contains(out, "package") {
					t.Fatalf("%s after the pull: %q", f, out)
				}
			}
			list := c(ada, "list")
			for _, want := range []string{"packing in ada", "packing in bob"} {
				if !strings.Contains(list, want) {
					t.Errorf("list lacks %q:\n%s", want, list)
				}
			}
			if out := c(ada, "verify"); !strings.Contains(out, "ok: no problems found") {
				t.Fatalf("verify after reconcile:\n%s", out)
			}
		})
	}
}

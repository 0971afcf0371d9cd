package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGitMergeOfViews lets two clones create, change and delete
// different views, the default view among them, and commit; a plain git
// merge must report no conflict, and ctx must then list every view from
// both sides with every change applied.
func TestGitMergeOfViews(t *testing.T) {
	git := lookGit(t)
	ctx, _ := binaries(t)
	top := t.TempDir()
	genv := append(gitEnv(top), "CTX_DATE=1790000000")
	g := func(dir string, args ...string) string { t.Helper(); return must(t, dir, genv, "", git, args...) }
	c := func(dir string, args ...string) string { t.Helper(); return must(t, dir, genv, "", ctx, args...) }

	origin := filepath.Join(top, "origin")
	writeFiles(t, origin, map[string]string{"README.md": "# project\n"})
	g(origin, "init", "-q", "-b", "main")
	c(origin, "init")
	c(origin, "view", "create", "shared", "--query", "type:fact")
	c(origin, "view", "create", "old", "--query", "type:task")
	g(origin, "add", "-A")
	g(origin, "commit", "-q", "-m", "Add ctx store")
	ada, bob := filepath.Join(top, "ada"), filepath.Join(top, "bob")
	g(top, "clone", "-q", origin, ada)
	g(top, "clone", "-q", origin, bob)

	c(ada, "view", "create", "ada-notes", "--query", "type:note", "--budget", "1000")
	c(ada, "view", "update", "default", "--budget", "80000")
	c(ada, "view", "update", "shared", "--budget", "2000")
	c(bob, "view", "create", "bob-tasks", "--query", "type:task", "--description", "Bob's tasks")
	c(bob, "view", "delete", "old")
	for _, dir := range []string{ada, bob} {
		g(dir, "add", "-A")
		g(dir, "commit", "-q", "-m", "views of "+filepath.Base(dir))
	}
	g(ada, "pull", "-q", "--no-rebase", bob, "main")
	if st := g(ada, "status", "--porcelain"); st != "" {
		t.Fatalf("git status after the merge:\n%s", st)
	}
	list := c(ada, "view", "list")
	for _, want := range []string{`(?m)^ada-notes +1000 `, `(?m)^bob-tasks +50000\* `, "Bob's tasks", `(?m)^default +80000 `, `(?m)^shared +2000 `} {
		if !regexp.MustCompile(want).MatchString(list) {
			t.Errorf("view list lacks %q:\n%s", want, list)
		}
	}
	if strings.Contains(list, "built in") || strings.Contains(list, "old ") {
		t.Errorf("the deleted view is back, or default is still the built-in one:\n%s", list)
	}
}

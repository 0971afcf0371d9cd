package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGitMergeOfClones tracks .ctx in git, lets two clones advance main
// independently, and merges them with plain git and no ctx-specific git
// configuration: git must report no conflict, ctx must see both lines of
// history, and reconciling must give the same merge commit on both sides.
func TestGitMergeOfClones(t *testing.T) {
	git := lookGit(t)
	ctx, _ := binaries(t)
	top := t.TempDir()
	genv := gitEnv(top)
	g := func(dir string, args ...string) string {
		t.Helper()
		return must(t, dir, genv, "", git, args...)
	}
	c := func(dir string, date string, stdin string, args ...string) string {
		t.Helper()
		return must(t, dir, append(genv, "CTX_DATE="+date), stdin, ctx, args...)
	}

	origin := filepath.Join(top, "origin")
	writeFiles(t, origin, map[string]string{"README.md": "# project\n", "shared.txt": "same on both sides\n"})
	g(origin, "init", "-q", "-b", "main")
	c(origin, "1790000000", "", "init")
	g(origin, "add", "-A")
	g(origin, "commit", "-q", "-m", "Add ctx store")
	ada, bob := filepath.Join(top, "ada"), filepath.Join(top, "bob")
	g(top, "clone", "-q", origin, ada)
	g(top, "clone", "-q", origin, bob)

	// Each teammate stores files (one shared by both), builds a tree and
	// advances main.
	work := func(dir, who, date string) string {
		writeFiles(t, dir, map[string]string{who + ".txt": "work of " + who + "\n"})
		ids := strings.Fields(c(dir, date, who+".txt\nshared.txt\n", "hash-object", "-w", "--stdin-paths"))
		tree := `{"tree":{"entries":[{"name":"` + who + `.txt","kind":"blob","id":"` + ids[0] + `"},{"name":"shared.txt","kind":"blob","id":"` + ids[1] + `"}]}}`
		treeID := c(dir, date, tree, "hash-object", "-w", "-t", "typed", "--input", "json", "--stdin")
		old := c(dir, date, "", "rev-parse", "main")
		commit := c(dir, date, "", "commit-tree", treeID, "-p", "main", "-m", "Work of "+who)
		c(dir, date, "", "update-ref", "main", commit, old)
		g(dir, "add", "-A")
		g(dir, "commit", "-q", "-m", who+" works")
		return commit
	}
	adaCommit := work(ada, "ada", "1790000100")
	bobCommit := work(bob, "bob", "1790000200")

	// Both fetch the other's work and merge it with plain git.
	g(ada, "pull", "-q", "--no-rebase", "--no-edit", bob, "main")
	g(bob, "pull", "-q", "--no-rebase", "--no-edit", ada, "main")
	for _, dir := range []string{ada, bob} {
		if st := g(dir, "status", "--porcelain"); st != "" {
			t.Fatalf("%s: git status after merge:\n%s", filepath.Base(dir), st)
		}
		// Readers see both lines of history before anything is written.
		log := c(dir, "1790000300", "", "log", "--oneline")
		for _, want := range []string{adaCommit[:12], bobCommit[:12], "Initialize ctx store"} {
			if !strings.Contains(log, want) {
				t.Fatalf("%s: log lacks %s:\n%s", filepath.Base(dir), want, log)
			}
		}
		if r := run(t, dir, genv, "", ctx, "rev-parse", "main"); r.code != 34 {
			t.Fatalf("%s: rev-parse main exit %d, want 34 (E014 RefDiverged): %s", filepath.Base(dir), r.code, r.stderr)
		}
		c(dir, "1790000300", "", "verify")
	}

	// Each reconciles on its own; the merge commits are identical.
	c(ada, "1790000400", "", "reconcile")
	c(bob, "1790000500", "", "reconcile")
	mergeA := c(ada, "1", "", "rev-parse", "main")
	mergeB := c(bob, "1", "", "rev-parse", "main")
	if mergeA != mergeB {
		t.Fatalf("reconcile is not deterministic: ada %s, bob %s", mergeA, mergeB)
	}
	files := c(ada, "1", "", "ls-tree", "-r", "--name-only", "main")
	if files != "ada.txt\nbob.txt\nshared.txt" {
		t.Fatalf("merged tree: %q", files)
	}
	g(ada, "add", "-A")
	g(ada, "commit", "-q", "-m", "reconcile")
	g(bob, "add", "-A")
	g(bob, "commit", "-q", "-m", "reconcile")

	// A criss-cross merge of the two reconciliations, and a rebase, are
	// clean too.
	g(ada, "pull", "-q", "--no-rebase", "--no-edit", bob, "main")
	if got := c(ada, "1", "", "rev-parse", "main"); got != mergeA {
		t.Fatalf("after merging the reconciliations main = %s, want %s", got, mergeA)
	}
	c(ada, "1", "", "verify")

	carol := filepath.Join(top, "carol")
	g(top, "clone", "-q", origin, carol)
	work(carol, "carol", "1790000600")
	g(carol, "pull", "-q", "--rebase", ada, "main")
	if st := g(carol, "status", "--porcelain"); st != "" {
		t.Fatalf("carol: git status after rebase:\n%s", st)
	}
	c(carol, "1790000700", "", "reconcile")
	log := c(carol, "1", "", "log", "--oneline")
	for _, want := range []string{"Work of carol", "Work of ada", "Work of bob", "Merge 2 heads"} {
		if !strings.Contains(log, want) {
			t.Fatalf("carol: log lacks %q:\n%s", want, log)
		}
	}
	c(carol, "1", "", "verify")
}

// lookGit returns the git binary, skipping the test without one.
func lookGit(t *testing.T) string {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	return git
}

// gitEnv is an environment in which git uses no configuration of the
// machine's: plain git, as the tests promise.
func gitEnv(home string) []string {
	return []string{
		"GIT_CONFIG_NOSYSTEM=1", "HOME=" + home, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_TERMINAL_PROMPT=0",
	}
}

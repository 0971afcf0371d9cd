package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestGitMergeOfNarrative lets two clones add notes, decisions and tasks
// on the same day, tag, retag, supersede and delete the same nodes, edit a
// shared node's file by hand in different places, and commit; plain git
// merges must report no conflict and ctx must then list every node from
// both sides with every change applied.
func TestGitMergeOfNarrative(t *testing.T) {
	git := lookGit(t)
	ctx, _ := binaries(t)
	top := t.TempDir()
	genv := gitEnv(top)
	g := func(dir string, args ...string) string { t.Helper(); return must(t, dir, genv, "", git, args...) }
	c := func(dir, date string, args ...string) string {
		t.Helper()
		return must(t, dir, append(genv, "CTX_DATE="+date), "", ctx, args...)
	}

	origin := filepath.Join(top, "origin")
	writeFiles(t, origin, map[string]string{"README.md": "# project\n"})
	g(origin, "init", "-q", "-b", "main")
	c(origin, "2026-11-22T08:00:00Z", "init")
	shared := c(origin, "2026-11-22T08:00:00Z", "add", "fact", "The service listens on port 8080", "--body", "Set in config.go.\n\nThe port is fixed.", "-t", "tier:reference")
	doomed := c(origin, "2026-11-22T08:00:00Z", "add", "hypothesis", "The cache is too small")
	cycA := c(origin, "2026-11-22T08:00:00Z", "add", "pattern", "Retry in the client")
	cycB := c(origin, "2026-11-22T08:00:00Z", "add", "pattern", "Retry in the server")
	c(origin, "2026-11-22T08:00:00Z", "commit", "-m", "Start")
	g(origin, "add", "-A")
	g(origin, "commit", "-q", "-m", "Add ctx store")
	ada, bob := filepath.Join(top, "ada"), filepath.Join(top, "bob")
	g(top, "clone", "-q", origin, ada)
	g(top, "clone", "-q", origin, bob)

	// Both work the same day (same minute, same template for decisions),
	// on the same nodes.
	var adaIDs, bobIDs []string
	for i, who := range []string{"ada", "bob"} {
		dir := []string{ada, bob}[i]
		date := []string{"2026-11-22T10:00:00Z", "2026-11-22T10:00:00Z"}[i]
		ids := []string{
			c(dir, date, "add", "note", "Investigated the timeout ("+who+")"),
			c(dir, date, "add", "decision", "Use backoff ("+who+")", "--body", "## Context\n\nRetries.\n\n## Decision\n\nBack off.\n\n## Rationale\n\nServers recover."),
			c(dir, date, "add", "task", "Write the retry tests ("+who+")"),
		}
		c(dir, date, "tag", shared, "project:"+who)
		c(dir, date, "tag", shared, "tier:pinned")
		c(dir, date, "update", shared, "--meta", "owner="+who)
		if who == "ada" {
			c(dir, date, "supersede", doomed, ids[0])
			c(dir, date, "supersede", cycA, cycB)
			adaIDs = ids
		} else {
			c(dir, date, "delete", doomed)
			c(dir, date, "supersede", cycB, cycA)
			bobIDs = ids
		}
		// A hand edit, each in a different place of the shared node's file.
		files, _ := filepath.Glob(filepath.Join(dir, ".ctx", "narrative", "facts", "*.md"))
		if len(files) != 1 {
			t.Fatalf("%s: facts: %v", who, files)
		}
		b, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if who == "ada" {
			s = strings.Replace(s, "Set in config.go.", "Set in config.go (ada checked).", 1)
		} else {
			s = strings.Replace(s, "The port is fixed.", "The port is fixed (bob checked).", 1)
		}
		if err := os.WriteFile(files[0], []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		c(dir, date, "commit", "-m", "Work of "+who)
		g(dir, "add", "-A")
		g(dir, "commit", "-q", "-m", who+" works")
	}

	g(ada, "pull", "-q", "--no-rebase", "--no-edit", bob, "main")
	g(bob, "pull", "-q", "--no-rebase", "--no-edit", ada, "main")
	// Both merged clones compute the same state (git put the union-merged
	// lines in different orders on each side).
	var states []string
	for _, dir := range []string{ada, bob} {
		var nodes []map[string]any
		out := c(dir, "2026-11-22T11:00:00Z", "--json", "list", "--include-superseded", "--include-deleted")
		if err := json.Unmarshal([]byte(out), &nodes); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, n := range nodes {
			for _, k := range []string{"id", "type", "content", "tags", "meta", "deleted", "superseded_by", "updated"} {
				fmt.Fprintf(&b, "%s=%v ", k, n[k])
			}
			b.WriteString("\n")
		}
		states = append(states, b.String())
	}
	if states[0] != states[1] {
		t.Errorf("the merged clones disagree:\nada:\n%s\nbob:\n%s", states[0], states[1])
	}
	for _, dir := range []string{ada, bob} {
		name := filepath.Base(dir)
		if st := g(dir, "status", "--porcelain"); st != "" {
			t.Fatalf("%s: git status after merge:\n%s", name, st)
		}
		if r := run(t, dir, genv, "", git, "grep", "-l", "-e", "^<<<<<<<", "--", ".ctx"); r.code != 1 {
			t.Fatalf("%s: conflict markers in %s", name, r.stdout)
		}
		var nodes []struct {
			ID           string            `json:"id"`
			Type         string            `json:"type"`
			Title        string            `json:"title"`
			Content      string            `json:"content"`
			Tags         []string          `json:"tags"`
			Meta         map[string]string `json:"meta"`
			Deleted      bool              `json:"deleted"`
			SupersededBy string            `json:"superseded_by"`
		}
		out := c(dir, "2026-11-22T11:00:00Z", "--json", "list", "--include-superseded", "--include-deleted")
		if err := json.Unmarshal([]byte(out), &nodes); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		byID := map[string]int{}
		for i, n := range nodes {
			byID[n.ID] = i
		}
		for _, id := range append(append([]string{shared, doomed}, adaIDs...), bobIDs...) {
			if _, ok := byID[id]; !ok {
				t.Errorf("%s: node %s is missing after the merge", name, id)
			}
		}
		f := nodes[byID[shared]]
		sort.Strings(f.Tags)
		if strings.Join(f.Tags, " ") != "project:ada project:bob tier:pinned" {
			t.Errorf("%s: shared tags %v", name, f.Tags)
		}
		if !strings.Contains(f.Content, "ada checked") || !strings.Contains(f.Content, "bob checked") ||
			strings.Count(f.Content, "The port is fixed") != 1 {
			t.Errorf("%s: the hand edits did not merge line by line:\n%s", name, f.Content)
		}
		if o := f.Meta["owner"]; o != "ada" && o != "bob" {
			t.Errorf("%s: owner %q", name, o)
		}
		d := nodes[byID[doomed]]
		if !d.Deleted || d.SupersededBy != adaIDs[0] {
			t.Errorf("%s: doomed hypothesis: deleted %v, superseded by %q", name, d.Deleted, d.SupersededBy)
		}
		if nodes[byID[cycA]].SupersededBy != cycB || nodes[byID[cycB]].SupersededBy != cycA {
			t.Errorf("%s: the two supersedes of the patterns did not both survive", name)
		}
		// Before anything is committed, status compares with both heads:
		// the union-merged journals are changes to commit.
		st := c(dir, "2026-11-22T11:00:00Z", "status")
		if !strings.Contains(st, "modified  log/2026-11-22.md") || !strings.Contains(st, "modified  decisions.md") {
			t.Errorf("%s: status after the merge:\n%s", name, st)
		}
		// Each superseded one pattern by the other: a cycle, reported;
		// supersede still works (and does not loop), and undoing one
		// supersede clears it.
		if !strings.Contains(st, "supersede cycle") {
			t.Errorf("%s: the supersede cycle is not reported:\n%s", name, st)
		}
		c(dir, "2026-11-22T11:00:00Z", "supersede", doomed, cycB)
		c(dir, "2026-11-22T11:00:00Z", "supersede", "--undo", cycA)
		if st := c(dir, "2026-11-22T11:00:00Z", "status"); strings.Contains(st, "problems:") {
			t.Errorf("%s: narrative problems after the merge:\n%s", name, st)
		}
		c(dir, "2026-11-22T11:00:00Z", "verify")
	}
	c(ada, "2026-11-22T12:00:00Z", "commit", "-m", "After the merge")
	log := c(ada, "1", "log", "--oneline")
	for _, want := range []string{"After the merge", "Merge 2 heads", "Work of ada", "Work of bob"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

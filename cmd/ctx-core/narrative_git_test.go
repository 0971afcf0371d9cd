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

// TestNarrativeConflictExplained: the one conflict git may report is two
// people rewriting the same line of the same narrative file. ctx then
// names the file and line and says how to resolve it, and every command
// keeps working on the rest of the store; once resolved, all is clean.
func TestNarrativeConflictExplained(t *testing.T) {
	git := lookGit(t)
	ctx, _ := binaries(t)
	top := t.TempDir()
	genv := gitEnv(top)
	g := func(dir string, args ...string) string { t.Helper(); return must(t, dir, genv, "", git, args...) }
	c := func(dir string, args ...string) string { t.Helper(); return must(t, dir, genv, "", ctx, args...) }
	origin := filepath.Join(top, "origin")
	writeFiles(t, origin, map[string]string{"README.md": "# p\n"})
	g(origin, "init", "-q", "-b", "main")
	c(origin, "init")
	id := c(origin, "add", "fact", "The port is 8080", "--body", "Set in config.go.")
	c(origin, "add", "note", "Unrelated note")
	c(origin, "commit", "-m", "start")
	g(origin, "add", "-A")
	g(origin, "commit", "-q", "-m", "start")
	ada, bob := filepath.Join(top, "ada"), filepath.Join(top, "bob")
	g(top, "clone", "-q", origin, ada)
	g(top, "clone", "-q", origin, bob)
	var shown struct {
		File string `json:"file"`
	}
	if err := json.Unmarshal([]byte(c(ada, "--json", "show", id)), &shown); err != nil {
		t.Fatal(err)
	}
	for who, dir := range map[string]string{"ada": ada, "bob": bob} {
		p := filepath.Join(dir, shown.File)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		edited := strings.Replace(string(data), "Set in config.go.", "Set in config.go by "+who+".", 1)
		if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		c(dir, "commit", "-m", who+" edits the fact")
		g(dir, "add", "-A")
		g(dir, "commit", "-q", "-m", who)
	}
	// .ctx/.gitattributes merges narrative files with git's union driver,
	// which keeps both lines; a merge that ignores it (a web merge, a
	// tool with its own settings) leaves conflict markers. Make ada's
	// git ignore it.
	if err := os.WriteFile(filepath.Join(ada, ".git", "info", "attributes"), []byte("*.md merge=text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, ada, genv, "", git, "pull", "-q", "--no-rebase", "--no-edit", bob, "main")
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, shown.File) {
		t.Fatalf("git pull of the same line: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// ctx explains, and keeps working.
	st := c(ada, "status")
	if !strings.Contains(st, filepath.ToSlash(strings.TrimPrefix(shown.File, ".ctx/"))) || !strings.Contains(st, "git conflict markers") || !strings.Contains(st, "delete the three marker lines") {
		t.Fatalf("status does not explain the conflict:\n%s", st)
	}
	if v := run(t, ada, genv, "", ctx, "verify"); v.code != 0 || !strings.Contains(v.stdout+v.stderr, "git conflict markers") {
		t.Fatalf("verify: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
	if out := c(ada, "list"); !strings.Contains(out, "Unrelated note") {
		t.Fatalf("list during the conflict:\n%s", out)
	}
	if out := c(ada, "search", "unrelated"); !strings.Contains(out, "Unrelated note") {
		t.Fatalf("search during the conflict:\n%s", out)
	}
	// Resolve: keep both words, drop the markers.
	p := filepath.Join(ada, shown.File)
	data, _ := os.ReadFile(p)
	var kept []string
	for _, l := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(l, "<<<<<<<"), l == "=======", strings.HasPrefix(l, ">>>>>>>"):
		case strings.Contains(l, "by bob."):
		default:
			kept = append(kept, strings.Replace(l, "by ada.", "by ada and bob.", 1))
		}
	}
	if err := os.WriteFile(p, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	c(ada, "commit", "-m", "Resolve the fact")
	g(ada, "add", "-A")
	g(ada, "commit", "-q", "-m", "resolved")
	if v := run(t, ada, genv, "", ctx, "verify"); v.code != 0 || strings.Contains(v.stdout+v.stderr, "conflict") {
		t.Fatalf("verify after resolving: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
	if out := c(ada, "show", id); !strings.Contains(out, "by ada and bob.") {
		t.Fatalf("show after resolving:\n%s", out)
	}
}

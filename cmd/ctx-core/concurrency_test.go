package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentWriters runs several ctx processes at once that store the
// same and different objects and advance main by compare-and-swap,
// retrying when another writer moved it first. Nothing may be lost: every
// commit ends up in the history, every object is intact.
func TestConcurrentWriters(t *testing.T) {
	ctx, _ := binaries(t)
	dir := t.TempDir()
	const writers, rounds = 4, 6
	files := map[string]string{"shared.txt": "every writer stores this\n"}
	for w := 0; w < writers; w++ {
		for i := 0; i < rounds; i++ {
			files[fmt.Sprintf("w%d/r%d.txt", w, i)] = fmt.Sprintf("writer %d round %d\n", w, i)
		}
	}
	writeFiles(t, dir, files)
	must(t, dir, nil, "", ctx, "init")

	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				stdin := fmt.Sprintf("shared.txt\nw%d/r%d.txt\n", w, i)
				r := run(t, dir, nil, stdin, ctx, "hash-object", "-w", "--stdin-paths")
				if r.code != 0 {
					errs <- fmt.Errorf("writer %d: hash-object: %s", w, r.stderr)
					return
				}
				ids := strings.Fields(r.stdout)
				tree := fmt.Sprintf(`{"tree":{"entries":[{"name":"f","kind":"blob","id":"%s"},{"name":"s","kind":"blob","id":"%s"}]}}`, ids[1], ids[0])
				r = run(t, dir, nil, tree, ctx, "hash-object", "-w", "-t", "typed", "--input", "json", "--stdin")
				if r.code != 0 {
					errs <- fmt.Errorf("writer %d: tree: %s", w, r.stderr)
					return
				}
				treeID := strings.TrimSpace(r.stdout)
				for attempt := 0; ; attempt++ {
					old := run(t, dir, nil, "", ctx, "rev-parse", "main")
					parent := strings.TrimSpace(old.stdout)
					c := run(t, dir, nil, "", ctx, "commit-tree", treeID, "-p", parent, "-m", fmt.Sprintf("writer %d round %d", w, i))
					if old.code != 0 || c.code != 0 {
						errs <- fmt.Errorf("writer %d: %s%s", w, old.stderr, c.stderr)
						return
					}
					u := run(t, dir, nil, "", ctx, "update-ref", "main", strings.TrimSpace(c.stdout), parent)
					if u.code == 0 {
						break
					}
					if u.code != 33 || attempt > 100 {
						errs <- fmt.Errorf("writer %d: update-ref: exit %d: %s", w, u.code, u.stderr)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	log := must(t, dir, nil, "", ctx, "log", "--oneline")
	for w := 0; w < writers; w++ {
		for i := 0; i < rounds; i++ {
			if want := fmt.Sprintf("writer %d round %d", w, i); !strings.Contains(log, want) {
				t.Errorf("history lacks %q", want)
			}
		}
	}
	if n := len(strings.Split(log, "\n")); n != writers*rounds+1 {
		t.Errorf("history has %d commits, want %d (a linear chain):\n%s", n, writers*rounds+1, log)
	}
	heads := must(t, dir, nil, "", ctx, "show-ref")
	if strings.Count(heads, "\n") != 0 {
		t.Errorf("main has several heads:\n%s", heads)
	}
	out := must(t, dir, nil, "", ctx, "verify")
	if !strings.Contains(out, "ok: no problems found") || strings.Contains(out, "warning") {
		t.Errorf("verify:\n%s", out)
	}
	if tmps, _ := filepath.Glob(filepath.Join(dir, ".ctx", "objects", "*", "*.tmp")); len(tmps) > 0 {
		t.Errorf("temporary files left behind: %v", tmps)
	}
}

// TestConcurrentSessions runs two agents in one repository at once, each
// in its own session (CTX_SESSION), each writing files, snapshotting them
// and adding notes step by step while the other does the same; then both
// compact. Both commits reach main, nothing is lost, verify is clean.
func TestConcurrentSessions(t *testing.T) {
	ctx, _ := binaries(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"go.mod": "module ex\n\ngo 1.22\n", "pkg/a.go": "package pkg\n\nfunc A() {}\n"})
	must(t, dir, nil, "", ctx, "init")
	must(t, dir, nil, "", ctx, "add", "code", "-q")
	agents := []string{"alpha", "beta"}
	for _, a := range agents {
		must(t, dir, nil, "", ctx, "stage", "start", "work of "+a, "--id", a, "--detach")
	}
	const rounds = 5
	var wg sync.WaitGroup
	errs := make(chan error, len(agents))
	for _, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := []string{"CTX_SESSION=" + a, "CTX_LOCK_TIMEOUT=60s"}
			for i := 0; i < rounds; i++ {
				writeFiles(t, dir, map[string]string{fmt.Sprintf("%s/f%d.go", a, i): fmt.Sprintf("package %s\n\nfunc F%d() {}\n", a, i)})
				for _, args := range [][]string{
					{"add", "code", "-q", a},
					{"add", "note", fmt.Sprintf("%s finding %d", a, i)},
				} {
					if r := run(t, dir, env, "", ctx, args...); r.code != 0 {
						errs <- fmt.Errorf("%s round %d: ctx %s: %s", a, i, strings.Join(args, " "), r.stderr)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, a := range agents {
		out := must(t, dir, nil, "", ctx, "--json", "stage", "status", a)
		if !strings.Contains(out, fmt.Sprintf(`"steps": %d`, 2*rounds)) {
			t.Fatalf("session %s before compaction:\n%s", a, out)
		}
		must(t, dir, nil, "", ctx, "stage", "compact", a)
	}
	files := must(t, dir, nil, "", ctx, "ls-tree", "-r", "--name-only", "main")
	notes := must(t, dir, nil, "", ctx, "list", "--type", "observation")
	for _, a := range agents {
		for i := 0; i < rounds; i++ {
			if p := fmt.Sprintf("%s/f%d.go", a, i); !strings.Contains(files, p) {
				t.Errorf("main lacks %s:\n%s", p, files)
			}
			if n := fmt.Sprintf("%s finding %d", a, i); !strings.Contains(notes, n) {
				t.Errorf("the narrative lacks %q", n)
			}
		}
	}
	log := must(t, dir, nil, "", ctx, "log", "--oneline")
	for _, a := range agents {
		if !strings.Contains(log, "(session "+a+")") {
			t.Errorf("no compaction of %s on main:\n%s", a, log)
		}
	}
	if r := run(t, dir, nil, "", ctx, "verify"); r.code != 0 {
		t.Fatalf("verify: %s%s", r.stdout, r.stderr)
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCrashAtEveryPoint kills ctx (SIGKILL, through the faultinject build)
// at every crash point each write command reaches, one point per run, and
// checks after each crash that the store is still consistent: verify finds
// no problem (leftover temporary files are only warnings), no object or
// ref is torn, main holds its old or its new value, and running the same
// command again completes the work.
func TestCrashAtEveryPoint(t *testing.T) {
	if testing.Short() {
		t.Skip("crash sweep runs many processes")
	}
	ctx, faulty := binaries(t)
	// CTX_PACK_ABOVE=3: add code (six files) writes its objects into a
	// pack, add file (one) loose: the sweep crashes both write paths.
	env := []string{"CTX_DATE=1790000000", "CTX_PACK_ABOVE=3"}

	// The starting project: a store and files to add.
	base := t.TempDir()
	files := map[string]string{}
	var paths []string
	for i := 0; i < 6; i++ {
		name := fmt.Sprintf("src/file%d.go", i)
		files[name] = fmt.Sprintf("package src\n\n// File %d.\nvar X%d = %d\n", i, i, i*i)
		paths = append(paths, name)
	}
	files["tree.json"] = `{"tree":{"entries":[{"name":"a","kind":"blob","id":"33ab4d579b4f8fb631d4d31255bacd9fe8fe124bf216b9e3f578dfc1201167e0"}]}}`
	files["a"] = "hello\n"
	writeFiles(t, base, files)
	must(t, base, env, "", ctx, "init")
	must(t, base, env, "", ctx, "hash-object", "-w", "a")
	root := must(t, base, env, "", ctx, "rev-parse", "main")
	tree := must(t, base, env, "", ctx, "hash-object", "-w", "-t", "typed", "--input", "json", "tree.json")
	commit := must(t, base, env, "", ctx, "commit-tree", tree, "-p", "main", "-m", "next")
	// commit-tree wrote the commit; remove it so that the sweep writes it.
	commitFile := filepath.Join(base, ".ctx", "objects", commit[:2], commit)
	if err := os.Remove(commitFile); err != nil {
		t.Fatal(err)
	}

	type step struct {
		name  string
		stdin string
		args  []string
		// check runs after a crash or a success; done tells which.
		check func(t *testing.T, dir string, done bool)
		// finished reports, after a crash, that the command's effect is
		// already complete, so that running it again is not needed (a
		// compare-and-swap update would rightly refuse to run twice).
		finished func(t *testing.T, dir string) bool
		// setup, if set, changes the starting state first, uncrashed.
		setup func(t *testing.T, dir string)
	}
	mainIs := func(want ...string) func(*testing.T, string, bool) {
		return func(t *testing.T, dir string, done bool) {
			got := must(t, dir, env, "", ctx, "rev-parse", "main")
			for _, w := range want {
				if got == w {
					return
				}
			}
			t.Fatalf("main = %s, want one of %v", got, want)
		}
	}
	// before is main when the current step starts.
	var before string
	// edgeMoved checks a relate (present: the edge file0 imports file1
	// is added) or an unlink (it is removed): main is unchanged and so is
	// the edge, or main moved one commit on and the edge changed.
	edgeMoved := func(present bool) func(*testing.T, string, bool) {
		return func(t *testing.T, dir string, done bool) {
			got := must(t, dir, env, "", ctx, "rev-parse", "main")
			edges := must(t, dir, env, "", ctx, "edges", "src/file0.go", "--direction", "out", "-l", "imports")
			has := strings.Contains(edges, "-> imports          file:src/file1.go")
			switch {
			case got == before && has == !present:
			case got != before && has == present:
				if parent := must(t, dir, env, "", ctx, "rev-parse", "main~1"); parent != before {
					t.Fatalf("main = %s, whose parent is %s, not the old main %s", got, parent, before)
				}
			default:
				t.Fatalf("main %s (before %s), edge present %v, want present %v only after main moved:\n%s", got, before, has, present, edges)
			}
			if done && got == before {
				t.Fatalf("main did not move")
			}
		}
	}
	// asFull checks that out, what args printed after a crash, is what
	// they print after a full rebuild (of the text segments only, with
	// text), in a copy of dir; and that CURRENT names a segment of kind.
	asFull := func(t *testing.T, dir, out string, text bool, kind string, args ...string) {
		t.Helper()
		full := filepath.Join(t.TempDir(), "full")
		copyDir(t, dir, full)
		rebuild := []string{"rebuild", "-q"}
		if text {
			rebuild = append(rebuild, "--text")
		}
		must(t, full, env, "", ctx, rebuild...)
		if want := must(t, full, env, "", ctx, args...); out != want {
			t.Fatalf("%s after a crash:\n%s\nafter a full rebuild:\n%s", args[0], out, want)
		}
		if cur, err := os.ReadFile(filepath.Join(dir, ".ctx", "index", "CURRENT")); err != nil || !strings.Contains(string(cur), "\n"+kind+" seg-") {
			t.Fatalf("no %s segment after %s: %v\n%s", kind, args[0], err, cur)
		}
	}
	steps := []step{
		{name: "hash-object batch", stdin: strings.Join(paths, "\n"), args: []string{"hash-object", "-w", "--stdin-paths"},
			check: func(t *testing.T, dir string, done bool) {
				if !done {
					return
				}
				ids := strings.Fields(must(t, dir, env, strings.Join(paths, "\n"), ctx, "hash-object", "--stdin-paths"))
				for _, id := range ids {
					must(t, dir, env, "", ctx, "cat-object", "-e", id)
				}
			}},
		{name: "commit-tree", args: []string{"commit-tree", tree, "-p", "main", "-m", "next"}, check: mainIs(root)},
		{name: "update-ref", args: []string{"update-ref", "main", commit, root}, check: mainIs(root, commit),
			finished: func(t *testing.T, dir string) bool {
				return must(t, dir, env, "", ctx, "rev-parse", "main") == commit
			}},
		// relate and unlink write an edge batch (and an evidence blob) and
		// a commit: after a crash either main moved to a child of its old
		// value and the graph has the change, or nothing changed.
		{name: "relate", args: []string{"relate", "src/file0.go", "imports", "src/file1.go", "--evidence", "file0 uses X1"},
			check: edgeMoved(true)},
		{name: "unlink", args: []string{"unlink", "src/file0.go", "src/file1.go", "--reason", "X1 is gone"},
			check: edgeMoved(false)},
		// Ingestion and command runs write blobs, file versions, trees
		// and a commit, then the stat cache: after a crash main is as it
		// was or one commit on, with the snapshot complete.
		{name: "add file --extract-semantics", args: []string{"add", "file", "src/file0.go", "--extract-semantics", "-q"},
			check: movedOnce(t, ctx, env, &before, func(t *testing.T, dir string) {
				if out := must(t, dir, env, "", ctx, "edges", "src/file0.go", "--label", "defines"); !strings.Contains(out, "item:src.X0") {
					t.Fatalf("no item X0 after add file:\n%s", out)
				}
			})},
		{name: "add code", args: []string{"add", "code", "-q"},
			check: movedOnce(t, ctx, env, &before, func(t *testing.T, dir string) {
				if out := must(t, dir, env, "", ctx, "ls-tree", "-r", "--name-only", "main"); !strings.Contains(out, "src/file5.go") {
					t.Fatalf("src/file5.go missing from the snapshot:\n%s", out)
				}
				// It wrote a pack.
				if packs, _ := filepath.Glob(filepath.Join(dir, ".ctx", "objects", "pack", "*.idx")); len(packs) == 0 {
					t.Fatalf("add code of six files with CTX_PACK_ABOVE=3 wrote no pack")
				}
			})},
		{name: "add command", stdin: "src/file1.go:4:1: X1 is unused\n", args: []string{"add", "command", "--stdin", "--name", "lint", "--exit-code", "1"},
			check: movedOnce(t, ctx, env, &before, func(t *testing.T, dir string) {
				if out := must(t, dir, env, "", ctx, "edges", "src/file1.go", "--label", "references"); !strings.Contains(out, "X1 is unused (lint)") {
					t.Fatalf("no diagnostic after add command:\n%s", out)
				}
			})},
		// A view file is replaced atomically: after a crash the view is
		// as it was or as the command left it, never damaged.
		{name: "view create", args: []string{"view", "create", "crash", "--query", "type:fact", "--budget", "123"},
			check: viewBudget(t, ctx, env, 0, 123), finished: func(t *testing.T, dir string) bool { return crashView(t, ctx, env, dir) != 0 }},
		{name: "view update", args: []string{"view", "update", "crash", "--budget", "456"}, check: viewBudget(t, ctx, env, 123, 456)},
		{name: "view delete", args: []string{"view", "delete", "crash"},
			check: viewBudget(t, ctx, env, 456, 0), finished: func(t *testing.T, dir string) bool { return crashView(t, ctx, env, dir) == 0 }},
		// A staging session: start, a step, compaction. After a crash
		// ctx stage recover succeeds and verify is clean; a step reported
		// written is still there.
		{name: "stage start", args: []string{"stage", "start", "Crash test", "--id", "crash", "--detach"},
			check: sessionCheck(t, ctx, env, &before, "", 0),
			finished: func(t *testing.T, dir string) bool {
				_, err := os.Stat(filepath.Join(dir, ".ctx", "sessions", "crash"))
				return err == nil
			}},
		{name: "session step", args: []string{"--session", "crash", "relate", "src/file1.go", "mentions", "src/file0.go"},
			check: sessionCheck(t, ctx, env, &before, "", 0)},
		{name: "stage compact", args: []string{"stage", "compact", "crash", "-m", "crash session"},
			check: sessionCheck(t, ctx, env, &before, "crash session", 1),
			finished: func(t *testing.T, dir string) bool {
				_, err := os.Stat(filepath.Join(dir, ".ctx", "sessions", "crash"))
				return err != nil
			}},
		// gc killed anywhere: every reachable object stays readable
		// (verify), loose or packed; run again, it completes.
		{name: "gc --pack --aggressive", args: []string{"gc", "--pack", "--aggressive"}, check: func(t *testing.T, dir string, done bool) {
			mainIs(before)(t, dir, done)
			if out := must(t, dir, env, "", ctx, "cat-object", "-p", "main:src/file1.go"); !strings.Contains(out, "X1") {
				t.Fatalf("a file after a crash of gc:\n%s", out)
			}
		}},
		// A rebuild of the index killed anywhere: the next search
		// answers, from the old generation or a new one.
		{name: "rebuild", args: []string{"rebuild", "-q"}, check: func(t *testing.T, dir string, done bool) {
			mainIs(before)(t, dir, done)
			if out := must(t, dir, env, "", ctx, "search", "X1"); !strings.Contains(out, "src/file1.go") {
				t.Fatalf("search after a crash of rebuild:\n%s", out)
			}
		}},
		// A search after a code change brings the index up to date with a
		// delta segment; killed anywhere, the next search answers for
		// the new code.
		{name: "search with a delta", args: []string{"search", "Y2"},
			setup: func(t *testing.T, dir string) {
				writeFiles(t, dir, map[string]string{"src/file2.go": "package src\n\n// File 2.\nvar X2 = 4\n\n// Y2 is new.\nvar Y2 = 2\n"})
				must(t, dir, env, "", ctx, "add", "file", "src/file2.go", "--extract-semantics", "-q")
			},
			check: func(t *testing.T, dir string, done bool) {
				out := must(t, dir, env, "", ctx, "search", "Y2")
				if !strings.Contains(out, "src.Y2") {
					t.Fatalf("search for a new item after a crash:\n%s", out)
				}
				asFull(t, dir, out, true, "delta", "search", "Y2")
				if out := must(t, dir, env, "", ctx, "search", "X1"); !strings.Contains(out, "src/file1.go") {
					t.Fatalf("search for an old item after a crash:\n%s", out)
				}
			}},
		// A read of the graph after a code change brings the code graph
		// up to date with a code graph delta; killed anywhere, the next
		// read answers as a full rebuild does.
		{name: "edges with a code graph delta", args: []string{"debug", "index", "out", "file:src/file3.go"},
			setup: func(t *testing.T, dir string) {
				writeFiles(t, dir, map[string]string{"src/file3.go": "package src\n\n// File 3.\nvar X3 = 9\n\n// Y3 is new.\nvar Y3 = X3\n"})
				must(t, dir, env, "", ctx, "add", "file", "src/file3.go", "--extract-semantics", "-q")
			},
			check: func(t *testing.T, dir string, done bool) {
				out := must(t, dir, env, "", ctx, "debug", "index", "out", "file:src/file3.go")
				if !strings.Contains(out, "item:src.Y3") {
					t.Fatalf("edges of a changed file after a crash:\n%s", out)
				}
				asFull(t, dir, out, false, "graphdelta", "debug", "index", "out", "file:src/file3.go")
			}},
		// A search after a note brings the narrative segment up to date
		// with a narrative delta; killed anywhere, the next search finds
		// the note, as after a full rebuild.
		{name: "search with a narrative delta", args: []string{"search", "zebrafish"},
			setup: func(t *testing.T, dir string) {
				must(t, dir, env, "", ctx, "add", "fact", "Zebrafish regrow fins")
			},
			check: func(t *testing.T, dir string, done bool) {
				out := must(t, dir, env, "", ctx, "search", "zebrafish")
				if !strings.Contains(out, "Zebrafish regrow fins") {
					t.Fatalf("search for a new note after a crash:\n%s", out)
				}
				asFull(t, dir, out, true, "narrdelta", "search", "zebrafish")
			}},
		{name: "init --force", args: []string{"init", "--force"}, check: func(t *testing.T, dir string, done bool) {
			mainIs(root, before)(t, dir, done)
		}},
	}

	state := base // each step starts from the state the previous one left
	outer := t
	for _, s := range steps {
		if s.setup != nil {
			next := filepath.Join(outer.TempDir(), "setup")
			copyDir(t, state, next)
			s.setup(t, next)
			state = next
		}
		before = must(t, state, env, "", ctx, "rev-parse", "main")
		ok := t.Run(s.name, func(t *testing.T) {
			crashes := 0
			for n := 1; ; n++ {
				dir := filepath.Join(t.TempDir(), "p")
				copyDir(t, state, dir)
				r := run(t, dir, append(env, fmt.Sprintf("CTX_FAULT=*:%d", n)), s.stdin, faulty, s.args...)
				if !r.killed {
					if r.code != 0 {
						t.Fatalf("run without crash (point %d not reached) failed: exit %d: %s", n, r.code, r.stderr)
					}
					s.check(t, dir, true)
					verifyClean(t, ctx, dir, env)
					if crashes == 0 && s.name != "init --force" {
						t.Fatalf("no crash point reached")
					}
					t.Logf("%d crash points", crashes)
					// The next step starts from the completed state.
					next := filepath.Join(outer.TempDir(), "done")
					copyDir(t, dir, next)
					state = next
					return
				}
				crashes++
				verifyClean(t, ctx, dir, env)
				s.check(t, dir, false)
				// Recovery: the same command, run again, completes.
				if s.finished == nil || !s.finished(t, dir) {
					must(t, dir, env, s.stdin, ctx, s.args...)
				}
				verifyClean(t, ctx, dir, env)
			}
		})
		if !ok {
			t.Fatalf("stopped after %s: the later steps start from the state it leaves", s.name)
		}
	}
	if got := must(t, state, env, "", ctx, "rev-parse", "main"); got != root {
		// init --force ran last and reset the store.
		t.Fatalf("after init --force main = %s, want the root commit %s", got, root)
	}
}

// sessionCheck checks a step of the staging session "crash": ctx stage
// recover succeeds, main is still *before or (for a compaction, moves
// 1) its child with the message want, and the session, when it still
// exists, reads cleanly.
func sessionCheck(t *testing.T, ctx string, env []string, before *string, want string, moves int) func(*testing.T, string, bool) {
	return func(t *testing.T, dir string, done bool) {
		must(t, dir, env, "", ctx, "stage", "recover")
		got := must(t, dir, env, "", ctx, "rev-parse", "main")
		if got != *before {
			if moves == 0 {
				t.Fatalf("main moved from %s to %s during a session step", *before, got)
			}
			if parent := must(t, dir, env, "", ctx, "rev-parse", "main~1"); parent != *before {
				t.Fatalf("main = %s, whose parent is %s, not the old main %s", got, parent, *before)
			}
			if msg := must(t, dir, env, "", ctx, "log", "-n", "1"); !strings.Contains(msg, want) {
				t.Fatalf("main's commit is not the compaction:\n%s", msg)
			}
		} else if done && moves > 0 {
			t.Fatalf("the compaction did not move main")
		}
		if _, err := os.Stat(filepath.Join(dir, ".ctx", "sessions", "crash")); err == nil {
			out := must(t, dir, env, "", ctx, "--json", "stage", "status", "crash")
			// A compaction undone leaves the step the previous command
			// reported written.
			if moves > 0 && !strings.Contains(out, `"steps": 1,`) {
				t.Fatalf("the session lost its step:\n%s", out)
			}
		}
	}
}

// movedOnce checks a step that makes one commit: main is still *before,
// or a child of it whose content check accepts; when the step completed,
// main moved.
func movedOnce(t *testing.T, ctx string, env []string, before *string, content func(*testing.T, string)) func(*testing.T, string, bool) {
	return func(t *testing.T, dir string, done bool) {
		got := must(t, dir, env, "", ctx, "rev-parse", "main")
		switch {
		case got == *before:
			if done {
				t.Fatalf("main did not move")
			}
		default:
			if parent := must(t, dir, env, "", ctx, "rev-parse", "main~1"); parent != *before {
				t.Fatalf("main = %s, whose parent is %s, not the old main %s", got, parent, *before)
			}
			content(t, dir)
		}
	}
}

// verifyClean fails unless `ctx verify` exits 0.
func verifyClean(t *testing.T, ctx, dir string, env []string) {
	t.Helper()
	r := run(t, dir, env, "", ctx, "verify")
	if r.code != 0 {
		t.Fatalf("verify after crash: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// crashView returns the budget of the view "crash" as `ctx view list`
// reads it, or 0 if there is no such view; a view file that does not
// read fails the test.
func crashView(t *testing.T, ctx string, env []string, dir string) int {
	t.Helper()
	r := run(t, dir, env, "", ctx, "--json", "view", "list")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("view list: exit %d\n%s", r.code, r.stderr)
	}
	var views []struct {
		Name   string `json:"name"`
		Budget int    `json:"budget"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &views); err != nil {
		t.Fatalf("view list: %v\n%s", err, r.stdout)
	}
	for _, v := range views {
		if v.Name == "crash" {
			return v.Budget
		}
	}
	return 0
}

// viewBudget checks that the view "crash" has the budget it had before
// the step (0: no view) or the one the step gives it, and the latter
// once the step completed.
func viewBudget(t *testing.T, ctx string, env []string, old, new int) func(*testing.T, string, bool) {
	return func(t *testing.T, dir string, done bool) {
		got := crashView(t, ctx, env, dir)
		if got != new && (done || got != old) {
			t.Fatalf("view crash has budget %d, want %d (or %d before the command completed)", got, new, old)
		}
	}
}

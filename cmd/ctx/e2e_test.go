package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctx-dev/ctx/index/stamp"
	"github.com/ctx-dev/ctx/internal/testutil"
)

// These tests run the front end and ctx-core as a user's shell does:
// both built into one directory, ctx on the command line.

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds ctx and ctx-core into one temporary directory.
func binaries(t *testing.T) (front, core string) {
	t.Helper()
	testutil.DependOnSources(t)
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "ctx-front-bin-"); buildErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", binDir+string(filepath.Separator), "github.com/ctx-dev/ctx/cmd/ctx", "github.com/ctx-dev/ctx/cmd/ctx-core").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, "ctx"), filepath.Join(binDir, coreName)
}

type result struct {
	stdout, stderr string
	code           int
}

// runProg runs prog in dir; the front end says which way each command
// went (CTX_FRONT=trace).
func runProg(t *testing.T, dir string, env []string, prog string, args ...string) result {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CTX_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "CTX_FRONT=trace")
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("%s %v: %v", prog, args, err)
	}
	return r
}

func must(t *testing.T, dir, prog string, args ...string) string {
	t.Helper()
	r := runProg(t, dir, nil, prog, args...)
	if r.code != 0 {
		t.Fatalf("%s %s: exit %d\n%s%s", filepath.Base(prog), strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

const answered = "ctx: answered from the index"

// untraced is stderr without the front end's trace lines.
func untraced(stderr string) string {
	var out []string
	for _, l := range strings.SplitAfter(stderr, "\n") {
		if !strings.HasPrefix(l, answered) && !strings.HasPrefix(l, "ctx: running ctx-core: ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

// same runs args through ctx and ctx-core and fails the test unless
// both give the same stdout, stderr (but the trace) and exit status. It
// returns ctx's result.
func same(t *testing.T, dir string, env []string, ctx, core string, args ...string) result {
	t.Helper()
	want := runProg(t, dir, env, core, args...)
	got := runProg(t, dir, env, ctx, args...)
	if got.stdout != want.stdout || untraced(got.stderr) != untraced(want.stderr) || got.code != want.code {
		t.Errorf("ctx %q (env %q): exit %d\n%s%s\nwant exit %d\n%s%s", args, env, got.code, got.stdout, got.stderr, want.code, want.stdout, want.stderr)
	}
	return got
}

// project makes a project with a store, two Go files ingested and a note.
func project(t *testing.T, ctx string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":          "module example.com/p\n\ngo 1.22\n",
		"net/client.go":   "package net\n\n// Retry sends a request again after a backoff.\nfunc Retry(n int) int { return n + 1 }\n",
		"net/server.go":   "package net\n\n// Serve answers requests until the listener closes.\nfunc Serve() {}\n",
		"util/strings.go": "package util\n\n// Trim removes spaces.\nfunc Trim(s string) string { return s }\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must(t, dir, ctx, "init")
	must(t, dir, ctx, "add", "code", "-q")
	must(t, dir, ctx, "add", "note", "The retry backoff doubles up to a minute.")
	return dir
}

// search runs a search through the front end until it answers alone,
// checking every answer against ctx-core's own, which it returns. The
// first runs ctx-core, which writes the stamp unless something changed
// in the same tick of the file system's clock (racy, index/stamp); so
// may the next few, as long as the clock has not moved on.
func search(t *testing.T, dir, ctx, core string, args ...string) string {
	t.Helper()
	want := runProg(t, dir, nil, core, args...)
	if want.code != 0 {
		t.Fatalf("ctx-core %v: exit %d: %s", args, want.code, want.stderr)
	}
	for i := range 50 {
		got := runProg(t, dir, nil, ctx, args...)
		if got.code != 0 || got.stdout != want.stdout || untraced(got.stderr) != want.stderr {
			t.Fatalf("ctx %v (run %d): exit %d\n%s\nwant\n%s\nstderr: %s", args, i, got.code, got.stdout, want.stdout, got.stderr)
		}
		if strings.Contains(got.stderr, answered) {
			return want.stdout
		}
	}
	t.Fatalf("ctx %v never answered without ctx-core", args)
	return ""
}

// TestFrontAnswers: the front end answers searches alone once a ctx-core
// process has stamped the index, with ctx-core's bytes, text and JSON.
func TestFrontAnswers(t *testing.T) {
	ctx, core := binaries(t)
	dir := project(t, ctx)
	first := runProg(t, dir, nil, ctx, "search", "retry")
	if first.code != 0 || !strings.Contains(first.stderr, "running ctx-core: no stamp") {
		t.Fatalf("the first search: exit %d, %s", first.code, first.stderr)
	}
	for _, args := range [][]string{
		{"search", "retry"},
		{"search", "retry", "backoff"},
		{"search", "-n", "1", "retry"},
		{"--json", "search", "retry"},
		{"search", "--json", "--limit=1", "request"},
		{"search", "--type", "note", "retry"},
		{"search", "--type=item", "-t", "tier:working", "retry"},
		{"search", "--include-superseded", "Retry"},
		{"search", "\"sends a request\""},
		{"search", "path:net", "request"},
		{"search", "nothingmatchesthis"},
		{"search", "--", "retry", "-backoff"},
		{"--dir", ".ctx", "search", "retry"},
		{"search", "-n", "999999999", "retry"},
	} {
		search(t, dir, ctx, core, args...)
	}
	// ctx status says so, and after a change, why not.
	if out := must(t, dir, ctx, "status"); !strings.Contains(out, "search: answered by ctx alone") {
		t.Errorf("status of a stamped index:\n%s", out)
	}
	must(t, dir, ctx, "add", "note", "Status notices notes.")
	if out := must(t, dir, ctx, "status"); !strings.Contains(out, "search: through ctx-core (") {
		t.Errorf("status after a note:\n%s", out)
	}
	search(t, dir, ctx, core, "search", "retry")
	// From a subdirectory, and with CTX_DIR.
	sub := filepath.Join(dir, "net")
	got := runProg(t, sub, nil, ctx, "search", "retry")
	if !strings.Contains(got.stderr, answered) || !strings.Contains(got.stdout, "net.Retry") {
		t.Errorf("from a subdirectory: %s%s", got.stdout, got.stderr)
	}
	got = runProg(t, t.TempDir(), []string{"CTX_DIR=" + dir}, ctx, "search", "retry")
	if !strings.Contains(got.stderr, answered) || !strings.Contains(got.stdout, "net.Retry") {
		t.Errorf("with CTX_DIR: %s%s", got.stdout, got.stderr)
	}
	// CTX_FRONT=off sends it to ctx-core, with the same answer.
	off := runProg(t, dir, []string{"CTX_FRONT=off"}, ctx, "search", "retry")
	if off.code != 0 || off.stderr != "" || off.stdout != got.stdout {
		t.Errorf("CTX_FRONT=off: exit %d\n%s%s", off.code, off.stdout, off.stderr)
	}
}

// TestFrontSameFailures: what the front end does not answer, ctx-core
// does, with the same output and exit status as when run alone.
func TestFrontSameFailures(t *testing.T) {
	ctx, core := binaries(t)
	dir := project(t, ctx)
	must(t, dir, ctx, "search", "retry") // the stamp
	same(t, dir, []string{"CTX_LOCK_TIMEOUT="}, ctx, core, "search", "retry")
	for _, args := range [][]string{
		{"search"},
		{"search", "retry", "--", "backoff"},
		{"search", "-n", "0", "retry"},
		{"search", "--type", "bogus", "retry"},
		{"search", "--tag", "Not A Tag!", "retry"},
		{"search", "-type:item", "retry"},
		{"search", "the"},
		{"search", "bogus:filter", "x"},
		{"--session", "nosuchsession", "search", "retry"},
		{"--json", "search", "-n", "-1", "retry"},
		{"version"},
		{"status"},
		{"nosuchcommand"},
	} {
		same(t, dir, []string{"CTX_FRONT="}, ctx, core, args...)
	}
}

// TestFrontNoticesChanges: every way the store changes under a stamped
// index sends the next search to ctx-core, which answers for the store
// as it is now; the search after answers alone again.
func TestFrontNoticesChanges(t *testing.T) {
	ctx, core := binaries(t)
	dir := project(t, ctx)
	root := filepath.Join(dir, ".ctx")
	notes := func() string {
		t.Helper()
		ms, _ := filepath.Glob(filepath.Join(root, "narrative", "observations", "*.md"))
		if len(ms) == 0 {
			t.Fatal("no narrative file")
		}
		return ms[0]
	}
	for _, tc := range []struct {
		name   string
		change func(t *testing.T)
		query  string // what the changed store answers
		want   string
	}{
		{"a note added", func(t *testing.T) { must(t, dir, ctx, "add", "note", "Quokkas answer every request.") }, "quokkas", "Quokkas"},
		{"a narrative file edited by hand", func(t *testing.T) {
			f, err := os.OpenFile(notes(), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(f, "\nWombats too.")
			f.Close()
		}, "wombats", "Wombats"},
		{"a narrative file rewritten, size and time kept", func(t *testing.T) {
			p := notes()
			data, _ := os.ReadFile(p)
			info, _ := os.Stat(p)
			os.WriteFile(p, bytes.Replace(data, []byte("Wombats"), []byte("Numbats"), 1), 0o644)
			os.Chtimes(p, info.ModTime(), info.ModTime())
		}, "numbats", "Numbats"},
		{"code changed and ingested", func(t *testing.T) {
			os.WriteFile(filepath.Join(dir, "util", "strings.go"), []byte("package util\n\n// Pad adds spaces.\nfunc Pad(s string) string { return s }\n"), 0o644)
			must(t, dir, ctx, "add", "code", "-q")
		}, "Pad", "util.Pad"},
		{"a staging session started", func(t *testing.T) {
			must(t, dir, ctx, "stage", "start", "platypus work")
			must(t, dir, ctx, "add", "note", "Platypuses stage their work.")
		}, "platypuses", "Platypuses"},
		{"a stamp torn by a crash", func(t *testing.T) {
			os.WriteFile(stamp.Path(root), []byte("ctx-index-stamp 1\nformat"), 0o644)
		}, "retry", "net.Retry"},
		{"the index deleted", func(t *testing.T) { os.RemoveAll(filepath.Join(root, "index")) }, "retry", "net.Retry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			search(t, dir, ctx, core, "search", "retry") // stamped
			tc.change(t)
			got := runProg(t, dir, nil, ctx, "search", tc.query)
			if got.code != 0 || !strings.Contains(got.stdout, tc.want) {
				t.Fatalf("after the change: exit %d\n%s%s", got.code, got.stdout, got.stderr)
			}
			if strings.Contains(got.stderr, answered) {
				t.Fatalf("answered from the stamp after the change: %s", got.stdout)
			}
			search(t, dir, ctx, core, "search", tc.query)
		})
	}
}

// TestFrontWithoutCore: a front end installed alone says what to do.
func TestFrontWithoutCore(t *testing.T) {
	ctx, _ := binaries(t)
	alone := filepath.Join(t.TempDir(), "ctx")
	data, err := os.ReadFile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	got := runProg(t, t.TempDir(), []string{"PATH=" + t.TempDir()}, alone, "version")
	if got.code != 1 || !strings.Contains(got.stderr, "ctx-core") || !strings.Contains(got.stderr, "go install") {
		t.Errorf("exit %d: %s", got.code, got.stderr)
	}
}

// TestFrontRandomLines: command lines made at random of search's words
// and flags give the same output through ctx as through ctx-core, with
// a stamp that holds (so the front end answers all it reads itself).
func TestFrontRandomLines(t *testing.T) {
	ctx, core := binaries(t)
	dir := project(t, ctx)
	search(t, dir, ctx, core, "search", "retry")
	words := []string{"retry", "backoff", "request", "Retry", "--", "-n", "3", "0", "010", "--limit", "--limit=2", "-n=2",
		"--json", "--json=true", "--type", "note", "item", "bogus", "--type=file", "-t", "tier:working", "--tag=x",
		"--include-superseded", "--dir", ".ctx", "--dir=.", "--session", "s1", "-x", "-", `"sends a request"`,
		"path:net", "type:item", "-type:item", "the", "--help", "-h", "search"}
	rng := rand.New(rand.NewSource(11))
	answeredAlone := 0
	for range 80 {
		args := []string{"search"}
		switch rng.Intn(6) {
		case 0:
			args = []string{"--json", "search"}
		case 1:
			args = []string{"--dir", ".", "search"}
		case 2:
			args = []string{words[rng.Intn(len(words))], "search"}
		}
		for range 1 + rng.Intn(5) {
			args = append(args, words[rng.Intn(len(words))])
		}
		if strings.Contains(same(t, dir, nil, ctx, core, args...).stderr, answered) {
			answeredAlone++
		}
	}
	if answeredAlone == 0 {
		t.Error("the front end answered none of the lines itself")
	}
}

// TestFrontNoStampFor: what the stamp cannot watch, it is not written
// for: the front end sends every search to ctx-core (and says the same).
func TestFrontNoStampFor(t *testing.T) {
	ctx, core := binaries(t)
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, root string)
	}{
		{"a symbolic link for config.toml", func(t *testing.T, root string) {
			p := filepath.Join(root, "config.toml")
			data, _ := os.ReadFile(p)
			target := filepath.Join(t.TempDir(), "config.toml")
			os.WriteFile(target, data, 0o644)
			os.Remove(p)
			if err := os.Symlink(target, p); err != nil {
				t.Skip(err)
			}
		}},
		{"an unknown key in config.toml (a warning)", func(t *testing.T, root string) {
			f, _ := os.OpenFile(filepath.Join(root, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
			fmt.Fprintln(f, "\nbogus_key = 1")
			f.Close()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := project(t, ctx)
			search(t, dir, ctx, core, "search", "retry")
			tc.change(t, filepath.Join(dir, ".ctx"))
			for range 3 {
				if got := same(t, dir, nil, ctx, core, "search", "retry"); strings.Contains(got.stderr, answered) {
					t.Fatalf("answered from a stamp: %s", got.stderr)
				}
			}
		})
	}
}

// TestFrontHeadMoved: HEAD naming another ref is noticed, and the front
// end says what ctx-core says.
func TestFrontHeadMoved(t *testing.T) {
	ctx, core := binaries(t)
	dir := project(t, ctx)
	search(t, dir, ctx, core, "search", "retry")
	if err := os.WriteFile(filepath.Join(dir, ".ctx", "HEAD"), []byte("ref: refs/other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := same(t, dir, nil, ctx, core, "search", "retry"); strings.Contains(got.stderr, answered) {
		t.Fatalf("answered from a stamp after HEAD moved: %s%s", got.stdout, got.stderr)
	}
}

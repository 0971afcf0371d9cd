package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// contextShow is the JSON of ctx context show.
type contextShow struct {
	Session string `json:"session"`
	Objects []struct {
		ID     string `json:"id"`
		Type   string `json:"type"`
		Level  string `json:"level"`
		Pinned bool   `json:"pinned"`
		Path   string `json:"path"`
		State  string `json:"state"`
	} `json:"objects"`
}

func showContext(t *testing.T, ctx, dir string, env []string) contextShow {
	t.Helper()
	var s contextShow
	if err := json.Unmarshal([]byte(must(t, dir, env, "", ctx, "context", "show", "--json")), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestContextEndToEnd drives the working set through the built binary as
// an agent host would: a system prompt, a turn, an ls whose output names
// files (stubs), activation, reads, edits, deletion, pins, a second agent
// session, a sandbox's mount, and the errors' exit codes.
func TestContextEndToEnd(t *testing.T) {
	ctx, _ := binaries(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, base, map[string]string{"src/a.go": "package a\n", "src/b.go": "package b\n\nvar B = 1\n"})
	env := []string{"CTX_DATE=1790000000", "CTX_AGENT_SESSION=agent-1", "CTX_FILESYSTEM_ID=testfs"}
	must(t, base, env, "", ctx, "init")

	must(t, base, env, "", ctx, "context", "observe", "system", "You are careful.")
	must(t, base, env, "", ctx, "context", "observe", "prompt", "what is in src?")
	var tool struct {
		Call       struct{ ID string }
		Discovered []struct {
			ID, Path, Outcome, Note string
		}
	}
	out := must(t, base, env, "a.go\nb.go\n", ctx, "--json", "context", "observe", "tool", "bash", "--args", "ls src", "--id", "toolu_01")
	if err := json.Unmarshal([]byte(out), &tool); err != nil {
		t.Fatal(err)
	}
	if len(tool.Discovered) != 2 || tool.Discovered[0].Note != "stub" || tool.Discovered[0].Outcome != "created" ||
		tool.Discovered[0].Path != filepath.ToSlash(filepath.Join(base, "src", "a.go")) {
		t.Fatalf("ls output discovered %+v", tool.Discovered)
	}
	render := must(t, base, env, "", ctx, "context", "render")
	if !strings.HasPrefix(render, "SYSTEM_PROMPT\nYou are careful.\n") || strings.Count(render, "[unread]") != 2 ||
		!strings.Contains(render, "toolcall_ref id="+tool.Call.ID[:12]+" tool=bash status=ok") {
		t.Fatalf("render:\n%s", render)
	}

	// Activating a stub reads it; reading it again changes nothing.
	out = must(t, base, env, "", ctx, "--json", "context", "activate", "src/a.go")
	if !strings.Contains(out, `"outcome": "updated"`) {
		t.Errorf("activate of a stub: %s", out)
	}
	out = must(t, base, env, "", ctx, "--json", "context", "observe", "read", "src/a.go")
	if !strings.Contains(out, `"outcome": "unchanged"`) {
		t.Errorf("read again: %s", out)
	}
	out = must(t, base, env, "package b // from the tool\n", ctx, "--json", "context", "observe", "read", "src/b.go", "--stdin")
	if !strings.Contains(out, `"outcome": "updated"`) {
		t.Errorf("read of a stub with its content: %s", out)
	}
	render = must(t, base, env, "", ctx, "context", "render")
	if !strings.Contains(render, "ACTIVE_CONTENT id="+tool.Discovered[0].ID[:12]+"\npackage a\n") || strings.Contains(render, "[unread]") {
		t.Fatalf("render after reads:\n%s", render)
	}

	// Edits and deletions come in through sync.
	writeFiles(t, base, map[string]string{"src/a.go": "package a\n\nfunc A() {}\n"})
	if err := os.Remove(filepath.Join(base, "src", "b.go")); err != nil {
		t.Fatal(err)
	}
	out = must(t, base, env, "", ctx, "context", "sync")
	if !strings.Contains(out, "src/a.go (updated)") || !strings.Contains(out, "src/b.go (updated) [deleted]") {
		t.Errorf("sync:\n%s", out)
	}
	render = must(t, base, env, "", ctx, "context", "render")
	if !strings.Contains(render, "func A() {}") || !strings.Contains(render, "b.go file_type=go [deleted]") {
		t.Errorf("render after sync:\n%s", render)
	}

	must(t, base, env, "", ctx, "context", "pin", "toolu_01")
	if out := must(t, base, env, "", ctx, "context", "window", "--per-turn", "1", "--turns", "2"); !strings.HasPrefix(out, "window: 1 per turn, 2 turns") {
		t.Errorf("window: %s", out)
	}
	must(t, base, env, "", ctx, "context", "deactivate", tool.Discovered[0].ID[:8])
	s := showContext(t, ctx, base, env)
	if s.Session != "agent-1" || len(s.Objects) != 3 {
		t.Fatalf("show: %+v", s)
	}
	for _, o := range s.Objects {
		switch {
		case o.Type == "toolcall" && (!o.Pinned || o.Level != "active"),
			o.ID == tool.Discovered[0].ID && o.Level != "metadata":
			t.Errorf("object %+v", o)
		}
	}

	// Another agent session shares the files, not the sets.
	other := append(env[:len(env):len(env)], "CTX_AGENT_SESSION=agent-2")
	if s := showContext(t, ctx, base, other); s.Session != "agent-2" || len(s.Objects) != 0 {
		t.Errorf("second session: %+v", s)
	}
	out = must(t, base, other, "", ctx, "--json", "context", "observe", "read", "src/a.go")
	if !strings.Contains(out, `"outcome": "unchanged"`) || !strings.Contains(out, tool.Discovered[0].ID) {
		t.Errorf("the same file in another session: %s", out)
	}

	// A sandboxed agent sees /workspace; the file is the host's object.
	sandbox := append(env[:len(env):len(env)], "CTX_AGENT_SESSION=sandbox")
	must(t, base, sandbox, "", ctx, "context", "mount", "add", "/workspace", base)
	out = must(t, base, sandbox, "", ctx, "--json", "context", "observe", "read", "--cwd", "/workspace", "src/a.go")
	if !strings.Contains(out, tool.Discovered[0].ID) || !strings.Contains(out, `"path": "/workspace/src/a.go"`) {
		t.Errorf("read through the mount: %s", out)
	}
	render = must(t, base, sandbox, "", ctx, "context", "render")
	if !strings.Contains(render, "path=/workspace/src/a.go ") || strings.Contains(render, base) {
		t.Errorf("the sandbox's render shows host paths:\n%s", render)
	}

	// Errors: exit codes and JSON.
	for _, tc := range []struct {
		args []string
		code int
		id   string
	}{
		{[]string{"context", "activate", "ffff0000"}, 39, "E019"},
		{[]string{"context", "render", "--budget", "1"}, 30, "E010"},
		{[]string{"context", "observe", "read", "src/missing.go"}, 1, ""},
		{[]string{"context", "observe", "tool", "bash", "--status", "maybe"}, 2, "E015"},
		{[]string{"context", "mount", "add", "relative", "/x"}, 2, "E015"},
	} {
		r := run(t, base, env, "", ctx, append([]string{"--json"}, tc.args...)...)
		if r.code != tc.code || r.stdout != "" || !strings.Contains(r.stderr, fmt.Sprintf(`"code":%q`, tc.id)) {
			t.Errorf("%v: exit %d (want %d)\nstdout %s\nstderr %s", tc.args, r.code, tc.code, r.stdout, r.stderr)
		}
	}
	if r := run(t, base, env, "", ctx, "verify"); r.code != 0 {
		t.Errorf("verify after the working set: %d %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(base, ".ctx", "local", "workset", "sessions", "agent-1", "state.json")); err != nil {
		t.Error(err)
	}
}

// TestContextCrash kills ctx at every crash point of the working set's
// write commands and checks after each crash that the session still loads
// and renders, and that running the command again completes it.
func TestContextCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("crash sweep runs many processes")
	}
	ctx, faulty := binaries(t)
	env := []string{"CTX_DATE=1790000000", "CTX_AGENT_SESSION=a", "CTX_FILESYSTEM_ID=testfs"}
	// The state names files by their paths: every run happens in one
	// directory, restored from a snapshot before each crash.
	work := filepath.Join(t.TempDir(), "p")
	writeFiles(t, work, map[string]string{"src/a.go": "package a\n", "src/b.go": "package b\n"})
	must(t, work, env, "", ctx, "init")
	must(t, work, env, "", ctx, "context", "observe", "prompt", "hello")
	restore := func(snap string) {
		if err := os.RemoveAll(work); err != nil {
			t.Fatal(err)
		}
		copyDir(t, snap, work)
	}
	steps := []struct {
		stdin string
		args  []string
	}{
		{"", []string{"context", "observe", "read", "src/a.go"}},
		{"a.go\nb.go\n", []string{"context", "observe", "tool", "bash", "--args", "ls src", "--id", "t1"}},
		{"", []string{"context", "activate", "src/b.go"}},
		{"", []string{"context", "observe", "prompt", "next"}},
		{"", []string{"context", "pin", "t1"}},
	}
	for i, st := range steps {
		snap := filepath.Join(t.TempDir(), "snap")
		copyDir(t, work, snap)
		crashes := 0
		for n := 1; ; n++ {
			restore(snap)
			r := run(t, work, append(env, fmt.Sprintf("CTX_FAULT=*:%d", n)), st.stdin, faulty, st.args...)
			if !r.killed {
				if r.code != 0 {
					t.Fatalf("step %d without a crash: exit %d: %s", i, r.code, r.stderr)
				}
				break
			}
			crashes++
			// After the crash: the session loads and renders, and the
			// command completes when run again.
			showContext(t, ctx, work, env)
			must(t, work, env, "", ctx, "context", "render")
			must(t, work, env, st.stdin, ctx, st.args...)
			if after := showContext(t, ctx, work, env); len(after.Objects) == 0 {
				t.Fatalf("step %d, crash %d: the session is empty after the retry", i, n)
			}
		}
		if crashes == 0 {
			t.Fatalf("step %d reached no crash point", i)
		}
		t.Logf("%v: %d crash points", st.args, crashes)
		restore(snap)
		must(t, work, env, st.stdin, ctx, st.args...)
	}
}

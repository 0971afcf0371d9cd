package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/llm/llmtest"
)

// TestLLMPipeE2E runs the design's flow with the built binary and a real
// shell pipe: ctx query "Explain the Client struct" | ctx llm --commit,
// against the in-process fake llama.cpp server; then ctx log, the daily
// log and ctx edges show what was recorded.
func TestLLMPipeE2E(t *testing.T) {
	ctx, _ := binaries(t)
	dir := t.TempDir()
	writeFiles(t, dir, llmProject)
	env := []string{"CTX_DATE=1790000000", "HOME=" + dir}
	must(t, dir, env, "", ctx, "init")
	must(t, dir, env, "", ctx, "add", "code", "-q")
	srv := llmtest.New(t, llmtest.Reply{Text: llmAnswer})

	pipe := `"$CTX" query "Explain the Client struct" | "$CTX" llm --commit --server "$SERVER"`
	r := run(t, dir, append(env, "CTX="+ctx, "SERVER="+srv.URL), "", "sh", "-c", pipe)
	if r.code != 0 {
		t.Fatalf("pipe: exit %d\n%s", r.code, r.stderr)
	}
	if r.stdout != llmAnswer {
		t.Errorf("stdout %q, want the streamed response", r.stdout)
	}
	if !strings.Contains(r.stderr, "[main ") || !strings.Contains(r.stderr, "llm: Explain the Client struct") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || !bytes.Contains(reqs[0].Body, []byte(`"stream":true`)) || !bytes.Contains(reqs[0].Body, []byte(`## Task\n\nExplain the Client struct`)) {
		t.Fatalf("requests: %d", len(reqs))
	}

	log := must(t, dir, env, "", ctx, "log", "-n", "1")
	for _, s := range []string{"llm: Explain the Client struct", "observations/llm-explain-the-client-struct-", "mentions file:net/client.go", "mentions item:example.com/netlib/net.Client"} {
		if !strings.Contains(log, s) {
			t.Errorf("ctx log lacks %q:\n%s", s, log)
		}
	}
	day := time.Unix(1790000000, 0).UTC().Format("2006-01-02")
	daily, err := os.ReadFile(filepath.Join(dir, ".ctx", "narrative", "log", day+".md"))
	if err != nil {
		t.Fatal(err)
	}
	var id string
	for _, line := range strings.Split(string(daily), "\n") {
		if _, rest, ok := strings.Cut(line, " llm ["); ok {
			id, _, _ = strings.Cut(rest, "]")
		}
	}
	if id == "" || !strings.Contains(string(daily), "observation ["+id+"]") {
		t.Fatalf("daily log:\n%s", daily)
	}
	edges := squash(must(t, dir, env, "", ctx, "edges", id))
	for _, s := range []string{"-> mentions file:net/client.go [llm, medium", "-> mentions file:retry/backoff.go [llm, medium", "-> derived_from commit:"} {
		if !strings.Contains(edges, s) {
			t.Errorf("ctx edges lacks %q:\n%s", s, edges)
		}
	}
	must(t, dir, env, "", ctx, "verify")

	// Standard input that is not a pipe (here /dev/null) is never read:
	// without --pack or --query that is a usage error.
	cmd := exec.Command(ctx, "llm", "--server", srv.URL)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil || cmd.ProcessState.ExitCode() != 2 || !strings.Contains(stderr.String(), "no prompt pack") {
		t.Errorf("ctx llm < /dev/null: %v\n%s", err, stderr.String())
	}
}

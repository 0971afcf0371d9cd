package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/llm/llmtest"
)

// llmProject is a small Go project with a Client struct.
var llmProject = map[string]string{
	"go.mod": "module example.com/netlib\n\ngo 1.22\n",
	"net/client.go": `package net

import "example.com/netlib/retry"

// Client dials a server and retries with backoff.
type Client struct {
	Addr    string
	Backoff retry.Backoff
}

// Connect dials Addr, waiting retry.NextDelay between attempts.
func (c *Client) Connect() error { return nil }
`,
	"retry/backoff.go": `package retry

// Backoff says how long to wait between attempts.
type Backoff struct{ Base int }

// NextDelay is the delay before attempt n.
func NextDelay(n int) int { return n * 2 }
`,
}

const llmAnswer = "The `Client` struct in `net/client.go` holds the server's `Addr` and a `retry.Backoff`.\n\n" +
	"```go\nc := &net.Client{Addr: \"db:5432\"}\nerr := c.Connect()\n```\n\n" +
	"Decision: keep the backoff policy in `retry/backoff.go`.\n"

// ctxIn runs ctx in-process in dir with stdin (nil: none) and extra
// environment variables; CTX_DATE is fixed.
func ctxIn(t *testing.T, dir string, stdin *string, env map[string]string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	e := Env{Stdout: &out, Stderr: &errb, Wd: dir, Getenv: func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		if k == "CTX_DATE" {
			return "1790000000"
		}
		return ""
	}}
	if stdin != nil {
		e.Stdin = strings.NewReader(*stdin)
	}
	code = Main(context.Background(), args, e)
	return out.String(), errb.String(), code
}

// ctxOK runs ctx and fails the test unless it exits 0.
func ctxOK(t *testing.T, dir string, stdin *string, args ...string) string {
	t.Helper()
	out, errs, code := ctxIn(t, dir, stdin, nil, args...)
	if code != 0 {
		t.Fatalf("ctx %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// llmStore makes a project with its code ingested.
func llmStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, llmProject)
	ctxOK(t, dir, nil, "init")
	ctxOK(t, dir, nil, "add", "code", "-q")
	return dir
}

// snapshot is what a store holds that a command could change: its files
// (without the index and local state) and their contents.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	root := filepath.Join(dir, ".ctx")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel == "index" || rel == "local" {
				return fs.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(t *testing.T, before, after map[string]string) {
	t.Helper()
	var diff []string
	for k, v := range after {
		if w, ok := before[k]; !ok || w != v {
			diff = append(diff, "changed or new: "+k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			diff = append(diff, "removed: "+k)
		}
	}
	sort.Strings(diff)
	if len(diff) > 0 {
		t.Errorf("the store changed:\n%s", strings.Join(diff, "\n"))
	}
}

func TestLLMCommit(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"llamacpp stream", nil},
		{"llamacpp whole", []string{"--no-stream"}},
		{"openai stream", []string{"--api", "openai", "--model", "gpt-test"}},
		{"openai whole", []string{"--api", "openai", "--model", "gpt-test", "--no-stream"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := llmStore(t)
			srv := llmtest.New(t, llmtest.Reply{Text: llmAnswer})
			pack := ctxOK(t, dir, nil, "query", "Explain the Client struct")
			args := append([]string{"llm", "--commit", "--server", srv.URL}, tc.args...)
			out, errs, code := ctxIn(t, dir, &pack, nil, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if out != llmAnswer {
				t.Errorf("stdout %q, want the response alone", out)
			}
			for _, s := range []string{"ctx: llm: ", "1 code block, 1 decision, 4 mentions", "[main ", "] llm: Explain the Client struct", "ctx: note "} {
				if !strings.Contains(errs, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errs)
				}
			}
			// The request carried the pack: the task and the code.
			body := string(srv.Requests()[0].Body)
			for _, s := range []string{`## Task\n\nExplain the Client struct\n\n## Retrieved Context`, `type Client struct {`, `## Response`} {
				if !strings.Contains(body, s) {
					t.Errorf("the request lacks %q:\n%.600s", s, body)
				}
			}
			checkRecorded(t, dir)
		})
	}
}

// checkRecorded checks what ctx llm --commit left: a commit with the
// note, the daily log's lines, the edges.
func checkRecorded(t *testing.T, dir string) {
	t.Helper()
	log := ctxOK(t, dir, nil, "log", "-n", "1")
	for _, s := range []string{"llm: Explain the Client struct", "mentions file:net/client.go", "mentions item:example.com/netlib/net.Client", "derived_from commit:"} {
		if !strings.Contains(log, s) {
			t.Errorf("ctx log lacks %q:\n%s", s, log)
		}
	}
	var notes []struct {
		ID    string   `json:"id"`
		Title string   `json:"title"`
		Tags  []string `json:"tags"`
	}
	if err := json.Unmarshal([]byte(ctxOK(t, dir, nil, "--json", "list", "-t", "llm")), &notes); err != nil || len(notes) != 1 {
		t.Fatalf("notes tagged llm: %+v, %v", notes, err)
	}
	id := notes[0].ID
	if notes[0].Title != "LLM: Explain the Client struct" {
		t.Errorf("note title %q", notes[0].Title)
	}
	day := time.Unix(1790000000, 0).UTC().Format("2006-01-02")
	daily, err := os.ReadFile(filepath.Join(dir, ".ctx", "narrative", "log", day+".md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(daily), "llm ["+id+"]") || !strings.Contains(string(daily), `1 decision ("keep the backoff policy in`) {
		t.Errorf("daily log:\n%s", daily)
	}
	edges := squash(ctxOK(t, dir, nil, "edges", id))
	for _, s := range []string{"-> mentions file:net/client.go [llm, medium", "-> mentions file:retry/backoff.go [llm, medium", "-> mentions item:example.com/netlib/net.Client \"struct at net/client.go:6\" [llm, low", "-> mentions item:example.com/netlib/retry.Backoff \"struct at retry/backoff.go:4\" [llm, low", "-> derived_from commit:"} {
		if !strings.Contains(edges, s) {
			t.Errorf("ctx edges %s lacks %q:\n%s", id, s, edges)
		}
	}
	if st := ctxOK(t, dir, nil, "status"); strings.Contains(st, "modified") || strings.Contains(st, "new:") {
		t.Errorf("narrative left uncommitted:\n%s", st)
	}
	ctxOK(t, dir, nil, "verify")
}

func TestLLMJSON(t *testing.T) {
	dir := llmStore(t)
	srv := llmtest.New(t, llmtest.Reply{Text: llmAnswer})
	out := ctxOK(t, dir, nil, "--json", "llm", "--server", srv.URL, "--query", "Explain the Client struct", "--commit")
	var res struct {
		Endpoint string `json:"endpoint"`
		API      string `json:"api"`
		Prompt   struct {
			Task   string `json:"task"`
			Tokens int    `json:"tokens"`
		} `json:"prompt"`
		Cache struct {
			Slot int `json:"slot"`
		} `json:"cache"`
		Response string `json:"response"`
		Usage    struct {
			Reported     bool `json:"reported"`
			PromptTokens int  `json:"prompt_tokens"`
			CachedTokens int  `json:"cached_tokens"`
			NewTokens    int  `json:"new_tokens"`
		} `json:"usage"`
		Timings struct {
			PromptMS float64 `json:"prompt_ms"`
		} `json:"timings"`
		Blob       string            `json:"blob"`
		Stored     bool              `json:"stored"`
		CodeBlocks []json.RawMessage `json:"code_blocks"`
		Decisions  []string          `json:"decisions"`
		Mentions   []struct {
			Text       string `json:"text"`
			Confidence string `json:"confidence"`
		} `json:"mentions"`
		Recorded struct {
			Note   string            `json:"note"`
			Edges  []json.RawMessage `json:"edges"`
			Commit struct {
				ID string `json:"id"`
			} `json:"commit"`
			LogLine string `json:"log_line"`
		} `json:"recorded"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if res.Endpoint != srv.URL+"/completion" || res.API != "llamacpp" || res.Prompt.Task != "Explain the Client struct" || res.Prompt.Tokens == 0 {
		t.Errorf("exchange: %+v", res)
	}
	if res.Response != llmAnswer || !res.Usage.Reported || res.Usage.PromptTokens == 0 || res.Usage.NewTokens != res.Usage.PromptTokens-res.Usage.CachedTokens || res.Timings.PromptMS == 0 {
		t.Errorf("response: %+v", res)
	}
	if !res.Stored || len(res.Blob) != 64 || len(res.CodeBlocks) != 1 || len(res.Decisions) != 1 || len(res.Mentions) != 4 {
		t.Errorf("observation: %+v", res)
	}
	if res.Recorded.Note == "" || len(res.Recorded.Edges) != 5 || res.Recorded.Commit.ID == "" || !strings.HasPrefix(res.Recorded.LogLine, "llm [") {
		t.Errorf("recorded: %+v", res.Recorded)
	}
	if got := ctxOK(t, dir, nil, "cat-object", "-p", res.Blob); got != llmAnswer {
		t.Errorf("blob %s: %q", res.Blob, got)
	}
}

// Without --commit nothing is written but the prefix-cache state; the
// second request goes to the slot that holds the shared prefix.
func TestLLMWithoutCommit(t *testing.T) {
	dir := llmStore(t)
	srv := llmtest.New(t, llmtest.Reply{Text: llmAnswer})
	pack := ctxOK(t, dir, nil, "query", "Explain the Client struct")
	before := snapshot(t, dir)
	out := ctxOK(t, dir, &pack, "llm", "--server", srv.URL)
	if out != llmAnswer {
		t.Errorf("stdout %q", out)
	}
	sameSnapshot(t, before, snapshot(t, dir))
	state, err := os.ReadFile(filepath.Join(dir, ".ctx", "local", "llm-cache"))
	if err != nil || !strings.Contains(string(state), `"server": "`+srv.URL+`/completion"`) {
		t.Fatalf("state %s: %v", state, err)
	}
	var res struct {
		Cache struct {
			Slot     int `json:"slot"`
			Sections int `json:"shared_sections"`
		} `json:"cache"`
		Usage struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"usage"`
		Stored   bool            `json:"stored"`
		Recorded json.RawMessage `json:"recorded"`
	}
	pack2 := ctxOK(t, dir, nil, "query", "Explain the Client struct and its Connect method")
	if err := json.Unmarshal([]byte(ctxOK(t, dir, &pack2, "--json", "llm", "--server", srv.URL)), &res); err != nil {
		t.Fatal(err)
	}
	if res.Cache.Slot != 0 || res.Cache.Sections < 1 || res.Usage.CachedTokens == 0 || res.Stored || res.Recorded != nil {
		t.Errorf("second request: %+v", res)
	}
	sameSnapshot(t, before, snapshot(t, dir))
}

// Every failure exits non-zero with E020 (or E015 for bad input), says
// what to do, and records nothing.
func TestLLMFailures(t *testing.T) {
	dir := llmStore(t)
	pack := ctxOK(t, dir, nil, "query", "Explain the Client struct")
	empty := ""
	tests := []struct {
		name    string
		replies []llmtest.Reply
		down    bool
		stdin   *string
		env     map[string]string
		args    []string
		exit    int
		stderr  []string
	}{
		{name: "server down", down: true, stdin: &pack, exit: 40, stderr: []string{"E020 LLMRequestFailed", "connection refused", "(4 attempts)", "hint: start the model server"}},
		{name: "500", replies: []llmtest.Reply{{Status: 500, Message: "model not loaded"}}, stdin: &pack, exit: 40, stderr: []string{"HTTP 500 Internal Server Error: model not loaded", "hint: the server refused"}},
		{name: "malformed json", replies: []llmtest.Reply{{Raw: "<html>bad gateway</html>", ContentType: "text/html"}}, stdin: &pack, args: []string{"--no-stream"}, exit: 40, stderr: []string{"malformed response", "hint: the response was cut off or not in the API's format"}},
		{name: "stream cut off", replies: []llmtest.Reply{{Text: llmAnswer, CutAfter: 4}}, stdin: &pack, exit: 40, stderr: []string{"truncated response", "stop: true"}},
		{name: "chat stream cut off", replies: []llmtest.Reply{{Text: llmAnswer, CutAfter: 4}}, stdin: &pack, args: []string{"--api", "openai"}, exit: 40, stderr: []string{"truncated response", "[DONE]"}},
		{name: "timeout", replies: []llmtest.Reply{{Text: "late", Delay: 3 * time.Second}}, stdin: &pack, args: []string{"--timeout", "200ms"}, exit: 40, stderr: []string{"timed out", "nothing received for 200ms", "raise --timeout"}},
		{name: "no pack", exit: 2, stderr: []string{"E015", "no prompt pack: pipe one in"}},
		{name: "empty pack", stdin: &empty, exit: 2, stderr: []string{"E015", "the prompt pack is empty", "hint: pipe a prompt pack in"}},
		{name: "pack and query", args: []string{"--pack", "x.json", "--query", "q"}, exit: 2, stderr: []string{"--pack or --query, not both"}},
		{name: "missing pack file", args: []string{"--pack", "nosuch.json"}, exit: 2, stderr: []string{"--pack:", "no such file"}},
		{name: "bad api", stdin: &pack, args: []string{"--api", "grpc"}, exit: 2, stderr: []string{"--api grpc: want llamacpp or openai"}},
		{name: "bad temperature", stdin: &pack, args: []string{"--temperature", "3"}, exit: 2, stderr: []string{"--temperature 3"}},
		{name: "message without commit", stdin: &pack, args: []string{"-m", "x"}, exit: 2, stderr: []string{"-m goes with --commit"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			server := "http://127.0.0.1:1"
			if tc.down {
				server = closedURL(t)
			} else if tc.replies != nil {
				server = llmtest.New(t, tc.replies...).URL
			}
			before := snapshot(t, dir)
			cache, _ := os.ReadFile(filepath.Join(dir, ".ctx", "local", "llm-cache"))
			args := append([]string{"llm", "--commit", "--server", server}, tc.args...)
			if tc.name == "message without commit" {
				args = append([]string{"llm", "--server", server}, tc.args...)
			}
			_, errs, code := ctxIn(t, dir, tc.stdin, tc.env, args...)
			if code != tc.exit {
				t.Fatalf("exit %d, want %d:\n%s", code, tc.exit, errs)
			}
			for _, s := range tc.stderr {
				if !strings.Contains(errs, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errs)
				}
			}
			sameSnapshot(t, before, snapshot(t, dir))
			if after, _ := os.ReadFile(filepath.Join(dir, ".ctx", "local", "llm-cache")); string(after) != string(cache) {
				t.Error("a failed request changed the prefix-cache state")
			}
		})
	}
}

// A 429 is retried after the server's Retry-After, then the response is
// recorded once.
func TestLLMRetry(t *testing.T) {
	dir := llmStore(t)
	srv := llmtest.New(t, llmtest.Reply{Status: 429, Message: "busy", RetryAfter: "0"}, llmtest.Reply{Text: llmAnswer})
	out := ctxOK(t, dir, nil, "--json", "llm", "--commit", "--server", srv.URL, "--query", "Explain the Client struct")
	var res struct {
		Attempts int `json:"attempts"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Attempts != 2 || len(srv.Requests()) != 2 {
		t.Fatalf("attempts %d, requests %d, %v", res.Attempts, len(srv.Requests()), err)
	}
	checkRecorded(t, dir)
}

// In a staging session the response is a step of the session, and main
// stays put until the session is compacted.
func TestLLMSession(t *testing.T) {
	dir := llmStore(t)
	srv := llmtest.New(t, llmtest.Reply{Text: llmAnswer})
	main := ctxOK(t, dir, nil, "rev-parse", "main")
	ctxOK(t, dir, nil, "stage", "start", "Explain the client", "--id", "explain")
	pack := ctxOK(t, dir, nil, "query", "Explain the Client struct")
	_, errs, code := ctxIn(t, dir, &pack, nil, "llm", "--commit", "--server", srv.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "ctx: session explain: step ") || !strings.Contains(errs, "[session/explain ") {
		t.Errorf("stderr:\n%s", errs)
	}
	if got := ctxOK(t, dir, nil, "rev-parse", "main"); got != main {
		t.Error("main moved during the session")
	}
	if st := ctxOK(t, dir, nil, "stage", "status"); !strings.Contains(st, "note") {
		t.Errorf("stage status:\n%s", st)
	}
	ctxOK(t, dir, nil, "stage", "compact", "-m", "explained")
	checkRecordedEdges(t, dir)
}

// checkRecordedEdges checks the file mentions of the note after a
// compaction (which keeps low-confidence edges only where a decision or
// the task is an end).
func checkRecordedEdges(t *testing.T, dir string) {
	t.Helper()
	var notes []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(ctxOK(t, dir, nil, "--json", "list", "-t", "llm")), &notes); err != nil || len(notes) != 1 {
		t.Fatalf("notes: %v", err)
	}
	edges := squash(ctxOK(t, dir, nil, "edges", notes[0].ID))
	if !strings.Contains(edges, "-> mentions file:net/client.go [llm, medium") {
		t.Errorf("edges after compaction:\n%s", edges)
	}
}

// The API key comes from the variable config.toml names, goes to the
// server as a bearer token, and is written nowhere in the store.
func TestLLMAPIKey(t *testing.T) {
	dir := llmStore(t)
	cfg := filepath.Join(dir, ".ctx", "config.toml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte(`api_key_env = ""`), []byte(`api_key_env = "TEST_LLM_KEY"`), 1)
	if err := os.WriteFile(cfg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t, llmtest.Reply{Text: llmAnswer})
	const key = "sk-test-0123456789abcdef"
	_, errs, code := ctxIn(t, dir, nil, nil, "llm", "--commit", "--server", srv.URL, "--query", "Explain the Client struct")
	if code != 2 || !strings.Contains(errs, "api_key_env names TEST_LLM_KEY, which is not set") {
		t.Fatalf("without the variable: exit %d\n%s", code, errs)
	}
	if len(srv.Requests()) != 0 {
		t.Fatal("a request was sent without the key")
	}
	_, errs, code = ctxIn(t, dir, nil, map[string]string{"TEST_LLM_KEY": key}, "llm", "--commit", "--server", srv.URL, "--query", "Explain the Client struct")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer "+key {
		t.Errorf("Authorization %q", got)
	}
	err = filepath.WalkDir(filepath.Join(dir, ".ctx"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(key)) {
			t.Errorf("%s holds the key", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// squash collapses runs of white space, which aligns columns.
func squash(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}

func closedURL(t *testing.T) string {
	t.Helper()
	srv := llmtest.New(t)
	u := srv.URL
	srv.Close()
	return u
}

package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/ctx-dev/ctx/index"
	"github.com/ctx-dev/ctx/workset"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/gc"
	"github.com/ctx-dev/ctx/internal/lockfile"
	"github.com/ctx-dev/ctx/repo"
)

// fixture is a small Go project.
var fixture = map[string]string{
	"go.mod": "module example.com/demo\n\ngo 1.22\n",
	"retry/retry.go": `package retry

// Backoff calls f until it succeeds, waiting longer between tries.
func Backoff(f func() error) error { return f() }
`,
	"main.go": `package main

import "example.com/demo/retry"

func main() { _ = retry.Backoff(func() error { return nil }) }
`,
}

// newStore makes a store of the fixture with its code ingested, in a
// temporary directory, and returns its .ctx directory.
func newStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range fixture {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := repo.Init(dir, repo.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := r.Lock(context.Background(), repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Unlock()
	if _, err := w.Ingest(context.Background(), repo.IngestOptions{Semantics: true, Wd: dir}); err != nil {
		t.Fatal(err)
	}
	return r.Root
}

type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Logf("server: %s", bytes.TrimSpace(b))
	return len(b), nil
}

func TestToolsList(t *testing.T) {
	cs := connect(t, newStore(t))
	var res toolList
	cs.result("tools/list", nil, &res)
	want := map[string][]string{
		ToolQuery: nil, ToolSearch: {"query"}, ToolRemember: {"content"}, ToolRecall: {"query"},
		ToolRelate: {"from", "label", "to"}, ToolShow: {"id"}, ToolStatus: nil, ToolStageStart: {"task"}, ToolStageCompact: nil,
		ToolActivate: {"ids"}, ToolDeactivate: {"ids"},
	}
	got := map[string]bool{}
	for _, tool := range res.Tools {
		got[tool.Name] = true
		req, ok := want[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %s", tool.Name)
			continue
		}
		b := tool.InputSchema
		var schema struct {
			Type     string   `json:"type"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(b, &schema); err != nil || schema.Type != "object" {
			t.Errorf("%s: input schema %s: want an object schema", tool.Name, b)
		}
		if strings.Join(schema.Required, ",") != strings.Join(req, ",") {
			t.Errorf("%s: required %v, want %v", tool.Name, schema.Required, req)
		}
		if tool.Description == "" {
			t.Errorf("%s: no description", tool.Name)
		}
	}
	for name := range want {
		if !got[name] {
			t.Errorf("tool %s missing", name)
		}
	}
}

// TestTools calls every tool through the server, in order: each step may
// use what the ones before it wrote.
func TestTools(t *testing.T) {
	cs := connect(t, newStore(t))
	var decision, note string
	steps := []struct {
		name    string
		tool    string
		args    func() map[string]any
		isError bool
		check   func(t *testing.T, text string)
	}{
		{"remember decision", ToolRemember, func() map[string]any {
			return map[string]any{"type": "decision", "content": "Retry with exponential backoff\n\nThe upstream API drops one call in fifty.", "tags": []string{"tier:reference", "area:net"}}
		}, false, func(t *testing.T, text string) {
			var res RememberResult
			mustJSON(t, text, &res)
			if res.Node.Type != "decision" || res.Node.Title != "Retry with exponential backoff" || !res.Node.Active {
				t.Errorf("node %+v", res.Node)
			}
			decision = string(res.Node.ID)
		}},
		{"remember note redacts", ToolRemember, func() map[string]any {
			return map[string]any{"content": "Deploy key seen in CI logs\n\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}
		}, false, func(t *testing.T, text string) {
			var res RememberResult
			mustJSON(t, text, &res)
			if res.Node.Type != "observation" || len(res.Redacted) == 0 || strings.Contains(res.Node.Content, "wJalrXUtnFEMI") {
				t.Errorf("secret not redacted: %s", text)
			}
			note = string(res.Node.ID)
		}},
		{"remember empty", ToolRemember, func() map[string]any { return map[string]any{"content": "  "} }, true, contains("empty")},
		{"remember bad type", ToolRemember, func() map[string]any { return map[string]any{"type": "poem", "content": "x"} }, true, contains("poem")},
		{"remember missing content", ToolRemember, func() map[string]any { return map[string]any{"type": "fact"} }, true, contains("content")},
		{"remember wrong type of argument", ToolRemember, func() map[string]any { return map[string]any{"content": 7} }, true, contains("content")},
		{"recall filter", ToolRecall, func() map[string]any { return map[string]any{"query": "type:decision AND tag:area:net"} }, false, func(t *testing.T, text string) {
			var res RecallResult
			mustJSON(t, text, &res)
			if res.Matched != 1 || len(res.Nodes) != 1 || string(res.Nodes[0].ID) != decision || res.Note != "" {
				t.Errorf("recall: %s", text)
			}
		}},
		{"recall words", ToolRecall, func() map[string]any { return map[string]any{"query": "deploy key"} }, false, func(t *testing.T, text string) {
			var res RecallResult
			mustJSON(t, text, &res)
			if len(res.Nodes) != 1 || string(res.Nodes[0].ID) != note || res.Note == "" {
				t.Errorf("recall: %s", text)
			}
		}},
		{"recall unknown id", ToolRecall, func() map[string]any { return map[string]any{"query": "from:zzzzzzzz"} }, true, nil},
		{"search", ToolSearch, func() map[string]any { return map[string]any{"query": "backoff"} }, false, func(t *testing.T, text string) {
			var res index.Result
			mustJSON(t, text, &res)
			var code, narrative bool
			for _, h := range res.Hits {
				code = code || h.Path == "retry/retry.go"
				narrative = narrative || strings.Contains(h.Node, decision)
			}
			if !code || !narrative {
				t.Errorf("search backoff: want the code and the decision: %s", text)
			}
		}},
		{"search empty", ToolSearch, func() map[string]any { return map[string]any{"query": ""} }, true, contains("empty")},
		{"search filters only", ToolSearch, func() map[string]any { return map[string]any{"query": "type:decision -retry"} }, true, contains("no word to search for")},
		{"query", ToolQuery, func() map[string]any { return map[string]any{"query": "how do we retry calls?", "budget": 3000} }, false, func(t *testing.T, text string) {
			if !strings.Contains(text, "# Task") || !strings.Contains(text, "Backoff") {
				t.Errorf("query pack:\n%s", text)
			}
		}},
		{"query json where", ToolQuery, func() map[string]any { return map[string]any{"where": "type:decision", "format": "json"} }, false, func(t *testing.T, text string) {
			var v map[string]any
			mustJSON(t, text, &v)
			if !strings.Contains(text, decision) {
				t.Errorf("query --where type:decision lacks %s:\n%s", decision, text)
			}
		}},
		{"query nothing", ToolQuery, func() map[string]any { return map[string]any{} }, true, contains("query")},
		{"query bad where", ToolQuery, func() map[string]any { return map[string]any{"where": "type:"} }, true, contains("where")},
		{"query bad format", ToolQuery, func() map[string]any { return map[string]any{"query": "x", "format": "pdf"} }, true, contains("pdf")},
		{"relate", ToolRelate, func() map[string]any {
			return map[string]any{"from": decision, "label": "RELATES_TO", "to": "retry/retry.go", "evidence": "the decision is about this file"}
		}, false, contains(`"added"`)},
		{"relate again is present", ToolRelate, func() map[string]any {
			return map[string]any{"from": decision, "label": "relates-to", "to": "retry/retry.go"}
		}, false, contains(`"present"`)},
		{"relate bad label", ToolRelate, func() map[string]any { return map[string]any{"from": decision, "label": "LIKES", "to": note} }, true, contains("LIKES")},
		{"relate self", ToolRelate, func() map[string]any { return map[string]any{"from": decision, "label": "RELATES_TO", "to": decision} }, true, contains("same node")},
		{"relate unknown end", ToolRelate, func() map[string]any {
			return map[string]any{"from": decision, "label": "RELATES_TO", "to": "no/such/file.go"}
		}, true, nil},
		{"show", ToolShow, func() map[string]any { return map[string]any{"id": "[decision:" + decision + "]"} }, false, func(t *testing.T, text string) {
			var n Node
			mustJSON(t, text, &n)
			if string(n.ID) != decision || n.Tier != "reference" || !strings.HasPrefix(n.File, ".ctx/narrative/") {
				t.Errorf("show: %s", text)
			}
		}},
		{"show with edges", ToolShow, func() map[string]any { return map[string]any{"id": decision, "with_edges": true} }, false, func(t *testing.T, text string) {
			var res struct {
				ID    string `json:"id"`
				Edges []struct {
					Direction string `json:"direction"`
					Label     string `json:"label"`
					To        struct {
						Key string `json:"key"`
					} `json:"to"`
				} `json:"edges"`
			}
			mustJSON(t, text, &res)
			if res.ID != decision || len(res.Edges) != 1 || res.Edges[0].Direction != "out" || res.Edges[0].To.Key != "retry/retry.go" {
				t.Errorf("show with edges: %s", text)
			}
		}},
		{"show unknown", ToolShow, func() map[string]any { return map[string]any{"id": "zzzzzzzz"} }, true, nil},
		{"status", ToolStatus, func() map[string]any { return nil }, false, func(t *testing.T, text string) {
			var st map[string]any
			mustJSON(t, text, &st)
			if st["nodes"] == nil || st["index"] == nil {
				t.Errorf("status: %s", text)
			}
		}},
		{"stage compact without session", ToolStageCompact, func() map[string]any { return nil }, true, contains("no session")},
		{"stage start", ToolStageStart, func() map[string]any { return map[string]any{"task": "tune retries", "id": "tune"} }, false, contains(`"tune"`)},
		{"remember in session records a step", ToolRemember, func() map[string]any {
			return map[string]any{"type": "fact", "content": "Three retries are enough"}
		}, false, func(t *testing.T, text string) {
			var res RememberResult
			mustJSON(t, text, &res)
			if res.Step == nil || res.Step.Session != "tune" {
				t.Errorf("no step recorded: %s", text)
			}
		}},
		{"stage compact", ToolStageCompact, func() map[string]any { return map[string]any{"message": "Tune retries"} }, false, contains(`"tune"`)},
		{"status after compact", ToolStatus, func() map[string]any { return nil }, false, func(t *testing.T, text string) {
			if strings.Contains(text, `"session": "tune"`) {
				t.Errorf("session still active: %s", text)
			}
		}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			text, isErr := call(t, cs, st.tool, st.args())
			if isErr != st.isError {
				t.Fatalf("isError %v, want %v: %s", isErr, st.isError, text)
			}
			if st.check != nil {
				st.check(t, text)
			}
		})
	}
}

func contains(s string) func(*testing.T, string) {
	return func(t *testing.T, text string) {
		t.Helper()
		if !strings.Contains(text, s) {
			t.Errorf("result lacks %q:\n%s", s, text)
		}
	}
}

func mustJSON(t *testing.T, text string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(text), v); err != nil {
		t.Fatalf("result is not JSON (%v):\n%s", err, text)
	}
}

func TestUnknownTool(t *testing.T) {
	cs := connect(t, newStore(t))
	_, err := cs.rpc("tools/call", map[string]any{"name": "no_such_tool", "arguments": map[string]any{}})
	if err == nil || err.Code != codeInvalidParams || !strings.Contains(err.Message, "unknown tool") {
		t.Fatalf("unknown tool: err %v, want a JSON-RPC error %d", err, codeInvalidParams)
	}
}

func TestResources(t *testing.T) {
	root := newStore(t)
	cs := connect(t, root)
	text, isErr := call(t, cs, ToolRemember, map[string]any{"type": "decision", "content": "Use the flat-file index"})
	if isErr {
		t.Fatal(text)
	}
	var rem RememberResult
	mustJSON(t, text, &rem)
	var list struct {
		Resources []resource `json:"resources"`
	}
	cs.result("resources/list", nil, &list)
	nodeURI := NarrativeScheme + strings.TrimPrefix(rem.Node.File, ".ctx/narrative/")
	var found bool
	for _, r := range list.Resources {
		found = found || r.URI == nodeURI
		if r.MIMEType != "text/markdown" {
			t.Errorf("%s: MIME type %q", r.URI, r.MIMEType)
		}
	}
	if !found {
		t.Fatalf("resources/list lacks %s (the remembered node's file)", nodeURI)
	}
	var res struct {
		Contents []resourceContents `json:"contents"`
	}
	cs.result("resources/read", map[string]any{"uri": nodeURI}, &res)
	if len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "Use the flat-file index") {
		t.Fatalf("read %s: %+v", nodeURI, res.Contents)
	}
	// Symbolic links out of the narrative directory are not followed.
	if err := os.Symlink(filepath.Dir(root), filepath.Join(root, "narrative", "leak")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "config.toml"), filepath.Join(root, "narrative", "leak.md")); err != nil {
		t.Fatal(err)
	}
	for _, uri := range []string{
		NarrativeScheme + "leak/go.mod", NarrativeScheme + "leak.md", NarrativeScheme + "leak",
		NarrativeScheme + "../config.toml", NarrativeScheme + "%2e%2e/config.toml", NarrativeScheme + "/etc/passwd",
		NarrativeScheme + "no-such.md", NarrativeScheme, "file:///etc/passwd", NarrativeScheme + "a/../../x",
	} {
		if _, err := cs.rpc("resources/read", map[string]any{"uri": uri}); err == nil || err.Code != codeInvalidParams {
			t.Errorf("read %s: error %v, want %d", uri, err, codeInvalidParams)
		}
	}
}

// TestServeStdio drives the stdio transport with raw lines: every
// request is answered, bad lines with JSON-RPC errors, and the server
// outlives them.
func TestServeStdio(t *testing.T) {
	s, err := New(Options{Root: newStore(t), Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`garbage{`,
		`[{"jsonrpc":"2.0","id":20,"method":"ping"}]`,
		`{"jsonrpc":"1.0","id":21,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
		`"just a string"`,
		``,
		`{"jsonrpc":"2.0","id":2,"method":"no/such/method"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":"not an object"}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"status","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"seven","method":"resources/read","params":{"uri":"ctx://narrative/../../etc/passwd"}}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Serve(ctx, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	type reply struct {
		ID     any             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	byID := map[string]reply{}
	var nullIDs []int
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r reply
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("output line is not JSON: %q", line)
		}
		if r.ID == nil {
			if r.Error == nil {
				t.Errorf("null id without error: %s", line)
				continue
			}
			nullIDs = append(nullIDs, r.Error.Code)
			continue
		}
		byID[strings.Trim(string(mustMarshal(r.ID)), `"`)] = r
	}
	want := map[string]int{"1": 0, "21": -32600, "2": -32601, "3": -32602, "4": -32602, "5": 0, "6": 0, "seven": codeInvalidParams}
	for id, code := range want {
		r, ok := byID[id]
		switch {
		case !ok:
			t.Errorf("request %s: no answer", id)
		case code == 0 && r.Error != nil:
			t.Errorf("request %s: error %d, want a result", id, r.Error.Code)
		case code != 0 && (r.Error == nil || r.Error.Code != code):
			t.Errorf("request %s: %+v, want error %d", id, r, code)
		}
	}
	// garbage{ (parse error), the batch, id true and the string.
	if len(nullIDs) != 4 || nullIDs[0] != codeParseError {
		t.Errorf("errors with id null: %v, want 4 starting with %d", nullIDs, codeParseError)
	}
}

func mustMarshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// TestLockPerCall checks that a writing tool waits for the writer lock
// only as long as allowed and fails as a tool (isError) when another
// writer holds it, and that the server holds no lock between calls.
func TestLockPerCall(t *testing.T) {
	root := newStore(t)
	cs := connect(t, root)
	if text, isErr := call(t, cs, ToolRemember, map[string]any{"content": "first"}); isErr {
		t.Fatal(text)
	}
	// Between calls the lock is free: someone else can take it.
	r, err := repo.Open(root, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := r.Lock(context.Background(), repo.LockOptions{Command: "test"})
	if err != nil {
		t.Fatalf("the server holds the lock between calls: %v", err)
	}
	s, err := New(Options{Root: root, LockTimeout: 50 * time.Millisecond, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.remember(context.Background(), RememberInput{Content: "second"}); !errors.Is(err, lockfile.ErrLocked) || !strings.Contains(err.Error(), "(test)") {
		t.Errorf("remember under another writer's lock: %v, want a lock error", err)
	}
	if err := w.Unlock(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.remember(context.Background(), RememberInput{Content: "third"}); err != nil {
		t.Errorf("remember after the lock was released: %v", err)
	}
}

// TestToolPanic checks that a tool that panics answers an isError
// result and the server goes on.
func TestToolPanic(t *testing.T) {
	s, err := New(Options{Root: newStore(t), Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	if err := addTool(s, toolDef{Name: "boom"}, func(context.Context, StatusInput) (string, error) { panic("boom") }); err != nil {
		t.Fatal(err)
	}
	cs := startClient(t, s)
	if _, err := cs.rpc("initialize", map[string]any{"protocolVersion": "2025-06-18"}); err != nil {
		t.Fatal(err)
	}
	text, isErr := call(t, cs, "boom", nil)
	if !isErr || !strings.Contains(text, "internal error") {
		t.Errorf("panicking tool: isError %v, %q", isErr, text)
	}
	if _, isErr := call(t, cs, ToolStatus, nil); isErr {
		t.Error("the server did not go on after a panic")
	}
}

// TestServeCancelled checks that a request the client cancelled is not
// waited for at the end of the input: the server exits though the call
// is still waiting for the writer lock.
func TestServeCancelled(t *testing.T) {
	root := lockedStore(t)
	s, err := New(Options{Root: root, LockTimeout: time.Minute, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"remember","arguments":{"content":"waits for the lock"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"test"}}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Serve(ctx, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("Serve took %s: it waited for the cancelled call", d)
	}
}

// TestWorkingSet: activate and deactivate change an agent session's
// working set as ctx context activate and deactivate do: a file becomes
// active (read from disk when it was not in the set), then leaves the
// active set; another agent session is untouched; nothing named, an
// unknown id or a missing file is an isError result.
func TestWorkingSet(t *testing.T) {
	root := newStore(t)
	cs := connect(t, root)
	var res WorksetResult
	text, isErr := call(t, cs, ToolActivate, map[string]any{"ids": []string{"retry/retry.go"}, "agent": "a1"})
	if isErr {
		t.Fatalf("activate: %s", text)
	}
	mustJSON(t, text, &res)
	if res.Agent != "a1" || len(res.Changes) != 1 || !strings.HasSuffix(res.Changes[0].Path, "/retry/retry.go") {
		t.Fatalf("activate: %s", text)
	}
	ws, err := workset.Open(root, workset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	active := func(agent string) []workset.ID {
		s, err := ws.Load(agent)
		if err != nil {
			t.Fatal(err)
		}
		return s.Active
	}
	if a := active("a1"); len(a) != 1 || a[0] != res.Changes[0].ID {
		t.Fatalf("active set of a1: %v, want [%s]", a, res.Changes[0].ID)
	}
	if a := active("a2"); len(a) != 0 {
		t.Fatalf("active set of a2: %v, want none", a)
	}
	text, isErr = call(t, cs, ToolDeactivate, map[string]any{"ids": []string{res.Changes[0].ID.Short()}, "agent": "a1"})
	if isErr {
		t.Fatalf("deactivate: %s", text)
	}
	if a := active("a1"); len(a) != 0 {
		t.Fatalf("active set of a1 after deactivate: %v", a)
	}
	for _, args := range []map[string]any{
		{"ids": []string{}},
		{"ids": []string{"ffffffffffff"}},
		{"ids": []string{"no/such/file.go"}},
	} {
		if text, isErr := call(t, cs, ToolActivate, args); !isErr {
			t.Errorf("activate %v: %s, want an error", args, text)
		}
	}
}

// TestPacksMappedOnce makes many calls of a tool that reads packed
// objects: each call opens the store afresh, and all of them share one
// mapping of the pack's index (before, each call mapped it again and
// kept the mapping for the process's life).
func TestPacksMappedOnce(t *testing.T) {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip("no /proc/self/maps here")
	}
	root := newStore(t)
	r, err := repo.Open(root, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := r.Lock(context.Background(), repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := gc.Run(context.Background(), w, gc.Options{Pack: true, Now: time.Now()})
	w.Unlock()
	if err != nil || rep.Packed == nil || rep.Packed.Objects == 0 {
		t.Fatalf("gc --pack: %+v, %v", rep, err)
	}
	idx := "pack-" + rep.Packed.Name + ".idx"
	cs := connect(t, root)
	for i := range 40 {
		if text, isErr := call(t, cs, ToolQuery, map[string]any{"query": "Backoff retry"}); isErr || !strings.Contains(text, "Backoff") {
			t.Fatalf("call %d: %s", i, text)
		}
	}
	if maps, err = os.ReadFile("/proc/self/maps"); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(maps), idx); n != 1 {
		t.Errorf("after 40 calls, %s is mapped %d times, want once", idx, n)
	}
}

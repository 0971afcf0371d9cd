package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/repo"
)

// rawSession is a session driven line by line, for the tests that need
// ids and orders a well-behaved client would not send.
type rawSession struct {
	t    *testing.T
	w    *io.PipeWriter
	out  chan string
	done chan error
}

func startRaw(t *testing.T, s *Server) *rawSession {
	t.Helper()
	return startRawCtx(t, context.Background(), s)
}

// startRawCtx is startRaw with the context Serve runs under.
func startRawCtx(t *testing.T, ctx context.Context, s *Server) *rawSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	rs := &rawSession{t: t, w: inW, out: make(chan string, 100), done: make(chan error, 1)}
	go func() {
		err := s.Serve(ctx, inR, outW)
		outW.Close()
		rs.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, maxLine)
		for sc.Scan() {
			rs.out <- sc.Text()
		}
		close(rs.out)
	}()
	return rs
}

// send writes lines to the server.
func (rs *rawSession) send(lines ...string) {
	rs.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(rs.w, l+"\n"); err != nil {
			rs.t.Fatalf("writing %s: %v", l, err)
		}
	}
}

// next is the server's next line.
func (rs *rawSession) next() string {
	rs.t.Helper()
	select {
	case l, ok := <-rs.out:
		if !ok {
			rs.t.Fatal("the server's output ended")
		}
		return l
	case <-time.After(time.Minute):
		rs.t.Fatal("no line from the server in a minute")
		return ""
	}
}

// close ends the input and returns the lines the server wrote after,
// once Serve has returned.
func (rs *rawSession) close() []string {
	rs.t.Helper()
	rs.w.Close()
	var rest []string
	for l := range rs.out {
		rest = append(rest, l)
	}
	if err := <-rs.done; err != nil {
		rs.t.Errorf("Serve: %v", err)
	}
	return rest
}

// answer decodes a response line.
func answer(t *testing.T, line string) (id string, result json.RawMessage, err *rpcError) {
	t.Helper()
	var m struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if e := json.Unmarshal([]byte(line), &m); e != nil {
		t.Fatalf("server wrote %q: %v", line, e)
	}
	return string(m.ID), m.Result, m.Error
}

func newServer(t *testing.T, root string) *Server {
	t.Helper()
	s, err := New(Options{Root: root, LockTimeout: time.Minute, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestInitialize checks the version negotiation and what initialize
// says: the client's version when the server speaks it, else the
// newest; a missing version is invalid params.
func TestInitialize(t *testing.T) {
	s := newServer(t, newStore(t))
	for _, tc := range []struct {
		asked, want string
		code        int
	}{
		{"2025-11-25", "2025-11-25", 0},
		{"2025-06-18", "2025-06-18", 0},
		{"2025-03-26", "2025-03-26", 0},
		{"2024-11-05", "2024-11-05", 0},
		{"2099-01-01", protocolVersions[0], 0},
		{"", "", codeInvalidParams},
	} {
		c := startClient(t, s)
		params := map[string]any{"capabilities": map[string]any{}}
		if tc.asked != "" {
			params["protocolVersion"] = tc.asked
		}
		res, rpcErr := c.rpc("initialize", params)
		if tc.code != 0 {
			if rpcErr == nil || rpcErr.Code != tc.code {
				t.Errorf("initialize %q: %s, %v, want error %d", tc.asked, res, rpcErr, tc.code)
			}
			continue
		}
		if rpcErr != nil {
			t.Fatalf("initialize %q: %v", tc.asked, rpcErr)
		}
		var got struct {
			ProtocolVersion string                     `json:"protocolVersion"`
			Capabilities    map[string]json.RawMessage `json:"capabilities"`
			ServerInfo      struct {
				Name, Version string
			} `json:"serverInfo"`
			Instructions string `json:"instructions"`
		}
		if err := json.Unmarshal(res, &got); err != nil {
			t.Fatal(err)
		}
		if got.ProtocolVersion != tc.want {
			t.Errorf("initialize %q: version %q, want %q", tc.asked, got.ProtocolVersion, tc.want)
		}
		if string(got.Capabilities["tools"]) != `{}` || string(got.Capabilities["resources"]) != `{"listChanged":true}` || len(got.Capabilities) != 2 {
			t.Errorf("capabilities %s", mustMarshal(got.Capabilities))
		}
		if got.ServerInfo.Name != "ctx" || got.ServerInfo.Version != repo.Version || got.Instructions == "" {
			t.Errorf("initialize: %s", res)
		}
	}
}

// TestLifecycle checks the order the protocol demands: only ping before
// initialize, initialize once, and methods the server does not have
// (logging among them: it is not advertised) are method-not-found.
func TestLifecycle(t *testing.T) {
	rs := startRaw(t, newServer(t, newStore(t)))
	steps := []struct {
		line string
		code int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, codeInvalidRequest},
		{`{"jsonrpc":"2.0","id":2,"method":"ping"}`, 0},
		{`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`, 0},
		{`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`, codeInvalidRequest},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":"x"}}`, codeInvalidParams},
		{`{"jsonrpc":"2.0","id":6,"method":"resources/list","params":{"cursor":"x"}}`, codeInvalidParams},
		{`{"jsonrpc":"2.0","id":7,"method":"resources/templates/list","params":{"cursor":""}}`, codeInvalidParams},
		{`{"jsonrpc":"2.0","id":8,"method":"logging/setLevel","params":{"level":"debug"}}`, codeMethodNotFound},
		{`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":[]}`, codeInvalidParams},
		{`{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{}}`, 0},
		{`{"jsonrpc":"2.0","id":11,"method":"resources/templates/list"}`, 0},
	}
	for _, st := range steps {
		rs.send(st.line)
		_, res, err := answer(t, rs.next())
		switch {
		case st.code == 0 && err != nil:
			t.Errorf("%s: %v", st.line, err)
		case st.code != 0 && (err == nil || err.Code != st.code):
			t.Errorf("%s: result %s, error %v, want error %d", st.line, res, err, st.code)
		}
	}
	if rest := rs.close(); len(rest) != 0 {
		t.Errorf("lines after the input ended: %q", rest)
	}
}

// TestCancelledNotAnswered checks the two sides of a request in
// progress: its id is not taken again meanwhile, and once the client
// cancels it, it is never answered, while the session goes on.
func TestCancelledNotAnswered(t *testing.T) {
	root := lockedStore(t)
	rs := startRaw(t, newServer(t, root))
	rs.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	rs.next()
	// remember waits for the writer lock this test holds.
	rs.send(`{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"remember","arguments":{"content":"waits"}}}`,
		`{"jsonrpc":"2.0","id":"w","method":"tools/list"}`)
	if id, _, err := answer(t, rs.next()); id != `"w"` || err == nil || err.Code != codeInvalidRequest || !strings.Contains(err.Message, "in progress") {
		t.Fatalf("a second request with the id of one in progress: id %s, error %v", id, err)
	}
	rs.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w","reason":"test"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if id, _, err := answer(t, rs.next()); id != "2" || err != nil {
		t.Fatalf("ping after a cancellation: id %s, error %v", id, err)
	}
	// Serve returns only after the cancelled handler did: had it
	// answered, the answer would be among the last lines.
	if rest := rs.close(); len(rest) != 0 {
		t.Errorf("the cancelled request was answered: %q", rest)
	}
}

// TestListChanged checks that a tool that writes the narrative is
// followed by notifications/resources/list_changed, sent before its
// answer, and a call that leaves the files as they were is not.
func TestListChanged(t *testing.T) {
	c := connect(t, newStore(t))
	pending := func() []string {
		var got []string
		for {
			select {
			case n := <-c.notes:
				got = append(got, n)
			default:
				return got
			}
		}
	}
	if text, isErr := call(t, c, ToolRemember, map[string]any{"type": "decision", "content": "Keep one index"}); isErr {
		t.Fatal(text)
	}
	if got := pending(); len(got) != 1 || got[0] != "notifications/resources/list_changed" {
		t.Errorf("after remember: notifications %q, want one list_changed", got)
	}
	if text, isErr := call(t, c, ToolStatus, nil); isErr {
		t.Fatal(text)
	}
	if got := pending(); len(got) != 0 {
		t.Errorf("after status: notifications %q, want none", got)
	}
}

// TestServeStopping checks that the requests in progress when the
// server is stopped (its context done) are not answered: "context
// canceled" would read as the tool's failure.
func TestServeStopping(t *testing.T) {
	root := lockedStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rs := startRawCtx(t, ctx, newServer(t, root))
	rs.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	rs.next()
	rs.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"remember","arguments":{"content":"waits"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if id, _, err := answer(t, rs.next()); id != "3" || err != nil {
		t.Fatalf("ping: id %s, error %v", id, err)
	}
	// The remember call is in progress: its line was handled before the ping's.
	cancel()
	if err := <-rs.done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	rs.done <- nil // for close
	if rest := rs.close(); len(rest) != 0 {
		t.Errorf("answered after the server was stopped: %q", rest)
	}
}

// TestExactKeys checks that what runs does not depend on how a reader
// treats keys that differ only in case, or a key given twice.
func TestExactKeys(t *testing.T) {
	c := connect(t, newStore(t))
	// encoding/json alone would take "Name" for "name" (the last wins).
	text, isErr := call(t, c, "status", nil)
	if isErr {
		t.Fatal(text)
	}
	res, rpcErr := c.rpc("tools/call", map[string]any{"name": "status", "Name": "remember", "arguments": map[string]any{}})
	if rpcErr != nil {
		t.Fatal(rpcErr)
	}
	var got callToolResult
	if err := json.Unmarshal(res, &got); err != nil || got.IsError || !strings.Contains(got.Content[0].Text, `"index"`) {
		t.Fatalf("tools/call of status beside \"Name\": remember: %s", res)
	}
	select {
	case n := <-c.notes:
		t.Fatalf("notification %s: a tool wrote", n)
	default:
	}
	if _, rpcErr := c.rpc("tools/call", map[string]any{"Name": "status"}); rpcErr == nil || rpcErr.Code != codeInvalidParams {
		t.Fatalf(`tools/call with "Name" alone: %v, want unknown tool`, rpcErr)
	}
}

func TestDecodeExact(t *testing.T) {
	for _, tc := range []struct {
		line, method, id string
		response         bool
		code             int
	}{
		{line: `{"jsonrpc":"2.0","id":1,"method":"x","Method":"ping"}`, method: "x", id: "1"},
		{line: `{"jsonrpc":"2.0","id":1,"Method":"ping"}`, id: "1", code: codeInvalidRequest},
		{line: `{"JSONRPC":"2.0","id":1,"method":"ping"}`, id: "1", code: codeInvalidRequest},
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}`, id: "1", code: codeInvalidRequest},
		{line: `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, id: "null", code: codeInvalidRequest},
		{line: `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":[{"b":1,"b":2}]}}`, id: "1", code: codeInvalidRequest},
		{line: `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":[{"b":1},{"b":2}],"b":3}}`, method: "x", id: "1"},
		// Responses are never answered, whatever their id.
		{line: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, response: true, id: "null"},
		{line: `{"jsonrpc":"2.0","id":7,"result":{}}`, response: true, id: "7"},
		{line: `{"id":[1],"result":null}`, response: true, id: "[1]"},
	} {
		msg, reply := decode([]byte(tc.line))
		switch {
		case tc.code != 0:
			id, _, err := answer(t, string(reply))
			if err == nil || err.Code != tc.code || id != tc.id {
				t.Errorf("%s: reply %s, want error %d with id %s", tc.line, reply, tc.code, tc.id)
			}
		case reply != nil:
			t.Errorf("%s: reply %s, want a message", tc.line, reply)
		case tc.response != msg.isResponse() || msg.Method != tc.method || string(msg.ID) != tc.id:
			t.Errorf("%s: %+v", tc.line, msg)
		}
	}
}

func TestIDKey(t *testing.T) {
	same := [][]string{{"1", "1.0", "1e0", "10e-1", "0.1e1"}, {"0", "-0", "0.0"}, {`"1"`}, {"9007199254740993"}, {"9007199254740992", "9007199254740992.0"}, {"1.5", "1.5"}}
	for i, group := range same {
		for _, id := range group {
			if k, want := idKey(json.RawMessage(id)), idKey(json.RawMessage(group[0])); k != want {
				t.Errorf("idKey(%s) = %q, want %q as for %s", id, k, want, group[0])
			}
			for j, other := range same {
				if j != i && idKey(json.RawMessage(id)) == idKey(json.RawMessage(other[0])) {
					t.Errorf("idKey(%s) = idKey(%s)", id, other[0])
				}
			}
		}
	}
}

// lockedStore is newStore with its writer lock held by the test until it
// ends: a writing tool called meanwhile stays in progress.
func lockedStore(t *testing.T) string {
	t.Helper()
	root := newStore(t)
	r, err := repo.Open(root, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := r.Lock(context.Background(), repo.LockOptions{Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Unlock() })
	return root
}

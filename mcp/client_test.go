package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/clock"
)

// client is a minimal MCP client for the tests: it drives a Server
// through Serve over pipes, so that every test goes through the stdio
// framing, the session and the dispatch, as ctx mcp does.
type client struct {
	t  testing.TB
	w  *io.PipeWriter
	mu sync.Mutex
	id int
	// waiting are the requests sent and not answered, by id.
	waiting map[int]chan reply
	// notes receives the methods of the server's notifications.
	notes chan string
}

// reply is a response as the client reads it.
type reply struct {
	Result json.RawMessage
	Error  *rpcError
}

// connect starts a server on root and returns an initialized client.
func connect(t *testing.T, root string) *client {
	t.Helper()
	s, err := New(Options{Root: root, Clock: clock.Fixed(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)), LockTimeout: 5 * time.Second, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	c := startClient(t, s)
	if _, rpcErr := c.rpc("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "1"}}); rpcErr != nil {
		t.Fatalf("initialize: %v", rpcErr)
	}
	c.notify("notifications/initialized", nil)
	return c
}

// startClient serves s to a new client, not yet initialized. The
// server's end is checked when the test ends: Serve must return nil once
// the client closes its end.
func startClient(t *testing.T, s *Server) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, w: inW, waiting: map[int]chan reply{}, notes: make(chan string, 100)}
	done := make(chan error, 1)
	go func() {
		err := s.Serve(context.Background(), inR, outW)
		outW.Close()
		done <- err
	}()
	go c.read(outR)
	t.Cleanup(func() {
		inW.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return c
}

// read hands each line of the server's output to the request it answers.
func (c *client) read(out io.Reader) {
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, maxLine)
	for sc.Scan() {
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *rpcError       `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			c.t.Errorf("server wrote %q: %v", sc.Bytes(), err)
			continue
		}
		if m.Method != "" {
			c.notes <- m.Method
			continue
		}
		if m.ID == nil {
			c.t.Errorf("response without a usable id: %s", sc.Bytes())
			continue
		}
		c.mu.Lock()
		ch := c.waiting[*m.ID]
		delete(c.waiting, *m.ID)
		c.mu.Unlock()
		if ch == nil {
			c.t.Errorf("response to no request: %s", sc.Bytes())
			continue
		}
		ch <- reply{Result: m.Result, Error: m.Error}
	}
}

// send writes one message.
func (c *client) send(msg map[string]any) {
	c.t.Helper()
	msg["jsonrpc"] = "2.0"
	b, err := json.Marshal(msg)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.w.Write(append(b, '\n')); err != nil {
		c.t.Fatalf("writing to the server: %v", err)
	}
}

// start sends a request and returns the channel its answer comes on.
func (c *client) start(method string, params any) (int, chan reply) {
	c.t.Helper()
	c.mu.Lock()
	c.id++
	id := c.id
	ch := make(chan reply, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	c.send(msg)
	return id, ch
}

// rpc sends a request and waits for its answer.
func (c *client) rpc(method string, params any) (json.RawMessage, *rpcError) {
	c.t.Helper()
	_, ch := c.start(method, params)
	select {
	case r := <-ch:
		return r.Result, r.Error
	case <-time.After(time.Minute):
		c.t.Fatalf("%s: no answer in a minute", method)
		return nil, nil
	}
}

// notify sends a notification.
func (c *client) notify(method string, params any) {
	c.t.Helper()
	msg := map[string]any{"method": method}
	if params != nil {
		msg["params"] = params
	}
	c.send(msg)
}

// result decodes a successful answer of method into v.
func (c *client) result(method string, params, v any) {
	c.t.Helper()
	res, rpcErr := c.rpc(method, params)
	if rpcErr != nil {
		c.t.Fatalf("%s: %v", method, rpcErr)
	}
	if err := json.Unmarshal(res, v); err != nil {
		c.t.Fatalf("%s: result %s: %v", method, res, err)
	}
}

// call calls a tool and returns its text and whether it is an error.
func call(t *testing.T, c *client, name string, args map[string]any) (string, bool) {
	t.Helper()
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	var res callToolResult
	c.result("tools/call", params, &res)
	if len(res.Content) != 1 || res.Content[0].Type != "text" {
		t.Fatalf("%s: content %+v, want one text block", name, res.Content)
	}
	return res.Content[0].Text, res.IsError
}

// toolList is what tools/list answers, as a client reads it.
type toolList struct {
	Tools []struct {
		Name        string          `json:"name"`
		Title       string          `json:"title"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
		Annotations map[string]bool `json:"annotations"`
	} `json:"tools"`
}

func (r reply) String() string { return fmt.Sprintf("result %s, error %v", r.Result, r.Error) }

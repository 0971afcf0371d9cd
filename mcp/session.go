package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/ctx-dev/ctx/repo"
)

// The protocol versions the server speaks, newest first: the versions of
// the MCP specification that begin with initialize. initialize takes the
// client's version when it is one of them, else the newest (MCP
// lifecycle, "Version Negotiation"). What ctx serves (tools with
// annotations, resources, a template) reads the same in each; a field a
// version does not know is ignored by its clients.
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// session is one client's connection: the protocol state and the
// requests in progress. Its reader goroutine (serve) reads messages in
// order and answers initialize, ping and notifications itself; each other
// request runs on a goroutine of its own, so that a slow tool call (one
// waiting for the writer lock) does not hold up the others, and a
// cancellation can reach it.
type session struct {
	s   *Server
	out lineWriter

	mu          sync.Mutex
	initialized bool
	version     string
	// calls are the cancel functions of the requests in progress, by
	// idKey; a cancelled one stays until its handler returns, and is not
	// answered.
	calls map[string]context.CancelFunc
	// resources are the narrative URIs the client was last told of (at
	// initialize, resources/list or a list_changed notification), to tell
	// it when a tool call changed them.
	resources []string
	wg        sync.WaitGroup
}

func newSession(s *Server, out io.Writer) *session {
	return &session{s: s, out: lineWriter{out: out}, calls: map[string]context.CancelFunc{}}
}

// serve reads and answers messages until the input ends or ctx is done,
// then waits for the handlers it started. At the end of the input the
// requests still in progress are answered first; when ctx is done they
// are cancelled (and not answered).
func (ss *session) serve(ctx context.Context, in io.Reader) error {
	ctx, cancelAll := context.WithCancel(ctx)
	defer cancelAll()
	lines := make(chan lineOrErr)
	done := make(chan struct{})
	defer close(done)
	go readLines(in, lines, done)
	for {
		select {
		case <-ctx.Done():
			cancelAll()
			ss.wg.Wait()
			return nil
		case l := <-lines:
			if l.err != nil {
				ss.wg.Wait()
				if errors.Is(l.err, io.EOF) {
					return nil
				}
				return fmt.Errorf("mcp: reading the client's messages: %w", l.err)
			}
			if err := ss.handle(ctx, l.line); err != nil {
				cancelAll()
				ss.wg.Wait()
				return err
			}
		}
	}
}

// handle answers one line; its error is a failed write of the output,
// which ends the session. A panic in what it runs on the reader's
// goroutine (initialize, a notification) is answered as one in a
// handler is.
func (ss *session) handle(ctx context.Context, line []byte) (err error) {
	msg, reply := decode(line)
	defer func() {
		if r := recover(); r != nil {
			request := reply == nil && msg.isRequest()
			what := "the line " + truncate(line, 200)
			if request {
				what = msg.Method
			}
			rpcErr := ss.panicked(what, r)
			if request {
				err = ss.out.writeLine(encodeResponse(msg.ID, nil, rpcErr))
			}
		}
	}()
	switch {
	case reply != nil:
		return ss.out.writeLine(reply)
	case msg.isResponse():
		ss.s.log.Warn("a response to no request of the server's: ignored", "id", string(msg.ID))
		return nil
	case !msg.isRequest():
		ss.notification(msg)
		return nil
	}
	switch msg.Method {
	case "initialize":
		res, rpcErr := ss.initialize(msg.Params)
		return ss.out.writeLine(encodeResponse(msg.ID, res, rpcErr))
	case "ping":
		return ss.out.writeLine(encodeResponse(msg.ID, struct{}{}, nil))
	}
	ss.mu.Lock()
	initialized := ss.initialized
	key := idKey(msg.ID)
	busy := ss.calls[key] != nil
	if initialized && !busy {
		cctx, cancel := context.WithCancel(ctx)
		ss.calls[key] = cancel
		ss.wg.Add(1)
		go ss.run(cctx, key, cancel, msg)
	}
	ss.mu.Unlock()
	switch {
	case !initialized:
		return ss.out.writeLine(errorReply(msg.ID, codeInvalidRequest, fmt.Sprintf("invalid request: %s before initialize: a session begins with initialize", msg.Method)))
	case busy:
		return ss.out.writeLine(errorReply(msg.ID, codeInvalidRequest, fmt.Sprintf("invalid request: id %s is taken by a request in progress", msg.ID)))
	}
	return nil
}

// run answers the request msg on its own goroutine, unless it was
// cancelled meanwhile: by the client (MCP: the receiver of a
// cancellation "SHOULD NOT send a response"), or by the server stopping,
// when what the call would answer ("context canceled") is not the
// tool's failure. Either way ctx, the call's, is done by the time the
// handler returns.
func (ss *session) run(ctx context.Context, key string, cancel context.CancelFunc, msg *message) {
	defer ss.wg.Done()
	res, rpcErr := ss.dispatch(ctx, msg.Method, msg.Params)
	cancelled := ctx.Err() != nil
	cancel()
	ss.mu.Lock()
	delete(ss.calls, key)
	ss.mu.Unlock()
	if cancelled {
		return
	}
	if err := ss.out.writeLine(encodeResponse(msg.ID, res, rpcErr)); err != nil {
		ss.s.log.Warn("writing a response", "method", msg.Method, "err", err)
	}
}

// notification handles a message that wants no answer: the client's
// notifications/initialized and notifications/cancelled; any other is
// ignored (JSON-RPC: a notification is never answered, even in error).
func (ss *session) notification(msg *message) {
	switch msg.Method {
	case "notifications/initialized":
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if unmarshalParams(msg.Params, &p) != nil || !validID(p.RequestID) {
			ss.s.log.Warn("a cancellation without a request id: ignored", "params", string(msg.Params))
			return
		}
		ss.mu.Lock()
		if cancel := ss.calls[idKey(p.RequestID)]; cancel != nil {
			cancel()
		}
		ss.mu.Unlock()
	default:
		ss.s.log.Warn("unknown notification: ignored", "method", msg.Method)
	}
}

// initialize begins the session: it negotiates the protocol version and
// says what the server offers.
func (ss *session) initialize(params json.RawMessage) (any, *rpcError) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := unmarshalParams(params, &p); err != nil {
		return nil, err
	}
	if p.ProtocolVersion == "" {
		return nil, errorf(codeInvalidParams, "invalid params: initialize without a protocolVersion")
	}
	version := protocolVersions[0]
	if slices.Contains(protocolVersions, p.ProtocolVersion) {
		version = p.ProtocolVersion
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.initialized {
		return nil, errorf(codeInvalidRequest, "invalid request: initialize again: the session was initialized (protocol %s)", ss.version)
	}
	ss.initialized, ss.version = true, version
	if uris, err := ss.s.narrativeURIs(); err == nil {
		ss.resources = uris
	}
	type implementation struct {
		Name    string `json:"name"`
		Title   string `json:"title,omitempty"`
		Version string `json:"version"`
	}
	type listChanged struct {
		ListChanged bool `json:"listChanged,omitempty"`
	}
	type capabilities struct {
		Tools     listChanged `json:"tools"`
		Resources listChanged `json:"resources"`
	}
	return struct {
		ProtocolVersion string         `json:"protocolVersion"`
		Capabilities    capabilities   `json:"capabilities"`
		ServerInfo      implementation `json:"serverInfo"`
		Instructions    string         `json:"instructions"`
	}{
		ProtocolVersion: version,
		Capabilities:    capabilities{Resources: listChanged{ListChanged: true}},
		ServerInfo:      implementation{Name: "ctx", Title: "ctx", Version: repo.Version},
		Instructions:    instructions,
	}, nil
}

// dispatch runs the method of a request of an initialized session. A
// handler that panics is answered as an internal error, its stack
// logged, and the session goes on.
func (ss *session) dispatch(ctx context.Context, method string, params json.RawMessage) (res any, rpcErr *rpcError) {
	defer func() {
		if r := recover(); r != nil {
			res, rpcErr = nil, ss.panicked(method, r)
		}
	}()
	switch method {
	case "tools/list":
		if err := noCursor(params); err != nil {
			return nil, err
		}
		defs := make([]toolDef, len(ss.s.tools))
		for i, t := range ss.s.tools {
			defs[i] = t.def
		}
		return struct {
			Tools []toolDef `json:"tools"`
		}{defs}, nil
	case "tools/call":
		return ss.callTool(ctx, params)
	case "resources/list":
		if err := noCursor(params); err != nil {
			return nil, err
		}
		return ss.listResources()
	case "resources/templates/list":
		if err := noCursor(params); err != nil {
			return nil, err
		}
		return struct {
			ResourceTemplates []resourceTemplate `json:"resourceTemplates"`
		}{[]resourceTemplate{narrativeTemplate}}, nil
	case "resources/read":
		return ss.s.readResource(params)
	}
	return nil, errorf(codeMethodNotFound, "method not found: %q", method)
}

// panicked logs the panic r of the handler of what (a method, or the
// line read) with its stack, and returns the internal error that answers
// it.
func (ss *session) panicked(what string, r any) *rpcError {
	ss.s.log.Error("handler panicked", "in", what, "panic", r, "stack", string(debug.Stack()))
	return errorf(codeInternalError, "%v in %s: %v", ErrInternal, what, r)
}

// content is a block of a tool's result; ctx's tools answer one text
// block.
type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// callToolResult is what tools/call answers: the text, and whether the
// tool failed (MCP: a tool's failure is a result the model reads, not a
// protocol error).
type callToolResult struct {
	Content []content `json:"content"`
	IsError bool      `json:"isError,omitempty"`
}

// callTool runs a tool. An unknown tool is invalid params, as the
// specification says; anything the tool itself refuses is an isError
// result.
func (ss *session) callTool(ctx context.Context, params json.RawMessage) (any, *rpcError) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := unmarshalParams(params, &p); err != nil {
		return nil, err
	}
	t := ss.s.byName[p.Name]
	if t == nil {
		return nil, errorf(codeInvalidParams, "unknown tool %q", p.Name)
	}
	text, err := t.call(ctx, p.Arguments)
	res := callToolResult{Content: []content{{Type: "text", Text: text}}}
	if err != nil {
		res = callToolResult{Content: []content{{Type: "text", Text: err.Error()}}, IsError: true}
	}
	if a := t.def.Annotations; a == nil || !a.ReadOnlyHint {
		ss.resourcesChanged()
	}
	return res, nil
}

// resourcesChanged tells the client that the narrative's files changed
// since it was last told of them (notifications/resources/list_changed),
// after a tool that writes.
func (ss *session) resourcesChanged() {
	uris, err := ss.s.narrativeURIs()
	if err != nil {
		ss.s.log.Warn("listing narrative files", "err", err)
		return
	}
	ss.mu.Lock()
	changed := !slices.Equal(uris, ss.resources)
	ss.resources = uris
	ss.mu.Unlock()
	if !changed {
		return
	}
	b, err := encodeNotification("notifications/resources/list_changed", struct{}{})
	if err == nil {
		err = ss.out.writeLine(b)
	}
	if err != nil {
		ss.s.log.Warn("writing a notification", "err", err)
	}
}

// listResources answers resources/list from the files present now, and
// remembers what the client was told.
func (ss *session) listResources() (any, *rpcError) {
	list, err := ss.s.resources()
	if err != nil {
		return nil, errorf(codeInternalError, "listing the narrative's files: %v", err)
	}
	ss.mu.Lock()
	ss.resources = uris(list)
	ss.mu.Unlock()
	return struct {
		Resources []resource `json:"resources"`
	}{list}, nil
}

// unmarshalParams decodes a request's params, an object (absent is an
// empty one), into the struct p points to. Keys match p's json tags
// exactly, not regardless of case as encoding/json would have it: a
// "Name" beside "name" in tools/call must not choose the tool. Other
// keys (_meta, say) are ignored. Anything but an object is invalid
// params.
func unmarshalParams(params json.RawMessage, p any) *rpcError {
	if isNull(params) {
		return nil
	}
	var fields map[string]json.RawMessage
	if params[0] != '{' || json.Unmarshal(params, &fields) != nil {
		return errorf(codeInvalidParams, "invalid params: want an object, not %s", params)
	}
	v := reflect.ValueOf(p).Elem()
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		raw, ok := fields[name]
		if !ok {
			continue
		}
		if err := json.Unmarshal(raw, v.Field(i).Addr().Interface()); err != nil {
			return errorf(codeInvalidParams, "invalid params: %s: %v", name, err)
		}
	}
	return nil
}

// noCursor checks the params of a list request: every list fits one
// page, so any cursor is one the server never gave.
func noCursor(params json.RawMessage) *rpcError {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if err := unmarshalParams(params, &p); err != nil {
		return err
	}
	if p.Cursor != nil {
		return errorf(codeInvalidParams, "invalid params: cursor %q: the server gives every list in one page, and no cursor", *p.Cursor)
	}
	return nil
}

// truncate is the first n bytes of b, for a log line.
func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

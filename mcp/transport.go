package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The JSON-RPC 2.0 error codes the transport answers with itself.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// maxLine bounds one message: a longer line is answered with a parse
// error and skipped, rather than buffered without end.
const maxLine = 16 << 20

// stdio is the MCP stdio transport: one JSON-RPC message per line in
// each direction. It differs from the SDK's IOTransport in two ways that
// matter to ctx. A line that is not a JSON-RPC message (bad JSON, a
// batch, a message without "jsonrpc":"2.0") is answered with a JSON-RPC
// error (-32700 parse error or -32600 invalid request, id null or the
// line's id) and skipped, where the SDK ends the session: a client's bad
// line must not take the server down (JSON-RPC 2.0 §5). And at the end of
// the input it waits for the answers to the requests it has read (not
// those cancelled) before it reports the end, which closes the session.
type stdio struct {
	in  io.Reader
	out io.Writer
}

var _ sdk.Transport = (*stdio)(nil)

// Connect starts reading lines.
func (t *stdio) Connect(context.Context) (sdk.Connection, error) {
	c := &stdioConn{out: t.out, lines: make(chan lineOrErr), closed: make(chan struct{}),
		pending: map[jsonrpc.ID]bool{}, answered: make(chan struct{}, 1)}
	go c.readLines(t.in)
	return c, nil
}

type lineOrErr struct {
	line []byte
	err  error
}

type stdioConn struct {
	writeMu sync.Mutex // Write may be called concurrently
	out     io.Writer

	lines     chan lineOrErr
	closeOnce sync.Once
	closed    chan struct{}

	// pending are the requests read and not yet answered: at the end of
	// the input Read waits for their responses before it reports the end,
	// which would close the session and drop them (a client that writes
	// its requests and closes its end still gets every answer).
	pendingMu sync.Mutex
	pending   map[jsonrpc.ID]bool
	answered  chan struct{} // signalled when a pending request is answered
}

var _ sdk.Connection = (*stdioConn)(nil)

// readLines sends the input's lines to c.lines until it ends or c is
// closed. It runs on its own goroutine so that Close unblocks Read.
func (c *stdioConn) readLines(in io.Reader) {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := readLine(br)
		if len(line) == 0 && err == nil {
			continue
		}
		if len(line) > 0 {
			select {
			case c.lines <- lineOrErr{line: line}:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			select {
			case c.lines <- lineOrErr{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

// readLine returns the next line without its end, trimmed of white
// space; a line over maxLine comes back as the single byte 0, which
// decode answers with a parse error.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	long := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !long {
			buf = append(buf, chunk...)
			if len(buf) > maxLine {
				long, buf = true, nil
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if long {
			return []byte{0}, err
		}
		return bytes.TrimSpace(buf), err
	}
}

// Read returns the next JSON-RPC message, answering the lines that are
// none on the way.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case l := <-c.lines:
			if l.err != nil {
				c.drain(ctx)
				return nil, l.err
			}
			msg, reply := decode(l.line)
			if req, ok := msg.(*jsonrpc.Request); ok {
				c.track(req)
			}
			if msg != nil {
				return msg, nil
			}
			if err := c.writeLine(reply); err != nil {
				return nil, err
			}
		}
	}
}

// track notes a request that awaits an answer; a cancellation takes
// the request it names off the list, since a cancelled request may go
// unanswered (MCP: "receivers … SHOULD NOT send a response").
func (c *stdioConn) track(req *jsonrpc.Request) {
	c.pendingMu.Lock()
	defer c.pendingMu.Unlock()
	if req.ID.IsValid() {
		c.pending[req.ID] = true
		return
	}
	if req.Method != "notifications/cancelled" {
		return
	}
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return
	}
	if id, err := jsonrpc.MakeID(p.RequestID); err == nil && id.IsValid() {
		delete(c.pending, id)
		select {
		case c.answered <- struct{}{}:
		default:
		}
	}
}

// drain waits until every request read has been answered, the
// connection is closed or ctx is done.
func (c *stdioConn) drain(ctx context.Context) {
	for {
		c.pendingMu.Lock()
		n := len(c.pending)
		c.pendingMu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.answered:
		case <-c.closed:
			return
		case <-ctx.Done():
			return
		}
	}
}

// Write sends one message on its own line.
func (c *stdioConn) Write(_ context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	err = c.writeLine(b)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.pendingMu.Lock()
		delete(c.pending, resp.ID)
		c.pendingMu.Unlock()
		select {
		case c.answered <- struct{}{}:
		default:
		}
	}
	return err
}

func (c *stdioConn) writeLine(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	// Written even after Close: a response to a request read before the
	// input ended is still owed to the client.
	_, err := c.out.Write(append(b[:len(b):len(b)], '\n'))
	return err
}

// Close stops reading; the streams themselves belong to the caller.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID is empty: stdio has one session.
func (c *stdioConn) SessionID() string { return "" }

// decode reads one line of input: a JSON-RPC message (msg), or else the
// error response to send back (reply), one line of JSON. Exactly one of
// the two is non-nil.
func decode(line []byte) (msg jsonrpc.Message, reply []byte) {
	if !json.Valid(line) {
		return nil, errorReply(nil, codeParseError, "parse error: not a JSON value")
	}
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if line[0] != '{' {
		what := "a JSON-RPC message is an object"
		if line[0] == '[' {
			what = "batches are not supported (MCP 2025-06-18 removed them): send one message per line"
		}
		return nil, errorReply(nil, codeInvalidRequest, "invalid request: "+what)
	}
	if err := json.Unmarshal(line, &probe); err != nil {
		return nil, errorReply(nil, codeInvalidRequest, "invalid request: "+err.Error())
	}
	m, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, errorReply(probe.ID, codeInvalidRequest, "invalid request: "+err.Error())
	}
	if req, ok := m.(*jsonrpc.Request); ok && req.Method == "" {
		return nil, errorReply(probe.ID, codeInvalidRequest, "invalid request: the method is empty")
	}
	return m, nil
}

// errorReply is a JSON-RPC error response with the request's id, or
// null when it has none that can be used.
func errorReply(id json.RawMessage, code int, message string) []byte {
	if !validID(id) {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	if err != nil { // cannot happen: every part is valid JSON
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`)
	}
	return b
}

// validID reports whether id is a JSON-RPC id: a string or a number.
func validID(id json.RawMessage) bool {
	var v any
	if len(id) == 0 || json.Unmarshal(id, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}

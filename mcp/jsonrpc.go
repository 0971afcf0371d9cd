package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// The JSON-RPC 2.0 error codes the server answers with (JSON-RPC 2.0 §5.1;
// MCP uses invalid params for an unknown tool and, since SEP-2164, for a
// resource that does not exist).
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

// message is one JSON-RPC 2.0 message as read from the client: a request
// (a method and an id), a notification (a method, no id) or a response
// (no method; the server sends no requests, so a response is only
// logged).
type message struct {
	ID     json.RawMessage // nil for a notification
	Method string
	Params json.RawMessage // nil when absent
}

// isRequest reports whether m awaits an answer.
func (m *message) isRequest() bool { return m.ID != nil && m.Method != "" }

// isResponse reports whether m answers a request (which the server never
// sends).
func (m *message) isResponse() bool { return m.Method == "" }

// rpcError is a JSON-RPC error object: what a request that failed as a
// request (not as a tool) is answered with.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// errorf is a JSON-RPC error with a formatted message.
func errorf(code int, format string, args ...any) *rpcError {
	return &rpcError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// envelope is a message's outer object on the wire, both ways.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// decode reads one line of input: a JSON-RPC message (msg), or else the
// error response to send back (reply), one line of JSON. At most one of
// the two is non-nil: a response from the client (which the server never
// asked for) is msg with no method, whatever its id, and is never
// answered. A line that is not JSON is a parse error with id null; valid
// JSON that is not a JSON-RPC 2.0 message (a batch, a scalar, an object
// with a key twice, a wrong "jsonrpc", an id that is neither a string nor
// a number, a method that is empty or not a string, a message that is
// neither a request nor a response) is an invalid request, with the
// line's id when it has a usable one (JSON-RPC 2.0 §5).
//
// Keys are matched exactly, as JSON-RPC's peers written in other
// languages match them: "Method" is not "method". A key twice, at any
// depth, is refused rather than decided (Go would take the last, a
// JavaScript proxy the last, another parser the first): what runs must
// not depend on who reads the line.
func decode(line []byte) (msg *message, reply []byte) {
	if !json.Valid(line) {
		return nil, errorReply(nil, codeParseError, "parse error: not a JSON value")
	}
	line = bytes.TrimSpace(line)
	if line[0] != '{' {
		what := "a JSON-RPC message is an object"
		if line[0] == '[' {
			what = "batches are not supported (MCP 2025-06-18 removed them): send one message per line"
		}
		return nil, errorReply(nil, codeInvalidRequest, "invalid request: "+what)
	}
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(line, &fields) // a valid object
	id := fields["id"]
	if err := uniqueKeys(line); err != nil {
		if err.key == "id" && err.depth == 1 {
			id = nil // which id is meant is the question
		}
		return nil, errorReply(id, codeInvalidRequest, "invalid request: "+err.Error())
	}
	_, hasMethod := fields["method"]
	_, hasResult := fields["result"]
	_, hasError := fields["error"]
	if !hasMethod && (hasResult || hasError) {
		return &message{ID: id}, nil
	}
	invalid := func(what string) (*message, []byte) {
		return nil, errorReply(id, codeInvalidRequest, "invalid request: "+what)
	}
	var version string
	if json.Unmarshal(fields["jsonrpc"], &version) != nil || version != "2.0" {
		return invalid(`"jsonrpc" must be "2.0"`)
	}
	if id != nil && !validID(id) {
		return invalid("the id must be a string or a number")
	}
	var method string
	if raw := fields["method"]; raw != nil && json.Unmarshal(raw, &method) != nil {
		return invalid("the method must be a string, not " + string(raw))
	}
	params := fields["params"]
	if isNull(params) {
		params = nil
	}
	switch {
	case method != "":
		if hasResult || hasError {
			return invalid("a request has no result or error")
		}
		return &message{ID: id, Method: method, Params: params}, nil
	case hasMethod:
		return invalid("the method is empty")
	default:
		return invalid("neither a request (a method) nor a response (a result or an error)")
	}
}

// duplicateKey is a key an object has twice; depth 1 is the message's
// own object.
type duplicateKey struct {
	key   string
	depth int
}

func (d *duplicateKey) Error() string {
	return fmt.Sprintf("the key %q twice in one object: a key is given once", d.key)
}

// uniqueKeys reports the first key that an object of the JSON value raw
// has twice, at any depth, or nil. raw is valid JSON.
func uniqueKeys(raw []byte) *duplicateKey {
	dec := json.NewDecoder(bytes.NewReader(raw))
	// Each open container: nil for an array, the keys seen for an object.
	var open []map[string]bool
	expectKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end (raw is valid)
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				open = append(open, map[string]bool{})
				expectKey = true
				continue
			case '[':
				open = append(open, nil)
			default:
				open = open[:len(open)-1]
			}
		case string:
			if expectKey {
				keys := open[len(open)-1]
				if keys[t] {
					return &duplicateKey{key: t, depth: len(open)}
				}
				keys[t] = true
				expectKey = false
				continue
			}
		}
		// After a value: the next token is a key if its container is an
		// object.
		expectKey = len(open) > 0 && open[len(open)-1] != nil
	}
}

// isNull reports whether raw is absent or the JSON null.
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// errorReply is a JSON-RPC error response with the request's id, or null
// when it has none that can be used, as one line.
func errorReply(id json.RawMessage, code int, message string) []byte {
	if !validID(id) {
		id = json.RawMessage("null")
	}
	return encodeResponse(id, nil, &rpcError{Code: code, Message: message})
}

// encodeResponse is the response to the request id: its result, or
// rpcErr when rpcErr is not nil. A result that cannot be encoded becomes
// an internal error, so that every request is answered.
func encodeResponse(id json.RawMessage, result any, rpcErr *rpcError) []byte {
	e := envelope{JSONRPC: "2.0", ID: id}
	if rpcErr == nil {
		b, err := marshal(result)
		if err != nil {
			rpcErr = errorf(codeInternalError, "internal error: encoding the result: %v", err)
		} else {
			e.Result = b
		}
	}
	if rpcErr != nil {
		b, err := marshal(rpcErr)
		if err != nil { // only Data can fail, and it is valid JSON
			b = []byte(`{"code":-32603,"message":"internal error"}`)
		}
		e.Error = b
	}
	b, err := marshal(e)
	if err != nil { // cannot happen: every part is valid JSON
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`)
	}
	return b
}

// encodeNotification is a notification from the server, as one line.
func encodeNotification(method string, params any) ([]byte, error) {
	b, err := marshal(params)
	if err != nil {
		return nil, err
	}
	return marshal(envelope{JSONRPC: "2.0", Method: method, Params: b})
}

// marshal encodes v as compact JSON without HTML escaping ("<" stays
// "<" for the model) and without the encoder's trailing newline: one
// line of the stdio transport.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// validID reports whether id is a usable JSON-RPC id: a string, or a
// number that fits a float64.
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

// idKey is the identity of a request id for the table of requests in
// progress: a string id and a number id never share one, and equal
// numbers do however they are written (1, 1.0 and 1e0), when they are
// whole and within float64's exact integers; other numbers by their text.
func idKey(id json.RawMessage) string {
	var s string
	if json.Unmarshal(id, &s) == nil {
		return "s" + s
	}
	var n json.Number
	if json.Unmarshal(id, &n) != nil {
		return "r" + string(id)
	}
	if i, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
		return "n" + strconv.FormatInt(i, 10)
	}
	if f, err := strconv.ParseFloat(n.String(), 64); err == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
		return "n" + strconv.FormatInt(int64(f), 10)
	}
	return "n" + n.String()
}

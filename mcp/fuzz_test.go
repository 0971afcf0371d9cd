package mcp

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzDecode checks the stdio transport's decoder: any line gives a
// message or a one-line JSON-RPC error response (never both, never
// neither, never a panic), and a message it accepts encodes and decodes
// back to the same message.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"search","arguments":{"query":"retry"}}}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
		`{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"no"}}`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":[1],"method":"ping"}`,
		`{"jsonrpc":"2.0","method":7}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`garbage{`, `""`, `null`, `{}`, "\x00", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","Method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"a":[{"b":1,"b":2}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if len(line) == 0 {
			return // readLine never passes an empty line
		}
		msg, reply := decode(line)
		if (msg == nil) == (reply == nil) {
			t.Fatalf("decode(%q): message %v, reply %q: want exactly one", line, msg, reply)
		}
		if reply != nil {
			if strings.ContainsRune(string(reply), '\n') {
				t.Fatalf("reply %q spans lines", reply)
			}
			var r struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(reply, &r); err != nil || r.JSONRPC != "2.0" || r.Error == nil || r.Error.Code > -32000 || len(r.ID) == 0 {
				t.Fatalf("reply %q is not a JSON-RPC error response", reply)
			}
			return
		}
		// A message re-encoded decodes to the same message.
		e := envelope{JSONRPC: "2.0", ID: msg.ID, Method: msg.Method, Params: msg.Params}
		if msg.isResponse() {
			e.Result = json.RawMessage("{}")
		}
		b, err := marshal(e)
		if err != nil {
			t.Fatalf("encoding %+v (from %q): %v", e, line, err)
		}
		again, reply := decode(b)
		if reply != nil {
			t.Fatalf("re-decoding %q (from %q): %s", b, line, reply)
		}
		if again.Method != msg.Method || idKey(again.ID) != idKey(msg.ID) || (again.ID == nil) != (msg.ID == nil) || string(again.Params) != string(msg.Params) {
			t.Fatalf("round trip of %q: %+v, want %+v", line, again, msg)
		}
		if msg.isRequest() && !validID(msg.ID) {
			t.Fatalf("%q: accepted the id %s", line, msg.ID)
		}
	})
}

// TestReadLine checks the framing: lines are trimmed, and a line over
// maxLine is skipped as one parse error instead of being buffered.
func TestReadLine(t *testing.T) {
	long := strings.Repeat("x", maxLine+10)
	br := bufio.NewReaderSize(strings.NewReader(" a \r\n"+long+"\nb"), 64<<10)
	var got []string
	for {
		l, err := readLine(br)
		if len(l) > 0 {
			got = append(got, string(l))
		}
		if err != nil {
			break
		}
	}
	if len(got) != 3 || got[0] != "a" || got[1] != "\x00" || got[2] != "b" {
		t.Fatalf("lines %q", got)
	}
	if _, reply := decode([]byte(got[1])); reply == nil {
		t.Fatal("an over-long line is not answered")
	}
}

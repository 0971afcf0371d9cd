//go:build unix

package mcp

import (
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestResourceFIFO checks that a FIFO in the narrative directory is not
// a resource: reading it would wait for a writer that never comes, and
// the session could not end.
func TestResourceFIFO(t *testing.T) {
	root := newStore(t)
	if err := unix.Mkfifo(filepath.Join(root, "narrative", "pipe.md"), 0o644); err != nil {
		t.Skip(err)
	}
	rs := startRaw(t, newServer(t, root))
	rs.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	rs.next()
	rs.send(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"ctx://narrative/pipe.md"}}`)
	if id, _, err := answer(t, rs.next()); id != "2" || err == nil || err.Code != codeInvalidParams {
		t.Fatalf("read of a FIFO: id %s, error %v, want %d", id, err, codeInvalidParams)
	}
	if rest := rs.close(); len(rest) != 0 {
		t.Errorf("lines after the input ended: %q", rest)
	}
}

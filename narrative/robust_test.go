package narrative

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/clock"
)

// TestChangeRefusesSwallowedEvent: a person left a code fence open in a
// node's body; an event appended now would be read as body text, so Change
// refuses it and leaves the file as it was.
func TestChangeRefusesSwallowedEvent(t *testing.T) {
	s := &Space{Root: t.TempDir(), Clock: clock.Fixed(time.Unix(1790000000, 0)), Rand: bytes.NewReader(bytes.Repeat([]byte{7, 1, 9, 3}, 64))}
	n, err := s.Add(NewNode{Type: Fact, Content: "Port 8080"})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(s.Root, filepath.FromSlash(n.Path))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(b), changesLine, "```go\nfunc f() {\n\n"+changesLine, 1)
	if err := os.WriteFile(p, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Change(n, OpTag, "tier:pinned"); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), n.Path) {
		t.Fatalf("Change = %v, want ErrMalformed naming the file", err)
	}
	after, _ := os.ReadFile(p)
	if string(after) != broken {
		t.Fatal("Change wrote to the file it refused")
	}
}

// TestParseWindowsFile: a byte-order mark and CRLF line ends, as editors
// on Windows save them, read like the plain file.
func TestParseWindowsFile(t *testing.T) {
	plain := "# Title\n\n<!-- ctx:node\nid: 0123456789\ntype: fact\n-->\n\nBody line one.\nline two\n\n" + changesLine + "\n"
	win := "\xef\xbb\xbf" + strings.ReplaceAll(plain, "\n", "\r\n")
	want, probs := ParseNode("facts/x.md", []byte(plain))
	if want == nil || len(probs) > 0 {
		t.Fatalf("plain: %v %v", want, probs)
	}
	got, probs := ParseNode("facts/x.md", []byte(win))
	if got == nil || len(probs) > 0 {
		t.Fatalf("windows: %v %v", got, probs)
	}
	if got.Title != "Title" || got.Content != want.Content || got.Line != want.Line {
		t.Fatalf("windows file reads %q (line %d), want %q (line %d)", got.Content, got.Line, want.Content, want.Line)
	}
}

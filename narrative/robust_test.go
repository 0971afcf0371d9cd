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

func TestSwallowedEvents(t *testing.T) {
	head := "# T\n\n<!-- ctx:node\nid: 0123456789\ntype: fact\n-->\n\n"
	ev := "<!-- ctx:event 2026-01-01T00:00:00Z 1 aaaaaaaa tag tier:pinned -->\n"
	tests := []struct {
		name   string
		src    string
		line   int // of the problem; 0: none
		pinned bool
	}{
		{"intact", head + "Body.\n\n" + changesLine + "\n" + ev, 0, true},
		{"open fence", head + "```\ncode\n\n" + changesLine + "\n" + ev, 11, false},
		// The comment runs to the changes line's "-->": the events after it
		// still read, but the changes line is gone.
		{"open comment", head + "<!-- a note\n\n" + changesLine + "\n" + ev, 10, true},
		{"fence open, changes line gone", head + "```\n" + ev, 9, false},
		{"example in a closed fence", head + "```\n" + changesLine + "\n" + ev + "```\n\n" + changesLine + "\n" + ev, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, probs := ParseNode("facts/x.md", []byte(tt.src))
			if n == nil {
				t.Fatalf("no node: %v", probs)
			}
			if n.HasTag("tier:pinned") != tt.pinned {
				t.Errorf("pinned = %v, want %v", !tt.pinned, tt.pinned)
			}
			switch {
			case tt.line == 0 && len(probs) > 0:
				t.Errorf("problems %v, want none", probs)
			case tt.line > 0 && (len(probs) != 1 || probs[0].Line != tt.line || !strings.Contains(probs[0].Msg, "not read")):
				t.Errorf("problems %v, want one at line %d", probs, tt.line)
			}
		})
	}
}

func TestDuplicateHeaderKeys(t *testing.T) {
	// What a union merge of two hand edits of the same line leaves: every
	// clone must settle on the same value, and say so.
	for _, order := range [][2]string{{"fact", "pattern"}, {"pattern", "fact"}} {
		src := "# T\n\n<!-- ctx:node\nid: 0123456789\ntype: " + order[0] + "\ntype: " + order[1] +
			"\nmeta.owner: " + order[0] + "\nmeta.owner: " + order[1] + "\n-->\n"
		n, probs := ParseNode("facts/x.md", []byte(src))
		if n == nil || n.Type != Fact || n.Meta["owner"] != "fact" || len(probs) != 2 {
			t.Fatalf("order %v: node %+v, problems %v", order, n, probs)
		}
	}
}

func TestSupersedeCycle(t *testing.T) {
	dir := t.TempDir()
	s := &Space{Root: dir, Clock: clock.Fixed(time.Unix(1790000000, 0)), Rand: bytes.NewReader(bytes.Repeat([]byte{3, 1, 4, 1, 5, 9, 2, 6}, 64))}
	a, err := s.Add(NewNode{Type: Fact, Content: "A"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Add(NewNode{Type: Fact, Content: "B"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Change(a, OpSupersede, string(b.ID)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Change(b, OpSupersede, string(a.ID)); err != nil {
		t.Fatal(err)
	}
	cat, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Problems) != 1 || !strings.Contains(cat.Problems[0].Msg, "supersede cycle") {
		t.Fatalf("problems %v", cat.Problems)
	}
}

func TestUpdatedKey(t *testing.T) {
	src := "# T\n\n<!-- ctx:node\nid: 0123456789\ntype: fact\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-02-01T00:00:00Z\n-->\n"
	n, probs := ParseNode("facts/x.md", []byte(src))
	if n == nil || len(probs) > 0 || !n.Updated.Equal(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("node %+v, problems %v", n, probs)
	}
}

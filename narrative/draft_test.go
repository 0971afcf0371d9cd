package narrative

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/clock"
)

func TestDraft(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	base := State{ID: "abcdefgh12", Type: Decision, Title: "Title", Body: "Body ✓", Created: t0, Updated: t0}
	tests := []struct {
		name string
		edit func(*State)
		want error
		path string
	}{
		{"plain", func(*State) {}, nil, "decisions/title-abcdefgh12.md"},
		{"full state", func(s *State) {
			s.Tags = []string{"tier:pinned", "b:x", "a"}
			s.Meta = map[string]string{"k": " v "}
			s.Updated = t0.Add(time.Hour)
			s.SupersededBy, s.Deleted = "zzzzzzzzzz", true
			s.DerivedFrom = []ID{"1111111111", "2222222222"}
			s.Stream = "feature-x"
		}, nil, "feature/x/decisions/title-abcdefgh12.md"},
		{"work stream", func(s *State) { s.Stream = "work" }, nil, "work/decisions/title-abcdefgh12.md"},
		{"no title", func(s *State) { s.Title = "" }, nil, "decisions/abcdefgh12.md"},
		{"title ending in #", func(s *State) { s.Title = "Fix issue #" }, nil, "decisions/fix-issue-abcdefgh12.md"},
		{"bad id", func(s *State) { s.ID = "x" }, ErrInvalidID, ""},
		{"bad type", func(s *State) { s.Type = "gossip" }, ErrInvalidType, ""},
		{"bad stream", func(s *State) { s.Stream = "side" }, ErrInvalidStream, ""},
		{"two-line title", func(s *State) { s.Title = "a\nb" }, ErrInvalidContent, ""},
		{"empty", func(s *State) { s.Title, s.Body = "", "" }, ErrInvalidContent, ""},
		{"open fence", func(s *State) { s.Body = "```\ncode" }, ErrInvalidContent, ""},
		{"marker", func(s *State) { s.Body = "<!-- ctx:event -->" }, ErrInvalidContent, ""},
		{"heading in a title-less body", func(s *State) { s.Title, s.Body = "", "text\n\n# Heading" }, ErrInvalidContent, ""},
		{"bad tag", func(s *State) { s.Tags = []string{"Bad Tag"} }, ErrInvalidTag, ""},
		{"bad meta", func(s *State) { s.Meta = map[string]string{"K": "v"} }, ErrInvalidMeta, ""},
		{"updated before created", func(s *State) { s.Updated = t0.Add(-time.Second) }, ErrInvalidContent, ""},
		{"no created", func(s *State) { s.Created = time.Time{} }, ErrInvalidContent, ""},
		{"supersedes itself", func(s *State) { s.SupersededBy = s.ID }, ErrInvalidID, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sp := &Space{Root: t.TempDir(), Clock: clock.Fixed(t0)}
			st := base
			tc.edit(&st)
			d, err := sp.Draft(st)
			if tc.want != nil {
				if !errors.Is(err, tc.want) {
					t.Fatalf("err %v, want %v", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Path != tc.path {
				t.Errorf("path %s, want %s", d.Path, tc.path)
			}
			if err := sp.Put(d); err != nil {
				t.Fatal(err)
			}
			cat, err := sp.Load()
			if err != nil || len(cat.Problems) > 0 {
				t.Fatalf("load: %v %v", err, cat.Problems)
			}
			n := cat.Nodes[st.ID]
			if n == nil || differs(n, d.Node) != "" || n.Body() != d.Node.Body() {
				t.Fatalf("read back %+v, want %+v", n, d.Node)
			}
			if !n.Updated.Equal(st.Updated) || n.Deleted != st.Deleted || n.SupersededBy != st.SupersededBy || !slices.Equal(n.DerivedFrom, st.DerivedFrom) {
				t.Errorf("state %+v, want %+v", n, st)
			}
			if st.Type == Decision && st.Stream == "" {
				if _, err := os.Stat(filepath.Join(sp.Root, "decisions.md")); err != nil {
					t.Errorf("decisions.md: %v", err)
				}
			}
			if err := sp.Put(d); err == nil {
				t.Error("a second Put overwrote the file")
			}
		})
	}
}

func TestBody(t *testing.T) {
	for _, tc := range []struct{ title, content, body string }{
		{"T", "T", ""},
		{"T", "T\n\n    code", "    code"},
		{"", "just a body", "just a body"},
	} {
		n := &Node{Title: tc.title, Content: tc.content}
		if got := n.Body(); got != tc.body {
			t.Errorf("Body of %q = %q, want %q", tc.content, got, tc.body)
		}
	}
}

package narrative

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestStreamDir(t *testing.T) {
	tests := []struct {
		stream, dir string
		ok          bool
	}{
		{"", "", true},
		{"main", "", true},
		{"feature-auth", "feature/auth", true},
		{"feature-auth-v2", "feature/auth-v2", true},
		{"feature-2fa", "feature/2fa", true},
		{"feature-" + strings.Repeat("a", 64), "feature/" + strings.Repeat("a", 64), true},

		{"feature-", "", false},
		{"feature-Auth", "", false},
		{"feature--x", "", false},
		{"feature-a/b", "", false},
		{"feature-a_b", "", false},
		{"feature-" + strings.Repeat("a", 65), "", false},
		{"work", "", false},
		{"Main", "", false},
		{"auth", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.stream, func(t *testing.T) {
			dir, err := StreamDir(tt.stream)
			if !tt.ok {
				if !errors.Is(err, ErrInvalidStream) {
					t.Errorf("StreamDir(%q) = %q, %v; want ErrInvalidStream", tt.stream, dir, err)
				}
				return
			}
			if err != nil || dir != tt.dir {
				t.Errorf("StreamDir(%q) = %q, %v; want %q", tt.stream, dir, err, tt.dir)
			}
			// The directory classifies back as the stream.
			if _, stream := Classify(joinDir(dir, "facts/x.md")); tt.stream != "" && stream != tt.stream {
				t.Errorf("Classify(%s/facts/x.md) stream = %q", dir, stream)
			}
		})
	}
}

func joinDir(dir, rel string) string {
	if dir == "" {
		return rel
	}
	return dir + "/" + rel
}

func TestFeatureStream(t *testing.T) {
	s := newSpace(t, "0000000001", "0000000002", "0000000003")
	d := mustAdd(t, s, NewNode{Stream: "feature-auth", Type: Decision, Content: "Use tokens"})
	f := mustAdd(t, s, NewNode{Stream: "feature-auth", Type: Fact, Content: "Tokens expire"})
	m := mustAdd(t, s, NewNode{Stream: "main", Type: Fact, Content: "Main fact"})
	mustChange(t, s, f, OpSupersede, string(d.ID))
	mustChange(t, s, d, OpDelete, "")

	if d.Path != "feature/auth/decisions/use-tokens-0000000001.md" || d.Stream != "feature-auth" || m.Stream != "main" {
		t.Errorf("paths %s (%s), %s (%s)", d.Path, d.Stream, m.Path, m.Stream)
	}
	want := map[string]string{
		"feature/auth/log/2026-11-22.md": "# 2026-11-22\n\n" +
			"- 11:30 decision [0000000001](../decisions/use-tokens-0000000001.md) Use tokens\n" +
			"- 11:30 fact [0000000002](../facts/tokens-expire-0000000002.md) Tokens expire\n" +
			"- 11:30 superseded [0000000002](../facts/tokens-expire-0000000002.md) by 0000000001\n" +
			"- 11:30 deleted [0000000001](../decisions/use-tokens-0000000001.md) Use tokens\n",
		"feature/auth/decisions.md": decisionsHeader + "\n- 2026-11-22 [Use tokens](decisions/use-tokens-0000000001.md) `0000000001`\n",
		"log/2026-11-22.md":         "# 2026-11-22\n\n- 11:30 fact [0000000003](../facts/main-fact-0000000003.md) Main fact\n",
	}
	for rel, w := range want {
		if got := readFile(t, s, rel); got != w {
			t.Errorf("%s:\n%s\nwant:\n%s", rel, got, w)
		}
	}
	if files := listFiles(t, s); len(files) != 6 {
		t.Errorf("files = %v", files)
	}

	c := mustLoad(t, s)
	for _, n := range []*Node{d, f, m} {
		sameState(t, "Load", c.Nodes[n.ID], n)
		if got := c.Nodes[n.ID].Stream; got != n.Stream {
			t.Errorf("%s: Stream = %q, want %q", n.ID, got, n.Stream)
		}
	}
	all := Filter{IncludeDeleted: true, IncludeSuperseded: true}
	for _, tt := range []struct {
		streams []string
		want    []ID
	}{
		{nil, []ID{"0000000001", "0000000002", "0000000003"}},
		{[]string{"main"}, []ID{"0000000003"}},
		{[]string{"feature-auth"}, []ID{"0000000001", "0000000002"}},
		{[]string{"feature-auth", "main"}, []ID{"0000000001", "0000000002", "0000000003"}},
		{[]string{"feature-other"}, nil},
	} {
		f := all
		f.Streams = tt.streams
		if got := ids(c.List(f)); !slices.Equal(got, tt.want) {
			t.Errorf("List(Streams %v) = %v, want %v", tt.streams, got, tt.want)
		}
	}

	t.Run("invalid stream writes nothing", func(t *testing.T) {
		s := newSpace(t)
		if _, err := s.Add(NewNode{Stream: "feature-Bad", Type: Fact, Content: "X"}); !errors.Is(err, ErrInvalidStream) {
			t.Fatalf("Add = %v, want ErrInvalidStream", err)
		}
		if files := listFiles(t, s); len(files) != 0 {
			t.Errorf("Add wrote %v", files)
		}
	})
}

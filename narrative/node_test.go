package narrative

import (
	"errors"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

func TestParseMeta(t *testing.T) {
	tests := []struct {
		in         string
		key, value string
		msg        string // for an error: part of the message
	}{
		{"confidence=high", "confidence", "high", ""},
		{"Confidence = high ", "confidence", "high", ""},
		{"source.url=https://example.com/a?b=c", "source.url", "https://example.com/a?b=c", ""},
		{"a_b-c.d9=x", "a_b-c.d9", "x", ""},
		{"note=two words", "note", "two words", ""},
		{"empty=", "empty", "", ""},
		{"k=ünïcode", "k", "ünïcode", ""},
		{"k=a=b", "k", "a=b", ""},
		{strings.Repeat("k", 64) + "=v", strings.Repeat("k", 64), "v", ""},

		{"confidence", "", "", "is not key=value"},
		{"", "", "", "is not key=value"},
		{"=v", "", "", "must start with a lowercase letter"},
		{"9k=v", "", "", "must start with a lowercase letter"},
		{"_k=v", "", "", "must start with a lowercase letter"},
		{"a b=v", "", "", "use a-z 0-9 _ - ."},
		{"a:b=v", "", "", "use a-z 0-9 _ - ."},
		{strings.Repeat("k", 65) + "=v", "", "", "1-64"},
		{"k=a\nb", "", "", "one line of UTF-8"},
		{"k=a\rb", "", "", "one line of UTF-8"},
		{"k=\xff", "", "", "one line of UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			k, v, err := ParseMeta(tt.in)
			if tt.msg != "" {
				if !errors.Is(err, ErrInvalidMeta) {
					t.Fatalf("ParseMeta(%q) = %q, %q, %v; want ErrInvalidMeta", tt.in, k, v, err)
				}
				if !strings.Contains(err.Error(), tt.msg) {
					t.Errorf("ParseMeta(%q) error %q does not say %q", tt.in, err, tt.msg)
				}
				return
			}
			if err != nil || k != tt.key || v != tt.value {
				t.Errorf("ParseMeta(%q) = %q, %q, %v; want %q, %q", tt.in, k, v, err, tt.key, tt.value)
			}
		})
	}
}

func TestCheckContent(t *testing.T) {
	tests := []struct {
		name, in, want string
		msg            string // for an error: part of the message
	}{
		{"title only", "Title", "Title", ""},
		{"trimmed", "\n\n  Title\nbody  \n\n", "Title\nbody", ""},
		{"CRLF", "Title\r\n\r\nbody\r\nmore\r\n", "Title\n\nbody\nmore", ""},
		{"lone CR kept", "a\rb", "a\rb", ""},
		{"UTF-8", "Café ☕\n\nnaïve", "Café ☕\n\nnaïve", ""},

		{"empty", "", "", "content is empty"},
		{"whitespace", " \t\r\n\n ", "", "content is empty"},
		{"CRLF only", "\r\n\r\n", "", "content is empty"},
		{"invalid UTF-8", "Title\n\n\xff\xfe", "", "not UTF-8"},
		{"truncated rune", "caf\xc3", "", "not UTF-8"},
		{"NUL", "Title\x00", "", "NUL"},
		{"NUL in body", "Title\n\nx\x00y", "", "NUL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckContent(tt.in)
			if tt.msg != "" {
				if !errors.Is(err, ErrInvalidContent) || !strings.Contains(err.Error(), tt.msg) {
					t.Errorf("CheckContent(%q) = %q, %v; want ErrInvalidContent saying %q", tt.in, got, err, tt.msg)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("CheckContent(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestSplitJoinContent(t *testing.T) {
	tests := []struct {
		content, title, body, joined string
	}{
		{"Title", "Title", "", "Title"},
		{"Title\nbody", "Title", "body", "Title\n\nbody"},
		{"Title\n\nbody\n\nmore", "Title", "body\n\nmore", "Title\n\nbody\n\nmore"},
		{"  Title  \n\n \n  body  \n", "Title", "  body", "Title\n\n  body"},
		{"Title\n\n    code\n\ntext", "Title", "    code\n\ntext", "Title\n\n    code\n\ntext"},
		{"Title\n \t\n", "Title", "", "Title"},
	}
	for _, tt := range tests {
		t.Run(tt.content, func(t *testing.T) {
			title, body := splitContent(tt.content)
			if title != tt.title || body != tt.body {
				t.Errorf("splitContent = %q, %q; want %q, %q", title, body, tt.title, tt.body)
			}
			if got := joinContent(title, body); got != tt.joined {
				t.Errorf("joinContent = %q, want %q", got, tt.joined)
			}
		})
	}
	if got := joinContent("", "body"); got != "body" {
		t.Errorf(`joinContent("", "body") = %q`, got)
	}
}

func TestNodeAccessors(t *testing.T) {
	tests := []struct {
		name    string
		node    Node
		tokens  int
		tier    Tier
		active  bool
		hasTags []string
		noTags  []string
	}{
		{"plain", Node{Content: "abcd"}, 1, "", true, nil, []string{"x"}},
		{"rounds up", Node{Content: "abcde"}, 2, "", true, nil, nil},
		{"runes, not bytes", Node{Content: "ééééé"}, 2, "", true, nil, nil},
		{"tier", Node{Content: "", Tags: []string{"project:x", "tier:pinned"}}, 0, Pinned, true,
			[]string{"project:x", "tier:pinned"}, []string{"tier:working", "project", "x"}},
		{"deleted", Node{Deleted: true}, 0, "", false, nil, nil},
		{"superseded", Node{SupersededBy: "0123456789"}, 0, "", false, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.node
			if got := n.Tokens(); got != tt.tokens {
				t.Errorf("Tokens = %d, want %d", got, tt.tokens)
			}
			if got := n.Tier(); got != tt.tier {
				t.Errorf("Tier = %q, want %q", got, tt.tier)
			}
			if got := n.Active(); got != tt.active {
				t.Errorf("Active = %v, want %v", got, tt.active)
			}
			for _, tag := range tt.hasTags {
				if !n.HasTag(tag) {
					t.Errorf("HasTag(%q) = false", tag)
				}
			}
			for _, tag := range tt.noTags {
				if n.HasTag(tag) {
					t.Errorf("HasTag(%q) = true", tag)
				}
			}
		})
	}
}

// TestApply checks each operation on a node in memory, and the errors of
// events that make no sense.
func TestApply(t *testing.T) {
	base := func() *Node {
		return &Node{
			Type: Fact, Tags: []string{"a", "tier:working"}, Meta: map[string]string{"k": "v"},
			Created: t0, Updated: t0,
		}
	}
	tests := []struct {
		op      Op
		arg     string
		check   func(*Node) bool
		wantErr error // nil: no error; errAny: some error
	}{
		{OpTag, "B", func(n *Node) bool { return slices.Equal(n.Tags, []string{"a", "b", "tier:working"}) }, nil},
		{OpTag, "a", func(n *Node) bool { return slices.Equal(n.Tags, []string{"a", "tier:working"}) }, nil},
		{OpTag, "tier:pinned", func(n *Node) bool { return slices.Equal(n.Tags, []string{"a", "tier:pinned"}) }, nil},
		{OpUntag, "a", func(n *Node) bool { return slices.Equal(n.Tags, []string{"tier:working"}) }, nil},
		{OpUntag, "absent", func(n *Node) bool { return slices.Equal(n.Tags, []string{"a", "tier:working"}) }, nil},
		{OpMeta, "k=w x", func(n *Node) bool { return n.Meta["k"] == "w x" }, nil},
		{OpMeta, "new=1", func(n *Node) bool { return n.Meta["new"] == "1" && n.Meta["k"] == "v" }, nil},
		{OpMeta, "k=", func(n *Node) bool { _, ok := n.Meta["k"]; return !ok }, nil},
		{OpType, "note", func(n *Node) bool { return n.Type == Observation }, nil},
		{OpSupersede, "ABCDEFGHJK", func(n *Node) bool { return n.SupersededBy == "abcdefghjk" }, nil},
		{OpUnsupersede, "", func(n *Node) bool { return n.SupersededBy == "" }, nil},
		{OpDelete, "", func(n *Node) bool { return n.Deleted }, nil},
		{OpRestore, "", func(n *Node) bool { return !n.Deleted }, nil},
		{OpEdit, "", func(n *Node) bool { return n.Type == Fact }, nil},

		{OpTag, "tier:urgent", nil, ErrInvalidTag},
		{OpUntag, "a b", nil, ErrInvalidTag},
		{OpMeta, "novalue", nil, errAny},
		{OpMeta, "Bad=1", nil, ErrInvalidMeta},
		{OpType, "idea", nil, ErrInvalidType},
		{OpSupersede, "short", nil, ErrInvalidID},
		{"rename", "x", nil, errAny},
	}
	later := t0.Add(time.Hour)
	for _, tt := range tests {
		t.Run(string(tt.op)+" "+tt.arg, func(t *testing.T) {
			n := base()
			err := n.apply(Event{Time: later, Op: tt.op, Arg: tt.arg})
			if tt.wantErr != nil {
				if err == nil || tt.wantErr != errAny && !errors.Is(err, tt.wantErr) {
					t.Fatalf("apply = %v, want %v", err, tt.wantErr)
				}
				if !n.Updated.Equal(t0) {
					t.Errorf("a refused event moved Updated to %v", n.Updated)
				}
				return
			}
			if err != nil {
				t.Fatalf("apply: %v", err)
			}
			if !tt.check(n) {
				t.Errorf("after %s %q: %+v", tt.op, tt.arg, *n)
			}
			if !sort.StringsAreSorted(n.Tags) {
				t.Errorf("tags not sorted: %v", n.Tags)
			}
			if !n.Updated.Equal(later) {
				t.Errorf("Updated = %v, want %v", n.Updated, later)
			}
		})
	}
	t.Run("an older event does not move Updated back", func(t *testing.T) {
		n := base()
		if err := n.apply(Event{Time: t0.Add(-time.Hour), Op: OpTag, Arg: "x"}); err != nil {
			t.Fatal(err)
		}
		if !n.Updated.Equal(t0) {
			t.Errorf("Updated = %v, want %v", n.Updated, t0)
		}
	})
}

// errAny stands for "some error" in tables.
var errAny = errors.New("any error")

func TestEventOrder(t *testing.T) {
	// Sorted: SEQ first, then TIME, then the event id.
	want := []Event{
		{Seq: 1, Time: t0.Add(time.Hour), ID: "zzzz"},
		{Seq: 2, Time: t0, ID: "bbbb"},
		{Seq: 2, Time: t0, ID: "cccc"},
		{Seq: 2, Time: t0.Add(time.Second), ID: "aaaa"},
		{Seq: 10, Time: t0.Add(-time.Hour), ID: "0000"},
	}
	for i := range want {
		for j := range want {
			if got := want[i].less(want[j]); got != (i < j) {
				t.Errorf("less(%d, %d) = %v", i, j, got)
			}
		}
	}
	if got := nextSeq(nil); got != 1 {
		t.Errorf("nextSeq(nil) = %d, want 1", got)
	}
	if got := nextSeq(want); got != 11 {
		t.Errorf("nextSeq = %d, want 11", got)
	}
}

package narrative

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// nodeFile is a node file as a person might write or edit it; line
// numbers are in the comments.
const nodeFile = `# Title

<!-- ctx:node
id: 0000000001
type: fact
created: 2026-11-22T11:30:00Z
tags: [project:x]
-->

Body text.

<!-- ctx:changes: ctx appends one line per change below this one -->
<!-- ctx:event 2026-11-22T12:00:00Z 1 aaaaaaaa tag tier:pinned -->
`

// lines 1 title, 3 ctx:node, 4 id, 5 type, 6 created, 7 tags, 8 -->,
// 10 body, 12 changes, 13 event.

func TestParseNodeFile(t *testing.T) {
	n, probs := ParseNode("facts/title-0000000001.md", []byte(nodeFile))
	if len(probs) > 0 || n == nil {
		t.Fatalf("ParseNode: %v, %v", n, probs)
	}
	want := &Node{
		ID: "0000000001", Type: Fact, Title: "Title", Content: "Title\n\nBody text.",
		Tags:    []string{"project:x", "tier:pinned"},
		Created: t0, Updated: t0.Add(30 * time.Minute),
		Path: "facts/title-0000000001.md",
	}
	sameState(t, "ParseNode", n, want)
	if n.Line != 3 || n.Stream != "main" || len(n.Events) != 1 || n.Events[0].Line != 13 {
		t.Errorf("Line %d, Stream %q, Events %+v", n.Line, n.Stream, n.Events)
	}
}

func TestParseNodeNoNode(t *testing.T) {
	tests := []struct{ name, src string }{
		{"empty", ""},
		{"README", "# Narrative\n\nSee decisions.md.\n"},
		{"journal", "# 2026-11-22\n\n- 11:30 fact [x](../facts/x.md) X\n"},
		{"fenced code", "# How to\n\n```markdown\n<!-- ctx:node\nid: 0000000001\ntype: fact\n-->\n```\n"},
		{"tilde fence", "# How to\n\n~~~\n<!-- ctx:node\nid: 0000000001\ntype: fact\n-->\n~~~\n"},
		{"indented code", "# How to\n\n    <!-- ctx:node\n    id: 0000000001\n    type: fact\n    -->\n"},
		{"inline code", "# How to\n\nWrite `<!-- ctx:node id: 0000000001 type: fact -->` at the top.\n"},
		{"inside a paragraph", "Text then <!-- ctx:node\nid: 0000000001\ntype: fact\n-->\n"},
		{"in a list", "- item\n\n  ```\n  <!-- ctx:node\n  id: 0000000001\n  type: fact\n  -->\n  ```\n"},
		{"similar comment", "<!-- ctx:nodes are described below -->\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, probs := ParseNode("docs/howto.md", []byte(tt.src))
			if tt.name == "similar comment" {
				// "<!-- ctx:nodes" starts like the marker: ctx reads it as
				// a broken node comment, and says so.
				if n != nil || len(probs) == 0 {
					t.Errorf("ParseNode = %v, %v", n, probs)
				}
				return
			}
			if n != nil || len(probs) > 0 {
				t.Errorf("ParseNode = %+v, %v; want no node and no problems", n, probs)
			}
		})
	}
}

// TestHeaderProblems breaks the metadata comment in the ways a hand edit
// might, and checks the position and message of each problem, and whether
// the node survives.
func TestHeaderProblems(t *testing.T) {
	tests := []struct {
		name     string
		old, new string // a replacement in nodeFile
		line     int
		msg      string
		skipped  bool
	}{
		{"missing id", "id: 0000000001\n", "", 3, "has no id", true},
		{"bad id", "id: 0000000001", "id: 000000000i", 4, "invalid node id", true},
		{"short id", "id: 0000000001", "id: 0001", 4, "invalid node id", true},
		{"empty id", "id: 0000000001", "id:", 4, "invalid node id", true},
		{"missing type", "type: fact\n", "", 3, "has no type", true},
		{"bad type", "type: fact", "type: idea", 5, `invalid node type: "idea" (valid: fact, decision`, true},
		{"bad created", "created: 2026-11-22T11:30:00Z", "created: 22/11/2026", 6, "not an RFC 3339 time", false},
		{"created without zone", "created: 2026-11-22T11:30:00Z", "created: 2026-11-22T11:30:00", 6, "not an RFC 3339 time", false},
		{"unknown key", "tags: [project:x]", "tags: [project:x]\nowner: ana", 8, `unknown key "owner"`, false},
		{"not key: value", "tags: [project:x]", "tags: [project:x]\njust text", 8, `"just text" is not key: value`, false},
		{"bad tag", "tags: [project:x]", "tags: [project:x, tier:urgent]", 7, "tags: invalid tag", false},
		{"bad meta key", "tags: [project:x]", "tags: [project:x]\nmeta.Bad Key: 1", 8, `key "bad key" has ' '`, false},
		{"meta key with a digit first", "tags: [project:x]", "tags: [project:x]\nmeta.9k: 1", 8, "must start with a lowercase letter", false},
		{"bad derived-from", "tags: [project:x]", "tags: [project:x]\nderived-from: [nope]", 8, "derived-from: invalid node id", false},
		{"second id", "type: fact", "type: fact\nid: 0000000002", 6, "a second id 0000000002", false},
		{"second node comment", "Body text.", "Body text.\n\n<!-- ctx:node\nid: 0000000002\ntype: fact\n-->", 12, "a second ctx:node comment", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(nodeFile, tt.old, tt.new, 1)
			if src == nodeFile {
				t.Fatal("the replacement changed nothing")
			}
			n, probs := ParseNode("facts/x.md", []byte(src))
			if !problemAt(probs, "facts/x.md", tt.line, tt.msg) {
				t.Errorf("problems %v; want one at line %d saying %q", probs, tt.line, tt.msg)
			}
			for _, p := range probs {
				if !errors.Is(p, ErrMalformed) {
					t.Errorf("problem %v is not ErrMalformed", p)
				}
				if strings.Contains(p.Msg, "narrative: ") {
					t.Errorf("problem %q repeats the package prefix", p.Msg)
				}
			}
			if tt.skipped {
				if n != nil {
					t.Errorf("the node was not skipped: %+v", n)
				}
				return
			}
			if n == nil || n.ID != "0000000001" || n.Type != Fact {
				t.Fatalf("the node was lost: %+v", n)
			}
		})
	}

	t.Run("the other nodes still load", func(t *testing.T) {
		s := newSpace(t, "0000000001", "0000000002")
		a := mustAdd(t, s, NewNode{Type: Fact, Content: "A"})
		b := mustAdd(t, s, NewNode{Type: Fact, Content: "B"})
		writeFile(t, s, a.Path, strings.Replace(readFile(t, s, a.Path), "type: fact", "type: idea", 1))
		c, err := s.Load()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := c.Nodes[a.ID]; ok || c.Nodes[b.ID] == nil {
			t.Errorf("Nodes = %v", c.Nodes)
		}
		if !problemAt(c.Problems, a.Path, 5, "idea") {
			t.Errorf("Problems = %v", c.Problems)
		}
	})
}

func TestHeaderForms(t *testing.T) {
	tests := []struct {
		name, header string
		check        func(*Node) bool
	}{
		{"upper case keys and values", "ID: 000000000A\nTYPE: Note\nCreated: 2026-11-22T11:30:00Z",
			func(n *Node) bool { return n.ID == "000000000a" && n.Type == Observation }},
		{"tags without brackets", "id: 0000000001\ntype: fact\ntags: Project:X tier:pinned, b",
			func(n *Node) bool { return slices.Equal(n.Tags, []string{"b", "project:x", "tier:pinned"}) }},
		{"quoted tags", `id: 0000000001` + "\ntype: fact\n" + `tags: ["a", 'b']`,
			func(n *Node) bool { return slices.Equal(n.Tags, []string{"a", "b"}) }},
		{"two tiers: the last wins", "id: 0000000001\ntype: fact\ntags: [tier:pinned, tier:working]",
			func(n *Node) bool { return slices.Equal(n.Tags, []string{"tier:working"}) }},
		{"the earliest created wins", "id: 0000000001\ntype: fact\ncreated: 2026-11-23T00:00:00Z\ncreated: 2026-11-22T13:30:00+02:00",
			func(n *Node) bool { return n.Created.Equal(t0) && n.Created.Location() == time.UTC }},
		{"no created", "id: 0000000001\ntype: fact",
			func(n *Node) bool { return n.Created.IsZero() && n.Updated.IsZero() }},
		{"the same id twice", "id: 0000000001\nid: 0000000001\ntype: fact",
			func(n *Node) bool { return n.ID == "0000000001" }},
		{"meta values keep spaces and colons", "id: 0000000001\ntype: fact\nmeta.url: https://x.y/z a b\nMETA.Owner: Ana",
			func(n *Node) bool { return n.Meta["url"] == "https://x.y/z a b" && n.Meta["owner"] == "Ana" }},
		{"derived-from and mentions", "id: 0000000001\ntype: summary\nderived-from: [0000000002, 0000000003]\nmentions: [a.go]",
			func(n *Node) bool {
				return slices.Equal(n.DerivedFrom, []ID{"0000000002", "0000000003"}) && slices.Equal(n.Mentions, []string{"a.go", "b.go"})
			}},
		{"blank lines and indentation", "\n  id: 0000000001\n\n\ttype: fact  \n",
			func(n *Node) bool { return n.ID == "0000000001" }},
		{"--> after the last key", "id: 0000000001\ntype: fact -->\n",
			func(n *Node) bool { return n.Type == Fact }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "# T\n\n<!-- ctx:node\n" + tt.header + "\n-->\n\nSee `b.go`.\n"
			src = strings.Replace(src, "-->\n\n-->", "-->", 1)
			n, probs := ParseNode("x.md", []byte(src))
			if len(probs) > 0 || n == nil {
				t.Fatalf("ParseNode: %v\n%s", probs, src)
			}
			if !tt.check(n) {
				t.Errorf("%+v", stateOf(n))
			}
		})
	}
}

func TestEventProblems(t *testing.T) {
	tests := []struct {
		name, line, msg string
	}{
		{"bad time", "<!-- ctx:event yesterday 2 bbbbbbbb tag x -->", `event time "yesterday" is not RFC 3339`},
		{"bad seq", "<!-- ctx:event 2026-11-22T12:00:00Z two bbbbbbbb tag x -->", `sequence number "two"`},
		{"negative seq", "<!-- ctx:event 2026-11-22T12:00:00Z -1 bbbbbbbb tag x -->", `sequence number "-1"`},
		{"unknown op", "<!-- ctx:event 2026-11-22T12:00:00Z 2 bbbbbbbb rename x -->", `unknown event "rename"`},
		{"too few fields", "<!-- ctx:event 2026-11-22T12:00:00Z 2 tag -->", "needs TIME SEQ EVENTID OP"},
		{"empty", "<!-- ctx:event -->", "needs TIME SEQ EVENTID OP"},
		{"not closed", "<!-- ctx:event 2026-11-22T12:00:00Z 2 bbbbbbbb tag x\n-->", "must be one line"},
		{"bad tag", "<!-- ctx:event 2026-11-22T12:00:00Z 2 bbbbbbbb tag tier:urgent -->", "tier:urgent"},
		{"bad type", "<!-- ctx:event 2026-11-22T12:00:00Z 2 bbbbbbbb type idea -->", `"idea"`},
		{"bad supersede", "<!-- ctx:event 2026-11-22T12:00:00Z 2 bbbbbbbb supersede nobody -->", "invalid node id"},
		{"meta without =", "<!-- ctx:event 2026-11-22T12:00:00Z 2 bbbbbbbb meta k -->", "not key=value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The broken event is line 14, between two good ones.
			src := nodeFile + tt.line + "\n<!-- ctx:event 2026-11-22T12:00:00Z 3 cccccccc tag y -->\n"
			n, probs := ParseNode("facts/x.md", []byte(src))
			if n == nil {
				t.Fatalf("the node was lost: %v", probs)
			}
			if len(probs) != 1 || !problemAt(probs, "facts/x.md", 14, tt.msg) || !strings.Contains(probs[0].Msg, "the event is ignored") {
				t.Errorf("problems %v; want one at line 14 saying %q", probs, tt.msg)
			}
			if !slices.Equal(n.Tags, []string{"project:x", "tier:pinned", "y"}) || len(n.Events) != 2 {
				t.Errorf("Tags %v, Events %+v; want the good events applied", n.Tags, n.Events)
			}
		})
	}
}

func TestEventForms(t *testing.T) {
	tests := []struct {
		name, line string
		want       Event
	}{
		{"tag", "<!-- ctx:event 2026-11-22T12:00:00Z 2 bbbbbbbb tag x -->",
			Event{Time: t0.Add(30 * time.Minute), Seq: 2, ID: "bbbbbbbb", Op: OpTag, Arg: "x"}},
		{"no argument", "<!-- ctx:event 2026-11-22T12:00:00Z 2 bbbbbbbb delete -->",
			Event{Time: t0.Add(30 * time.Minute), Seq: 2, ID: "bbbbbbbb", Op: OpDelete}},
		{"argument with spaces", "<!-- ctx:event 2026-11-22T12:00:00Z 2 bbbbbbbb meta note=a  b c -->",
			Event{Time: t0.Add(30 * time.Minute), Seq: 2, ID: "bbbbbbbb", Op: OpMeta, Arg: "note=a  b c"}},
		{"argument repeating a field", "<!-- ctx:event 2026-11-22T12:00:00Z 2 bbbbbbbb meta k=2 -->",
			Event{Time: t0.Add(30 * time.Minute), Seq: 2, ID: "bbbbbbbb", Op: OpMeta, Arg: "k=2"}},
		{"tabs and a zone", "<!-- ctx:event\t2026-11-22T14:00:00+02:00\t2\tbbbbbbbb\ttag\tx\t-->",
			Event{Time: t0.Add(30 * time.Minute), Seq: 2, ID: "bbbbbbbb", Op: OpTag, Arg: "x"}},
		{"no space before -->", "<!-- ctx:event 2026-11-22T12:00:00Z 2 bbbbbbbb tag x-->",
			Event{Time: t0.Add(30 * time.Minute), Seq: 2, ID: "bbbbbbbb", Op: OpTag, Arg: "x"}},
		{"seq 0", "<!-- ctx:event 2026-11-22T12:00:00Z 0 bbbbbbbb tag x -->",
			Event{Time: t0.Add(30 * time.Minute), Seq: 0, ID: "bbbbbbbb", Op: OpTag, Arg: "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseEvent(tt.line)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Time.Equal(tt.want.Time) || got.Time.Location() != time.UTC ||
				got.Seq != tt.want.Seq || got.ID != tt.want.ID || got.Op != tt.want.Op || got.Arg != tt.want.Arg {
				t.Errorf("parseEvent = %+v, want %+v", got, tt.want)
			}
			// What renderEvent writes parses back the same.
			again, err := parseEvent(renderEvent(got))
			if err != nil || again != got {
				t.Errorf("parseEvent(renderEvent) = %+v, %v; want %+v", again, err, got)
			}
		})
	}
}

// TestHandEdits edits node files as a person would, with plain string
// replacement, and checks what Load makes of them.
func TestHandEdits(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(string) string
		check    func(*Node) bool
		problems int
	}{
		{"body rewritten",
			func(s string) string { return strings.Replace(s, "Old body.", "New body with `code`.", 1) },
			func(n *Node) bool {
				return n.Content == "Title\n\nNew body with `code`." && slices.Equal(n.Mentions, []string{"code"})
			}, 0},
		{"title rewritten",
			func(s string) string { return strings.Replace(s, "# Title", "# Better title", 1) },
			func(n *Node) bool { return n.Title == "Better title" && n.Content == "Better title\n\nOld body." }, 0},
		{"text added after the events",
			func(s string) string { return s + "\nA late remark.\n" },
			func(n *Node) bool { return n.Content == "Title\n\nOld body.\n\n\nA late remark." && n.HasTag("x") }, 0},
		{"event added by hand",
			func(s string) string {
				return s + "<!-- ctx:event 2026-11-22T12:00:00Z 9 handmade tag tier:pinned -->\n"
			},
			func(n *Node) bool { return n.Tier() == Pinned && n.Updated.Equal(t0.Add(30*time.Minute)) }, 0},
		{"event line deleted",
			func(s string) string { return s[:strings.Index(s, "<!-- ctx:event")] },
			func(n *Node) bool { return !n.HasTag("x") && len(n.Events) == 0 }, 0},
		{"changes line deleted",
			func(s string) string { return strings.Replace(s, changesLine+"\n", "", 1) },
			func(n *Node) bool { return n.HasTag("x") && n.Content == "Title\n\nOld body." }, 0},
		{"tag added to the header",
			func(s string) string { return strings.Replace(s, "type: fact\n", "type: fact\ntags: [Added]\n", 1) },
			func(n *Node) bool { return slices.Equal(n.Tags, []string{"added", "x"}) }, 0},
		{"type changed in the header",
			func(s string) string { return strings.Replace(s, "type: fact", "type: decision", 1) },
			func(n *Node) bool { return n.Type == Decision }, 0},
		{"setext title",
			func(s string) string { return strings.Replace(s, "# Title\n", "Title\n=====\n", 1) },
			func(n *Node) bool { return n.Title == "Title" && n.Content == "Title\n\nOld body." }, 0},
		{"setext title over two lines",
			func(s string) string { return strings.Replace(s, "# Title\n", "A long\ntitle\n===\n", 1) },
			func(n *Node) bool { return n.Title == "A long title" && n.Content == "A long title\n\nOld body." }, 0},
		{"indented ATX title",
			func(s string) string { return strings.Replace(s, "# Title\n\n", "  # Title\nSecond line.\n", 1) },
			func(n *Node) bool { return n.Title == "Title" && n.Content == "Title\n\nSecond line.\n\nOld body." }, 0},
		{"ATX title with closing hashes",
			func(s string) string { return strings.Replace(s, "# Title\n", "# Title ##\n", 1) },
			func(n *Node) bool { return n.Title == "Title" }, 0},
		{"no title",
			func(s string) string { return strings.Replace(s, "# Title\n\n", "", 1) },
			func(n *Node) bool { return n.Title == "" && n.Content == "Old body." }, 0},
		{"a level-2 heading is not a title",
			func(s string) string { return strings.Replace(s, "# Title", "## Title", 1) },
			func(n *Node) bool {
				return n.Title == "" && strings.HasPrefix(n.Content, "## Title\n") && strings.HasSuffix(n.Content, "\nOld body.")
			}, 0},
		{"the title after the header",
			func(s string) string {
				s = strings.Replace(s, "# Title\n\n", "", 1)
				return strings.Replace(s, "Old body.", "# Late title\n\nOld body.", 1)
			},
			func(n *Node) bool { return n.Title == "Late title" && n.Content == "Late title\n\nOld body." }, 0},
		{"CRLF line ends",
			func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") },
			func(n *Node) bool {
				return n.Title == "Title" && n.HasTag("x") && n.Type == Fact && n.Created.Equal(t0)
			}, 0},
		{"body with a ctx:node example in a fence",
			func(s string) string {
				return strings.Replace(s, "Old body.", "Example:\n\n```\n<!-- ctx:node\nid: zzzzzzzzzz\n-->\n<!-- ctx:event x -->\n```", 1)
			},
			func(n *Node) bool { return n.ID == "0000000001" && strings.Contains(n.Content, "id: zzzzzzzzzz") }, 0},
		{"a broken event",
			func(s string) string { return strings.Replace(s, " tag x ", " tag x y z ", 1) },
			func(n *Node) bool { return !n.HasTag("x") }, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpace(t, "0000000001")
			n := mustAdd(t, s, NewNode{Type: Fact, Content: "Title\n\nOld body."})
			mustChange(t, s, n, OpTag, "x")
			writeFile(t, s, n.Path, tt.edit(readFile(t, s, n.Path)))
			c, err := s.Load()
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Problems) != tt.problems {
				t.Errorf("Problems = %v, want %d", c.Problems, tt.problems)
			}
			got := c.Nodes[n.ID]
			if got == nil {
				t.Fatalf("the node was lost:\n%s", readFile(t, s, n.Path))
			}
			if !tt.check(got) {
				t.Errorf("got %+v\nfile:\n%s", stateOf(got), readFile(t, s, n.Path))
			}
		})
	}
}

func TestLoadProblems(t *testing.T) {
	s := newSpace(t, "0000000001", "0000000002")
	a := mustAdd(t, s, NewNode{Type: Fact, Content: "A"})
	b := mustAdd(t, s, NewNode{Type: Decision, Content: "B"})

	// A copy of a's file: the ID is in two files; the first by path stays.
	copied := "facts/a-copy.md"
	writeFile(t, s, copied, readFile(t, s, a.Path))
	// A file that is not UTF-8.
	writeFile(t, s, "facts/latin1.md", "# Caf\xe9\n\n<!-- ctx:node\nid: 0000000003\ntype: fact\n-->\n")
	// A broken event in b's file.
	writeFile(t, s, b.Path, readFile(t, s, b.Path)+"<!-- ctx:event nope -->\n")
	// A node with an unknown key: it loads, with a problem.
	writeFile(t, s, "facts/extra.md", "# E\n\n<!-- ctx:node\nid: 0000000004\ntype: fact\ncolour: blue\n-->\n")
	// Files ctx does not parse as nodes.
	writeFile(t, s, "README.md", "# Narrative\n\nMentions `<!-- ctx:node` in passing.\n")
	writeFile(t, s, "facts/notes.txt", "<!-- ctx:node\nid: 0000000005\ntype: fact\n-->\n")

	c, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(c.List(Filter{})); !slices.Equal(got, []ID{"0000000001", "0000000002", "0000000004"}) {
		t.Errorf("nodes = %v", got)
	}
	if c.Nodes[a.ID].Path != a.Path {
		// "facts/a-0000000001.md" sorts before "facts/a-copy.md".
		t.Errorf("the ID stays with %s, want the first by path, %s", c.Nodes[a.ID].Path, a.Path)
	}
	want := []struct {
		path string
		line int
		msg  string
	}{
		{copied, 3, "node id 0000000001 is also in " + a.Path},
		{"facts/latin1.md", 0, "not UTF-8"},
		{b.Path, 10, "the event is ignored"},
		{"facts/extra.md", 6, `unknown key "colour"`},
	}
	if len(c.Problems) != len(want) {
		t.Errorf("Problems = %v", c.Problems)
	}
	for _, w := range want {
		if !problemAt(c.Problems, w.path, w.line, w.msg) {
			t.Errorf("no problem at %s:%d saying %q in %v", w.path, w.line, w.msg, c.Problems)
		}
	}
}

func TestProblemError(t *testing.T) {
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{Path: "facts/x.md", Line: 4, Msg: "bad"}, "narrative/facts/x.md:4: bad"},
		{Problem{Path: "facts/x.md", Msg: "bad"}, "narrative/facts/x.md: bad"},
	}
	for _, tt := range tests {
		if got := tt.p.Error(); got != tt.want {
			t.Errorf("Error = %q, want %q", got, tt.want)
		}
		if !errors.Is(tt.p, ErrMalformed) {
			t.Errorf("%v is not ErrMalformed", tt.p)
		}
	}
}

func TestMentions(t *testing.T) {
	src := "# Use `a.go`\n\n<!-- ctx:node\nid: 0000000001\ntype: fact\nmentions: [x.go]\n-->\n\n" +
		"See `b.go`, [the spec](docs/FORMAT.md), <https://example.com/x> and `a.go` again.\n\n" +
		"```\n`not.go`\n```\n\n<!-- `hidden.go` -->\n\n`" + strings.Repeat("z", 201) + "`\n"
	n, probs := ParseNode("x.md", []byte(src))
	if n == nil || len(probs) > 0 {
		t.Fatal(probs)
	}
	want := []string{"x.go", "a.go", "b.go", "docs/FORMAT.md", "https://example.com/x"}
	if !slices.Equal(n.Mentions, want) {
		t.Errorf("Mentions = %q, want %q", n.Mentions, want)
	}
}

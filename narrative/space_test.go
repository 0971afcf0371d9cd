package narrative

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestAddEveryType adds a node of each type and checks its file, the
// journals, and that Load reads back what Add returned.
func TestAddEveryType(t *testing.T) {
	for _, typ := range Types {
		t.Run(string(typ), func(t *testing.T) {
			s := newSpace(t, "9x2k4m7qab")
			n := mustAdd(t, s, NewNode{
				Type:    typ,
				Content: "Retry with backoff\n\n## Context\n\nThe `net/client.go` retries.",
				Tags:    []string{"Project:NetLib", "tier:reference"},
				Meta:    map[string]string{"confidence": "high", "by": "ana"},
			})
			wantPath := typ.Dir() + "/retry-with-backoff-9x2k4m7qab.md"
			if n.ID != "9x2k4m7qab" || n.Path != wantPath || n.Type != typ || n.Title != "Retry with backoff" ||
				!n.Created.Equal(t0) || !n.Updated.Equal(t0) {
				t.Errorf("Add = %+v", n)
			}
			if !slices.Equal(n.Tags, []string{"project:netlib", "tier:reference"}) {
				t.Errorf("Tags = %v", n.Tags)
			}

			wantFile := "# Retry with backoff\n\n" +
				"<!-- ctx:node\n" +
				"id: 9x2k4m7qab\n" +
				"type: " + string(typ) + "\n" +
				"created: 2026-11-22T11:30:00Z\n" +
				"tags: [project:netlib, tier:reference]\n" +
				"meta.by: ana\n" +
				"meta.confidence: high\n" +
				"-->\n\n" +
				"## Context\n\nThe `net/client.go` retries.\n\n" +
				"<!-- ctx:changes: ctx appends one line per change below this one -->\n"
			if got := readFile(t, s, wantPath); got != wantFile {
				t.Errorf("file:\n%s\nwant:\n%s", got, wantFile)
			}

			wantLog := "# 2026-11-22\n\n- 11:30 " + string(typ) + " [9x2k4m7qab](../" + wantPath + ") Retry with backoff\n"
			if got := readFile(t, s, "log/2026-11-22.md"); got != wantLog {
				t.Errorf("log:\n%s\nwant:\n%s", got, wantLog)
			}

			wantFiles := []string{"log/2026-11-22.md", wantPath}
			if typ == Decision {
				wantDecisions := decisionsHeader + "\n- 2026-11-22 [Retry with backoff](" + wantPath + ") `9x2k4m7qab`\n"
				if got := readFile(t, s, "decisions.md"); got != wantDecisions {
					t.Errorf("decisions.md:\n%s\nwant:\n%s", got, wantDecisions)
				}
				wantFiles = append(wantFiles, "decisions.md")
			}
			slices.Sort(wantFiles)
			if got := listFiles(t, s); !slices.Equal(got, wantFiles) {
				t.Errorf("files = %v, want %v", got, wantFiles)
			}

			got := reload(t, s, n.ID)
			sameState(t, "Load after Add", got, n)
			if got.Line != 3 {
				t.Errorf("Line = %d, want 3 (the ctx:node comment)", got.Line)
			}
			if !slices.Equal(got.Mentions, []string{"net/client.go"}) {
				t.Errorf("Mentions = %v", got.Mentions)
			}
		})
	}
}

func TestAddMinimal(t *testing.T) {
	s := newSpace(t, "0000000001")
	s.at(t0.Add(999 * time.Millisecond)) // truncated to the second
	n := mustAdd(t, s, NewNode{Type: Observation, Content: "  Just a title  \n"})
	want := "# Just a title\n\n<!-- ctx:node\nid: 0000000001\ntype: observation\ncreated: 2026-11-22T11:30:00Z\n-->\n\n" +
		"<!-- ctx:changes: ctx appends one line per change below this one -->\n"
	if got := readFile(t, s, n.Path); got != want {
		t.Errorf("file:\n%s\nwant:\n%s", got, want)
	}
	if n.Content != "Just a title" || !n.Created.Equal(t0) {
		t.Errorf("Add = %+v", n)
	}
	sameState(t, "Load", reload(t, s, n.ID), n)
}

// TestAddJournals adds several nodes over two days and checks that the
// journals get one line each, in order, and decisions.md only decisions.
func TestAddJournals(t *testing.T) {
	s := newSpace(t, "0000000001", "0000000002", "0000000003", "0000000004")
	day2 := t0.Add(13 * time.Hour) // 2026-11-23 00:30 UTC
	mustAdd(t, s, NewNode{Type: Decision, Content: "First decision"})
	mustAdd(t, s.at(t0.Add(time.Minute)), NewNode{Type: Fact, Content: "A  fact\twith   spaces"})
	mustAdd(t, s.at(day2), NewNode{Type: Decision, Content: "Second decision"})
	mustAdd(t, s, NewNode{Type: Task, Content: strings.Repeat("long ", 40)})

	want := map[string]string{
		"log/2026-11-22.md": "# 2026-11-22\n\n" +
			"- 11:30 decision [0000000001](../decisions/first-decision-0000000001.md) First decision\n" +
			"- 11:31 fact [0000000002](../facts/a-fact-with-spaces-0000000002.md) A fact with spaces\n",
		"log/2026-11-23.md": "# 2026-11-23\n\n" +
			"- 00:30 decision [0000000003](../decisions/second-decision-0000000003.md) Second decision\n" +
			"- 00:30 task [0000000004](../tasks/long-long-long-long-long-long-long-long-long-0000000004.md) " +
			strings.TrimSpace(strings.Repeat("long ", 40))[:117] + "...\n",
		"decisions.md": decisionsHeader + "\n" +
			"- 2026-11-22 [First decision](decisions/first-decision-0000000001.md) `0000000001`\n" +
			"- 2026-11-23 [Second decision](decisions/second-decision-0000000003.md) `0000000003`\n",
	}
	for rel, w := range want {
		if got := readFile(t, s, rel); got != w {
			t.Errorf("%s:\n%s\nwant:\n%s", rel, got, w)
		}
	}
	if c := mustLoad(t, s); len(c.Nodes) != 4 {
		t.Errorf("Load found %d nodes, want 4", len(c.Nodes))
	}
}

// TestAppendKeepsHandEdits checks that a journal line is appended to the
// file as it is, a missing final newline supplied.
func TestAppendKeepsHandEdits(t *testing.T) {
	s := newSpace(t, "0000000001")
	writeFile(t, s, "log/2026-11-22.md", "# My day\n\nfree text, no newline")
	writeFile(t, s, "decisions.md", "# Ours\n\n- old entry\n")
	mustAdd(t, s, NewNode{Type: Decision, Content: "D"})
	if got, want := readFile(t, s, "log/2026-11-22.md"),
		"# My day\n\nfree text, no newline\n- 11:30 decision [0000000001](../decisions/d-0000000001.md) D\n"; got != want {
		t.Errorf("log:\n%q\nwant:\n%q", got, want)
	}
	if got, want := readFile(t, s, "decisions.md"),
		"# Ours\n\n- old entry\n- 2026-11-22 [D](decisions/d-0000000001.md) `0000000001`\n"; got != want {
		t.Errorf("decisions.md:\n%q\nwant:\n%q", got, want)
	}
}

// TestAddRefuses checks that Add validates everything before it writes.
func TestAddRefuses(t *testing.T) {
	ok := NewNode{Type: Fact, Content: "Title"}
	with := func(f func(*NewNode)) NewNode {
		in := ok
		in.Meta = map[string]string{}
		f(&in)
		return in
	}
	tests := []struct {
		name string
		in   NewNode
		err  error
	}{
		{"no type", with(func(n *NewNode) { n.Type = "" }), ErrInvalidType},
		{"bad type", with(func(n *NewNode) { n.Type = "note" }), ErrInvalidType},
		{"empty content", with(func(n *NewNode) { n.Content = "" }), ErrInvalidContent},
		{"blank content", with(func(n *NewNode) { n.Content = " \n\t\n" }), ErrInvalidContent},
		{"invalid UTF-8", with(func(n *NewNode) { n.Content = "T\xff" }), ErrInvalidContent},
		{"NUL", with(func(n *NewNode) { n.Content = "T\x00" }), ErrInvalidContent},
		{"ctx:node line", with(func(n *NewNode) { n.Content = "T\n\n<!-- ctx:node\nid: 0000000000\n-->" }), ErrInvalidContent},
		{"ctx:event line", with(func(n *NewNode) { n.Content = "T\n\n<!-- ctx:event 2026-01-01T00:00:00Z 1 x delete -->" }), ErrInvalidContent},
		{"indented ctx line", with(func(n *NewNode) { n.Content = "T\n\n   <!-- ctx:changes -->" }), ErrInvalidContent},
		{"ctx line in a fence", with(func(n *NewNode) { n.Content = "T\n\n```\n<!-- ctx:x -->\n```" }), ErrInvalidContent},
		{"ctx line as title", with(func(n *NewNode) { n.Content = "<!-- ctx:node" }), ErrInvalidContent},
		{"bad tag", with(func(n *NewNode) { n.Tags = []string{"ok", "not ok"} }), ErrInvalidTag},
		{"bad tier", with(func(n *NewNode) { n.Tags = []string{"tier:urgent"} }), ErrInvalidTag},
		{"bad meta key", with(func(n *NewNode) { n.Meta["Bad Key"] = "v" }), ErrInvalidMeta},
		{"empty meta key", with(func(n *NewNode) { n.Meta[""] = "v" }), ErrInvalidMeta},
		{"meta value with newline", with(func(n *NewNode) { n.Meta["k"] = "a\nb" }), ErrInvalidMeta},
		{"meta value with CR", with(func(n *NewNode) { n.Meta["k"] = "a\rb" }), ErrInvalidMeta},
		// A meta value is one line of UTF-8 in the ctx:node comment: "-->"
		// would end the comment, invalid UTF-8 would make the file unreadable.
		{"meta value with -->", with(func(n *NewNode) { n.Meta["k"] = "a --> b" }), ErrInvalidMeta},
		{"meta value not UTF-8", with(func(n *NewNode) { n.Meta["k"] = "\xff" }), ErrInvalidMeta},
		// Content that leaves a Markdown block open would swallow the
		// changes line and every event appended after it.
		{"unclosed fence", with(func(n *NewNode) { n.Content = "T\n\n```go\nfunc f() {" }), ErrInvalidContent},
		{"unclosed tilde fence", with(func(n *NewNode) { n.Content = "T\n\n~~~\nx\n```" }), ErrInvalidContent},
		{"unclosed pre", with(func(n *NewNode) { n.Content = "T\n\n<pre>\nx" }), ErrInvalidContent},
		{"unclosed comment", with(func(n *NewNode) { n.Content = "T\n\n<!-- note to self" }), ErrInvalidContent},
		{"unclosed CDATA", with(func(n *NewNode) { n.Content = "T\n\n<![CDATA[ x" }), ErrInvalidContent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpace(t)
			n, err := s.Add(tt.in)
			if !errors.Is(err, tt.err) || n != nil {
				t.Fatalf("Add = %v, %v; want %v", n, err, tt.err)
			}
			if files := listFiles(t, s); len(files) != 0 {
				t.Errorf("Add wrote %v", files)
			}
		})
	}

	t.Run("an existing file is not overwritten", func(t *testing.T) {
		s := newSpace(t, "0000000001", "0000000001")
		first := mustAdd(t, s, ok)
		before := readFile(t, s, first.Path)
		if _, err := s.Add(ok); err == nil {
			t.Fatal("a second Add with the same ID succeeded")
		}
		if readFile(t, s, first.Path) != before {
			t.Error("the first node's file changed")
		}
	})
	t.Run("a failing Rand writes nothing", func(t *testing.T) {
		s := newSpace(t)
		s.Rand = strings.NewReader("short")
		if _, err := s.Add(ok); err == nil {
			t.Fatal("Add succeeded without an ID")
		}
		if files := listFiles(t, s); len(files) != 0 {
			t.Errorf("Add wrote %v", files)
		}
	})
}

// TestChangeEveryOp records each operation, checks the event line and the
// journal, and that Load reads back the state Change left in memory.
func TestChangeEveryOp(t *testing.T) {
	const other = "zzzzzzzzzz"
	tests := []struct {
		op      Op
		arg     string
		prepare []Event // changes made first (Op and Arg only)
		check   func(*Node) error
		journal string // the line the log gets, "" for none
	}{
		{OpTag, "Project:X", nil, tagsAre("project:x", "tier:working"), ""},
		{OpTag, "tier:pinned", nil, tagsAre("tier:pinned"), ""}, // a tier replaces the tier
		{OpTag, "tier:working", nil, tagsAre("tier:working"), ""},
		{OpUntag, "tier:working", nil, tagsAre(), ""},
		{OpUntag, "absent", nil, tagsAre("tier:working"), ""},
		{OpMeta, "owner=ana b", nil, metaIs(map[string]string{"owner": "ana b", "confidence": "low"}), ""},
		{OpMeta, "confidence=high", nil, metaIs(map[string]string{"confidence": "high"}), ""},
		{OpMeta, "confidence=", nil, metaIs(map[string]string{}), ""},
		{OpType, "decision", nil, typeIs(Decision), ""},
		{OpType, "question", nil, typeIs(OpenQuestion), ""},
		{OpSupersede, other, nil, func(n *Node) error {
			if n.SupersededBy != other || n.Active() {
				return fmt.Errorf("SupersededBy = %q", n.SupersededBy)
			}
			return nil
		}, "superseded [0000000001](../facts/t-0000000001.md) by " + other},
		{OpUnsupersede, "", []Event{{Op: OpSupersede, Arg: other}}, func(n *Node) error {
			if n.SupersededBy != "" || !n.Active() {
				return fmt.Errorf("SupersededBy = %q", n.SupersededBy)
			}
			return nil
		}, ""},
		{OpDelete, "", nil, func(n *Node) error {
			if !n.Deleted || n.Active() {
				return fmt.Errorf("Deleted = %v", n.Deleted)
			}
			return nil
		}, "deleted [0000000001](../facts/t-0000000001.md) T"},
		{OpRestore, "", []Event{{Op: OpDelete}}, func(n *Node) error {
			if n.Deleted {
				return fmt.Errorf("Deleted = %v", n.Deleted)
			}
			return nil
		}, ""},
		{OpEdit, "", nil, func(n *Node) error {
			if n.Content != "T" {
				return fmt.Errorf("Content = %q", n.Content)
			}
			return nil
		}, ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.op)+" "+tt.arg, func(t *testing.T) {
			s := newSpace(t, "0000000001")
			n := mustAdd(t, s, NewNode{Type: Fact, Content: "T", Tags: []string{"tier:working"},
				Meta: map[string]string{"confidence": "low"}})
			for _, p := range tt.prepare {
				mustChange(t, s, n, p.Op, p.Arg)
			}
			later := t0.Add(time.Hour)
			logBefore := readFile(t, s, "log/2026-11-22.md")
			e := mustChange(t, s.at(later), n, tt.op, tt.arg)

			if e.Op != tt.op || e.Arg != tt.arg || e.Seq != len(tt.prepare)+1 || !e.Time.Equal(later) || len(e.ID) != 8 {
				t.Errorf("event = %+v", e)
			}
			line := fmt.Sprintf("<!-- ctx:event 2026-11-22T12:30:00Z %d %s %s", e.Seq, e.ID, tt.op)
			if tt.arg != "" {
				line += " " + tt.arg
			}
			line += " -->\n"
			if file := readFile(t, s, n.Path); !strings.HasSuffix(file, line) {
				t.Errorf("file does not end in %q:\n%s", line, file)
			}
			if err := tt.check(n); err != nil {
				t.Errorf("in memory: %v", err)
			}
			if !n.Updated.Equal(later) {
				t.Errorf("Updated = %v, want %v", n.Updated, later)
			}

			got := reload(t, s, n.ID)
			if err := tt.check(got); err != nil {
				t.Errorf("after Load: %v", err)
			}
			sameState(t, "Load after Change", got, n)
			if len(got.Events) != len(tt.prepare)+1 || got.Events[len(got.Events)-1].ID != e.ID {
				t.Errorf("Events = %+v", got.Events)
			}

			wantLog := logBefore
			if tt.journal != "" {
				wantLog += "- 12:30 " + tt.journal + "\n"
			}
			if got := readFile(t, s, "log/2026-11-22.md"); got != wantLog {
				t.Errorf("log:\n%s\nwant:\n%s", got, wantLog)
			}
		})
	}
}

func tagsAre(tags ...string) func(*Node) error {
	return func(n *Node) error {
		if !slices.Equal(n.Tags, tags) && (len(n.Tags) != 0 || len(tags) != 0) {
			return fmt.Errorf("Tags = %v, want %v", n.Tags, tags)
		}
		return nil
	}
}

func metaIs(m map[string]string) func(*Node) error {
	return func(n *Node) error {
		if len(n.Meta) != len(m) {
			return fmt.Errorf("Meta = %v, want %v", n.Meta, m)
		}
		for k, v := range m {
			if n.Meta[k] != v {
				return fmt.Errorf("Meta = %v, want %v", n.Meta, m)
			}
		}
		return nil
	}
}

func typeIs(typ Type) func(*Node) error {
	return func(n *Node) error {
		if n.Type != typ {
			return fmt.Errorf("Type = %s, want %s", n.Type, typ)
		}
		return nil
	}
}

// TestChangeRefuses checks that an event that makes no sense is refused
// and leaves the file and the node as they were.
func TestChangeRefuses(t *testing.T) {
	tests := []struct {
		op  Op
		arg string
		err error // nil: some error
	}{
		{OpTag, "tier:urgent", ErrInvalidTag},
		{OpTag, "", ErrInvalidTag},
		{OpUntag, "a b", ErrInvalidTag},
		{OpMeta, "novalue", nil},
		{OpMeta, "Bad Key=1", ErrInvalidMeta},
		{OpType, "idea", ErrInvalidType},
		{OpSupersede, "", ErrInvalidID},
		{OpSupersede, "zzzz", ErrInvalidID},
		{"rename", "x", nil},
		// An event is one line of a UTF-8 file.
		{OpMeta, "k=a\nb", ErrInvalidMeta},
		{OpMeta, "k=a\r\nb", ErrInvalidMeta},
		{OpMeta, "k=\xff", ErrInvalidMeta},
		{OpTag, "x\n", nil},
		{OpType, "fact\n", nil},
		{OpDelete, "a\nb", nil},
		{OpEdit, "\xff", nil},
	}
	for _, tt := range tests {
		t.Run(string(tt.op)+" "+tt.arg, func(t *testing.T) {
			s := newSpace(t, "0000000001")
			n := mustAdd(t, s, NewNode{Type: Fact, Content: "T", Tags: []string{"a"}})
			before := stateOf(n)
			file := readFile(t, s, n.Path)
			_, err := s.Change(n, tt.op, tt.arg)
			if err == nil || tt.err != nil && !errors.Is(err, tt.err) {
				t.Fatalf("Change = %v, want %v", err, tt.err)
			}
			if readFile(t, s, n.Path) != file {
				t.Error("the file changed")
			}
			if fmt.Sprint(stateOf(n)) != fmt.Sprint(before) || len(n.Events) != 0 {
				t.Errorf("the node changed: %+v", n)
			}
		})
	}
}

// TestChangeSameSecond makes several changes at one instant: they apply in
// the order made, in memory and after Load, thanks to SEQ.
func TestChangeSameSecond(t *testing.T) {
	s := newSpace(t, "0000000001")
	n := mustAdd(t, s, NewNode{Type: Fact, Content: "T"})
	steps := []struct {
		op  Op
		arg string
	}{
		{OpTag, "tier:working"},
		{OpTag, "tier:pinned"},
		{OpDelete, ""},
		{OpMeta, "k=1"},
		{OpRestore, ""},
		{OpMeta, "k=2"},
		{OpUntag, "tier:pinned"},
		{OpTag, "tier:reference"},
		{OpType, "pattern"},
		{OpType, "hypothesis"},
	}
	for i, st := range steps {
		e := mustChange(t, s, n, st.op, st.arg)
		if e.Seq != i+1 {
			t.Errorf("step %d: Seq = %d", i, e.Seq)
		}
	}
	check := func(what string, n *Node) {
		t.Helper()
		if !slices.Equal(n.Tags, []string{"tier:reference"}) || n.Meta["k"] != "2" || n.Deleted || n.Type != Hypothesis {
			t.Errorf("%s: %+v", what, stateOf(n))
		}
	}
	check("in memory", n)
	got := reload(t, s, n.ID)
	check("after Load", got)
	for i, e := range got.Events {
		if e.Seq != i+1 || e.Op != steps[i].op {
			t.Errorf("Events[%d] = %+v", i, e)
		}
	}
}

// TestEventsShuffled permutes a node's event lines, as a union merge may:
// the state stays the same.
func TestEventsShuffled(t *testing.T) {
	s := newSpace(t, "0000000001")
	n := mustAdd(t, s, NewNode{Type: Fact, Content: "T\n\nbody"})
	mustChange(t, s, n, OpTag, "tier:working")
	mustChange(t, s, n, OpTag, "x")
	mustChange(t, s.at(t0.Add(time.Second)), n, OpTag, "tier:pinned")
	mustChange(t, s, n, OpMeta, "k=1")
	mustChange(t, s, n, OpDelete, "")
	mustChange(t, s, n, OpMeta, "k=2")
	mustChange(t, s.at(t0.Add(2*time.Second)), n, OpUntag, "x")
	mustChange(t, s, n, OpRestore, "")
	mustChange(t, s, n, OpSupersede, "zzzzzzzzzz")
	want := reload(t, s, n.ID)

	src := readFile(t, s, n.Path)
	head, events, ok := strings.Cut(src, changesLine+"\n")
	if !ok {
		t.Fatal("no changes line")
	}
	lines := strings.Split(strings.TrimSuffix(events, "\n"), "\n")
	r := seededRand(3)
	for i := 0; i < 20; i++ {
		var b [1]byte
		for j := len(lines) - 1; j > 0; j-- { // Fisher-Yates with a fixed stream
			_, _ = r.Read(b[:])
			k := int(b[0]) % (j + 1)
			lines[j], lines[k] = lines[k], lines[j]
		}
		shuffled := head + changesLine + "\n" + strings.Join(lines, "\n") + "\n"
		got, probs := ParseNode(n.Path, []byte(shuffled))
		if len(probs) > 0 || got == nil {
			t.Fatalf("shuffle %d: %v", i, probs)
		}
		got.Events, want.Events = nil, nil
		if fmt.Sprint(stateOf(got)) != fmt.Sprint(stateOf(want)) {
			t.Errorf("shuffle %d:\n%s\ngot  %+v\nwant %+v", i, shuffled, stateOf(got), stateOf(want))
		}
	}
}

// TestConcurrentEvents: events that two teammates made with the same SEQ
// apply in time order, then by event id.
func TestConcurrentEvents(t *testing.T) {
	head := "# T\n\n<!-- ctx:node\nid: 0000000001\ntype: fact\ncreated: 2026-11-22T11:30:00Z\n-->\n\n" + changesLine + "\n"
	tests := []struct {
		name   string
		events []string
		tier   Tier
	}{
		{"later time wins", []string{
			"<!-- ctx:event 2026-11-22T12:00:01Z 1 aaaaaaaa tag tier:pinned -->",
			"<!-- ctx:event 2026-11-22T12:00:00Z 1 bbbbbbbb tag tier:working -->",
		}, Pinned},
		{"same time: larger id wins", []string{
			"<!-- ctx:event 2026-11-22T12:00:00Z 1 bbbbbbbb tag tier:pinned -->",
			"<!-- ctx:event 2026-11-22T12:00:00Z 1 aaaaaaaa tag tier:working -->",
		}, Pinned},
		{"SEQ beats time", []string{
			"<!-- ctx:event 2026-11-22T12:00:00Z 2 aaaaaaaa tag tier:working -->",
			"<!-- ctx:event 2026-11-22T13:00:00Z 1 bbbbbbbb tag tier:pinned -->",
		}, Working},
		{"time zones compare as instants", []string{
			"<!-- ctx:event 2026-11-22T13:00:00+02:00 1 aaaaaaaa tag tier:pinned -->", // 11:00Z
			"<!-- ctx:event 2026-11-22T12:00:00Z 1 bbbbbbbb tag tier:working -->",
		}, Working},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, order := range [][]string{tt.events, {tt.events[1], tt.events[0]}} {
				n, probs := ParseNode("facts/t.md", []byte(head+strings.Join(order, "\n")+"\n"))
				if n == nil || len(probs) > 0 {
					t.Fatalf("ParseNode: %v", probs)
				}
				if n.Tier() != tt.tier {
					t.Errorf("Tier = %q, want %q (order %v)", n.Tier(), tt.tier, order)
				}
			}
		})
	}
}

func TestEdit(t *testing.T) {
	s := newSpace(t, "0000000001")
	n := mustAdd(t, s, NewNode{Type: Decision, Content: "Old title\n\nOld body.", Tags: []string{"a"}})
	mustChange(t, s, n, OpTag, "b")
	later := t0.Add(time.Hour)
	if err := s.at(later).Edit(n, "New title\r\n\r\nNew body, `with code`.\r\n"); err != nil {
		t.Fatal(err)
	}
	if n.Content != "New title\n\nNew body, `with code`." || n.Title != "New title" || !n.Updated.Equal(later) {
		t.Errorf("after Edit: %+v", n)
	}
	if len(n.Events) != 2 || n.Events[1].Op != OpEdit || n.Events[1].Seq != 2 {
		t.Errorf("Events = %+v", n.Events)
	}
	src := readFile(t, s, n.Path)
	for _, want := range []string{
		"# New title\n\n<!-- ctx:node\nid: 0000000001\n",
		"-->\n\nNew body, `with code`.\n\n" + changesLine + "\n<!-- ctx:event 2026-11-22T11:30:00Z 1 ",
		" 2 " + n.Events[1].ID + " edit -->\n",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("file does not contain %q:\n%s", want, src)
		}
	}
	if strings.Contains(src, "Old") {
		t.Errorf("the old content stays:\n%s", src)
	}
	// The file keeps its name: the slug is of the first title.
	if n.Path != "decisions/old-title-0000000001.md" {
		t.Errorf("Path = %q", n.Path)
	}
	got := reload(t, s, n.ID)
	sameState(t, "Load after Edit", got, n)
	if !slices.Equal(got.Mentions, []string{"with code"}) {
		t.Errorf("Mentions = %v", got.Mentions)
	}

	t.Run("title only", func(t *testing.T) {
		if err := s.Edit(n, "Only a title"); err != nil {
			t.Fatal(err)
		}
		sameState(t, "Load", reload(t, s, n.ID), n)
	})
	t.Run("refused", func(t *testing.T) {
		before := readFile(t, s, n.Path)
		for _, bad := range []string{"", "  \n", "T\n\n<!-- ctx:event x -->", "T\x00", "T\n\n```\nopen"} {
			if err := s.Edit(n, bad); !errors.Is(err, ErrInvalidContent) {
				t.Errorf("Edit(%q) = %v, want ErrInvalidContent", bad, err)
			}
		}
		if readFile(t, s, n.Path) != before {
			t.Error("a refused Edit changed the file")
		}
	})
	t.Run("lost header", func(t *testing.T) {
		writeFile(t, s, n.Path, "# Title\n\nno comment\n")
		if err := s.Edit(n, "X"); !errors.Is(err, ErrMalformed) {
			t.Errorf("Edit = %v, want ErrMalformed", err)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		if err := os.Remove(filepath.Join(s.Root, n.Path)); err != nil {
			t.Fatal(err)
		}
		if err := s.Edit(n, "X"); err == nil {
			t.Error("Edit of a missing file succeeded")
		}
	})
}

// TestRoundTripContent adds content that Markdown could change, and checks
// that Load gives the content back as Add stored it.
func TestRoundTripContent(t *testing.T) {
	tests := []struct{ name, content string }{
		{"plain", "Title\n\nBody."},
		{"no blank line after the title", "Title\nBody."},
		{"blank lines after the title", "Title\n\n\n\nBody."},
		{"code span in title", "Use `ctx verify` before pushing"},
		{"emphasis in title", "Never *ever* rewrite objects"},
		{"link in title", "See [FORMAT](docs/FORMAT.md)"},
		{"escaped characters", `Escape \* and \_ in titles`},
		{"C#", "Port it to C#"},
		{"trailing hash", "Fix issue #"},
		{"only hashes", "##"},
		{"hash title with body", "#\n\nbody"},
		{"hash title", "# Heading as title\n\nbody"},
		{"non-ASCII", "Café — naïve résumé ☕\n\n日本語の本文"},
		{"lists and headings", "T\n\n- a\n- b\n\n## Sub\n\n1. one\n2. two"},
		{"closed fence", "T\n\n```go\nfunc f() {}\n```"},
		{"HTML comment", "T\n\n<!-- a note to self -->\n\nmore"},
		{"setext-looking body", "T\n\nText\n===\n\nMore\n---"},
		{"block quote last", "T\n\n> quoted"},
		{"list last", "T\n\n- item\n  continued"},
		{"indented code last", "T\n\n    code"},
		{"table", "T\n\n| a | b |\n|---|---|\n| 1 | 2 |"},
		{"second H1 in body", "T\n\n# Another H1\n\ntext"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpace(t, "0000000001")
			n := mustAdd(t, s, NewNode{Type: Fact, Content: tt.content})
			mustChange(t, s, n, OpTag, "x")
			got := reload(t, s, n.ID)
			if got.Content != n.Content || got.Title != n.Title {
				t.Errorf("Load:\n got %q (title %q)\nwant %q (title %q)\nfile:\n%s",
					got.Content, got.Title, n.Content, n.Title, readFile(t, s, n.Path))
			}
			if !got.HasTag("x") {
				t.Errorf("the tag event was lost:\n%s", readFile(t, s, n.Path))
			}
			// Edit with the same content keeps it too.
			if err := s.Edit(n, tt.content); err != nil {
				t.Fatal(err)
			}
			if got := reload(t, s, n.ID); got.Content != n.Content || !got.HasTag("x") {
				t.Errorf("Load after Edit: %q, tags %v", got.Content, got.Tags)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		path, role, stream string
	}{
		{"README.md", "overview", "main"},
		{"decisions.md", "decision", "main"},
		{"log/2026-11-22.md", "log", "main"},
		{"log/2026/11.md", "log", "main"},
		{"log.md", "doc", "main"},
		{"tasks/fix-it-0000000001.md", "task", "main"},
		{"facts/x.md", "fact", "main"},
		{"decisions/x.md", "decision", "main"},
		{"patterns/x.md", "pattern", "main"},
		{"observations/x.md", "observation", "main"},
		{"hypotheses/x.md", "hypothesis", "main"},
		{"questions/x.md", "open-question", "main"},
		{"summaries/x.md", "summary", "main"},
		{"sources/x.md", "source", "main"},
		{"facts", "doc", "main"},
		{"nodes/x.md", "doc", "main"},
		{"notes.md", "doc", "main"},
		{"docs/README.md", "doc", "main"},
		{"work/ana/today.md", "work", "work"},
		{"work/x.md", "work", "work"},
		{"feature/auth/README.md", "overview", "feature-auth"},
		{"feature/auth/decisions.md", "decision", "feature-auth"},
		{"feature/auth/log/2026-11-22.md", "log", "feature-auth"},
		{"feature/auth/tasks/x.md", "task", "feature-auth"},
		{"feature/auth/plan.md", "doc", "feature-auth"},
		{"feature/auth.md", "doc", "main"},
		{"feature/auth/work/x.md", "doc", "feature-auth"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			role, stream := Classify(tt.path)
			if role != tt.role || stream != tt.stream {
				t.Errorf("Classify(%q) = %q, %q; want %q, %q", tt.path, role, stream, tt.role, tt.stream)
			}
		})
	}
	// Every type's directory classifies as the type.
	for _, typ := range Types {
		if role, _ := Classify(typ.Dir() + "/x.md"); role != string(typ) {
			t.Errorf("Classify(%s/x.md) = %q, want %q", typ.Dir(), role, typ)
		}
	}
}

func TestFileName(t *testing.T) {
	const id = ID("0000000001")
	tests := []struct {
		title, want string
	}{
		{"Retry strategy: exponential backoff with jitter", "retry-strategy-exponential-backoff-with-jitter-0000000001.md"},
		{"Hello", "hello-0000000001.md"},
		{"  --Hello,   World!--  ", "hello-world-0000000001.md"},
		{"Use `ctx verify` (always)", "use-ctx-verify-always-0000000001.md"},
		{"v1.2.3", "v1-2-3-0000000001.md"},
		{"", "0000000001.md"},
		{"!!!", "0000000001.md"},
		{"日本語", "0000000001.md"},
		{"Café résumé", "caf-r-sum-0000000001.md"},
		{"../../etc/passwd", "etc-passwd-0000000001.md"},
		// Over 48 characters: cut at the last word boundary after 24.
		{"this title is far too long to be a file name in any listing",
			"this-title-is-far-too-long-to-be-a-file-name-0000000001.md"},
		// One long word: cut at 48 characters.
		{strings.Repeat("a", 60), strings.Repeat("a", 48) + "-0000000001.md"},
		{strings.Repeat("a", 30) + " " + strings.Repeat("b", 30), strings.Repeat("a", 30) + "-0000000001.md"},
		{strings.Repeat("a", 20) + " " + strings.Repeat("b", 30), strings.Repeat("a", 20) + "-" + strings.Repeat("b", 27) + "-0000000001.md"},
		{strings.Repeat("a", 47) + " b", strings.Repeat("a", 47) + "-0000000001.md"},
	}
	for _, tt := range tests {
		t.Run(tt.title, func(t *testing.T) {
			got := fileName(tt.title, id)
			if got != tt.want {
				t.Errorf("fileName(%q) = %q, want %q", tt.title, got, tt.want)
			}
			slug := strings.TrimSuffix(strings.TrimSuffix(got, ".md"), string(id))
			if len(slug) > 49 || strings.ContainsAny(slug, "/\\. ") {
				t.Errorf("slug %q", slug)
			}
		})
	}
}

func TestFiles(t *testing.T) {
	s := newSpace(t)
	for _, rel := range []string{
		"README.md", "decisions.md", "log/2026-11-22.md", "facts/a-0000000001.md",
		"work/ana/x.md", "feature/auth/tasks/t.md", "notes.txt",
		".hidden.md", ".git/config", "facts/.a.md.123.tmp", "facts/b.md.tmp",
	} {
		writeFile(t, s, rel, "x\n")
	}
	if err := os.Symlink("README.md", filepath.Join(s.Root, "link.md")); err != nil {
		t.Fatal(err)
	}
	files, err := s.Files()
	if err != nil {
		t.Fatal(err)
	}
	want := []File{
		{"README.md", "overview", "main"},
		{"decisions.md", "decision", "main"},
		{"facts/a-0000000001.md", "fact", "main"},
		{"feature/auth/tasks/t.md", "task", "feature-auth"},
		{"log/2026-11-22.md", "log", "main"},
		{"notes.txt", "doc", "main"},
		{"work/ana/x.md", "work", "work"},
	}
	if !slices.Equal(files, want) {
		t.Errorf("Files =\n%v\nwant\n%v", files, want)
	}
}

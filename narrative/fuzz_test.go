package narrative

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// brokenFiles are handcrafted damaged node files for the fuzz seeds.
var brokenFiles = []string{
	"",
	"<!-- ctx:node",
	"<!-- ctx:node -->",
	"<!-- ctx:node\nid: 0000000001\ntype: fact\n",
	"<!-- ctx:node\nid: 0000000001\ntype: fact\n-->",
	"<!-- ctx:node id: 0000000001 -->",
	"#\n\n<!-- ctx:node\nid: 0000000001\ntype: fact\n-->\n",
	"Title\n=====",
	"Title\n=====\n<!-- ctx:node\nid: 0000000001\ntype: fact\n-->",
	"  # T\n<!-- ctx:node\nid: 0000000001\ntype: fact\n-->\n<!-- ctx:event",
	"\ufeff# T\r\n\r\n<!-- ctx:node\r\nid: 0000000001\r\ntype: fact\r\n-->\r\n",
	"# T\n\n<!-- ctx:node\nid: 0000000001\ntype: fact\ncreated: x\nbogus\n-->\n<!-- ctx:event 2026-11-22T12:00:00Z 1 a tag -->\n",
	"# T\n\n<!-- ctx:node\nid: 0000000001\ntype: fact\n-->\n\n```\n<!-- ctx:changes -->\n<!-- ctx:event 2026-11-22T12:00:00Z 1 a delete -->\n",
	"# T\n\n<!-- ctx:node\nid: 0000000001\ntype: fact\n-->\n<!-- ctx:node\nid: 0000000002\ntype: task\n-->\n",
	"# T\n\n<!-- ctx:node\nid: 0000000001\ntype: fact\nmeta.k: a --> b\nmeta.z: 1\n-->\n",
	"# T\x00\n\n<!-- ctx:node\nid: 0000000001\ntype: fact\n-->\n",
	"# T\xff\n\n<!-- ctx:node\nid: 0000000001\ntype: fact\n-->\n",
	"> <!-- ctx:node\n> id: 0000000001\n> type: fact\n> -->\n",
	"<pre>\n<!-- ctx:node\nid: 0000000001\ntype: fact\n-->\n",
	"`<!-- ctx:node`\n<!-- ctx:node\nid: 0000000001\ntype: fact\n-->\n<!-- ctx:event 2026-11-22T12:00:00Z 99999999999999999999 a tag x -->\n",
}

// goldenNodeFiles returns the checked-in golden Markdown files.
func goldenNodeFiles(tb testing.TB) [][]byte {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(goldenDir, "*.md"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no golden files in %s: %v", goldenDir, err)
	}
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func FuzzParseNode(f *testing.F) {
	for _, b := range goldenNodeFiles(f) {
		f.Add(b)
	}
	f.Add([]byte(nodeFile))
	for _, s := range brokenFiles {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		const path = "facts/fuzz.md"
		n, probs := ParseNode(path, src)
		for _, p := range probs {
			if p.Path != path || p.Line < 0 || p.Msg == "" {
				t.Fatalf("bad problem %+v", p)
			}
			if p.Line > strings.Count(string(src), "\n")+1 {
				t.Fatalf("problem %+v is past the last line", p)
			}
		}
		if n == nil {
			return
		}
		if id, err := ParseID(string(n.ID)); err != nil || id != n.ID {
			t.Fatalf("node ID %q: %v", n.ID, err)
		}
		if !n.Type.Valid() {
			t.Fatalf("node type %q", n.Type)
		}
		if !sort.StringsAreSorted(n.Tags) {
			t.Fatalf("tags not sorted: %q", n.Tags)
		}
		tiers := 0
		for _, tag := range n.Tags {
			if norm, err := ParseTag(tag); err != nil || norm != tag {
				t.Fatalf("tag %q: %q, %v", tag, norm, err)
			}
			if strings.HasPrefix(tag, TierPrefix) {
				tiers++
			}
		}
		if tiers > 1 {
			t.Fatalf("%d tiers: %q", tiers, n.Tags)
		}
		for k := range n.Meta {
			if err := checkMetaKey(k); err != nil {
				t.Fatalf("meta key: %v", err)
			}
		}
		if n.SupersededBy != "" {
			if _, err := ParseID(string(n.SupersededBy)); err != nil {
				t.Fatalf("SupersededBy: %v", err)
			}
		}
		if !utf8.ValidString(n.Content) || n.Path != path || n.Line < 1 {
			t.Fatalf("node %+v", n)
		}
		if n.Updated.Before(n.Created) {
			t.Fatalf("Updated %v before Created %v", n.Updated, n.Created)
		}
		// Parsing is deterministic.
		again, _ := ParseNode(path, src)
		if again == nil || stateOfString(again) != stateOfString(n) {
			t.Fatalf("a second parse differs")
		}
		// What ctx reads, it can write back: the state rendered as a new
		// file (as Add would, when Add accepts the content) reads back the same.
		if n.Title == "" || checkNoMarkers(n.Content) != nil || n.Content != joinContent(splitContent(n.Content)) {
			return
		}
		for _, v := range n.Meta {
			if v != strings.TrimSpace(v) || strings.Contains(v, "-->") {
				return
			}
		}
		out := renderNode(n)
		back, probs := ParseNode(path, out)
		if back == nil || len(probs) > 0 {
			t.Fatalf("the rendered node does not parse: %v\n%s", probs, out)
		}
		// The events are not rendered: what they alone decide is not compared.
		back.Updated, back.SupersededBy = n.Updated, n.SupersededBy
		if g, w := stateOfString(back), stateOfString(n); g != w || !maps.Equal(back.Meta, n.Meta) {
			t.Fatalf("rendered and read back:\n got  %q\n want %q\n%s", g, w, out)
		}
	})
}

func stateOfString(n *Node) string {
	st := stateOf(n)
	return strings.Join([]string{string(st.ID), string(st.Type), st.Title, st.Content,
		strings.Join(st.Tags, ","), string(st.SupersededBy), st.Created.String(), st.Updated.String()}, "\x00")
}

func FuzzParseEvent(f *testing.F) {
	for _, b := range goldenNodeFiles(f) {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, eventMarker) {
				f.Add(line)
			}
		}
	}
	for _, s := range []string{
		"<!-- ctx:event 2026-11-22T12:00:00Z 1 aaaaaaaa tag tier:pinned -->",
		"<!-- ctx:event 2026-11-22T12:00:00Z 1 aaaaaaaa meta note=a  b  -->",
		"<!-- ctx:event 2026-11-22T14:00:00+02:00 0 x delete-->",
		"<!-- ctx:event 2026-11-22T12:00:00.123Z 1 x edit -->",
		"<!-- ctx:event 2026-11-22T12:00:00Z +1 x edit -->",
		"<!-- ctx:event 2026-11-22T12:00:00Z 1 x tag a --> -->",
		"<!-- ctx:event 2026-11-22T12:00:00Z 1 x tag a\n-->",
		"<!-- ctx:event -->",
		"<!-- ctx:event",
		"<!-- ctx:event x y z w v u -->",
		"  <!-- ctx:event 2026-11-22T12:00:00Z 1 tag tag tag -->  ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		e, err := parseEvent(raw)
		if err != nil {
			if e != (Event{}) {
				t.Fatalf("parseEvent returned %+v with %v", e, err)
			}
			return
		}
		if e.Seq < 0 || !e.Op.valid() || e.Time.Location() != time.UTC || e.ID == "" ||
			strings.ContainsAny(e.ID, " \t\n") || strings.Contains(e.Arg, "\n") || e.Arg != strings.TrimSpace(e.Arg) {
			t.Fatalf("parseEvent(%q) = %+v", raw, e)
		}
		// What ctx writes for the event reads back the same (to the second:
		// ctx writes whole seconds).
		line := renderEvent(e)
		back, err := parseEvent(line)
		if err != nil {
			t.Fatalf("parseEvent(renderEvent(%+v)) = %v (line %q)", e, err, line)
		}
		want := e
		want.Time = e.Time.Truncate(time.Second)
		if back != want {
			t.Fatalf("round trip of %q:\n got  %+v\n want %+v", line, back, want)
		}
		// An event line appended to a node file never loses the node (a
		// file ctx reads is UTF-8).
		if !utf8.ValidString(line) {
			return
		}
		src := nodeFile + line + "\n"
		n, _ := ParseNode("x.md", []byte(src))
		if n == nil {
			t.Fatalf("the node was lost by appending %q", line)
		}
	})
}

func FuzzParseTag(f *testing.F) {
	for _, s := range []string{
		"project:netlib", "tier:reference", "Tier:Pinned", "tier:urgent", "rust", "", " a ", "a::b", ":", "a:",
		"lang:c++", "x/y.z_w-v+u", "tier:", "tier:pinned:x", "ünïcode", "a\x00b", strings.Repeat("a", 101),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tag, err := ParseTag(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidTag) || tag != "" {
				t.Fatalf("ParseTag(%q) = %q, %v", s, tag, err)
			}
			return
		}
		if tag == "" || len(tag) > maxTagLen || tag != strings.ToLower(tag) || strings.ContainsAny(tag, " \t\n,[]\"'") {
			t.Fatalf("ParseTag(%q) = %q", s, tag)
		}
		if again, err := ParseTag(tag); err != nil || again != tag {
			t.Fatalf("ParseTag(%q) = %q, %v; not idempotent", tag, again, err)
		}
		if tier, ok := strings.CutPrefix(tag, TierPrefix); ok && !slices.Contains(Tiers, Tier(tier)) {
			t.Fatalf("ParseTag(%q) = %q, an unknown tier", s, tag)
		}
		// A tag written in a header list reads back as itself.
		if got := splitList("[" + tag + ", x]"); len(got) != 2 || got[0] != tag {
			t.Fatalf("splitList of %q = %q", tag, got)
		}
	})
}

// FuzzContentRoundTrip checks that content Add accepts comes back from the
// file Add writes as the same content and title, and that an event
// appended after it is not lost.
func FuzzContentRoundTrip(f *testing.F) {
	for _, s := range []string{
		"Title", "Title\n\nbody", "Use `x` and *y*", "T\n\n```go\ncode\n```", "T\n\n    code",
		"# T", "T #", "T\n===", "T\n\n<div>\nx\n</div>", "T\n\n- a\n- b", "T\n\n> q", "[a](b)",
		"T\n\n<!-- c -->", "T\n\n| a |\n|---|\n| 1 |", "Café ☕\n\n日本語",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		c, err := CheckContent(content)
		if err != nil {
			return
		}
		if err := checkNoMarkers(c); err != nil {
			return
		}
		c = joinContent(splitContent(c))
		n := &Node{ID: "0000000001", Type: Fact, Content: c, Created: t0}
		n.Title, _ = splitContent(c)
		src := string(renderNode(n)) + renderEvent(Event{Time: t0, Seq: 1, ID: "aaaaaaaa", Op: OpTag, Arg: "x"}) + "\n"
		got, probs := ParseNode("facts/x.md", []byte(src))
		if got == nil || len(probs) > 0 {
			t.Fatalf("content %q: the file does not parse: %v\n%s", c, probs, src)
		}
		if !got.HasTag("x") {
			t.Fatalf("content %q: the event is lost\n%s", c, src)
		}
		if got.Content != c || got.Title != n.Title {
			t.Fatalf("content %q (title %q) reads back as %q (title %q)\n%s", c, n.Title, got.Content, got.Title, src)
		}
	})
}

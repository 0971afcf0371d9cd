package narrative

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// The markers of ctx's comments in narrative files.
const (
	ctxMarker     = "<!-- ctx:" // every comment of ctx's starts so
	nodeMarker    = "<!-- ctx:node"
	eventMarker   = "<!-- ctx:event"
	changesMarker = "<!-- ctx:changes"
	// changesLine separates a node's body from its event lines, so that a
	// teammate's edit at the end of the body and another's appended event
	// are never adjacent, which git would merge as one conflicting hunk.
	changesLine = changesMarker + ": ctx appends one line per change below this one -->"
)

var md = goldmark.New()

// span is a byte range of a file.
type span struct{ start, end int }

// ParseNode parses a narrative file. It returns nil and no problems for a
// file that holds no node (no "<!-- ctx:node" comment), such as README.md
// or a journal. Problems are positioned; a node with a broken metadata
// comment is returned as nil with the problems that explain why.
func ParseNode(path string, src []byte) (*Node, []Problem) {
	if !bytes.Contains(src, []byte(nodeMarker)) {
		return nil, nil
	}
	var probs []Problem
	report := func(off int, format string, args ...any) {
		probs = append(probs, Problem{Path: path, Line: lineOf(src, off), Msg: fmt.Sprintf(format, args...)})
	}
	if !utf8.Valid(src) {
		probs = append(probs, Problem{Path: path, Msg: "the file is not UTF-8"})
		return nil, probs
	}
	// Files saved on Windows: a byte-order mark would hide the title, and
	// CR before LF would stay in the body. Neither changes line numbers.
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	if bytes.Contains(src, []byte("\r\n")) {
		src = bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
	}
	doc := md.Parser().Parse(text.NewReader(src))

	var (
		cut    []span // ranges left out of the body
		header *span
		title  string
		events []Event
		haveH1 bool
	)
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		switch b := c.(type) {
		case *ast.HTMLBlock:
			sp := blockSpan(src, b)
			raw := string(src[sp.start:sp.end])
			switch {
			case strings.HasPrefix(raw, nodeMarker):
				if header != nil {
					report(sp.start, "a second ctx:node comment (one node per file); it is ignored")
				} else {
					header = &sp
				}
				cut = append(cut, sp)
			case strings.HasPrefix(raw, eventMarker):
				ev, err := parseEvent(raw)
				if err != nil {
					report(sp.start, "%s; the event is ignored", why(err))
				} else {
					ev.Line = lineOf(src, sp.start)
					events = append(events, ev)
				}
				cut = append(cut, sp)
			case strings.HasPrefix(raw, changesMarker):
				cut = append(cut, sp)
			}
		case *ast.Heading:
			if b.Level == 1 && !haveH1 {
				haveH1 = true
				title = headingText(src, b)
				cut = append(cut, headingSpan(src, b))
			}
		}
	}
	if header == nil {
		// The marker only appears inside code or inline: not a node file.
		return nil, nil
	}
	probs = append(probs, swallowed(path, src, cut)...)
	n, hprobs := parseHeader(path, src, *header)
	probs = append(probs, hprobs...)
	if n == nil {
		return nil, probs
	}
	n.Title = title
	n.Path = path
	_, n.Stream = Classify(path)
	body := trimBody(string(without(src, cut)))
	n.Content = joinContent(title, body)
	n.Mentions = mentions(doc, src, n.Mentions)

	sort.SliceStable(events, func(i, j int) bool { return events[i].less(events[j]) })
	for _, e := range events {
		if err := n.apply(e); err != nil {
			probs = append(probs, Problem{Path: path, Line: e.Line, Msg: fmt.Sprintf("%s; the event is ignored", why(err))})
			continue
		}
		n.Events = append(n.Events, e)
	}
	return n, probs
}

// swallowed reports the first ctx line (the changes line, or an event
// line) that did not parse as a block of its own because a hand edit left a
// code fence, <pre> or comment open above it. Only when no changes line
// parsed: an example of ctx's comments inside a closed code block, above
// the file's own changes line, is fine.
func swallowed(path string, src []byte, cut []span) []Problem {
	covered := func(off int) bool {
		for _, c := range cut {
			if c.start <= off && off < c.end {
				return true
			}
		}
		return false
	}
	changesParsed := false
	for _, c := range cut {
		if bytes.HasPrefix(src[c.start:], []byte(changesMarker)) {
			changesParsed = true
		}
	}
	for off := 0; off < len(src); {
		end := len(src)
		if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
			end = off + i + 1
		}
		line := bytes.TrimSpace(src[off:end])
		lost := !changesParsed && (bytes.HasPrefix(line, []byte(changesMarker)) || bytes.HasPrefix(line, []byte(eventMarker)))
		if lost && !covered(off) {
			return []Problem{{Path: path, Line: lineOf(src, off),
				Msg: "this ctx line is not read: a code fence, <pre> or comment left open above it takes it in (and may take the events after it); close it"}}
		}
		off = end
	}
	return nil
}

// parseHeader reads the metadata comment:
//
//	<!-- ctx:node
//	id: 9x2k4m7qab
//	type: decision
//	created: 2026-11-22T11:30:00Z
//	tags: [tier:reference, project:netlib]
//	derived-from: [a1b2c3d4e5]
//	mentions: [net/client.go]
//	meta.confidence: high
//	-->
func parseHeader(path string, src []byte, sp span) (*Node, []Problem) {
	var probs []Problem
	first := lineOf(src, sp.start)
	// Line i of raw is line first+i of the file: the marker's line is 0.
	raw := strings.TrimPrefix(string(src[sp.start:sp.end]), nodeMarker)
	raw = strings.TrimSuffix(strings.TrimRight(raw, " \t\r\n"), "-->")
	n := &Node{Meta: map[string]string{}, Line: first}
	var haveID, haveType, badID, badType bool
	var written time.Time
	for i, line := range strings.Split(raw, "\n") {
		ln := first + i
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		bad := func(format string, args ...any) {
			probs = append(probs, Problem{Path: path, Line: ln, Msg: fmt.Sprintf(format, args...)})
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			bad("%q is not key: value", line)
			continue
		}
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		switch {
		case k == "id":
			id, err := ParseID(v)
			if err != nil {
				bad("id: %s: the node is skipped", why(err))
				badID = true
				continue
			}
			if haveID && id != n.ID {
				bad("a second id %s (the first, %s, stays)", id, n.ID)
				continue
			}
			n.ID, haveID = id, true
		case k == "type":
			t, err := ParseType(v)
			if err != nil {
				bad("type: %s: the node is skipped", why(err))
				badType = true
				continue
			}
			if haveType && t != n.Type {
				// After a union merge of two hand edits, both lines stay:
				// settle on one that every clone picks alike.
				bad("a second type %s (types %s and %s: %s is used; keep one line)", t, n.Type, t, min(t, n.Type))
				t = min(t, n.Type)
			}
			n.Type, haveType = t, true
		case k == "created":
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				bad("created: %q is not an RFC 3339 time like 2026-01-20T10:00:00Z", v)
				continue
			}
			if n.Created.IsZero() || t.Before(n.Created) {
				n.Created = t.UTC()
			}
		case k == "updated":
			// §8.6 lists it; ctx derives the time from events, but a person
			// may write one: the later of the two counts.
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				bad("updated: %q is not an RFC 3339 time like 2026-01-20T10:00:00Z", v)
				continue
			}
			if t.After(written) {
				written = t.UTC()
			}
		case k == "tags":
			for _, t := range splitList(v) {
				tag, err := ParseTag(t)
				if err != nil {
					bad("tags: %s", why(err))
					continue
				}
				n.addTag(tag)
			}
		case k == "derived-from":
			for _, s := range splitList(v) {
				id, err := ParseID(s)
				if err != nil {
					bad("derived-from: %s", why(err))
					continue
				}
				n.DerivedFrom = append(n.DerivedFrom, id)
			}
		case k == "mentions":
			n.Mentions = append(n.Mentions, splitList(v)...)
		case strings.HasPrefix(k, "meta."):
			key := strings.TrimPrefix(k, "meta.")
			if err := checkMetaKey(key); err != nil {
				bad("%s", why(err))
				continue
			}
			if old, dup := n.Meta[key]; dup && old != v {
				bad("meta.%s is given twice (%q and %q: %q is used; keep one line)", key, old, v, min(old, v))
				v = min(old, v)
			}
			n.Meta[key] = v
		default:
			bad("unknown key %q (known: id, type, created, updated, tags, derived-from, mentions, meta.KEY)", k)
		}
	}
	if !haveID || !haveType {
		switch {
		case !haveID && !badID:
			probs = append(probs, Problem{Path: path, Line: first, Msg: "the ctx:node comment has no id: the node is skipped"})
		case !haveType && !badType && haveID:
			probs = append(probs, Problem{Path: path, Line: first, Msg: "the ctx:node comment has no type: the node is skipped"})
		}
		return nil, probs
	}
	n.Updated = n.Created
	if written.After(n.Updated) {
		n.Updated = written
	}
	return n, probs
}

// parseEvent reads "<!-- ctx:event TIME SEQ EVENTID OP [ARG] -->".
func parseEvent(raw string) (Event, error) {
	s := strings.TrimSpace(raw)
	s = strings.TrimPrefix(s, eventMarker)
	s, ok := strings.CutSuffix(strings.TrimSpace(s), "-->")
	if !ok || strings.Contains(s, "\n") {
		return Event{}, fmt.Errorf("a ctx:event comment must be one line ending in -->")
	}
	f := strings.Fields(s)
	if len(f) < 4 {
		return Event{}, fmt.Errorf("a ctx:event needs TIME SEQ EVENTID OP [ARG], got %q", strings.TrimSpace(s))
	}
	t, err := time.Parse(time.RFC3339, f[0])
	if err != nil {
		return Event{}, fmt.Errorf("event time %q is not RFC 3339", f[0])
	}
	seq, err := strconv.Atoi(f[1])
	if err != nil || seq < 0 {
		return Event{}, fmt.Errorf("event sequence number %q is not a non-negative integer", f[1])
	}
	op := Op(f[3])
	if !op.valid() {
		return Event{}, fmt.Errorf("unknown event %q", f[3])
	}
	arg := ""
	if len(f) > 4 {
		// The argument is the rest of the line, spaces included (a meta
		// value may hold spaces).
		rest := strings.TrimSpace(s)
		for i := 0; i < 4; i++ {
			rest = strings.TrimSpace(strings.TrimPrefix(rest, f[i]))
		}
		arg = rest
	}
	return Event{Time: t.UTC(), Seq: seq, ID: f[2], Op: op, Arg: arg}, nil
}

// splitList reads "[a, b]", "a, b" or "a b".
func splitList(v string) []string {
	v = strings.TrimSpace(v)
	v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
	var out []string
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		if f = strings.Trim(f, `"'`); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// blockSpan returns the lines of an HTML block, closure line included.
func blockSpan(src []byte, b *ast.HTMLBlock) span {
	lines := b.Lines()
	start, end := len(src), 0
	if lines.Len() > 0 {
		start = lines.At(0).Start
		end = lines.At(lines.Len() - 1).Stop
	}
	if b.HasClosure() {
		if b.ClosureLine.Start < start {
			start = b.ClosureLine.Start
		}
		if b.ClosureLine.Stop > end {
			end = b.ClosureLine.Stop
		}
	}
	return span{lineStart(src, start), lineEnd(src, end)}
}

// headingText returns the source text of a heading, its lines joined by
// spaces: the title as written, with its inline Markdown (`code`, *emphasis*,
// links), which the heading's plain text would lose.
func headingText(src []byte, h *ast.Heading) string {
	lines := h.Lines()
	parts := make([]string, 0, lines.Len())
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		if t := strings.TrimSpace(string(seg.Value(src))); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, " ")
}

// headingSpan returns the whole lines of a heading, a setext underline
// included.
func headingSpan(src []byte, h *ast.Heading) span {
	lines := h.Lines()
	if lines.Len() == 0 {
		// An empty ATX heading ("#"): find its line from its position in
		// the tree is not possible; leave it in the body.
		return span{}
	}
	start := lineStart(src, lines.At(0).Start)
	end := lineEnd(src, lines.At(lines.Len()-1).Stop)
	if atx := bytes.TrimLeft(src[start:], " \t"); len(atx) > 0 && atx[0] != '#' && end < len(src) {
		// setext: the underline is the next line (end is at its start).
		if i := bytes.IndexByte(src[end:], '\n'); i >= 0 {
			end += i + 1
		} else {
			end = len(src)
		}
	}
	return span{start, end}
}

func lineStart(src []byte, off int) int {
	if off > len(src) {
		off = len(src)
	}
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

// lineEnd returns the offset just past the newline ending the line that
// holds off (or len(src)).
func lineEnd(src []byte, off int) int {
	if off >= len(src) {
		return len(src)
	}
	if off > 0 && src[off-1] == '\n' {
		return off
	}
	i := bytes.IndexByte(src[off:], '\n')
	if i < 0 {
		return len(src)
	}
	return off + i + 1
}

func lineOf(src []byte, off int) int {
	if off > len(src) {
		off = len(src)
	}
	return bytes.Count(src[:off], []byte{'\n'}) + 1
}

// without returns src minus the spans.
func without(src []byte, cut []span) []byte {
	sort.Slice(cut, func(i, j int) bool { return cut[i].start < cut[j].start })
	var out []byte
	pos := 0
	for _, c := range cut {
		if c.end <= c.start || c.start < pos {
			continue
		}
		out = append(out, src[pos:c.start]...)
		pos = c.end
	}
	return append(out, src[pos:]...)
}

// mentions collects code spans and link destinations in the body: the
// paths, symbols and URLs a node refers to.
func mentions(doc ast.Node, src []byte, have []string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s != "" && !seen[s] && len(s) <= 200 {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, m := range have {
		add(m)
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch x := n.(type) {
		case *ast.HTMLBlock:
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			add(string(x.Text(src))) //nolint:staticcheck // the span's text
		case *ast.Link:
			add(string(x.Destination))
		case *ast.AutoLink:
			add(string(x.URL(src)))
		}
		return ast.WalkContinue, nil
	})
	return out
}

// htmlBlock and textReader keep goldmark's names out of space.go.
type htmlBlock = *ast.HTMLBlock

func textReader(src []byte) text.Reader { return text.NewReader(src) }

// why is an error's message without the package prefix, for a Problem a
// person reads beside the file it concerns.
func why(err error) string { return strings.ReplaceAll(err.Error(), "narrative: ", "") }

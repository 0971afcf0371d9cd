package directive

import (
	"fmt"
	"sort"
	"strings"
)

// The command names an agent may use.
const (
	Remember  = "remember"
	Recall    = "recall"
	Summarize = "summarize"
	Link      = "link"
	Status    = "status"
	Task      = "task"
	Expand    = "expand"
	Supersede = "supersede"
)

// Names lists every command name, in the order the skill teaches them.
var Names = []string{Remember, Recall, Summarize, Link, Status, Task, Expand, Supersede}

// paired are the commands whose content is their point: they need the
// paired form <ctx:X …>content</ctx:X>.
var paired = map[string]bool{Remember: true, Summarize: true}

// Prefix starts every command.
const Prefix = "<ctx:"

// Directive is one <ctx:*> command found in a text.
type Directive struct {
	// Name is the command: one of Names.
	Name string `json:"name"`
	// Attrs are its attributes; a repeated attribute keeps its last value.
	Attrs map[string]string `json:"attrs,omitempty"`
	// Content is what stood between the opening and the closing tag,
	// trimmed of white space around it; "" for the self-closing form.
	Content string `json:"content,omitempty"`
	// Offset is the byte offset of its "<ctx:" in the text; Line its
	// 1-based line.
	Offset int `json:"offset"`
	Line   int `json:"line"`
}

// Attr returns an attribute's value, trimmed.
func (d *Directive) Attr(key string) string { return strings.TrimSpace(d.Attrs[key]) }

// String writes the directive back as a tag, attributes sorted, content
// left out: for messages.
func (d *Directive) String() string {
	keys := make([]string, 0, len(d.Attrs))
	for k := range d.Attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(Prefix + d.Name)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%q", k, d.Attrs[k])
	}
	b.WriteString("/>")
	return b.String()
}

// Problem is text that looks like a command and is not one.
type Problem struct {
	Line int    `json:"line"`
	Msg  string `json:"message"`
}

// Error formats the problem as "line N: MSG".
func (p Problem) Error() string { return fmt.Sprintf("line %d: %s", p.Line, p.Msg) }

// Parse returns the commands of text in the order they appear, and the
// problems found on the way. Commands inside code are skipped; so are
// commands inside another command's content.
func Parse(text string) ([]Directive, []Problem) {
	p := &parser{text: text, code: codeRanges(text)}
	p.run()
	return p.out, p.probs
}

type parser struct {
	text  string
	code  []span // sorted, disjoint
	ci    int    // first code span that may still matter
	out   []Directive
	probs []Problem
}

// span is a byte range [start, end).
type span struct{ start, end int }

func (p *parser) problem(off int, format string, args ...any) {
	p.probs = append(p.probs, Problem{Line: lineOf(p.text, off), Msg: fmt.Sprintf(format, args...)})
}

// inCode reports whether off falls in a code span; offsets must be asked
// in increasing order.
func (p *parser) inCode(off int) (bool, int) {
	for p.ci < len(p.code) && p.code[p.ci].end <= off {
		p.ci++
	}
	if p.ci < len(p.code) && p.code[p.ci].start <= off {
		return true, p.code[p.ci].end
	}
	return false, 0
}

func (p *parser) run() {
	pos := 0
	for pos < len(p.text) {
		i := strings.Index(p.text[pos:], Prefix)
		if i < 0 {
			return
		}
		at := pos + i
		if in, end := p.inCode(at); in {
			pos = end
			continue
		}
		d, next, ok := p.one(at)
		if ok {
			p.out = append(p.out, d)
		}
		if next <= at {
			next = at + len(Prefix)
		}
		pos = next
	}
}

// one parses the command starting at at. It returns where scanning goes
// on, and whether a command was found.
func (p *parser) one(at int) (Directive, int, bool) {
	t := p.text
	i := at + len(Prefix)
	nameStart := i
	for i < len(t) && (isLower(t[i]) || t[i] == '-' || t[i] == '_') {
		i++
	}
	name := t[nameStart:i]
	d := Directive{Name: name, Offset: at, Line: lineOf(t, at), Attrs: map[string]string{}}
	if name == "" {
		p.problem(at, "%q is not followed by a command name", Prefix)
		return d, i, false
	}
	known := false
	for _, n := range Names {
		known = known || n == name
	}
	if !known {
		p.problem(at, "unknown command <ctx:%s> (known: %s)", name, strings.Join(Names, ", "))
		return d, i, false
	}
	// Attributes, up to "/>" or ">".
	selfClosing := false
	for {
		for i < len(t) && isSpace(t[i]) {
			i++
		}
		if i >= len(t) {
			p.problem(at, "<ctx:%s is not closed with > or />", name)
			return d, i, false
		}
		if t[i] == '>' {
			i++
			break
		}
		if t[i] == '/' && i+1 < len(t) && t[i+1] == '>' {
			i += 2
			selfClosing = true
			break
		}
		keyStart := i
		for i < len(t) && isKey(t[i]) {
			i++
		}
		key := strings.ToLower(t[keyStart:i])
		if key == "" {
			p.problem(at, "<ctx:%s: unexpected %q in the tag", name, t[i])
			return d, i + 1, false
		}
		for i < len(t) && isSpace(t[i]) {
			i++
		}
		if i >= len(t) || t[i] != '=' {
			// A bare attribute (archive) means "true".
			d.Attrs[key] = "true"
			continue
		}
		i++
		for i < len(t) && isSpace(t[i]) {
			i++
		}
		if i >= len(t) {
			p.problem(at, "<ctx:%s: attribute %s has no value", name, key)
			return d, i, false
		}
		switch q := t[i]; q {
		case '"', '\'':
			end := strings.IndexByte(t[i+1:], q)
			if end < 0 {
				p.problem(at, "<ctx:%s: the value of %s has no closing %c", name, key, q)
				return d, len(t), false
			}
			d.Attrs[key] = t[i+1 : i+1+end]
			i += end + 2
		default:
			vs := i
			for i < len(t) && !isSpace(t[i]) && t[i] != '>' && !(t[i] == '/' && i+1 < len(t) && t[i+1] == '>') {
				i++
			}
			d.Attrs[key] = t[vs:i]
		}
	}
	if selfClosing {
		if paired[name] {
			p.problem(at, "<ctx:%s/> has no content: write <ctx:%s …>content</ctx:%s>", name, name, name)
			return d, i, false
		}
		return d, i, true
	}
	closing := "</ctx:" + name + ">"
	if end, ok := p.closing(i, closing); ok {
		d.Content = strings.TrimSpace(t[i:end])
		return d, end + len(closing), true
	}
	if paired[name] {
		p.problem(at, "<ctx:%s> is not closed by %s", name, closing)
		return d, i, false
	}
	// <ctx:status> without its slash: taken as self-closing.
	return d, i, true
}

// closing returns the offset of the first closing tag at or after from
// that is not inside code.
func (p *parser) closing(from int, tag string) (int, bool) {
	t := p.text
	for from < len(t) {
		j := strings.Index(t[from:], tag)
		if j < 0 {
			return 0, false
		}
		at := from + j
		if s, ok := codeAt(p.code, at); ok {
			from = s.end
			continue
		}
		return at, true
	}
	return 0, false
}

// codeAt returns the code span holding off, if one does.
func codeAt(code []span, off int) (span, bool) {
	i := sort.Search(len(code), func(i int) bool { return code[i].end > off })
	if i < len(code) && code[i].start <= off {
		return code[i], true
	}
	return span{}, false
}

func lineOf(t string, off int) int {
	if off > len(t) {
		off = len(t)
	}
	return strings.Count(t[:off], "\n") + 1
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isKey(c byte) bool {
	return isLower(c) || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

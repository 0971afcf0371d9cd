package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/graph"
)

// FuzzParseSpan checks that parseSpan never panics, that a span it accepts
// is one an edge may carry, and that formatting it back gives the same
// span.
func FuzzParseSpan(f *testing.F) {
	for _, s := range []string{
		"", "10:20", "10.5:20.3", "10-20", "7", "1.1:1.1", "0:3", "20:10", "10.9:10.2", "10.5:10", "1:2:3",
		"ten", ":", ".", "1.:2", "4294967295:4294967295", "4294967296:1", "+1:2", " 3 : 4 ", "1.2.3:4", "-1:2", "1e3:2000",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := parseSpan(s)
		switch {
		case err != nil:
			if sp != nil {
				t.Fatalf("parseSpan(%q) = %+v and error %v", s, sp, err)
			}
			return
		case s == "":
			if sp != nil {
				t.Fatalf("parseSpan(\"\") = %+v, want nil", sp)
			}
			return
		case sp == nil:
			t.Fatalf("parseSpan(%q) = nil, nil", s)
		}
		if sp.StartLine == 0 || sp.EndLine < sp.StartLine || sp.EndLine == sp.StartLine && sp.EndCol != 0 && sp.EndCol < sp.StartCol {
			t.Fatalf("parseSpan(%q) = %+v: not a forward 1-based range", s, *sp)
		}
		e := graph.Edge{
			From: graph.FileNode("r", "a"), To: graph.FileNode("r", "b"), Label: graph.Mentions,
			Evidence: graph.Evidence{Tool: graph.ToolHuman, Confidence: graph.High, Span: sp},
		}
		if err := e.Validate(); err != nil {
			t.Fatalf("parseSpan(%q) = %+v, which an edge may not carry: %v", s, *sp, err)
		}
		again, err := parseSpan(formatSpan(sp))
		if err != nil || *again != *sp {
			t.Fatalf("parseSpan(%q) = %+v; formatted %q, parsed again %+v, %v", s, *sp, formatSpan(sp), again, err)
		}
	})
}

// formatSpan writes a span as --span takes it.
func formatSpan(sp *graph.Span) string {
	pos := func(l, c uint32) string {
		if c == 0 {
			return fmt.Sprint(l)
		}
		return fmt.Sprintf("%d.%d", l, c)
	}
	return pos(sp.StartLine, sp.StartCol) + ":" + pos(sp.EndLine, sp.EndCol)
}

// FuzzDotQuote checks that dotQuote always makes one valid DOT
// double-quoted string: quotes at both ends, no unescaped quote inside, no
// raw line break, only the escapes \" \\ and \n, and that it keeps the text
// (less control characters; invalid UTF-8 as U+FFFD).
func FuzzDotQuote(f *testing.F) {
	for _, s := range []string{
		"", "plain", `say "hi"`, `back\slash`, `ends with \`, `\"`, `\\"`, "two\nlines", "cr\r\nlf", "tab\there",
		"nul\x00", "del\x7f", "\xff\xfe invalid", "émoji 🙂", `\N \G \l`, `"`, `\`, "\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := dotQuote(s)
		got, err := dotUnquote(q)
		if err != nil {
			t.Fatalf("dotQuote(%q) = %q: %v", s, q, err)
		}
		if want := dotText(s); got != want {
			t.Fatalf("dotQuote(%q) = %q, which reads as %q, want %q", s, q, got, want)
		}
	})
}

// dotUnquote checks that q is a DOT double-quoted string made only of the
// escapes dotQuote uses, and returns its text with \n as a line break.
func dotUnquote(q string) (string, error) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", fmt.Errorf("not enclosed in double quotes")
	}
	if !utf8.ValidString(q) {
		return "", fmt.Errorf("not UTF-8")
	}
	var b strings.Builder
	in := q[1 : len(q)-1]
	for i := 0; i < len(in); i++ {
		switch c := in[i]; c {
		case '"':
			return "", fmt.Errorf("unescaped quote at %d", i+1)
		case '\n', '\r':
			return "", fmt.Errorf("raw line break at %d", i+1)
		case '\\':
			if i+1 == len(in) {
				return "", fmt.Errorf("a backslash escapes the closing quote")
			}
			i++
			switch in[i] {
			case '"', '\\':
				b.WriteByte(in[i])
			case 'n':
				b.WriteByte('\n')
			default:
				return "", fmt.Errorf("escape \\%c at %d", in[i], i)
			}
		default:
			if c < 0x20 || c == 0x7f {
				return "", fmt.Errorf("control character %#x at %d", c, i+1)
			}
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// dotText is what a label shows of s: control characters other than line
// breaks dropped, invalid UTF-8 replaced.
func dotText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteByte(' ')
		case r == '\n' || r >= 0x20 && r != 0x7f:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestDebugGraphDotRenders checks with Graphviz that the DOT export
// renders, whatever the names and titles hold: quotes, backslashes, a
// trailing backslash, line breaks, tabs and invalid UTF-8. It is skipped
// without the dot command.
func TestDebugGraphDotRenders(t *testing.T) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("dot (Graphviz) is not installed")
	}
	dir := t.TempDir()
	ctx := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		env := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Wd: dir,
			Getenv: func(k string) string {
				if k == "CTX_DATE" {
					return "1790000000"
				}
				return ""
			}}
		if code := Main(context.Background(), args, env); code != 0 {
			t.Fatalf("ctx %q: exit %d\n%s", args, code, errb.String())
		}
		return strings.TrimSpace(out.String())
	}
	render := func(src string) string {
		t.Helper()
		cmd := exec.Command(dot, "-Tsvg")
		cmd.Stdin = strings.NewReader(src)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil || errb.Len() > 0 {
			t.Fatalf("dot -Tsvg: %v\n%s\ninput:\n%s", err, errb.String(), src)
		}
		return out.String()
	}

	// Names a user cannot type as titles: a file whose name has a line
	// break, quotes and a backslash; symbols with odd keys.
	odd := "new\nline \"q\" back\\slash.go"
	writeFiles(t, dir, map[string]string{"plain.go": "package p\n", odd: "package p\n"})
	ctx("init")
	titles := []string{
		`Use "quoted" words`, `A \backslash\ and \N \G \l`, `Ends with a backslash \`, "Tab\tinside", `Quote at the end "`,
		"Invalid \xff UTF-8",
	}
	var ids []string
	for _, title := range titles {
		ids = append(ids, ctx("add", "decision", title))
	}
	for i, id := range ids {
		ctx("relate", id, "depends_on", ids[(i+1)%len(ids)], "--confidence", []string{"high", "low"}[i%2])
	}
	ctx("relate", ids[0], "mentions", "file:"+odd)
	ctx("relate", ids[1], "mentions", "plain.go")
	ctx("relate", ids[2], "references", `item:ns::Weird"Key\`)
	ctx("delete", ids[3])
	src := ctx("debug", "graph", "--format", "dot")
	if strings.Count(src, " -> ") != len(ids)+3 {
		t.Errorf("DOT has %d edges, want %d:\n%s", strings.Count(src, " -> "), len(ids)+3, src)
	}
	svg := render(src)
	// dot writes " as &quot; and - as &#45;.
	for _, want := range []string{"Use &quot;quoted&quot; words", `Ends with a backslash \`, `A \backslash\ and \N \G \l`, `Weird&quot;Key\`, "back\\slash.go", "Invalid \uFFFD UTF"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("DOT:\n%s", src)
	}
	// The dot export of one label and of the graph with --label.
	render(ctx("debug", "graph", "--format", "dot", "-l", "mentions"))

	// dotQuote alone, on the fuzz seeds, inside a minimal graph.
	var b strings.Builder
	b.WriteString("digraph t {\n")
	for i, s := range []string{"two\nlines", "cr\r\nlf", `ends with \`, `"`, `\\"`, "nul\x00", "\xff\xfe"} {
		fmt.Fprintf(&b, "  n%d [label=%s];\n", i, dotQuote(s))
	}
	b.WriteString("}\n")
	render(b.String())
}

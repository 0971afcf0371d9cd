package ignore

import (
	"strings"
	"testing"
)

// FuzzPattern parses a line and matches it against a path, at the root
// and below a directory, which must never panic; and checks that a
// pattern that escapes a name matches that name and nothing else.
func FuzzPattern(f *testing.F) {
	for _, tt := range wildmatchTests {
		f.Add(tt.pattern, tt.text, false)
	}
	for _, l := range oddLines {
		f.Add(l, "a/b", true)
	}
	f.Add("!/a/**/b\\ /", "x/a/y/b ", true)
	f.Add("\xef\xbb\xbf#x\r", "#x", false)
	f.Fuzz(func(t *testing.T, line, rel string, isDir bool) {
		_, name := split(rel)
		wildmatch(line, rel, true)
		wildmatch(line, rel, false)
		if p := parseLine(line); p != nil {
			p.match(rel, name, isDir, "")
			p.match("d/"+rel, name, isDir, "d")
			p.match(rel, name, isDir, "d")
		}
		parseFile([]byte(line), "f")

		if name == "" || strings.ContainsAny(name, "\x00\n") {
			return
		}
		p := parseLine(escape(name))
		if p == nil || p.negative || p.dirOnly || !p.basename {
			t.Fatalf("escape(%q) = %q parses to %+v", name, escape(name), p)
		}
		if !p.match("d/"+name, name, isDir, "") {
			t.Errorf("escape(%q) = %q does not match it", name, escape(name))
		}
		if p.match("d/"+name+"x", name+"x", isDir, "") {
			t.Errorf("escape(%q) = %q matches %q", name, escape(name), name+"x")
		}
	})
}

// escape returns a gitignore line that matches exactly the name s
// (without '/', NUL or newline), at any depth.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\r' && i == len(s)-1:
			// A CR before the line end is dropped, escaped or not.
			b.WriteString("[\r]")
			continue
		case isGlobSpecial(c), i == 0 && (c == '!' || c == '#'), c == ' ' && strings.Trim(s[i:], " ") == "":
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// FuzzMatcher asks a Matcher built from fuzzed extra patterns about a
// fuzzed path, which must not panic, and must give the same answer twice.
func FuzzMatcher(f *testing.F) {
	f.Add("*.o\n!keep.o\nbuild/", "build/keep.o", false)
	f.Add("a/**/b", "a/x/b", true)
	f.Add("", "../x", false)
	f.Add("!", "/", true)
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, extra, rel string, isDir bool) {
		m := New(root, strings.Split(extra, "\n"))
		a := m.Ignored(rel, isDir)
		if b := m.Ignored(rel, isDir); a != b {
			t.Errorf("Ignored(%q, %v) changed from %v to %v", rel, isDir, a, b)
		}
	})
}

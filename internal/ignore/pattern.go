package ignore

import (
	"bytes"
	"strings"
)

// A pattern is one line of an ignore file, parsed as git's
// parse_path_pattern (dir.c) does.
type pattern struct {
	// text is the glob without its '!' and its trailing '/'; a leading
	// '/' is kept (matchPathname drops it).
	text string
	// literal is the length of text's leading run without glob
	// specials (git's nowildcardlen): that much is compared as a string.
	literal  int
	negative bool // "!pattern": a match re-includes
	dirOnly  bool // "pattern/": matches directories only
	// basename is set when text has no slash: the pattern then matches
	// a name at any depth below its file's directory.
	basename bool
	// suffix is set for "*literal": a basename pattern that is a
	// suffix test.
	suffix bool

	source string // file the pattern came from, relative to the root; "" for extra patterns
	line   int    // 1-based line in source (index+1 in the extra patterns)
}

// builtin patterns exclude what ctx never ingests, whatever the ignore
// files say.
var (
	builtinGit = &pattern{text: ".git", literal: 4, basename: true, source: "(built-in)"}
	builtinCtx = &pattern{text: ".ctx", literal: 4, basename: true, dirOnly: true, source: "(built-in)"}
)

// parseFile parses the content of an ignore file as git's
// add_patterns_from_buffer does: a UTF-8 byte order mark is skipped, lines
// end at LF (a CR before it is dropped), empty lines and lines starting
// with '#' are skipped, and trailing spaces are trimmed unless escaped.
func parseFile(data []byte, source string) []*pattern {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var out []*pattern
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if p := parseLine(string(line)); p != nil {
			p.source, p.line = source, n
			out = append(out, p)
		}
	}
	return out
}

// parseLine parses one line, or returns nil for a blank line or a
// comment. A line that reduces to nothing (say "!" or "/") still gives a
// pattern, one that matches nothing, because git keeps it too.
func parseLine(line string) *pattern {
	if line == "" || line[0] == '#' {
		return nil
	}
	line = strings.TrimSuffix(line, "\r")
	// Git's C strings end at the first NUL.
	if i := strings.IndexByte(line, 0); i >= 0 {
		line = line[:i]
	}
	line = trimTrailingSpaces(line)

	p := &pattern{}
	if strings.HasPrefix(line, "!") {
		p.negative = true
		line = line[1:]
	}
	// Git computes the literal prefix and the "*literal" test on the
	// text before dropping the trailing slash; the slash is not special
	// so that makes no difference but for the cap below.
	p.literal = simpleLength(line)
	p.suffix = strings.HasPrefix(line, "*") && simpleLength(line[1:]) == len(line)-1
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = line[:len(line)-1]
	}
	p.literal = min(p.literal, len(line))
	p.basename = !strings.Contains(line, "/")
	p.text = line
	return p
}

// trimTrailingSpaces drops trailing spaces (not tabs) unless a backslash
// escapes them, as git's trim_trailing_spaces does. A line that ends in a
// lone backslash is left alone.
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i == len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// simpleLength is the length of s's prefix free of glob specials.
func simpleLength(s string) int {
	for i := 0; i < len(s); i++ {
		if isGlobSpecial(s[i]) {
			return i
		}
	}
	return len(s)
}

// match reports whether the pattern matches the path rel (whose last
// component is name), a directory if isDir, for a pattern read from the
// ignore file of directory base ("" for the root). The caller has checked
// that rel is below base.
func (p *pattern) match(rel, name string, isDir bool, base string) bool {
	if p.dirOnly && !isDir {
		return false
	}
	if p.basename {
		return p.matchBasename(name)
	}
	return p.matchPathname(rel, base)
}

// matchBasename is git's match_basename.
func (p *pattern) matchBasename(name string) bool {
	switch {
	case p.literal == len(p.text):
		return p.text == name
	case p.suffix:
		return strings.HasSuffix(name, p.text[1:])
	default:
		return wildmatch(p.text, name, false)
	}
}

// matchPathname is git's match_pathname: the pattern is matched against
// the path relative to base, with '/' special.
func (p *pattern) matchPathname(rel, base string) bool {
	pat, prefix := p.text, p.literal
	if pat[0] == '/' {
		pat, prefix = pat[1:], prefix-1
	}
	name := rel
	if base != "" {
		if len(rel) <= len(base) || rel[len(base)] != '/' || rel[:len(base)] != base {
			return false
		}
		name = rel[len(base)+1:]
	}
	if prefix > 0 {
		if prefix > len(name) || pat[:prefix] != name[:prefix] {
			return false
		}
		// Git matches the rest on its own, so a "**" right after the
		// literal prefix counts as being at the start of a pattern.
		pat, name = pat[prefix:], name[prefix:]
		if pat == "" && name == "" {
			return true
		}
	}
	return wildmatch(pat, name, true)
}

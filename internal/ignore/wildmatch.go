package ignore

import "strings"

// Results of dowild. Besides a match and a plain mismatch, the matcher
// reports two kinds of abort that let an enclosing '*' give up early: no
// later position of the text can match either.
const (
	wmMatch           = 0
	wmNoMatch         = 1
	wmAbortAll        = -1
	wmAbortToStarStar = -2
)

// wildmatch reports whether text matches the glob pattern, with git's
// wildmatch.c semantics, byte for byte: '?' and '*' match bytes, not
// runes; "[...]" classes take ranges, '!' or '^' negation, backslash
// escapes and the POSIX [:name:] classes in the C locale. With pathname
// set (git's WM_PATHNAME), '*', '?' and classes never match '/', and "**"
// between slashes (or at an end) matches any number of directories.
//
// Git hands wildmatch NUL-terminated strings, so both strings end at their
// first NUL here too.
func wildmatch(pattern, text string, pathname bool) bool {
	if i := strings.IndexByte(pattern, 0); i >= 0 {
		pattern = pattern[:i]
	}
	if i := strings.IndexByte(text, 0); i >= 0 {
		text = text[:i]
	}
	return dowild(pattern, 0, text, 0, pathname) == wmMatch
}

// at returns s[i], or 0 past the end, standing in for C's terminating NUL.
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// isGlobSpecial reports the bytes git's sane_ctype calls GIT_GLOB_SPECIAL.
func isGlobSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

// dowild matches p[pi:] against t[ti:]. It is a transcription of dowild
// in git's wildmatch.c (without WM_CASEFOLD: ctx, like git on Linux with
// core.ignoreCase unset, compares names exactly), kept line for line so
// that its corner cases stay git's: how a '*' is followed by a literal,
// when "**" counts as a directory wildcard, malformed classes.
func dowild(p string, pi int, t string, ti int, pathname bool) int {
	start := pi
	for ; at(p, pi) != 0; pi, ti = pi+1, ti+1 {
		pch := p[pi]
		tch := at(t, ti)
		if tch == 0 && pch != '*' {
			return wmAbortAll
		}
		switch pch {
		case '\\':
			// Literal match with the next byte. A trailing backslash
			// compares the (non-NUL) text byte with NUL and fails.
			pi++
			if tch != at(p, pi) {
				return wmNoMatch
			}
		default:
			if tch != pch {
				return wmNoMatch
			}
		case '?':
			if pathname && tch == '/' {
				return wmNoMatch
			}
		case '*':
			var matchSlash bool
			pi++
			if at(p, pi) == '*' {
				prev := pi - 2
				for pi++; at(p, pi) == '*'; pi++ {
				}
				switch {
				case !pathname:
					matchSlash = true
				case (prev < start || p[prev] == '/') &&
					(at(p, pi) == 0 || at(p, pi) == '/' || (at(p, pi) == '\\' && at(p, pi+1) == '/')):
					// "**/" may match nothing: try the rest of the
					// pattern right here, so that foo/**/bar
					// matches foo/bar.
					if at(p, pi) == '/' && dowild(p, pi+1, t, ti, pathname) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				default:
					matchSlash = false
				}
			} else {
				matchSlash = !pathname
			}
			if at(p, pi) == 0 {
				// A trailing "**" matches everything, a trailing '*'
				// only what has no more slashes.
				if !matchSlash && strings.IndexByte(t[ti:], '/') >= 0 {
					return wmNoMatch
				}
				return wmMatch
			} else if !matchSlash && p[pi] == '/' {
				// One '*' before a slash matches the rest of this
				// path component; the loop consumes both slashes.
				slash := strings.IndexByte(t[ti:], '/')
				if slash < 0 {
					return wmNoMatch
				}
				ti += slash
				continue
			}
			for tch != 0 {
				// Before a literal, skip ahead to its next
				// occurrence: what comes before it belongs to the
				// '*'. Without matchSlash, never past a slash.
				if !isGlobSpecial(p[pi]) {
					pch = p[pi]
					for {
						tch = at(t, ti)
						if tch == 0 || (!matchSlash && tch == '/') || tch == pch {
							break
						}
						ti++
					}
					if tch != pch {
						return wmNoMatch
					}
				}
				if m := dowild(p, pi, t, ti, pathname); m != wmNoMatch {
					if !matchSlash || m != wmAbortToStarStar {
						return m
					}
				} else if !matchSlash && tch == '/' {
					return wmAbortToStarStar
				}
				ti++
				tch = at(t, ti)
			}
			return wmAbortAll
		case '[':
			pi++
			pch = at(p, pi)
			if pch == '^' {
				pch = '!'
			}
			negated := pch == '!'
			if negated {
				pi++
				pch = at(p, pi)
			}
			var prev byte
			matched := false
			for {
				switch {
				case pch == 0:
					return wmAbortAll
				case pch == '\\':
					pi++
					pch = at(p, pi)
					if pch == 0 {
						return wmAbortAll
					}
					if tch == pch {
						matched = true
					}
				case pch == '-' && prev != 0 && at(p, pi+1) != 0 && at(p, pi+1) != ']':
					pi++
					pch = p[pi]
					if pch == '\\' {
						pi++
						pch = at(p, pi)
						if pch == 0 {
							return wmAbortAll
						}
					}
					if tch <= pch && tch >= prev {
						matched = true
					}
					pch = 0 // a range cannot start another one
				case pch == '[' && at(p, pi+1) == ':':
					pi += 2
					s := pi
					for at(p, pi) != 0 && p[pi] != ']' {
						pi++
					}
					if at(p, pi) == 0 {
						return wmAbortAll
					}
					if n := pi - s - 1; n < 0 || p[pi-1] != ':' {
						// No ":]": the '[' is an ordinary member.
						pi = s - 2
						pch = '['
						if tch == pch {
							matched = true
						}
					} else {
						in, known := inClass(p[s:s+n], tch)
						if !known {
							return wmAbortAll
						}
						if in {
							matched = true
						}
						pch = 0
					}
				default:
					if tch == pch {
						matched = true
					}
				}
				prev = pch
				pi++
				pch = at(p, pi)
				if pch == ']' {
					break
				}
			}
			if matched == negated || (pathname && tch == '/') {
				return wmNoMatch
			}
		}
	}
	if at(t, ti) != 0 {
		return wmNoMatch
	}
	return wmMatch
}

// inClass reports whether c is in the named POSIX class as git's
// sane_ctype defines them (ASCII only; isspace is " \t\n\r" and
// nothing else), and whether the name is a class at all.
func inClass(name string, c byte) (in, known bool) {
	alpha := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	digit := '0' <= c && c <= '9'
	switch name {
	case "alnum":
		return alpha || digit, true
	case "alpha":
		return alpha, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return digit, true
	case "graph":
		return 0x21 <= c && c <= 0x7e, true
	case "lower":
		return 'a' <= c && c <= 'z', true
	case "print":
		return 0x20 <= c && c <= 0x7e, true
	case "punct":
		return 0x21 <= c && c <= 0x7e && !alpha && !digit, true
	case "space":
		return c == ' ' || c == '\t' || c == '\n' || c == '\r', true
	case "upper":
		return 'A' <= c && c <= 'Z', true
	case "xdigit":
		return digit || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F', true
	}
	return false, false
}

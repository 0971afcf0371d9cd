package secrets

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
	"sync"
)

// Scan returns the secrets in content, ordered by Start and never
// overlapping. Where two findings would overlap, the more certain kind wins
// (a private key block over a token format over an assignment), then the
// earlier, then the longer. Scan does not retain content, and may be
// called from several goroutines at once.
//
// Scan also returns the secrets that only show once the others are
// redacted: a token glued to the end of another one (AKIA…hooks.slack.com)
// is no token, since it runs on into letters, but it is one once the other
// has become a marker. So it scans the redacted content again, until that
// finds nothing, which is what makes Redact's output free of secrets.
// Content with no secrets, nearly all of it, is scanned once.
func Scan(content []byte) []Finding {
	found := scanOnce(content)
	for len(found) > 0 {
		view, pieces := redact(content, found)
		more := scanOnce(view)
		if len(more) == 0 {
			break
		}
		found = mergeByStart(found, translate(more, pieces))
	}
	line, pos := 1, 0
	for i := range found {
		line += bytes.Count(content[pos:found[i].Start], newline)
		pos = found[i].Start
		found[i].Line = line
	}
	return found
}

// scanOnce returns the secrets in content, without their lines.
func scanOnce(content []byte) []Finding {
	sc := scanner{s: content, tt: triggers()}
	sc.run()
	return sc.result()
}

// scanner is the state of one Scan.
type scanner struct {
	tt    *triggerTable
	s     []byte
	found []Finding // in the order found, possibly overlapping
	words []word    // secret words, for the assignment heuristic
	// resume, when beyond the current position, is where the trigger loop
	// continues: a matcher sets it past a private key block, whose body is
	// random base64 that would otherwise be looked at for nothing.
	resume int
}

// word is where a secret word is in the content.
type word struct{ start, end int }

// anchor is one pattern hooked on a trigger: match is called with the
// offset where the pattern would start, which is off bytes before the
// trigger and may lie outside the content.
type anchor struct {
	off   int
	match func(sc *scanner, at int)
}

// triggerTable maps every two-byte sequence to the anchors hooked on it.
// Looking up each pair of adjacent bytes is one pass over the content with
// a table that stays in cache, where a prefilter of bytes.Index calls would
// make a pass per pattern and per letter case: some fifty.
type triggerTable struct {
	group  [1 << 16]uint8 // index into groups; 0 for "no anchor"
	groups [][]anchor
}

// triggers holds every pattern of Scan. Each trigger is a pair of bytes
// that is rare in source code (in the Go tree, none occurs at more than
// 0.04% of positions), so the closer looks cost next to nothing. It is
// built on first use: a command that scans nothing does not pay for it.
var triggers = sync.OnceValue(func() *triggerTable { return newTriggerTable(hooks) })

var hooks = []hook{
	{"IV", 2, false, matchPrivateKey},    // PRIVATE KEY
	{"KI", 1, false, matchAWSKeyID},      // AKIA
	{"SI", 1, false, matchAWSKeyID},      // ASIA
	{"gh", 0, false, matchGitHub},        // ghp_ gho_ ghu_ ghs_ ghr_
	{"b_", 5, false, matchGitHubPAT},     // github_pat_
	{"lp", 1, false, matchGitLab},        // glpat-
	{"xo", 0, false, matchSlackToken},    // xoxb- …
	{"k.", 10, false, matchSlackWebhook}, // hooks.slack.com/services/
	{"k_", 1, false, matchStripe},        // sk_live_ rk_live_
	{"Iz", 1, false, matchGoogleAPIKey},  // AIza
	{"k-", 1, false, matchSK},            // sk- sk-ant-
	{"m_", 2, false, matchNPM},           // npm_
	{"yJ", 1, false, matchJWT},           // eyJ
	{"sw", 3, true, keywordMatcher("password")},
	{"wd", 4, true, keywordMatcher("passwd")},
	{"ph", 4, true, keywordMatcher("passphrase")},
	{"pw", 0, true, keywordMatcher("pwd")},
	{"cr", 2, true, keywordMatcher("secret")},
	{"ok", 1, true, keywordMatcher("token")},
	{"pi", 1, true, keywordMatcher("api_key")},
	{"iv", 2, true, keywordMatcher("private_key")},
}

// hook is the registration of a matcher on a trigger, off bytes after
// the start of its pattern. A folded trigger is registered in all four
// combinations of letter case.
type hook struct {
	trigger string
	off     int
	fold    bool
	match   func(sc *scanner, at int)
}

func newTriggerTable(hooks []hook) *triggerTable {
	t := &triggerTable{groups: [][]anchor{nil}}
	add := func(a, b byte, an anchor) {
		k := uint16(a) | uint16(b)<<8
		g := t.group[k]
		if g == 0 {
			g = uint8(len(t.groups))
			t.groups = append(t.groups, nil)
			t.group[k] = g
		}
		t.groups[g] = append(t.groups[g], an)
	}
	for _, h := range hooks {
		an := anchor{off: h.off, match: h.match}
		a, b := h.trigger[0], h.trigger[1]
		if !h.fold {
			add(a, b, an)
			continue
		}
		for _, x := range caseVariants(a) {
			for _, y := range caseVariants(b) {
				add(x, y, an)
			}
		}
	}
	return t
}

func caseVariants(c byte) []byte {
	l, u := lower(c), upper(c)
	if l == u {
		return []byte{c}
	}
	return []byte{l, u}
}

func (sc *scanner) run() {
	s := sc.s
	t := &sc.tt.group
	i := 0
	// Eight positions at a time: one load, eight lookups, one branch.
	for i+8 < len(s) {
		w := binary.LittleEndian.Uint64(s[i:])
		last := uint16(w>>56) | uint16(s[i+8])<<8
		if t[uint16(w)]|t[uint16(w>>8)]|t[uint16(w>>16)]|t[uint16(w>>24)]|
			t[uint16(w>>32)]|t[uint16(w>>40)]|t[uint16(w>>48)]|t[last] == 0 {
			i += 8
			continue
		}
		for end := i + 8; i < end; i++ {
			i = sc.at(i)
		}
	}
	for ; i+1 < len(s); i++ {
		i = sc.at(i)
	}
}

// at runs the anchors hooked on the trigger at s[i:i+2], if any, and
// returns the position to go on from: i, or the last position of a private
// key block the anchors found.
func (sc *scanner) at(i int) int {
	g := sc.tt.group[uint16(sc.s[i])|uint16(sc.s[i+1])<<8]
	if g == 0 {
		return i
	}
	for _, a := range sc.tt.groups[g] {
		a.match(sc, i-a.off)
	}
	return max(i, sc.resume-1)
}

func (sc *scanner) add(f Finding) {
	sc.found = append(sc.found, f)
}

// result resolves overlaps.
//
// The assignment heuristic runs last, after the token formats and key
// blocks are settled, and sees them as walls: a name ends where a token
// ends, and a secret word inside a token is no secret word. That is what
// it sees in the redacted content, where the token has become a marker:
// were the name to run on into the token, a name too long to be taken, or
// one ending in "next", would turn into a plain one there, and Scan would
// need another pass over the redacted content to find its value.
func (sc *scanner) result() []Finding {
	kept := resolve(nil, sc.found)
	sc.found = sc.found[:0]
	for _, w := range sc.words {
		sc.assignment(w.start, w.end, kept)
	}
	return resolve(kept, sc.found)
}

// resolve adds found to kept, which is ordered by Start and free of
// overlaps, and returns the result. It takes found one priority at a time,
// most certain first, keeps those that overlap nothing kept before, then
// merges them into kept, so that a file of thousands of tokens costs
// n log n, not n².
func resolve(kept, found []Finding) []Finding {
	slices.SortFunc(found, func(a, b Finding) int {
		if c := cmp.Compare(b.Kind.priority(), a.Kind.priority()); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Start, b.Start); c != 0 {
			return c
		}
		return cmp.Compare(b.End, a.End)
	})
	var batch []Finding
	for i, f := range found {
		if !overlaps(kept, f) && (len(batch) == 0 || batch[len(batch)-1].End <= f.Start) {
			batch = append(batch, f)
		}
		if i+1 == len(found) || found[i+1].Kind.priority() != f.Kind.priority() {
			kept = mergeByStart(kept, batch)
			batch = batch[:0]
		}
	}
	return kept
}

// overlaps reports whether f overlaps any of kept, which is ordered by
// Start and free of overlaps.
func overlaps(kept []Finding, f Finding) bool {
	i, _ := slices.BinarySearchFunc(kept, f.Start, func(k Finding, start int) int { return cmp.Compare(k.Start, start) })
	return i > 0 && kept[i-1].End > f.Start || i < len(kept) && kept[i].Start < f.End
}

// mergeByStart merges two lists ordered by Start into a new one.
func mergeByStart(a, b []Finding) []Finding {
	out := make([]Finding, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0].Start < b[0].Start {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	out = append(out, a...)
	return append(out, b...)
}

var newline = []byte{'\n'}

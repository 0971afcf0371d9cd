package pack

import (
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/index/text"
)

// variantWeight is the weight of an inflection the query did not write,
// against 1 for its words: "tests" should find TestConnect, but less
// surely than "test" would.
const variantWeight = 0.3

// variants returns the other forms of an English word that a query
// should also find: its base ("tests" → "test", "cleaning" → "clean",
// "parsed" → "parse", "queries" → "query", "connection" → "connect",
// "handler" → "handle") and the inflections and derivations of each base
// and of the word ("elected" → "elect" → "election", "path" → "paths").
// Code names things in one form and describes them in another; an index
// that does not stem (identifiers must match exactly) gets the other
// forms at query time, and only those in its vocabulary are kept
// (expandQuery). These are the common suffixes of English, not a full
// stemmer: a wrong form costs a lookup and, when the vocabulary has it,
// a weak match.
func variants(w string) []string {
	if len(w) < 4 || !isLowerWord(w) {
		return nil
	}
	seen := map[string]bool{w: true}
	var out []string
	add := func(v string) {
		if len(v) >= 3 && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	bases := []string{w}
	base := func(b string) {
		if len(b) >= 3 && !slices.Contains(bases, b) {
			bases = append(bases, b)
		}
	}
	undouble := func(stem string) {
		base(stem)
		base(stem + "e")
		if n := len(stem); n >= 3 && stem[n-1] == stem[n-2] && !isVowel(stem[n-1]) && !strings.ContainsRune("lsz", rune(stem[n-1])) {
			base(stem[:n-1])
		}
	}
	// Derivations: a connection connects, a handler handles, management
	// manages.
	for _, suf := range []string{"ions", "ion", "ers", "er", "ments", "ment"} {
		if stem, ok := strings.CutSuffix(w, suf); ok && len(stem) >= 4 {
			base(stem)
			base(stem + "e")
			break
		}
	}
	// Inflections.
	switch {
	case strings.HasSuffix(w, "ies"), strings.HasSuffix(w, "ied"):
		base(w[:len(w)-3] + "y")
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "xes"):
		base(w[:len(w)-2])
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		base(w[:len(w)-1])
	case strings.HasSuffix(w, "ing"):
		undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed"):
		undouble(w[:len(w)-2])
	}
	for _, b := range bases {
		add(b)
		for _, f := range forms(b) {
			add(f)
		}
	}
	return out
}

// forms returns the regular inflections and derivations of a base word.
func forms(b string) []string {
	var out []string
	switch {
	case strings.HasSuffix(b, "y") && len(b) > 1 && !isVowel(b[len(b)-2]):
		out = append(out, b[:len(b)-1]+"ies")
	case strings.HasSuffix(b, "s"), strings.HasSuffix(b, "x"), strings.HasSuffix(b, "z"), strings.HasSuffix(b, "ch"), strings.HasSuffix(b, "sh"):
		out = append(out, b+"es")
	default:
		out = append(out, b+"s")
	}
	stem := strings.TrimSuffix(b, "e")
	out = append(out, stem+"ed", stem+"ing", stem+"ion", stem+"ions", stem+"er", stem+"ers")
	return out
}

func isVowel(c byte) bool { return strings.IndexByte("aeiou", c) >= 0 }

func isLowerWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// expandQuery adds to q, after its own clauses, the variants of its words
// that occur in r's vocabulary and are not in q already, at
// variantWeight.
func expandQuery(q text.Query, r text.Reader) text.Query {
	have := map[string]bool{}
	for _, c := range q.Clauses {
		have[c.Terms[0]] = true
	}
	out := text.Query{Clauses: append([]text.Clause(nil), q.Clauses...)}
	for _, c := range q.Clauses {
		for _, v := range variants(c.Terms[0]) {
			if have[v] {
				continue
			}
			if p, df := r.Postings(v); p == nil || df == 0 {
				continue
			}
			have[v] = true
			out.Clauses = append(out.Clauses, text.Clause{Terms: []string{v}, Pos: []uint32{0}, Weight: variantWeight})
		}
	}
	return out
}

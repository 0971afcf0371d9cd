package pack

import (
	"strings"

	"github.com/ctx-dev/ctx/index/text"
)

// variantWeight is the weight of an inflection the query did not write,
// against 1 for its words: "tests" should find TestConnect, but less
// surely than "test" would.
const variantWeight = 0.3

// variants returns the other inflections of an English word that a
// query should also find: "tests" → "test", "cleaning" → "clean",
// "parsed" → "parse", "queries" → "query", "path" → "paths". Code names
// things in one form and describes them in another; an index that does
// not stem (identifiers must match exactly) gets the other forms at query
// time, and only those in its vocabulary are kept (expandQuery). These
// are the common suffixes of English inflection, not a full stemmer: a
// wrong variant costs a lookup and, when the vocabulary has it, a weak
// match.
func variants(w string) []string {
	if len(w) < 4 || !isLowerWord(w) {
		return nil
	}
	var out []string
	add := func(v string) {
		if len(v) >= 3 && v != w {
			out = append(out, v)
		}
	}
	undouble := func(stem string) {
		add(stem)
		add(stem + "e")
		if n := len(stem); n >= 3 && stem[n-1] == stem[n-2] && !isVowel(stem[n-1]) && !strings.ContainsRune("lsz", rune(stem[n-1])) {
			add(stem[:n-1])
		}
	}
	switch {
	case strings.HasSuffix(w, "ies"), strings.HasSuffix(w, "ied"):
		add(w[:len(w)-3] + "y")
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "xes"):
		add(w[:len(w)-2])
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		add(w[:len(w)-1])
	case strings.HasSuffix(w, "ing"):
		undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed"):
		undouble(w[:len(w)-2])
	case strings.HasSuffix(w, "y") && !isVowel(w[len(w)-2]):
		add(w[:len(w)-1] + "ies")
	case strings.HasSuffix(w, "s"), strings.HasSuffix(w, "x"), strings.HasSuffix(w, "z"), strings.HasSuffix(w, "ch"), strings.HasSuffix(w, "sh"):
		add(w + "es")
	default:
		add(w + "s")
	}
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

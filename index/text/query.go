package text

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Query is a parsed search: clauses that a document must match (all of
// them, or any with SearchOptions.Any), clauses it must not match, and
// field filters that the caller applies.
type Query struct {
	// Clauses are the terms and phrases to match and score, in the order
	// written, without duplicates.
	Clauses []Clause
	// Exclude are the clauses written with a leading '-'.
	Exclude []Clause
	// Filters are the field:value words, in the order written.
	Filters []Filter
}

// Clause is one term or phrase: leaf terms that must occur at the given
// positions relative to each other. A word of the query that the tokenizer
// splits ("Client.connect", "max_file_bytes") is a clause of its parts, so
// it matches the same identifier however it is spelled (MaxFileBytes,
// max-file-bytes) and also the prose "max file bytes".
type Clause struct {
	// Terms are the leaf terms, lower-cased, in order; never empty.
	Terms []string
	// Pos are their positions, Pos[0] == 0 and increasing. A stop word in
	// a quoted phrase leaves a gap ("state of the art" → state 0, art 3).
	Pos []uint32
	// Quoted is set for a clause written in double quotes.
	Quoted bool
	// Weight scales the clause's score; 0 means 1. A query expanded
	// with related terms gives them less than the words written.
	Weight float64
}

// Filter is a field:value word of the query (type:decision,
// path:index/, -tag:draft). ParseQuery does not interpret it.
type Filter struct {
	// Field is the name before the colon, lower-cased.
	Field string
	// Value is the text after the colon as written, without the quotes of
	// field:"quoted value"; it may be empty.
	Value string
	// Negated is set for a filter written with a leading '-'.
	Negated bool
}

// Empty reports whether q has no clause to match, in which case a search
// finds nothing.
func (q Query) Empty() bool { return len(q.Clauses) == 0 }

// String returns q in query syntax; ParseQuery(q.String()) returns q.
// A clause of several terms is written as its parts joined by '_'
// (max_file_bytes), or quoted with stop-word gaps written as "the".
func (q Query) String() string {
	var b strings.Builder
	sep := func() {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
	}
	for _, c := range q.Clauses {
		sep()
		c.write(&b)
	}
	for _, c := range q.Exclude {
		sep()
		b.WriteByte('-')
		c.write(&b)
	}
	for _, f := range q.Filters {
		sep()
		if f.Negated {
			b.WriteByte('-')
		}
		b.WriteString(f.Field)
		b.WriteByte(':')
		if f.Value == "" || strings.IndexFunc(f.Value, unicode.IsSpace) >= 0 ||
			strings.HasPrefix(f.Value, ":") || strings.HasPrefix(f.Value, "//") {
			b.WriteByte('"')
			b.WriteString(f.Value)
			b.WriteByte('"')
		} else {
			b.WriteString(f.Value)
		}
	}
	return b.String()
}

func (c Clause) write(b *strings.Builder) {
	if !c.Quoted {
		b.WriteString(strings.Join(c.Terms, "_"))
		return
	}
	b.WriteByte('"')
	for i, t := range c.Terms {
		if i > 0 {
			switch gap := c.Pos[i] - c.Pos[i-1]; {
			case gap == 1 && (isStopWord(t) || isStopWord(c.Terms[i-1])):
				// A stop word is only a term as a part of a compound;
				// keep it one.
				b.WriteByte('_')
			default:
				b.WriteByte(' ')
				for range gap - 1 {
					b.WriteString("the ")
				}
			}
		}
		b.WriteString(t)
	}
	b.WriteByte('"')
}

func (c Clause) equal(d Clause) bool {
	return c.Quoted == d.Quoted && slices.Equal(c.Terms, d.Terms) && slices.Equal(c.Pos, d.Pos)
}

// ParseQuery parses a search as a user types it. It never fails: anything
// it does not understand is text.
//
//   - A word is tokenized like documents are; each token becomes a clause
//     of its leaf terms, which must occur in order at consecutive
//     positions. Stop words standing alone are dropped.
//   - "a phrase" in double quotes is one clause over all its terms; an
//     unterminated quote runs to the end.
//   - A word or phrase with a leading '-' is excluded ("--flag" is not an
//     exclusion, it is the word "flag").
//   - name:value, name being a letter then letters, digits, '_' or '-', is
//     a Filter, unless value starts with ':' or "//" ("core::net",
//     "http://host" are text). The value may be quoted: path:"my dir/".
func ParseQuery(q string) Query {
	p := queryParser{q: q}
	t := tokenizers.Get().(*Tokenizer)
	p.tok = t
	p.parse()
	tokenizers.Put(t)
	return p.out
}

// NaturalQuery reads q as natural language, for a question or a task
// description rather than a search: nothing in it is syntax (quotes, a
// leading '-' and name:value words are text), and every term the
// tokenizer emits — an identifier whole and each of its parts, a path
// and each of its components — is a clause of one term, in order of
// first appearance, without duplicates. Stop words standing alone are
// dropped. Search it with SearchOptions.Any: a document matches any
// term, and BM25 sums what it matches, so an identifier written whole
// scores for the whole and for its parts.
func NaturalQuery(q string) Query {
	t := tokenizers.Get().(*Tokenizer)
	defer tokenizers.Put(t)
	var out Query
	seen := map[string]bool{}
	t.scan(q, 0, func(tk *token) {
		if seen[tk.term] {
			return
		}
		term := strings.Clone(tk.term)
		seen[term] = true
		out.Clauses = append(out.Clauses, Clause{Terms: []string{term}, Pos: []uint32{0}})
	})
	return out
}

type queryParser struct {
	q   string
	i   int
	tok *Tokenizer
	out Query

	// Scratch for the clauses of one word or phrase.
	cur Clause
}

func (p *queryParser) parse() {
	q := p.q
	for p.i < len(q) {
		r, n := utf8.DecodeRuneInString(q[p.i:])
		if unicode.IsSpace(r) {
			p.i += n
			continue
		}
		neg := false
		if r == '-' && p.i+1 < len(q) && (q[p.i+1] == '"' || wordAt(q, p.i+1)) {
			neg = true
			p.i++
		}
		if q[p.i] == '"' {
			p.text(p.quoted(), neg, true)
			continue
		}
		s := p.i
		for p.i < len(q) && q[p.i] != '"' {
			r, n := utf8.DecodeRuneInString(q[p.i:])
			if unicode.IsSpace(r) {
				break
			}
			p.i += n
		}
		w := q[s:p.i]
		if name, ok := fieldName(w); ok {
			value := w[len(name)+1:]
			quoted := false
			if value == "" && p.i < len(q) && q[p.i] == '"' {
				value, quoted = p.quoted(), true
			}
			if quoted || !strings.HasPrefix(value, ":") && !strings.HasPrefix(value, "//") {
				p.out.Filters = append(p.out.Filters, Filter{Field: strings.ToLower(name), Value: value, Negated: neg})
				continue
			}
		}
		p.text(w, neg, false)
	}
}

// quoted returns the text after the quote at p.i up to the closing quote
// or the end, and moves past it.
func (p *queryParser) quoted() string {
	s := p.i + 1
	e := strings.IndexByte(p.q[s:], '"')
	if e < 0 {
		p.i = len(p.q)
		return p.q[s:]
	}
	p.i = s + e + 1
	return p.q[s : s+e]
}

// fieldName returns the name of w if w is name:…
func fieldName(w string) (string, bool) {
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '_' || c == '-'):
		case i > 0 && c == ':':
			return w[:i], true
		default:
			return "", false
		}
	}
	return "", false
}

// text adds the clauses of a word (one per token) or of a quoted phrase
// (one for all of it).
func (p *queryParser) text(s string, neg, quoted bool) {
	p.cur = Clause{Quoted: quoted}
	var base uint32
	p.tok.scan(s, 0, func(tk *token) {
		if tk.first && !quoted {
			p.flush(neg)
			p.cur = Clause{}
		}
		if !tk.leaf {
			return
		}
		if len(p.cur.Terms) == 0 {
			base = tk.pos
		}
		p.cur.Terms = append(p.cur.Terms, strings.Clone(tk.term))
		p.cur.Pos = append(p.cur.Pos, tk.pos-base)
	})
	p.flush(neg)
}

// flush adds the clause being built unless it is empty or a duplicate.
func (p *queryParser) flush(neg bool) {
	c := p.cur
	p.cur = Clause{}
	if len(c.Terms) == 0 {
		return
	}
	list := &p.out.Clauses
	if neg {
		list = &p.out.Exclude
	}
	for _, d := range *list {
		if d.equal(c) {
			return
		}
	}
	*list = append(*list, c)
}

package where

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/narrative"
)

// maxDepth bounds the nesting of parentheses and NOTs, so that a hostile
// expression cannot exhaust the stack of the recursive parser (or of
// Match and String after it).
const maxDepth = 100

// Parse parses an expression (docs/QUERY.md). Relative times (created:>24h)
// are taken back from now. An expression that does not parse, or names a
// type, tag or value no node can have, is an *Error at its column.
//
// The grammar, by precedence from loosest to tightest:
//
//	expr      = and { "OR" and } .
//	and       = unary { [ "AND" ] unary } .        juxtaposition is AND
//	unary     = ( "NOT" | "-" ) unary | primary .   "-" directly before it
//	primary   = "(" expr ")" | predicate .
//	predicate = field ":" value .
//
// Keywords and field names are case-insensitive.
func Parse(expr string, now time.Time) (*Expr, error) {
	p := &parser{src: expr, now: now}
	if err := p.next(); err != nil {
		return nil, err
	}
	if p.tok.kind == tEOF {
		return nil, errorAt(expr, 0, nil, "the expression is empty: give a predicate such as type:decision or tag:project:x")
	}
	root, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tEOF {
		// or stops only at the end or at a ')' it did not open.
		return nil, p.errorAt(p.tok.off, `unexpected ")": there is no "(" for it to close`)
	}
	return &Expr{src: expr, root: root}, nil
}

// tokKind is the kind of a token.
type tokKind uint8

// The tokens.
const (
	tEOF    tokKind = iota
	tLParen         // (
	tRParen         // )
	tMinus          // '-' directly before a term: NOT
	tAnd            // AND
	tOr             // OR
	tNot            // NOT
	tPred           // field:value
	tWord           // a word that is neither a keyword nor field:value
	tQuoted         // a quoted string standing alone
)

// token is a token of the expression.
type token struct {
	kind   tokKind
	off    int    // byte offset of its start
	text   string // as written
	field  string // tPred: the field, lower-cased
	value  string // tPred: the value, unquoted
	valOff int    // tPred: byte offset of the value
}

// parser is a recursive-descent parser that reads one token ahead.
type parser struct {
	src   string
	now   time.Time
	pos   int   // byte offset of the next token
	tok   token // the current token
	depth int
}

func (p *parser) errorAt(off int, format string, args ...any) *Error {
	return errorAt(p.src, off, nil, format, args...)
}

// or parses and { OR and }.
func (p *parser) or() (node, error) {
	x, err := p.and()
	if err != nil {
		return nil, err
	}
	kids := []node{x}
	for p.tok.kind == tOr {
		op := p.tok
		if err := p.next(); err != nil {
			return nil, err
		}
		if !p.startsTerm() {
			return nil, p.expectedAfter(op)
		}
		x, err := p.and()
		if err != nil {
			return nil, err
		}
		kids = append(kids, x)
	}
	return join(true, kids), nil
}

// and parses unary { [AND] unary }.
func (p *parser) and() (node, error) {
	x, err := p.unary()
	if err != nil {
		return nil, err
	}
	kids := []node{x}
	for {
		switch {
		case p.tok.kind == tAnd:
			op := p.tok
			if err := p.next(); err != nil {
				return nil, err
			}
			if !p.startsTerm() {
				return nil, p.expectedAfter(op)
			}
		case p.startsTerm(), p.tok.kind == tWord, p.tok.kind == tQuoted:
			// Juxtaposition: an implicit AND. A word or a quoted string
			// is no predicate, but unary says so better than a missing
			// ")" or an unexpected end would.
		default:
			return join(false, kids), nil
		}
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		kids = append(kids, x)
	}
}

// unary parses NOT unary, -unary, ( expr ) and predicates.
func (p *parser) unary() (node, error) {
	switch p.tok.kind {
	case tNot, tMinus:
		op := p.tok
		if err := p.enter(op); err != nil {
			return nil, err
		}
		if err := p.next(); err != nil {
			return nil, err
		}
		if !p.startsTerm() {
			return nil, p.expectedAfter(op)
		}
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		p.depth--
		return &notOp{x}, nil
	case tLParen:
		open := p.tok
		if err := p.enter(open); err != nil {
			return nil, err
		}
		if err := p.next(); err != nil {
			return nil, err
		}
		if p.tok.kind == tRParen {
			return nil, p.errorAt(p.tok.off, `empty parentheses: put a predicate between "(" and ")"`)
		}
		if !p.startsTerm() {
			return nil, p.expected()
		}
		x, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tRParen {
			return nil, p.errorAt(open.off, `this "(" is never closed: add a ")"`)
		}
		p.depth--
		return x, p.next()
	case tPred:
		x, err := p.predicate(p.tok)
		if err != nil {
			return nil, err
		}
		return x, p.next()
	}
	return nil, p.expected()
}

// enter counts one more level of nesting.
func (p *parser) enter(t token) error {
	if p.depth++; p.depth > maxDepth {
		return p.errorAt(t.off, "the expression nests more than %d parentheses and NOTs deep", maxDepth)
	}
	return nil
}

// startsTerm reports whether the current token can start a unary.
func (p *parser) startsTerm() bool {
	switch p.tok.kind {
	case tNot, tMinus, tLParen, tPred:
		return true
	}
	return false
}

// expected is the error for the current token where a term must start.
func (p *parser) expected() error {
	t := p.tok
	switch t.kind {
	case tEOF:
		return p.errorAt(t.off, "the expression ends too early: expected a predicate such as tag:x")
	case tRParen:
		return p.errorAt(t.off, `unexpected ")": expected a predicate such as tag:x`)
	case tAnd, tOr:
		return p.errorAt(t.off, "unexpected %s: it needs a predicate on each side, as in tag:a %s tag:b", keyword(t.kind), keyword(t.kind))
	case tQuoted:
		return p.errorAt(t.off, `a quoted string alone is not a predicate: quote only the value, as in tag:"x"`)
	}
	// tWord
	if typ, err := narrative.ParseType(t.text); err == nil {
		return p.errorAt(t.off, "%q is not a predicate: did you mean type:%s?", t.text, typ)
	}
	return p.errorAt(t.off, "%q is not a predicate: write field:value with field type, tag, created, updated, tokens, has, from or to (ctx search looks for words)", t.text)
}

// expectedAfter is the error for a missing operand after the operator op.
func (p *parser) expectedAfter(op token) error {
	if p.tok.kind != tEOF {
		return p.expected()
	}
	return p.errorAt(op.off, "expected a predicate after %s", keyword(op.kind))
}

// keyword names an operator token in messages.
func keyword(k tokKind) string {
	switch k {
	case tAnd:
		return "AND"
	case tOr:
		return "OR"
	case tNot:
		return "NOT"
	case tMinus:
		return `"-"`
	}
	return ""
}

// next reads the next token into p.tok.
func (p *parser) next() error {
	s := p.src
	for p.pos < len(s) {
		r, n := utf8.DecodeRuneInString(s[p.pos:])
		if !unicode.IsSpace(r) {
			break
		}
		p.pos += n
	}
	start := p.pos
	p.tok = token{off: start}
	if start == len(s) {
		p.tok.kind = tEOF
		return nil
	}
	switch s[start] {
	case '(':
		p.tok.kind = tLParen
		p.pos++
	case ')':
		p.tok.kind = tRParen
		p.pos++
	case '-':
		// A '-' is NOT only directly before what it negates: no value and
		// no field name starts with '-', so "-tag:x" cannot mean anything
		// else, while "- tag:x" is more likely a typo than a negation.
		if r, _ := utf8.DecodeRuneInString(s[start+1:]); start+1 == len(s) || unicode.IsSpace(r) {
			return p.errorAt(start, `"-" must come directly before what it negates: write -tag:x or NOT tag:x`)
		}
		p.tok.kind = tMinus
		p.pos++
	case '"':
		v, err := p.quoted()
		if err != nil {
			return err
		}
		p.tok.kind, p.tok.value = tQuoted, v
	default:
		return p.word()
	}
	p.tok.text = s[start:p.pos]
	return nil
}

// endsValue reports whether r ends a word or an unquoted value.
func endsValue(r rune) bool {
	return unicode.IsSpace(r) || r == '(' || r == ')' || r == '"'
}

// word reads a keyword, a bare word or field:value.
func (p *parser) word() error {
	s := p.src
	start := p.pos
	p.pos += runLen(s[start:], func(r rune) bool { return endsValue(r) || r == ':' })
	name := s[start:p.pos]
	if p.pos == len(s) || s[p.pos] != ':' {
		p.tok.text = name
		switch {
		case strings.EqualFold(name, "and"):
			p.tok.kind = tAnd
		case strings.EqualFold(name, "or"):
			p.tok.kind = tOr
		case strings.EqualFold(name, "not"):
			p.tok.kind = tNot
		default:
			p.tok.kind = tWord
		}
		return nil
	}
	if name == "" {
		return p.errorAt(start, `expected a field name before ":", as in tag:x`)
	}
	p.pos++ // ':'
	p.tok.kind, p.tok.field, p.tok.valOff = tPred, strings.ToLower(name), p.pos
	if p.pos < len(s) && s[p.pos] == '"' {
		v, err := p.quoted()
		if err != nil {
			return err
		}
		if r, _ := utf8.DecodeRuneInString(s[p.pos:]); p.pos < len(s) && !endsValue(r) {
			return p.errorAt(p.pos, `unexpected text after the closing quote: quote the whole value, as in tag:"x"`)
		}
		p.tok.value = v
	} else {
		p.pos += runLen(s[p.pos:], endsValue)
		if p.pos < len(s) && s[p.pos] == '"' {
			return p.errorAt(p.pos, `a quote inside a value: quote the whole value, as in tag:"x"`)
		}
		p.tok.value = s[p.tok.valOff:p.pos]
	}
	p.tok.text = s[start:p.pos]
	return nil
}

// runLen returns the length in bytes of the prefix of s before the first
// rune for which stop is true.
func runLen(s string, stop func(rune) bool) int {
	for i, r := range s {
		if stop(r) {
			return i
		}
	}
	return len(s)
}

// quoted reads the quoted string at p.pos: up to the next unescaped '"',
// with \" standing for '"' and \\ for '\'; any other '\' is itself.
func (p *parser) quoted() (string, error) {
	s := p.src
	var b strings.Builder
	for i := p.pos + 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
			b.WriteByte(s[i+1])
			i++
		case c == '"':
			p.pos = i + 1
			return b.String(), nil
		default:
			b.WriteByte(c)
		}
	}
	return "", p.errorAt(p.pos, `this quote is never closed: add a '"' after the value`)
}

// predicate checks the value of a field:value token and builds its node.
func (p *parser) predicate(t token) (node, error) {
	switch t.field {
	case "type", "tag", "created", "updated", "tokens", "has", "from", "to":
	default:
		return nil, p.errorAt(t.off, "unknown field %q: the fields are type, tag, created, updated, tokens, has, from and to", t.field)
	}
	if t.value == "" {
		msg := "expected a value after %q"
		if r, _ := utf8.DecodeRuneInString(p.src[t.valOff:]); t.valOff < len(p.src) {
			switch {
			case r == '(':
				msg += " (several values are written (tag:a OR tag:b))"
			case unicode.IsSpace(r):
				msg += " (no space after the ':')"
			}
		}
		return nil, p.errorAt(t.off, msg, t.field+":")
	}
	v := t.value
	switch t.field {
	case "type":
		typ, err := narrative.ParseType(v)
		if err != nil {
			return nil, errorAt(p.src, t.valOff, err, "type:%s", v)
		}
		return &typePred{typ}, nil
	case "tag":
		tag, err := narrative.ParseTag(v)
		if err != nil {
			return nil, errorAt(p.src, t.valOff, err, "tag:%s", v)
		}
		return &tagPred{tag}, nil
	case "created", "updated":
		return p.timePred(t)
	case "tokens":
		c, rest := parseCmp(v)
		if rest == "" {
			return nil, p.errorAt(t.valOff, "tokens:%s: expected a number after %q, as in tokens:<1000 (no space)", v, c)
		}
		n, err := strconv.Atoi(rest)
		if err != nil || n < 0 || strings.HasPrefix(rest, "+") {
			return nil, p.errorAt(t.valOff, "tokens:%s: want a whole number of tokens after the operator, as in tokens:<1000 (operators: <, <=, >, >=, =)", v)
		}
		return &tokensPred{cmp: c, n: n}, nil
	case "has":
		switch strings.ToLower(v) {
		case "summary":
			return &hasPred{}, nil
		case "edges":
			return &hasPred{edges: true}, nil
		}
		return nil, p.errorAt(t.valOff, "has:%s: want has:summary or has:edges", v)
	}
	// from, to
	id := strings.ToLower(v)
	if len(id) < narrative.MinIDPrefix || len(id) > narrative.IDLen || strings.ContainsFunc(id, func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	}) {
		return nil, p.errorAt(t.valOff, "%s:%s: want a node id or a prefix of %d to %d of its letters and digits (ctx list shows them)", t.field, v, narrative.MinIDPrefix, narrative.IDLen)
	}
	return &edgePred{to: t.field == "to", prefix: id, off: t.off}, nil
}

// parseCmp splits the comparison off a value; none means '='.
func parseCmp(v string) (cmp, string) {
	for _, c := range []struct {
		op  string
		cmp cmp
	}{{">=", cmpGe}, {"<=", cmpLe}, {">", cmpGt}, {"<", cmpLt}, {"=", cmpEq}} {
		if rest, ok := strings.CutPrefix(v, c.op); ok {
			return c.cmp, rest
		}
	}
	return cmpEq, v
}

// timeSyntax says what a time value may be.
const timeSyntax = "want a duration back from now (90m, 24h, 7d, 2w) or a date (2026-01-20, or RFC 3339 2026-01-20T15:04:05Z)"

// timePred parses created:OPVALUE and updated:OPVALUE. A duration names
// the instant that long before now; a date names its whole day (UTC); a
// timestamp names itself.
func (p *parser) timePred(t token) (node, error) {
	v := t.value
	c, rest := parseCmp(v)
	explicit := rest != v
	rest = strings.TrimSpace(rest)
	tp := &timePred{updated: t.field == "updated", cmp: c, value: rest}
	if day, err := time.Parse("2006-01-02", rest); err == nil {
		tp.lo, tp.hi = day, day.Add(24*time.Hour)
		return tp, nil
	}
	if at, err := time.Parse(time.RFC3339, rest); err == nil {
		tp.lo, tp.hi = at, at.Add(time.Nanosecond)
		return tp, nil
	}
	if rest == "" {
		return nil, p.errorAt(t.valOff, "%s:%s: expected a time after %q, as in %s:>24h (no space)", t.field, v, c, t.field)
	}
	at, err := narrative.ParseSince(rest, p.now)
	if err != nil || strings.ContainsAny(rest[:1], "<>=!+-") {
		return nil, p.errorAt(t.valOff, "%s:%s: %s", t.field, v, timeSyntax)
	}
	switch {
	case !explicit:
		return nil, p.errorAt(t.valOff, "%s:%s: a duration needs an operator: %s:>%s (newer than %s ago) or %s:<%s (older)", t.field, v, t.field, rest, rest, t.field, rest)
	case c == cmpEq:
		return nil, p.errorAt(t.valOff, `%s:%s: "=" needs a date, as in %s:=2026-01-20; with a duration use > (newer) or < (older)`, t.field, v, t.field)
	}
	tp.lo, tp.hi = at, at.Add(time.Nanosecond)
	return tp, nil
}

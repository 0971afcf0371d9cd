package where

import (
	"strconv"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/narrative"
)

// Expr is a parsed filter expression. It is not safe to Resolve while
// another goroutine calls Match; Match alone may be called from several
// goroutines if the Graph allows it.
type Expr struct {
	src  string
	root node
}

// String returns the canonical form of the expression: AND and OR groups
// fully parenthesised and flattened ("(a AND b AND c)"), NOT written as a
// keyword, keywords in upper case, values normalised (type aliases
// resolved, tags lower-cased, times and token counts with their operator,
// from: and to: with the full id once resolved). Parsing it again gives
// the same expression, with the same String.
func (e *Expr) String() string {
	var b strings.Builder
	e.root.write(&b)
	return b.String()
}

// Needs reports which facts of the Graph Match consults: summaries for
// has:summary, edges for has:edges, from: and to:. A caller builds only
// what is needed, and may pass a nil Graph when neither is.
func (e *Expr) Needs() (summaries, edges bool) {
	walk(e.root, func(n node) {
		switch n := n.(type) {
		case *hasPred:
			if n.edges {
				edges = true
			} else {
				summaries = true
			}
		case *edgePred:
			edges = true
		}
	})
	return summaries, edges
}

// Resolve turns the id prefixes of the from: and to: predicates into node
// ids with resolve (Catalog.Resolve, say), once, before Match. An error of
// resolve (an unknown or ambiguous prefix) is returned as an *Error at the
// predicate's column that wraps it. Without Resolve, Match takes each
// prefix for a whole id.
func (e *Expr) Resolve(resolve func(prefix string) (narrative.ID, error)) error {
	var err error
	walk(e.root, func(n node) {
		p, ok := n.(*edgePred)
		if !ok || err != nil {
			return
		}
		id, rerr := resolve(p.prefix)
		if rerr != nil {
			err = errorAt(e.src, p.off, rerr, "%s", p.field())
			return
		}
		p.id = id
	})
	return err
}

// node is a node of the syntax tree.
type node interface {
	// match reports whether the narrative node n satisfies the node; g
	// may be nil.
	match(n *narrative.Node, g Graph) bool
	// write appends the canonical form.
	write(b *strings.Builder)
}

// walk calls f on every node of the tree under n, n first.
func walk(n node, f func(node)) {
	f(n)
	switch n := n.(type) {
	case *boolOp:
		for _, k := range n.kids {
			walk(k, f)
		}
	case *notOp:
		walk(n.x, f)
	}
}

// boolOp is an AND or OR of two or more nodes.
type boolOp struct {
	or   bool
	kids []node
}

// join returns the AND (or OR) of kids, splicing in kids that are
// themselves ANDs (ORs): the operators are associative, and a flat list
// gives one canonical form to "a b c", "(a b) c" and "a (b c)".
func join(or bool, kids []node) node {
	if len(kids) == 1 {
		return kids[0]
	}
	op := &boolOp{or: or}
	for _, k := range kids {
		if b, ok := k.(*boolOp); ok && b.or == or {
			op.kids = append(op.kids, b.kids...)
		} else {
			op.kids = append(op.kids, k)
		}
	}
	return op
}

func (o *boolOp) write(b *strings.Builder) {
	sep := " AND "
	if o.or {
		sep = " OR "
	}
	b.WriteByte('(')
	for i, k := range o.kids {
		if i > 0 {
			b.WriteString(sep)
		}
		k.write(b)
	}
	b.WriteByte(')')
}

// notOp is NOT x (or -x).
type notOp struct{ x node }

func (o *notOp) write(b *strings.Builder) {
	b.WriteString("NOT ")
	o.x.write(b)
}

// cmp is the comparison of a time or token predicate.
type cmp uint8

// The comparisons; the zero value is invalid.
const (
	cmpEq cmp = iota + 1
	cmpLt
	cmpLe
	cmpGt
	cmpGe
)

// String returns the operator as written.
func (c cmp) String() string {
	switch c {
	case cmpEq:
		return "="
	case cmpLt:
		return "<"
	case cmpLe:
		return "<="
	case cmpGt:
		return ">"
	case cmpGe:
		return ">="
	}
	return ""
}

// typePred is type:T.
type typePred struct{ t narrative.Type }

func (p *typePred) write(b *strings.Builder) { writePred(b, "type", string(p.t)) }

// tagPred is tag:T.
type tagPred struct{ tag string }

func (p *tagPred) write(b *strings.Builder) { writePred(b, "tag", p.tag) }

// timePred is created:OPVALUE or updated:OPVALUE. The value is the span
// [lo, hi): a whole day for a date, one instant (hi = lo + 1ns) for a
// duration or a timestamp.
type timePred struct {
	updated bool
	cmp     cmp
	value   string // as written, for String
	lo, hi  time.Time
}

func (p *timePred) write(b *strings.Builder) {
	f := "created"
	if p.updated {
		f = "updated"
	}
	writePred(b, f, p.cmp.String()+p.value)
}

// tokensPred is tokens:OPN.
type tokensPred struct {
	cmp cmp
	n   int
}

func (p *tokensPred) write(b *strings.Builder) {
	writePred(b, "tokens", p.cmp.String()+strconv.Itoa(p.n))
}

// hasPred is has:summary or has:edges.
type hasPred struct{ edges bool }

func (p *hasPred) write(b *strings.Builder) {
	if p.edges {
		b.WriteString("has:edges")
	} else {
		b.WriteString("has:summary")
	}
}

// edgePred is from:ID (an edge from ID to the node) or to:ID (from the
// node to ID).
type edgePred struct {
	to     bool
	prefix string       // as written, lower-cased
	id     narrative.ID // once resolved
	off    int          // byte offset in the expression, for Resolve's errors
}

func (p *edgePred) field() string {
	if p.to {
		return "to:" + p.prefix
	}
	return "from:" + p.prefix
}

// target is the node the predicate names: the resolved id, or the prefix
// taken for an id.
func (p *edgePred) target() narrative.ID {
	if p.id != "" {
		return p.id
	}
	return narrative.ID(p.prefix)
}

func (p *edgePred) write(b *strings.Builder) {
	f := "from"
	if p.to {
		f = "to"
	}
	writePred(b, f, string(p.target()))
}

// writePred writes field:value, quoting the value if it would not read
// back as one value.
func writePred(b *strings.Builder, field, value string) {
	b.WriteString(field)
	b.WriteByte(':')
	if value != "" && !strings.ContainsFunc(value, endsValue) {
		b.WriteString(value)
		return
	}
	b.WriteByte('"')
	for i := 0; i < len(value); i++ {
		if c := value[i]; c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(value[i])
	}
	b.WriteByte('"')
}

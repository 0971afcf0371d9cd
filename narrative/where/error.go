package where

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Error is what is wrong with an expression, and where: Parse returns it
// for an expression that does not parse or names a value no node can have
// (type:frob), Resolve for a from: or to: whose node cannot be found.
//
// Parse stops at the first error, unlike the narrative's parsers (which
// collect every problem of a file so that one bad node does not hide the
// rest): an expression is one line typed by hand, and once it fails to
// parse at one column what follows has no reliable meaning.
type Error struct {
	// Expr is the expression as given.
	Expr string
	// Col is the column of the offending token, 1-based, in runes; one
	// past the last rune when the expression ends too early.
	Col int
	// Msg says what is wrong and what to write instead.
	Msg string
	// Err is the cause from a lower layer (narrative.ErrInvalidType,
	// narrative.ErrInvalidTag, narrative.ErrNotFound,
	// narrative.ErrAmbiguous, …), or nil for a syntax error.
	Err error
}

// Error reads "column 14: expected a value after "tag:"", followed by the
// cause if there is one. The caller says which expression: the CLI adds
// "--where: ".
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("column %d: %s: %v", e.Col, e.Msg, e.Err)
	}
	return fmt.Sprintf("column %d: %s", e.Col, e.Msg)
}

// Unwrap returns the cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Caret returns two lines, without a final newline: the expression, and a
// caret under the column of the error. Line breaks, tabs and other control
// characters of the expression are shown as spaces, so that the caret
// lines up in a terminal (for characters one cell wide).
func (e *Error) Caret() string {
	var b strings.Builder
	for _, r := range e.Expr {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError {
			r = ' '
		}
		b.WriteRune(r)
	}
	b.WriteByte('\n')
	b.WriteString(strings.Repeat(" ", max(e.Col-1, 0)))
	b.WriteByte('^')
	return b.String()
}

// errorAt returns an Error at byte offset off of expr.
func errorAt(expr string, off int, cause error, format string, args ...any) *Error {
	return &Error{Expr: expr, Col: utf8.RuneCountInString(expr[:off]) + 1, Msg: fmt.Sprintf(format, args...), Err: cause}
}

package where

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/narrative"
)

// now is the fixed time of the tests: 2026-01-20 12:00 UTC.
var now = time.Date(2026, 1, 20, 12, 0, 0, 0, time.UTC)

func TestParse(t *testing.T) {
	tests := []struct {
		name, expr, want string
	}{
		{"type", "type:decision", "type:decision"},
		{"type alias note", "type:note", "type:observation"},
		{"type alias question", "type:Question", "type:open-question"},
		{"field case", "TYPE:Decision", "type:decision"},
		{"tag", "tag:rust", "tag:rust"},
		{"tag with colons", "tag:tier:reference", "tag:tier:reference"},
		{"tag with two colons", "tag:project:viberent:api", "tag:project:viberent:api"},
		{"tag folded", "tag:Project:NetLib", "tag:project:netlib"},
		{"quoted value", `tag:"project:x"`, "tag:project:x"},
		{"created duration", "created:>24h", "created:>24h"},
		{"created older", "created:<1w", "created:<1w"},
		{"created ge days", "created:>=7d", "created:>=7d"},
		{"created date", "created:>2024-01-01", "created:>2024-01-01"},
		{"created date eq", "created:=2024-01-01", "created:=2024-01-01"},
		{"created date no op", "created:2024-01-01", "created:=2024-01-01"},
		{"created rfc3339", "created:<=2026-01-20T10:00:00Z", "created:<=2026-01-20T10:00:00Z"},
		{"updated minutes", "updated:>90m", "updated:>90m"},
		{"quoted time", `updated:">= 2d"`, "updated:>=2d"},
		{"tokens", "tokens:<1000", "tokens:<1000"},
		{"tokens ops", "tokens:>500 tokens:>=1 tokens:<=9 tokens:=3 tokens:4", "(tokens:>500 AND tokens:>=1 AND tokens:<=9 AND tokens:=3 AND tokens:=4)"},
		{"has", "has:summary HAS:Edges", "(has:summary AND has:edges)"},
		{"from to", "from:AbCd to:0123456789", "(from:abcd AND to:0123456789)"},
		{"implicit and", "type:decision tag:x", "(type:decision AND tag:x)"},
		{"explicit and", "type:decision AND tag:x", "(type:decision AND tag:x)"},
		{"keywords any case", "type:fact and tag:a Or not tag:b", "((type:fact AND tag:a) OR NOT tag:b)"},
		{"and binds tighter than or", "tag:a OR tag:b tag:c", "(tag:a OR (tag:b AND tag:c))"},
		{"and binds tighter than or, left", "tag:a tag:b OR tag:c", "((tag:a AND tag:b) OR tag:c)"},
		{"not binds tighter than and", "NOT tag:a tag:b", "(NOT tag:a AND tag:b)"},
		{"not binds tighter than or", "NOT tag:a OR tag:b", "(NOT tag:a OR tag:b)"},
		{"grouping", "(tag:a OR tag:b) tag:c", "((tag:a OR tag:b) AND tag:c)"},
		{"not group", "NOT (tag:a OR tag:b)", "NOT (tag:a OR tag:b)"},
		{"minus", "-tag:x", "NOT tag:x"},
		{"minus group", "-(tag:a tag:b)", "NOT (tag:a AND tag:b)"},
		{"minus juxtaposed", "type:task -tag:done", "(type:task AND NOT tag:done)"},
		{"double negation kept", "NOT -tag:x", "NOT NOT tag:x"},
		{"flattened and", "tag:a (tag:b tag:c) AND tag:d", "(tag:a AND tag:b AND tag:c AND tag:d)"},
		{"flattened or", "(tag:a OR tag:b) OR (tag:c OR tag:d)", "(tag:a OR tag:b OR tag:c OR tag:d)"},
		{"redundant parens", "((tag:a))", "tag:a"},
		{"parens without spaces", "(tag:a)(tag:b)", "(tag:a AND tag:b)"},
		{"spaces everywhere", "  \t( tag:a\nOR\ttag:b )  ", "(tag:a OR tag:b)"},
		{"keyword as a value", "tag:and tag:or tag:not", "(tag:and AND tag:or AND tag:not)"},
		{"unicode spaces", "tag:a\u00a0tag:b", "(tag:a AND tag:b)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Parse(tt.expr, now)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.expr, err)
			}
			if got := e.String(); got != tt.want {
				t.Errorf("Parse(%q).String() = %q, want %q", tt.expr, got, tt.want)
			}
			// The canonical form parses to itself.
			again, err := Parse(e.String(), now)
			if err != nil {
				t.Fatalf("Parse(%q) (the canonical form): %v", e.String(), err)
			}
			if again.String() != e.String() {
				t.Errorf("round trip: %q → %q", e.String(), again.String())
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, expr string
		col        int
		msg        string // a part of the message
		cause      error  // what the error wraps, if anything
	}{
		{"empty", "", 1, "the expression is empty", nil},
		{"blank", "   ", 1, "the expression is empty", nil},
		{"missing value at end", "type:decision tag:", 15, `expected a value after "tag:"`, nil},
		{"missing value before space", "tag: x", 1, `expected a value after "tag:" (no space after the ':')`, nil},
		{"missing value before paren", "tag:(a OR b)", 1, "several values are written (tag:a OR tag:b)", nil},
		{"empty quoted value", `tag:""`, 1, `expected a value after "tag:"`, nil},
		{"unknown field", "type:fact color:red", 11, `unknown field "color"`, nil},
		{"unknown field before missing value", "color:", 1, `unknown field "color"`, nil},
		{"no field", "tag:a :x", 7, `expected a field name before ":"`, nil},
		{"bare word", "tag:a backoff", 7, `"backoff" is not a predicate`, nil},
		{"bare type word", "decision", 1, "did you mean type:decision?", nil},
		{"bare word in group", "(tag:a foo)", 8, `"foo" is not a predicate`, nil},
		{"bare quoted", `tag:a "x y"`, 7, "a quoted string alone is not a predicate", nil},
		{"unterminated quote", `tag:a tag:"x`, 11, "this quote is never closed", nil},
		{"unterminated bare quote", `"abc`, 1, "this quote is never closed", nil},
		{"quote inside value", `tag:a"b"`, 6, "a quote inside a value", nil},
		{"text after quote", `tag:"a"b`, 8, "unexpected text after the closing quote", nil},
		{"bad type", "type:frob", 6, "type:frob", narrative.ErrInvalidType},
		{"bad tag", "tag:a!b", 5, "tag:a!b", narrative.ErrInvalidTag},
		{"bad tier", "tag:tier:gold", 5, "tag:tier:gold", narrative.ErrInvalidTag},
		{"escaped quote", `tag:"a\"b"`, 5, `tag:a"b`, narrative.ErrInvalidTag},
		{"space in tag", `tag:"a b"`, 5, `tag:a b`, narrative.ErrInvalidTag},
		{"bad time", "created:>yesterday", 9, "want a duration back from now", nil},
		{"time without value", "created:> 24h", 9, `expected a time after ">"`, nil},
		{"duration without op", "updated:24h", 9, "a duration needs an operator", nil},
		{"duration with =", "created:=24h", 9, `"=" needs a date`, nil},
		{"negative duration", "created:>-1h", 9, "want a duration back from now", nil},
		{"double operator", "created:>>1h", 9, "want a duration back from now", nil},
		{"bad tokens", "tokens:<lots", 8, "want a whole number of tokens", nil},
		{"negative tokens", "tokens:<-1", 8, "want a whole number of tokens", nil},
		{"tokens without number", "tokens:>=", 8, `expected a number after ">="`, nil},
		{"not equal", "tokens:!=5", 8, "want a whole number of tokens", nil},
		{"bad has", "has:children", 5, "want has:summary or has:edges", nil},
		{"short id", "from:abc", 6, "want a node id or a prefix of 4 to 10", nil},
		{"long id", "to:0123456789a", 4, "want a node id or a prefix", nil},
		{"id punctuation", "to:ab-cd", 4, "want a node id or a prefix", nil},
		{"and at start", "AND tag:x", 1, "unexpected AND", nil},
		{"and at end", "tag:x AND", 7, "expected a predicate after AND", nil},
		{"or at end", "tag:x or", 7, "expected a predicate after OR", nil},
		{"not at end", "tag:x NOT", 7, "expected a predicate after NOT", nil},
		{"and and", "tag:x AND AND tag:y", 11, "unexpected AND", nil},
		{"or and", "tag:x OR AND tag:y", 10, "unexpected AND", nil},
		{"minus space", "tag:x - tag:y", 7, `"-" must come directly before what it negates`, nil},
		{"minus at end", "tag:x -", 7, `"-" must come directly before what it negates`, nil},
		{"minus paren", "-)", 2, `unexpected ")"`, nil},
		{"empty parens", "tag:x ()", 8, "empty parentheses", nil},
		{"unclosed paren", "tag:x (tag:y OR tag:z", 7, `this "(" is never closed`, nil},
		{"unclosed after open", "(", 2, "the expression ends too early", nil},
		{"stray close", "tag:x)", 6, `unexpected ")": there is no "("`, nil},
		{"stray close after group", "(tag:x)) tag:y", 8, `unexpected ")"`, nil},
		{"columns in runes", "tag:é\u00e9 färg:x", 5, "tag:éé", narrative.ErrInvalidTag},
		{"column after runes", "tag:a \u00e9:x", 7, `unknown field "é"`, nil},
		{"too deep", strings.Repeat("(", maxDepth+1) + "tag:x" + strings.Repeat(")", maxDepth+1), maxDepth + 1, "nests more than", nil},
		{"too many nots", strings.Repeat("NOT ", maxDepth+1) + "tag:x", 4*maxDepth + 1, "nests more than", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Parse(tt.expr, now)
			if err == nil {
				t.Fatalf("Parse(%q) = %s, want an error", tt.expr, e)
			}
			var we *Error
			if !errors.As(err, &we) {
				t.Fatalf("Parse(%q): %T %v, want an *Error", tt.expr, err, err)
			}
			if we.Col != tt.col {
				t.Errorf("Parse(%q): column %d, want %d (%v)", tt.expr, we.Col, tt.col, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Parse(%q): %q, want it to contain %q", tt.expr, err, tt.msg)
			}
			if tt.cause != nil && !errors.Is(err, tt.cause) {
				t.Errorf("Parse(%q): %v does not wrap %v", tt.expr, err, tt.cause)
			}
			if tt.cause == nil && we.Err != nil {
				t.Errorf("Parse(%q): wraps %v, want no cause", tt.expr, we.Err)
			}
		})
	}
}

func TestErrorText(t *testing.T) {
	_, err := Parse("type:decision tag:", now)
	if got, want := err.Error(), `column 15: expected a value after "tag:"`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var we *Error
	errors.As(err, &we)
	if got, want := we.Caret(), "type:decision tag:\n              ^"; got != want {
		t.Errorf("Caret() =\n%s\nwant\n%s", got, want)
	}

	// Line breaks and tabs become spaces so that the caret lines up;
	// columns count runes.
	_, err = Parse("tag:a\n\tö:x", now)
	errors.As(err, &we)
	if got, want := we.Caret(), "tag:a  ö:x\n       ^"; got != want {
		t.Errorf("Caret() =\n%s\nwant\n%s", got, want)
	}

	// An error at the end points one past the last rune.
	_, err = Parse("tag:a (", now)
	errors.As(err, &we)
	if got, want := we.Caret(), "tag:a (\n       ^"; got != want {
		t.Errorf("Caret() =\n%s\nwant\n%s", got, want)
	}
}

func TestResolve(t *testing.T) {
	ids := map[string]narrative.ID{"abcd": "abcdefghij", "0123": "0123456789"}
	resolve := func(p string) (narrative.ID, error) {
		if id, ok := ids[p]; ok {
			return id, nil
		}
		if p == "amb1" {
			return "", &narrative.AmbiguousError{Prefix: p, Candidates: []narrative.ID{"amb1aaaaaa", "amb1bbbbbb"}}
		}
		return "", narrative.ErrNotFound
	}
	e, err := Parse("from:ABCD OR to:0123", now)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Resolve(resolve); err != nil {
		t.Fatal(err)
	}
	if got, want := e.String(), "(from:abcdefghij OR to:0123456789)"; got != want {
		t.Errorf("String() after Resolve = %q, want %q", got, want)
	}

	tests := []struct {
		expr  string
		col   int
		cause error
	}{
		{"tag:x from:zzzz", 7, narrative.ErrNotFound},
		{"from:abcd NOT to:amb1", 15, narrative.ErrAmbiguous},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			e, err := Parse(tt.expr, now)
			if err != nil {
				t.Fatal(err)
			}
			err = e.Resolve(resolve)
			var we *Error
			if !errors.As(err, &we) || !errors.Is(err, tt.cause) {
				t.Fatalf("Resolve: %v, want an *Error wrapping %v", err, tt.cause)
			}
			if we.Col != tt.col {
				t.Errorf("Resolve: column %d, want %d", we.Col, tt.col)
			}
		})
	}
}

func TestNeeds(t *testing.T) {
	tests := []struct {
		expr             string
		summaries, edges bool
	}{
		{"type:fact tag:x created:>1d tokens:<5", false, false},
		{"has:summary", true, false},
		{"NOT has:edges", false, true},
		{"type:fact OR (tag:x from:abcd)", false, true},
		{"to:abcd has:summary", true, true},
	}
	for _, tt := range tests {
		e, err := Parse(tt.expr, now)
		if err != nil {
			t.Fatal(err)
		}
		if s, g := e.Needs(); s != tt.summaries || g != tt.edges {
			t.Errorf("Parse(%q).Needs() = %v, %v, want %v, %v", tt.expr, s, g, tt.summaries, tt.edges)
		}
	}
}

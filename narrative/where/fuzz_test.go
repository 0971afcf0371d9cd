package where

import (
	"errors"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/narrative"
)

// FuzzParse checks that Parse never panics, that an error is an *Error at
// a column inside the expression (or one past its end), and that a parsed
// expression round-trips through String to the same String and the same
// matches.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"type:decision tag:x",
		"(type:task OR type:question) AND NOT has:summary",
		`-tag:tier:off-context tokens:<1000 created:>=7d updated:<2024-01-01`,
		`tag:"project:x" OR (from:abcd to:0123456789) has:edges`,
		"created:=2024-01-01T10:00:00+02:00 tokens:5",
		`tag:"a\"b\\c"`, `tag:"`, `"x"`, "-", "- tag:x", "--tag:x", "()", "(()", ")(",
		"tag:a\x00 tag:\xff", "NOT NOT not Not tag:a", "and or not", ":", "a:", ":b",
		"tag:é", "tag:\u00a0x", "created:>100000w", "tokens:>99999999999999999999",
	} {
		f.Add(s)
	}
	nodes := []*narrative.Node{
		{ID: "abcdabcdab", Type: narrative.Decision, Tags: []string{"x"}, Content: "abc",
			Created: now.Add(-time.Hour), Updated: now},
		{ID: "0123456789", Type: narrative.Task, Tags: []string{"project:x", "tier:working"},
			Created: time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC), Updated: time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC)},
	}
	g := &fakeGraph{edges: [][2]narrative.ID{{"abcdabcdab", "0123456789"}}, summarised: map[narrative.ID]bool{"0123456789": true}}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s, now)
		if err != nil {
			var we *Error
			if !errors.As(err, &we) {
				t.Fatalf("Parse(%q): %T %v, want an *Error", s, err, err)
			}
			if we.Col < 1 || we.Col > utf8.RuneCountInString(s)+1 {
				t.Fatalf("Parse(%q): column %d outside the expression", s, we.Col)
			}
			_ = we.Caret()
			return
		}
		c := e.String()
		again, err := Parse(c, now)
		if err != nil {
			t.Fatalf("Parse(%q) = %q, which does not parse: %v", s, c, err)
		}
		if again.String() != c {
			t.Fatalf("Parse(%q) = %q, which parses to %q", s, c, again.String())
		}
		for _, n := range nodes {
			if e.Match(n, g) != again.Match(n, g) {
				t.Fatalf("%q and its canonical form %q disagree on %s", s, c, n.ID)
			}
		}
		e.Needs()
	})
}

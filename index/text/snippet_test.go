package text

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// marked returns the snippet's text with its marks in [brackets].
func marked(s Snippet) string {
	var b strings.Builder
	last := 0
	for _, m := range s.Marks {
		b.WriteString(s.Text[last:m.Start])
		b.WriteString("[" + s.Text[m.Start:m.End] + "]")
		last = m.End
	}
	b.WriteString(s.Text[last:])
	return b.String()
}

const goFile = `package backoff

import "time"

// Policy says how long to wait.
type Policy struct{ Base time.Duration }

// Delay returns the delay before retry n, doubling each time:
// exponential backoff.
func (p Policy) Delay(n int) time.Duration {
	return p.Base << n
}

// Fixed never grows.
func Fixed() Policy { return Policy{} }
`

func TestBestSnippet(t *testing.T) {
	long := strings.Repeat("filler words go here and on ", 20) + "the server uses exponential backoff when overloaded " + strings.Repeat("and more filler after that ", 20)
	tests := []struct {
		name, doc, query string
		max              int
		want             string
	}{
		{"Short", "retry with backoff", "backoff", 0, "retry with [backoff]"},
		{"WholeLines", goFile, `"exponential backoff"`, 120,
			"// [exponential] [backoff].\nfunc (p Policy) Delay(n int) time.Duration {\n\treturn p.Base << n\n}"},
		{"TwoClausesBeatOne", goFile, "delay retry", 80,
			"// [Delay] returns the [delay] before [retry] n, doubling each time:"},
		{"Identifier", goFile, "Policy.Delay", 60, "func (p [Policy]) [Delay](n int) time.Duration {"},
		{"LongLine", long, `"exponential backoff"`, 80,
			"on the server uses [exponential] [backoff] when overloaded and more filler after"},
		{"NoMatch", goFile, "zebra", 40, "package backoff"},
		{"NoMatchLongLine", long, "zebra", 30, "filler words go here and on"},
		{"Unicode", "Ça marche: élan exponentiel, très bien", "élan", 19, "[élan] exponentiel,"},
		{"UnicodeCut", "Ça marche: élan exponentiel, très bien", "élan", 16, "[élan]"},
		{"StopsAtBlankLine", "alpha beta\ngamma\n\ndelta", "beta", 0, "alpha [beta]\ngamma"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := BestSnippet(tt.doc, ParseQuery(tt.query), tt.max)
			if got := marked(s); got != tt.want {
				t.Errorf("snippet\n got  %q\n want %q", got, tt.want)
			}
			max := tt.max
			if max == 0 {
				max = DefaultSnippetLen
			}
			if len(s.Text) > max || s.Text != tt.doc[s.Start:s.End] || !utf8.ValidString(s.Text) {
				t.Errorf("snippet [%d:%d] %q: longer than %d, not the document's or not UTF-8", s.Start, s.End, s.Text, max)
			}
		})
	}
}

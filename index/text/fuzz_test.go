package text

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func addSeeds(f *testing.F) {
	files, _ := filepath.Glob("testdata/tokenize/*.txt")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	for _, s := range []string{"", "a", "HTTPClient.Do", "a__b--c::d//e..f", "\xff\x80é\u0301", "ǅungla ϒϒ İstanbul \u212A", `"x -y type:"z" -"`, "9:30 http://x :: --"} {
		f.Add(s)
	}
}

// FuzzTokenize checks the tokenizer's invariants on any input: terms are
// non-empty, lower-case, valid UTF-8, the lower-cased text they came from;
// positions never decrease, parts take consecutive positions, wholes the
// position of their first part; the length covers every position; and the
// cache makes no difference.
func FuzzTokenize(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		var tok Tokenizer
		type term struct {
			term string
			pos  uint32
			leaf bool
		}
		var got []term
		var last uint32
		nextLeaf := uint32(0)
		n := tok.scan(s, 0, func(tk *token) {
			if tk.term == "" || !utf8.ValidString(tk.term) || strings.ToLower(tk.term) != tk.term {
				t.Fatalf("bad term %q", tk.term)
			}
			if tk.term != strings.ToLower(s[tk.start:tk.end]) {
				t.Fatalf("term %q of %q", tk.term, s[tk.start:tk.end])
			}
			if tk.pos < last {
				t.Fatalf("position %d after %d", tk.pos, last)
			}
			if tk.leaf && tk.pos < nextLeaf {
				t.Fatalf("part %q at %d, want >= %d", tk.term, tk.pos, nextLeaf)
			}
			last = tk.pos
			if tk.leaf {
				nextLeaf = tk.pos + 1
			}
			got = append(got, term{strings.Clone(tk.term), tk.pos, tk.leaf})
		})
		if len(got) > 0 && n <= last {
			t.Fatalf("length %d, last position %d", n, last)
		}
		var again []term
		n2 := tok.scan(s, 0, func(tk *token) { again = append(again, term{tk.term, tk.pos, tk.leaf}) })
		if n2 != n || !reflect.DeepEqual(got, again) {
			t.Fatalf("second run differs")
		}
		// A part tokenizes to itself, unless it is a stop word.
		for _, g := range got {
			if !g.leaf {
				continue
			}
			var parts []string
			Tokenize(g.term, func(term string, _ uint32) { parts = append(parts, term) })
			if len(parts) == 0 && isStopWord(g.term) {
				continue
			}
			if len(parts) != 1 || parts[0] != g.term {
				t.Fatalf("part %q tokenizes to %q", g.term, parts)
			}
		}
	})
}

// FuzzParseQuery checks that any input parses, that clauses and filters
// are well formed, and that a query's String parses back to it.
func FuzzParseQuery(f *testing.F) {
	addSeeds(f)
	for _, s := range []string{`"a b" -c d:e -f:"g h" i:`, `-"`, `x:"//y"`, `"the`, `- -- -"" "`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := ParseQuery(s)
		for _, c := range append(slices.Clone(q.Clauses), q.Exclude...) {
			if len(c.Terms) == 0 || len(c.Terms) != len(c.Pos) || c.Pos[0] != 0 {
				t.Fatalf("bad clause %+v", c)
			}
			for i, term := range c.Terms {
				if term == "" || strings.ToLower(term) != term || !utf8.ValidString(term) {
					t.Fatalf("bad term %q", term)
				}
				if i > 0 && c.Pos[i] <= c.Pos[i-1] {
					t.Fatalf("positions %v", c.Pos)
				}
			}
		}
		for _, fl := range q.Filters {
			if fl.Field == "" || strings.ToLower(fl.Field) != fl.Field {
				t.Fatalf("bad filter %+v", fl)
			}
		}
		if again := ParseQuery(q.String()); !reflect.DeepEqual(again, q) {
			t.Fatalf("ParseQuery(%q)\n = %#v\nwant %#v", q.String(), again, q)
		}
	})
}

// FuzzBestSnippet checks that a snippet of any document for any query is a
// window of the document on UTF-8 boundaries, no longer than asked, with
// its marks inside it, in order.
func FuzzBestSnippet(f *testing.F) {
	f.Add(goFile, "exponential backoff", 60)
	f.Add("é\xffa\nb  c", `"a b" c`, 3)
	f.Add(strings.Repeat("word ", 100)+"target", "target", 20)
	f.Fuzz(func(t *testing.T, doc, query string, maxLen int) {
		maxLen %= 1000
		s := BestSnippet(doc, ParseQuery(query), maxLen)
		if maxLen <= 0 {
			maxLen = DefaultSnippetLen
		}
		if s.Start < 0 || s.End < s.Start || s.End > len(doc) || s.Text != doc[s.Start:s.End] || len(s.Text) > maxLen {
			t.Fatalf("window [%d:%d] of %d bytes, max %d", s.Start, s.End, len(doc), maxLen)
		}
		if utf8.ValidString(doc) && !utf8.ValidString(s.Text) {
			t.Fatalf("window %q cuts a rune", s.Text)
		}
		last := 0
		for _, m := range s.Marks {
			if m.Start < last || m.End <= m.Start || m.End > len(s.Text) {
				t.Fatalf("marks %v in %q", s.Marks, s.Text)
			}
			last = m.End
		}
	})
}

// FuzzNaturalQuery checks that any text reads as a natural query: one
// term per clause, each a lower-case valid term, no duplicates, nothing
// excluded and no filters, whatever syntax the text holds.
func FuzzNaturalQuery(f *testing.F) {
	addSeeds(f)
	for _, s := range []string{`type:decision "why" -x (y`, `net/http.Client.Do`, `a a A`, "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := NaturalQuery(s)
		if len(q.Exclude) > 0 || len(q.Filters) > 0 {
			t.Fatalf("syntax in a natural query: %+v", q)
		}
		seen := map[string]bool{}
		for _, c := range q.Clauses {
			if len(c.Terms) != 1 || len(c.Pos) != 1 || c.Quoted || c.Weight != 0 {
				t.Fatalf("bad clause %+v", c)
			}
			term := c.Terms[0]
			if term == "" || strings.ToLower(term) != term || !utf8.ValidString(term) || seen[term] {
				t.Fatalf("bad or repeated term %q", term)
			}
			seen[term] = true
		}
	})
}

package text

import (
	"strings"
	"testing"
)

// BenchmarkTokenize measures the tokenizer on the Go sources of
// GOROOT/src/net/http, with a warm cache of lower-cased terms.
func BenchmarkTokenize(b *testing.B) {
	src := readGoSource(b)
	var tok Tokenizer
	terms := 0
	tok.Tokenize(src, 0, func(string, uint32) { terms++ })
	emit := func(string, uint32) {}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		tok.Tokenize(src, 0, emit)
	}
	b.ReportMetric(float64(terms)/float64(len(src))*1e6, "terms/MB")
}

// BenchmarkTokenizeCold uses a new Tokenizer per file, as a caller using
// the package's Tokenize on unrelated texts would.
func BenchmarkTokenizeCold(b *testing.B) {
	files := goSources(b)
	n := 0
	for _, f := range files {
		n += len(f)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			var tok Tokenizer
			tok.Tokenize(f, 0, func(string, uint32) {})
		}
	}
}

// BenchmarkMemIndexAdd measures tokenizing and inverting in memory.
func BenchmarkMemIndexAdd(b *testing.B) {
	chunks := goChunks(b)
	n := 0
	for _, c := range chunks {
		n += len(c)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		m := NewMemIndex()
		for _, c := range chunks {
			m.Add(c)
		}
	}
}

// goChunks splits the net/http sources into chunks of 40 lines, about
// the size of a function: documents of the size ctx indexes code in.
func goChunks(tb testing.TB) []string {
	var out []string
	for _, f := range goSources(tb) {
		lines := strings.SplitAfter(f, "\n")
		for i := 0; i < len(lines); i += 40 {
			out = append(out, strings.Join(lines[i:min(i+40, len(lines))], ""))
		}
	}
	return out
}

func BenchmarkSearch(b *testing.B) {
	chunks := goChunks(b)
	m := NewMemIndex()
	for _, c := range chunks {
		m.Add(c)
	}
	b.Logf("%d documents, %d positions", m.Stats().Docs, m.Stats().Tokens)
	for _, bc := range []struct {
		name, q string
		any     bool
	}{
		{"Term", "request", false},
		{"RareTerm", "hijacker", false},
		{"TwoTerms", "request body", false},
		{"TwoTermsAny", "request body", true},
		{"Identifier", "ResponseWriter.WriteHeader", false},
		{"Phrase", `"content length"`, false},
		{"Exclude", "request -body", false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			q := ParseQuery(bc.q)
			opts := SearchOptions{K: 10, Any: bc.any}
			res, _ := Search(m, q, opts)
			b.ReportAllocs()
			for b.Loop() {
				Search(m, q, opts)
			}
			b.ReportMetric(float64(res.Matched), "matched")
		})
	}
}

func BenchmarkParseQuery(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ParseQuery(`"exponential backoff" Client.connect -jitter type:decision path:"index/"`)
	}
}

func BenchmarkBestSnippet(b *testing.B) {
	src := goSources(b)[0]
	q := ParseQuery("ResponseWriter WriteHeader")
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		BestSnippet(src, q, 0)
	}
}

func BenchmarkPhraseFreq(b *testing.B) {
	a := make([]uint32, 1000)
	c := make([]uint32, 1000)
	for i := range a {
		a[i] = uint32(3 * i)
		c[i] = uint32(3*i + 1 + i%2)
	}
	lists, offs := [][]uint32{a, c}, []uint32{0, 1}
	b.ReportAllocs()
	for b.Loop() {
		PhraseFreq(lists, offs)
	}
}

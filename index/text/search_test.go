package text

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// corpus50 is a small collection of code, decisions and notes: 50
// documents, of which most are filler that shares common words.
func corpus50() []string {
	docs := make([]string, 50)
	for i := range docs {
		docs[i] = fmt.Sprintf("Note %d: filler about the build, the tests and a request to review.", i)
	}
	docs[3] = "Decision: retry failed requests with exponential backoff and jitter; a fixed delay overloads the server."
	docs[7] = "func (c *Client) Connect(ctx context.Context) error {\n\treturn c.dialWithBackoff(ctx, c.MaxRetries)\n}"
	docs[12] = "// ExponentialBackoff returns the delay before retry n: exponential backoff, capped.\nfunc ExponentialBackoff(n int) time.Duration"
	docs[18] = "Task: make the HTTP client reuse connections (keep-alive) in net/http."
	docs[21] = "impl Client {\n    pub fn connect(&mut self) -> Result<(), ConnectError> { core::net::Client::connect(self) }\n}"
	docs[25] = "Backoff: see the notes on jitter."
	docs[30] = "Exponential growth of the index was measured in the benchmark."
	docs[33] = "index.max_file_bytes limits the size of a file that is read; MaxFileBytes in Go."
	docs[38] = "class HTTPAdapter(BaseAdapter):\n    def send(self, request, max_retries=0):\n        return self.pool.urlopen(request)"
	docs[44] = "Decision: keep the index a flat file, not SQLite; the index is rebuilt from objects."
	return docs
}

func TestSearchRanking(t *testing.T) {
	m := NewMemIndex()
	for _, d := range corpus50() {
		m.Add(d)
	}
	tests := []struct {
		query string
		opts  SearchOptions
		want  []uint32 // in rank order
	}{
		// Doc 12 says it three times, doc 3 once; doc 30 has only
		// "exponential", docs 25 and 7 (dialWithBackoff) only "backoff".
		{"exponential backoff", SearchOptions{}, []uint32{12, 3}},
		{`"exponential backoff"`, SearchOptions{}, []uint32{12, 3}},
		{"exponential backoff", SearchOptions{Any: true}, []uint32{12, 3, 25, 30, 7}},
		{"backoff -jitter", SearchOptions{}, []uint32{12, 7}},
		{"Client.connect", SearchOptions{}, []uint32{21, 7}},
		{"max_file_bytes", SearchOptions{}, []uint32{33}},
		{"maxfilebytes", SearchOptions{}, []uint32{33}},
		{"MaxRetries", SearchOptions{}, []uint32{7, 38}},
		{"net/http keep-alive", SearchOptions{}, []uint32{18}},
		{"index decision", SearchOptions{}, []uint32{44}},
		// Ties on equal filler notes are broken by document number.
		{"filler review", SearchOptions{K: 3}, []uint32{0, 1, 2}},
		{"filler", SearchOptions{K: 3, Accept: func(d uint32) bool { return d%10 == 9 }}, []uint32{9, 19, 29}},
		{"the", SearchOptions{}, nil},
		{"-filler", SearchOptions{}, nil},
		{"nothing-like-this", SearchOptions{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			res, err := Search(m, ParseQuery(tt.query), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []uint32
			for _, h := range res.Hits {
				got = append(got, h.Doc)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ranking = %v, want %v (hits %v)", got, tt.want, res.Hits)
			}
		})
	}
}

func TestSearchMatched(t *testing.T) {
	m := NewMemIndex()
	for _, d := range corpus50() {
		m.Add(d)
	}
	res, err := Search(m, ParseQuery("filler"), SearchOptions{K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 5 || res.Matched != 40 {
		t.Errorf("%d hits of %d matched, want 5 of 40", len(res.Hits), res.Matched)
	}
}

func TestSearchOptionsValidate(t *testing.T) {
	m := NewMemIndex()
	for _, o := range []SearchOptions{{K: -1}, {BM25: BM25{K1: -1}}} {
		if _, err := Search(m, ParseQuery("x"), o); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%+v: err = %v, want ErrInvalidOptions", o, err)
		}
	}
}

// failingPostings ends early with an error, like a damaged index.
type failingPostings struct{ Postings }

func (failingPostings) Next() bool { return false }
func (failingPostings) Err() error { return errDamaged }

var errDamaged = errors.New("damaged")

type failingReader struct{ *MemIndex }

func (r failingReader) Postings(term string) (Postings, int) {
	p, df := r.MemIndex.Postings(term)
	if p == nil {
		return nil, 0
	}
	return failingPostings{p}, df
}

func TestSearchPostingsError(t *testing.T) {
	m := NewMemIndex()
	m.Add("alpha")
	if _, err := Search(failingReader{m}, ParseQuery("alpha"), SearchOptions{}); !errors.Is(err, errDamaged) {
		t.Errorf("err = %v, want the postings' error", err)
	}
}

// plainPostings hides Advance, so that Search must read through.
type plainPostings struct{ p Postings }

func (p plainPostings) Next() bool          { return p.p.Next() }
func (p plainPostings) Doc() uint32         { return p.p.Doc() }
func (p plainPostings) Freq() int           { return p.p.Freq() }
func (p plainPostings) Positions() []uint32 { return p.p.Positions() }

type plainReader struct{ *MemIndex }

func (r plainReader) Postings(term string) (Postings, int) {
	p, df := r.MemIndex.Postings(term)
	if p == nil {
		return nil, 0
	}
	return plainPostings{p}, df
}

func TestSearchWithoutSeeker(t *testing.T) {
	m := NewMemIndex()
	for _, d := range corpus50() {
		m.Add(d)
	}
	for _, q := range []string{"exponential backoff", `"exponential backoff"`, "Client.connect -jitter", "filler review"} {
		for _, any := range []bool{false, true} {
			opts := SearchOptions{K: 50, Any: any}
			a, err1 := Search(m, ParseQuery(q), opts)
			b, err2 := Search(plainReader{m}, ParseQuery(q), opts)
			if err1 != nil || err2 != nil || !reflect.DeepEqual(a, b) {
				t.Errorf("%q any=%v: with Advance %v, without %v", q, any, a, b)
			}
		}
	}
}

// bruteSearch scores every document directly from its terms, as a
// reference for Search.
func bruteSearch(docs []string, q Query, opts SearchOptions) []Hit {
	type occ map[string][]uint32
	var st Stats
	dls := make([]uint32, len(docs))
	occs := make([]occ, len(docs))
	for i, d := range docs {
		o := occ{}
		dls[i] = Tokenize(d, func(term string, pos uint32) { o[term] = append(o[term], pos) })
		occs[i] = o
		st.Docs++
		st.Tokens += uint64(dls[i])
	}
	df := func(term string) int {
		n := 0
		for _, o := range occs {
			if len(o[term]) > 0 {
				n++
			}
		}
		return n
	}
	// freq counts the anchors a with every term at a + Pos[i].
	freq := func(o occ, c Clause) int {
		n := 0
		for _, a := range o[c.Terms[0]] {
			all := true
			for i := 1; i < len(c.Terms); i++ {
				found := false
				for _, p := range o[c.Terms[i]] {
					if p == a+c.Pos[i] {
						found = true
					}
				}
				all = all && found
			}
			if all {
				n++
			}
		}
		return n
	}
	bm := DefaultBM25
	var hits []Hit
	for i, o := range occs {
		score, matched := 0.0, 0
		for _, c := range q.Clauses {
			if f := freq(o, c); f > 0 {
				idf := 0.0
				for _, t := range c.Terms {
					idf += bm.IDF(st.Docs, df(t))
				}
				score += bm.Score(idf, f, dls[i], st.AvgDocLen())
				matched++
			}
		}
		if matched == 0 || !opts.Any && matched < len(q.Clauses) {
			continue
		}
		excluded := false
		for _, c := range q.Exclude {
			excluded = excluded || freq(o, c) > 0
		}
		if !excluded {
			hits = append(hits, Hit{Doc: uint32(i), Score: score})
		}
	}
	c := NewCollector(opts.K)
	for _, h := range hits {
		c.Push(h)
	}
	return c.Hits()
}

// TestSearchAgainstBruteForce runs random queries over random documents
// made of a few words, compounds and stop words.
func TestSearchAgainstBruteForce(t *testing.T) {
	words := []string{"alpha", "beta", "gamma", "Alpha.beta", "betaGamma", "the", "alpha_gamma", "delta", "beta-alpha", ","}
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 300 {
		docs := make([]string, 1+rng.IntN(30))
		for i := range docs {
			n := rng.IntN(12)
			var b strings.Builder
			for range n {
				b.WriteString(words[rng.IntN(len(words))])
				b.WriteByte(' ')
			}
			docs[i] = b.String()
		}
		m := NewMemIndex()
		for _, d := range docs {
			m.Add(d)
		}
		for range 10 {
			var qb strings.Builder
			for range 1 + rng.IntN(3) {
				switch rng.IntN(4) {
				case 0:
					fmt.Fprintf(&qb, `"%s %s" `, words[rng.IntN(len(words))], words[rng.IntN(len(words))])
				case 1:
					fmt.Fprintf(&qb, "-%s ", words[rng.IntN(len(words))])
				default:
					fmt.Fprintf(&qb, "%s ", words[rng.IntN(len(words))])
				}
			}
			q := ParseQuery(qb.String())
			opts := SearchOptions{K: 1 + rng.IntN(10), Any: rng.IntN(2) == 0}
			got, err := Search(m, q, opts)
			if err != nil {
				t.Fatal(err)
			}
			want := bruteSearch(docs, q, opts)
			ok := len(got.Hits) == len(want)
			for i := 0; ok && i < len(want); i++ {
				ok = got.Hits[i].Doc == want[i].Doc && near(got.Hits[i].Score, want[i].Score)
			}
			if !ok {
				t.Fatalf("round %d: %q any=%v k=%d over %q:\n got  %v\n want %v", round, qb.String(), opts.Any, opts.K, docs, got.Hits, want)
			}
		}
	}
}

package text

import (
	"errors"
	"math"
	"testing"
)

// near reports whether a and b agree to 1e-12, relative.
func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b))
}

func TestBM25IDF(t *testing.T) {
	tests := []struct {
		docs uint32
		df   int
		want float64 // ln(1 + (N − df + 0.5)/(df + 0.5)), by hand
	}{
		{4, 1, 1.2039728043259361}, // ln(1 + 3.5/1.5)
		{4, 3, 0.3566749439387324}, // ln(1 + 1.5/3.5)
		{4, 4, 0.1053605156578263}, // ln(1 + 0.5/4.5): never negative
		{3, 2, 0.4700036292457356}, // ln(1.6)
	}
	for _, tt := range tests {
		if got := DefaultBM25.IDF(tt.docs, tt.df); !near(got, tt.want) {
			t.Errorf("IDF(%d, %d) = %v, want %v", tt.docs, tt.df, got, tt.want)
		}
	}
}

func TestBM25Score(t *testing.T) {
	idf := DefaultBM25.IDF(4, 1)
	tests := []struct {
		name   string
		p      BM25
		idf    float64
		tf     int
		docLen uint32
		avg    float64
		want   float64
	}{
		// lenNorm = 1.2·(0.25 + 0.75·10/5) = 2.1; 1.2039728·2·2.2/4.1
		{"Default", DefaultBM25, idf, 2, 10, 5, 1.2920683753741755},
		// B = 0: no length normalisation, tf·(K1+1)/(tf+K1) = 1.5 at tf 2.
		{"NoLengthNorm", BM25{K1: 2, B: 0}, 1, 2, 1000, 5, 1.5},
		// K1 = 0: a term counts once.
		{"Binary", BM25{K1: 0, B: 0.75}, 1, 7, 10, 5, 1},
		{"ZeroTF", DefaultBM25, idf, 0, 10, 5, 0},
		// No average length (an empty collection): the ratio is 1.
		{"NoAverage", DefaultBM25, 1, 1, 0, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Score(tt.idf, tt.tf, tt.docLen, tt.avg); !near(got, tt.want) {
				t.Errorf("Score = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBM25Validate(t *testing.T) {
	for _, p := range []BM25{{K1: -1, B: 0.5}, {K1: 1, B: 1.5}, {K1: math.NaN(), B: 0.5}, {K1: math.Inf(1), B: 0.5}, {K1: 1, B: math.NaN()}} {
		if err := p.Validate(); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%+v: Validate() = %v, want ErrInvalidOptions", p, err)
		}
	}
	for _, p := range []BM25{DefaultBM25, {K1: 0, B: 0}, {K1: 3, B: 1}} {
		if err := p.Validate(); err != nil {
			t.Errorf("%+v: Validate() = %v", p, err)
		}
	}
}

// TestSearchScores checks Search against BM25 computed by hand over
// three documents: N = 3, total length 8, average 8/3.
func TestSearchScores(t *testing.T) {
	m := NewMemIndex()
	m.Add("alpha beta")              // 0: length 2
	m.Add("alpha alpha gamma delta") // 1: length 4
	m.Add("beta gamma")              // 2: length 2
	tests := []struct {
		query string
		opts  SearchOptions
		want  []Hit
	}{
		// idf(alpha) = ln(1.6); doc 1: tf 2, lenNorm 1.2·(0.25+0.75·1.5)
		// = 1.65, 2·2.2/3.65; doc 0: tf 1, lenNorm 0.975, 2.2/1.975.
		{"alpha", SearchOptions{}, []Hit{{1, 0.5665797174469143}, {0, 0.523548346501579}}},
		// The phrase: idf(alpha)+idf(gamma), tf 1 in doc 1.
		{`"alpha gamma"`, SearchOptions{}, []Hit{{1, 0.7803833844080139}}},
		// Both terms, in either order: not a phrase.
		{"gamma alpha", SearchOptions{}, []Hit{{1, 0.5665797174469143 + 0.4700036292457356*2.2/2.65}}},
		// K1 = 2, B = 0: tf·3/(tf+2), so doc 0 scores idf and doc 1 1.5·idf.
		{"alpha", SearchOptions{BM25: BM25{K1: 2, B: 0}}, []Hit{{1, 0.7050054438686034}, {0, 0.4700036292457356}}},
		{"alpha -delta", SearchOptions{}, []Hit{{0, 0.523548346501579}}},
		{`"gamma alpha"`, SearchOptions{}, nil},
		{"zeta", SearchOptions{}, nil},
		{"zeta beta", SearchOptions{Any: true}, []Hit{{0, 0.523548346501579}, {2, 0.523548346501579}}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			res, err := Search(m, ParseQuery(tt.query), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) != len(tt.want) {
				t.Fatalf("hits = %v, want %v", res.Hits, tt.want)
			}
			for i, h := range res.Hits {
				if h.Doc != tt.want[i].Doc || !near(h.Score, tt.want[i].Score) {
					t.Errorf("hit %d = %v, want %v", i, h, tt.want[i])
				}
			}
		})
	}
}

package text

import (
	"fmt"
	"math"
)

// BM25 holds the parameters of Okapi BM25 (Robertson and Zaragoza, "The
// Probabilistic Relevance Framework: BM25 and Beyond", 2009): a term t of
// a query scores in a document d
//
//	idf(t) · tf·(K1+1) / (tf + K1·(1 − B + B·len(d)/avglen))
//
// with idf(t) = ln(1 + (N − df + 0.5)/(df + 0.5)), N the number of
// documents and df those with the term. This idf is Lucene's: unlike the
// original it is never negative, so a term in more than half the
// documents still counts a little instead of lowering the score. A phrase
// scores like one term whose idf is the sum of its terms' and whose tf is
// the number of times the phrase occurs, as in Lucene.
type BM25 struct {
	// K1 controls how fast repeated occurrences saturate: 0 counts a term
	// once however often it occurs.
	K1 float64
	// B controls length normalisation, from 0 (none) to 1 (full).
	B float64
}

// DefaultBM25 are the usual parameters, as in Lucene and SQLite's FTS5.
var DefaultBM25 = BM25{K1: 1.2, B: 0.75}

// Validate reports parameters outside K1 ≥ 0 (finite) and 0 ≤ B ≤ 1.
func (p BM25) Validate() error {
	if !(p.K1 >= 0) || math.IsInf(p.K1, 0) || !(p.B >= 0 && p.B <= 1) {
		return fmt.Errorf("%w: BM25 K1=%v B=%v: want K1 >= 0 and 0 <= B <= 1", ErrInvalidOptions, p.K1, p.B)
	}
	return nil
}

// IDF returns the inverse document frequency of a term found in df of docs
// documents.
func (p BM25) IDF(docs uint32, df int) float64 {
	n, f := float64(docs), float64(df)
	return math.Log(1 + (n-f+0.5)/(f+0.5))
}

// Score returns the score of a term (or phrase) of inverse document
// frequency idf that occurs tf times in a document of docLen positions,
// in a collection whose average length is avgDocLen.
func (p BM25) Score(idf float64, tf int, docLen uint32, avgDocLen float64) float64 {
	return idf * p.tfNorm(float64(tf), p.lenNorm(docLen, avgDocLen))
}

// lenNorm is K1·(1 − B + B·len/avglen), computed once per document.
func (p BM25) lenNorm(docLen uint32, avgDocLen float64) float64 {
	ratio := 1.0
	if avgDocLen > 0 {
		ratio = float64(docLen) / avgDocLen
	}
	return p.K1 * (1 - p.B + float64(p.B*ratio)) // float64(): no fused multiply-add (scores must not depend on the machine)
}

func (p BM25) tfNorm(tf, lenNorm float64) float64 {
	if tf == 0 {
		return 0
	}
	return tf * (p.K1 + 1) / (tf + lenNorm)
}

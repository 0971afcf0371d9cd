package text

import (
	"fmt"
	"slices"
)

// SearchOptions are the settings of Search.
type SearchOptions struct {
	// K is the number of hits to return; 0 means 10.
	K int
	// Any makes a document match when it matches any clause, instead of
	// all of them (the default, as in SQLite's FTS5 and zoekt).
	Any bool
	// BM25 are the scoring parameters; the zero value means DefaultBM25.
	BM25 BM25
	// Accept, if set, is asked about every document that matches the
	// query, before it is scored; documents it rejects are neither scored
	// nor counted. It runs on the goroutine calling Search, documents in
	// increasing order. Field filters (type:, path:) go here.
	Accept func(doc uint32) bool
}

// Validate reports options out of range.
func (o SearchOptions) Validate() error {
	if o.K < 0 {
		return fmt.Errorf("%w: K=%d", ErrInvalidOptions, o.K)
	}
	if o.BM25 != (BM25{}) {
		return o.BM25.Validate()
	}
	return nil
}

// Result is what Search found.
type Result struct {
	// Hits are the best K documents, best first (score, then document
	// number).
	Hits []Hit
	// Matched is the number of documents that matched the query and were
	// accepted, of which Hits are the best.
	Matched int
}

// Search runs q over r and returns the best documents by BM25. Every
// matching document is scored (there is no early termination), so the
// result is exact and does not depend on the order of the postings
// lists. A query without clauses finds nothing. The only errors are
// invalid options and those of postings that implement Errer.
func Search(r Reader, q Query, opts SearchOptions) (Result, error) {
	if err := opts.Validate(); err != nil {
		return Result{}, err
	}
	if opts.K == 0 {
		opts.K = 10
	}
	bm := opts.BM25
	if bm == (BM25{}) {
		bm = DefaultBM25
	}
	if q.Empty() {
		return Result{}, nil
	}
	st := r.Stats()
	avg := st.AvgDocLen()
	clauses := make([]*clauseIter, len(q.Clauses))
	for i, c := range q.Clauses {
		clauses[i] = newClauseIter(r, c, bm, st.Docs)
	}
	excl := make([]*clauseIter, len(q.Exclude))
	for i, c := range q.Exclude {
		excl[i] = newClauseIter(r, c, bm, st.Docs)
	}
	// A conjunction is driven by its rarest clause; scores are still
	// summed in the query's order, so that floating-point sums do not
	// depend on document frequencies.
	order := slices.Clone(clauses)
	slices.SortStableFunc(order, func(a, b *clauseIter) int { return a.df - b.df })

	col := NewCollector(opts.K)
	var res Result
	consider := func(doc uint32) {
		if opts.Accept != nil && !opts.Accept(doc) {
			return
		}
		for _, e := range excl {
			if e.advance(doc) && e.doc == doc {
				return
			}
		}
		res.Matched++
		ln := bm.lenNorm(r.DocLen(doc), avg)
		score := 0.0
		for _, c := range clauses {
			if !c.done && c.doc == doc {
				score += float64(c.idf * bm.tfNorm(float64(c.freq), ln)) // float64(): no fused multiply-add, the same sum on every machine
			}
		}
		col.Push(Hit{Doc: doc, Score: score})
	}
	if opts.Any {
		searchAny(clauses, consider)
	} else {
		searchAll(order, consider)
	}
	res.Hits = col.Hits()
	for _, c := range append(clauses, excl...) {
		if err := c.err(); err != nil {
			return Result{}, err
		}
	}
	return res, nil
}

// searchAll calls fn for every document that all clauses match, in
// increasing order, leapfrogging: each clause is advanced to the largest
// document any clause stands on until they agree.
func searchAll(cs []*clauseIter, fn func(uint32)) {
	var doc uint32
	for {
		agreed := true
		for _, c := range cs {
			if !c.advance(doc) {
				return
			}
			if c.doc > doc {
				doc = c.doc
				agreed = false
				break
			}
		}
		if !agreed {
			continue
		}
		fn(doc)
		if doc == ^uint32(0) {
			return
		}
		doc++
	}
}

// searchAny calls fn for every document that some clause matches.
func searchAny(cs []*clauseIter, fn func(uint32)) {
	for _, c := range cs {
		c.advance(0)
	}
	for {
		var doc uint32
		found := false
		for _, c := range cs {
			if !c.done && (!found || c.doc < doc) {
				doc, found = c.doc, true
			}
		}
		if !found {
			return
		}
		fn(doc)
		if doc == ^uint32(0) {
			return
		}
		for _, c := range cs {
			if !c.done && c.doc == doc {
				c.advance(doc + 1)
			}
		}
	}
}

// clauseIter finds the documents that match one clause: those with all its
// terms, at the clause's relative positions if there are several.
type clauseIter struct {
	terms []cursor
	offs  []uint32
	lists [][]uint32 // scratch for PhraseFreq
	idf   float64
	df    int // of the rarest term: an upper bound of the clause's

	started bool
	done    bool
	doc     uint32
	freq    int
}

func newClauseIter(r Reader, c Clause, bm BM25, docs uint32) *clauseIter {
	it := &clauseIter{
		terms: make([]cursor, len(c.Terms)),
		offs:  c.Pos,
		lists: make([][]uint32, len(c.Terms)),
	}
	for i, t := range c.Terms {
		p, df := r.Postings(t)
		it.terms[i] = newCursor(p)
		if p == nil {
			df = 0
		}
		if i == 0 || df < it.df {
			it.df = df
		}
		it.idf += bm.IDF(docs, df)
	}
	if c.Weight > 0 {
		it.idf *= c.Weight
	}
	return it
}

// advance moves to the first matching document at or after target.
func (it *clauseIter) advance(target uint32) bool {
	if it.done {
		return false
	}
	if it.started && it.doc >= target {
		return true
	}
	it.started = true
	doc := target
	for {
		agreed := true
		for i := range it.terms {
			c := &it.terms[i]
			if !c.advance(doc) {
				it.done = true
				return false
			}
			if c.doc > doc {
				doc = c.doc
				agreed = false
				break
			}
		}
		if !agreed {
			continue
		}
		if len(it.terms) == 1 {
			it.doc, it.freq = doc, it.terms[0].p.Freq()
			return true
		}
		for i := range it.terms {
			it.lists[i] = it.terms[i].p.Positions()
		}
		if f := PhraseFreq(it.lists, it.offs); f > 0 {
			it.doc, it.freq = doc, f
			return true
		}
		if doc == ^uint32(0) {
			it.done = true
			return false
		}
		doc++
	}
}

// err returns the first error of the clause's postings.
func (it *clauseIter) err() error {
	for _, c := range it.terms {
		if e, ok := c.p.(Errer); ok {
			if err := e.Err(); err != nil {
				return err
			}
		}
	}
	return nil
}

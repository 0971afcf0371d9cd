package text

// Postings iterates over the documents that contain one term, in
// increasing document order. It starts before the first document: call
// Next first. Implementations should not allocate per document.
type Postings interface {
	// Next moves to the next document and reports whether there is one.
	// After it returns false, the other methods must not be called.
	Next() bool
	// Doc returns the current document.
	Doc() uint32
	// Freq returns how often the term occurs in the current document, at
	// least 1; it equals len(Positions()).
	Freq() int
	// Positions returns the term's positions in the current document, in
	// increasing order. The slice may be reused by the next call to Next
	// or Advance; callers must not modify it.
	Positions() []uint32
}

// Seeker is a Postings that can skip: an optional ability found by type
// assertion, which makes conjunctions and phrases skip over long postings
// lists instead of reading them through.
type Seeker interface {
	Postings
	// Advance moves to the first document at or after target and reports
	// whether there is one. It is only called with a target after the
	// current document (or before the first call to Next), and may be
	// called in place of the first Next.
	Advance(target uint32) bool
}

// Errer is a Postings that can fail while reading (a damaged index): an
// optional ability. Search calls Err after iterating and returns the
// first error.
type Errer interface {
	Err() error
}

// Stats are the statistics of a whole collection that BM25 needs.
type Stats struct {
	// Docs is the number of documents.
	Docs uint32
	// Tokens is the sum of the lengths of all documents, in positions
	// (what Tokenize returns).
	Tokens uint64
}

// AvgDocLen returns the average document length, 0 without documents.
func (s Stats) AvgDocLen() float64 {
	if s.Docs == 0 {
		return 0
	}
	return float64(s.Tokens) / float64(s.Docs)
}

// Reader is the full-text side of an index as a search needs it. The
// in-memory MemIndex implements it; so will the on-disk index.
type Reader interface {
	// Stats returns the statistics of the collection.
	Stats() Stats
	// Postings returns a new iterator over the postings of term, and the
	// term's document frequency; (nil, 0) if no document has the term.
	// Iterators from separate calls are independent, even for one term.
	Postings(term string) (Postings, int)
	// DocLen returns the length of doc in positions (what Tokenize
	// returned for it), 0 for a document it does not know.
	DocLen(doc uint32) uint32
}

// cursor wraps a Postings with where it stands, so that clauses can
// advance it to a target without knowing whether it has started.
type cursor struct {
	p       Postings
	seek    Seeker // p, if it can skip
	started bool
	done    bool
	doc     uint32
}

func newCursor(p Postings) cursor {
	c := cursor{p: p}
	c.seek, _ = p.(Seeker)
	if p == nil {
		c.done = true
	}
	return c
}

// advance moves to the first document at or after target; false when
// there is none.
func (c *cursor) advance(target uint32) bool {
	if c.done {
		return false
	}
	if c.started && c.doc >= target {
		return true
	}
	// The next document (the commonest target, one clause leapfrogging
	// alone) is Next's to find: a skip costs more than a step.
	if c.seek != nil && !(c.started && target == c.doc+1) {
		if !c.seek.Advance(target) {
			c.done = true
			return false
		}
		c.started = true
		c.doc = c.seek.Doc()
		return true
	}
	for {
		if !c.p.Next() {
			c.done = true
			return false
		}
		c.started = true
		c.doc = c.p.Doc()
		if c.doc >= target {
			return true
		}
	}
}

package text

import (
	"slices"
	"strings"
)

// MemIndex is a full-text index in memory: a Reader for tests, for small
// collections, and as the reference the on-disk index is checked against
// (see texttest.Reader). Documents are numbered from 0 in the order added.
type MemIndex struct {
	tok     Tokenizer
	docLens []uint32
	tokens  uint64
	terms   map[string]*memTerm
}

// memTerm is the postings list of one term: documents in increasing
// order, and for each, the range of its positions in pos.
type memTerm struct {
	docs  []uint32
	start []uint32 // start[i]: first position of docs[i] in pos; len(docs)+1 entries
	pos   []uint32
}

var _ Reader = (*MemIndex)(nil)

// NewMemIndex returns an empty index.
func NewMemIndex() *MemIndex {
	return &MemIndex{terms: make(map[string]*memTerm)}
}

// Add tokenizes text as a new document and returns its number.
func (m *MemIndex) Add(text string) uint32 {
	doc := uint32(len(m.docLens))
	n := m.tok.Tokenize(text, 0, func(term string, pos uint32) {
		t := m.terms[term]
		if t == nil {
			t = &memTerm{start: []uint32{0}}
			m.terms[strings.Clone(term)] = t
		}
		if k := len(t.docs); k == 0 || t.docs[k-1] != doc {
			t.docs = append(t.docs, doc)
			t.start = append(t.start, t.start[k])
		}
		t.pos = append(t.pos, pos)
		t.start[len(t.start)-1]++
	})
	m.docLens = append(m.docLens, n)
	m.tokens += uint64(n)
	return doc
}

// Stats returns the number of documents and their total length.
func (m *MemIndex) Stats() Stats {
	return Stats{Docs: uint32(len(m.docLens)), Tokens: m.tokens}
}

// DocLen returns the length of doc in positions, 0 if there is no such
// document.
func (m *MemIndex) DocLen(doc uint32) uint32 {
	if int(doc) >= len(m.docLens) {
		return 0
	}
	return m.docLens[doc]
}

// Terms returns the terms of the index in increasing byte order.
func (m *MemIndex) Terms() []string {
	out := make([]string, 0, len(m.terms))
	for t := range m.terms {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// Postings returns an iterator over term's postings and its document
// frequency, or (nil, 0).
func (m *MemIndex) Postings(term string) (Postings, int) {
	t := m.terms[term]
	if t == nil {
		return nil, 0
	}
	return &memPostings{t: t, i: -1}, len(t.docs)
}

type memPostings struct {
	t *memTerm
	i int
}

var _ Seeker = (*memPostings)(nil)

func (p *memPostings) Next() bool {
	if p.i < len(p.t.docs) {
		p.i++
	}
	return p.i < len(p.t.docs)
}

func (p *memPostings) Advance(target uint32) bool {
	lo := max(p.i, 0)
	docs := p.t.docs[lo:]
	j, _ := slices.BinarySearch(docs, target)
	p.i = lo + j
	return p.i < len(p.t.docs)
}

func (p *memPostings) Doc() uint32 { return p.t.docs[p.i] }

func (p *memPostings) Freq() int { return int(p.t.start[p.i+1] - p.t.start[p.i]) }

func (p *memPostings) Positions() []uint32 {
	return p.t.pos[p.t.start[p.i]:p.t.start[p.i+1]:p.t.start[p.i+1]]
}

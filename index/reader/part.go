package reader

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/index/table"
	"github.com/ctx-dev/ctx/index/text"
)

// A delta segment brings a text segment, the code's or the narrative's
// (its base), up to date with a change of the code or of the narrative
// files, in time proportional to the change: it holds the documents of
// the files the change added or edited, and names the base's documents
// it replaces or removes (dead). The index numbers the
// base's live documents and the delta's in docOrder, merged, which is
// exactly a full build's numbering, so that every answer (scores, ties,
// lookups) is the one a full build gives (docs/INDEX.md, "Delta
// segments"). A delta is always built against the base, never against an
// older delta; a change too large for one rebuilds the base's segment.
const DeltaFile = "delta.tbl" // kind "delta": see the keys below

// The keys of delta.tbl, in byte order.
const (
	DeltaDead   = "#dead"   // uvarint deltas: the base's dead documents
	DeltaIns    = "#ins"    // uvarint deltas: per delta document, how many base documents sort before it
	DeltaTokens = "#tokens" // uvarint: the dead documents' total length
	DeltaTerm   = "t"       // "t" + term → uvarint: how many dead documents hold the term
)

// Delta is an open delta segment.
type Delta struct {
	seg        *Segment
	tbl        *table.Table // delta.tbl
	dead       []uint32     // sorted, distinct, < base documents
	ins        []uint32     // non-decreasing, <= base documents; one per delta document
	rank       []uint32     // per delta document: its number in the code part
	runs       RunList      // the base's live documents, by runs of consecutive numbers
	deadTokens uint64
}

// BaseRun is n live base documents numbered consecutively on both sides:
// base documents b..b+n-1 are the code part's v..v+n-1. Between two runs
// lie dead documents (in the base) or delta documents (in the code part).
type BaseRun struct{ v, b, n uint32 }

// RunList is the runs of a base's live entries (documents or nodes), in
// order: BaseRuns.
type RunList []BaseRun

// ToBase returns the base number of v, false when v is not a live base
// entry (it is the delta's, or past the end).
func (runs RunList) ToBase(v uint32) (uint32, bool) {
	i := sort.Search(len(runs), func(i int) bool { return runs[i].v+runs[i].n > v })
	if i == len(runs) || runs[i].v > v {
		return 0, false
	}
	return runs[i].b + v - runs[i].v, true
}

// FromBase returns the number of base entry b, false when b is dead.
func (runs RunList) FromBase(b uint32) (uint32, bool) {
	i := sort.Search(len(runs), func(i int) bool { return runs[i].b+runs[i].n > b })
	if i == len(runs) || runs[i].b > b {
		return 0, false
	}
	return runs[i].v + b - runs[i].b, true
}

// Docs is the number of documents the delta adds.
func (d *Delta) Docs() int { return int(d.seg.stats.Docs) }

// Replaced is the number of its base's documents the delta replaces or
// removes.
func (d *Delta) Replaced() int { return len(d.dead) }

// Segment is the delta's own segment.
func (d *Delta) Segment() *Segment { return d.seg }

func (d *Delta) close() error {
	return errors.Join(d.seg.Close(), d.tbl.Close())
}

// openDelta opens the delta segment in dir and checks it against base,
// the code segment it extends.
func openDelta(dir string, base *Segment, lazyDocs bool) (_ *Delta, err error) {
	seg, err := openSegment(dir, lazyDocs)
	if err != nil {
		return nil, err
	}
	d := &Delta{seg: seg}
	defer func() {
		if err != nil {
			d.seg.Close()
			if d.tbl != nil {
				d.tbl.Close()
			}
		}
	}()
	dm, err := seg.Manifest()
	if err != nil {
		return nil, err
	}
	if b := ManifestBase(dm); b != filepath.Base(base.dir) {
		return nil, fmt.Errorf("%w: delta segment of %s, not of %s", ErrCorrupt, b, filepath.Base(base.dir))
	}
	if err := OpenTables(dir, []TableSpec{{DeltaFile, "delta", &d.tbl}}); err != nil {
		return nil, err
	}
	nb := base.stats.Docs
	if d.dead, d.ins, err = DeadAndIns(d.tbl, "delta segment", nb); err != nil {
		return nil, err
	}
	if uint32(len(d.ins)) != seg.stats.Docs {
		return nil, fmt.Errorf("%w: delta segment: insertion points", ErrCorrupt)
	}
	v, err := DeltaValue(d.tbl, "delta segment", DeltaTokens)
	if err != nil {
		return nil, err
	}
	t, n := binary.Uvarint(v)
	if n <= 0 || t > base.stats.Tokens {
		return nil, fmt.Errorf("%w: delta segment: dead tokens", ErrCorrupt)
	}
	d.deadTokens = t
	d.rank = Ranks(d.dead, d.ins)
	d.runs = BaseRuns(nb, d.dead, d.ins)
	return d, nil
}

// DeltaValue returns the value of key in a delta's delta.tbl, which must
// have it; what names the segment in errors.
func DeltaValue(tbl *table.Table, what, key string) ([]byte, error) {
	v, ok := tbl.Get([]byte(key))
	if !ok {
		if err := tbl.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %s without %q", ErrCorrupt, what, key)
	}
	return v, nil
}

// DeadAndIns reads the dead documents (or nodes) and insertion points of
// a delta's delta.tbl and checks them against a base of nb: dead sorted,
// distinct and below nb, the insertion points not decreasing and at most
// nb.
func DeadAndIns(tbl *table.Table, what string, nb uint32) (dead, ins []uint32, err error) {
	for _, l := range []struct {
		key  string
		list *[]uint32
	}{{DeltaDead, &dead}, {DeltaIns, &ins}} {
		v, err := DeltaValue(tbl, what, l.key)
		if err != nil {
			return nil, nil, err
		}
		if *l.list, err = table.DecodeUvarintDeltas(nil, v); err != nil {
			return nil, nil, err
		}
	}
	for i, b := range dead {
		if b >= nb || i > 0 && dead[i-1] >= b {
			return nil, nil, fmt.Errorf("%w: %s: dead entries", ErrCorrupt, what)
		}
	}
	for i, at := range ins {
		if at > nb || i > 0 && ins[i-1] > at {
			return nil, nil, fmt.Errorf("%w: %s: insertion points", ErrCorrupt, what)
		}
	}
	return dead, ins, nil
}

// Ranks returns the numbers in the code part of the delta documents
// with the insertion points ins: the live base documents before each, plus
// the delta documents before it. One walk of both lists.
func Ranks(dead, ins []uint32) []uint32 {
	rank := make([]uint32, len(ins))
	di := 0
	for j, at := range ins {
		for di < len(dead) && dead[di] < at {
			di++
		}
		rank[j] = at - uint32(di) + uint32(j)
	}
	return rank
}

// BaseRuns returns the runs of live base documents (see BaseRun) of a
// base of nb documents with the dead documents and insertion points of a
// delta: one walk of both lists.
func BaseRuns(nb uint32, dead, ins []uint32) RunList {
	var runs RunList
	var v, b uint32
	di, ii := 0, 0
	for b < nb {
		for ii < len(ins) && ins[ii] <= b { // delta documents before b
			v++
			ii++
		}
		if di < len(dead) && dead[di] == b {
			di++
			b++
			continue
		}
		end := nb
		if di < len(dead) {
			end = min(end, dead[di])
		}
		if ii < len(ins) {
			end = min(end, ins[ii])
		}
		runs = append(runs, BaseRun{v: v, b: b, n: end - b})
		v += end - b
		b = end
	}
	return runs
}

// deadDF returns how many dead documents hold term.
func (d *Delta) deadDF(term string) (int, error) {
	v, ok := d.tbl.Get(append([]byte(DeltaTerm), term...))
	if !ok {
		return 0, d.tbl.Err()
	}
	n, k := binary.Uvarint(v)
	if k <= 0 || n > uint64(len(d.dead)) {
		return 0, fmt.Errorf("%w: delta segment: term %q", ErrCorrupt, term)
	}
	return int(n), nil
}

// Part is the code's or the narrative's documents as the index
// numbers them (the narrative's from 0, shifted after the code's by the
// index): the base segment's, or with a delta, the base's live documents
// and the delta's, merged in docOrder.
type Part struct {
	base  *Segment
	delta *Delta // nil: none
	stats text.Stats
}

// OpenPart opens the text segment in dir and, unless deltaDir is "",
// the delta segment there that extends it.
func OpenPart(dir, deltaDir string) (Part, error) { return openPart(dir, deltaDir, false) }

// openPart is OpenPart, with the documents tables opened lazily or not
// (openSegment).
func openPart(dir, deltaDir string, lazyDocs bool) (Part, error) {
	base, err := openSegment(dir, lazyDocs)
	if err != nil {
		return Part{}, err
	}
	var d *Delta
	if deltaDir != "" {
		if d, err = openDelta(deltaDir, base, lazyDocs); err != nil {
			base.Close()
			return Part{}, err
		}
	}
	return NewPart(base, d), nil
}

// Close unmaps the part's tables; a zero part has none.
func (c *Part) Close() error {
	var errs []error
	if c.base != nil {
		errs = append(errs, c.base.Close())
	}
	if c.delta != nil {
		errs = append(errs, c.delta.close())
	}
	return errors.Join(errs...)
}

// NewPart joins a base segment and the delta that extends it (nil for
// none).
func NewPart(base *Segment, d *Delta) Part {
	c := Part{base: base, delta: d, stats: base.stats}
	if d != nil {
		c.stats.Docs = base.stats.Docs - uint32(len(d.dead)) + d.seg.stats.Docs
		c.stats.Tokens = base.stats.Tokens - d.deadTokens + d.seg.stats.Tokens
	}
	return c
}

// Manifest returns the text of what the part was built from: its
// delta's manifest, which records what a full build of the part would,
// or its base's.
func (c *Part) Manifest() ([]byte, error) {
	if c.delta != nil {
		return c.delta.seg.Manifest()
	}
	return c.base.Manifest()
}

// Base is the part's base segment; Delta its delta, nil for none.
func (c *Part) Base() *Segment { return c.base }

// Delta is the part's delta segment, nil for none.
func (c *Part) Delta() *Delta { return c.delta }

// Stats are the part's live documents and their total length.
func (c *Part) Stats() text.Stats { return c.stats }

// ManifestBase returns the base a delta segment's manifest names (its
// "base" line); "" for none.
func ManifestBase(manifest []byte) string {
	// The base line comes before the narrative's files, which can be
	// thousands of lines.
	for rest := string(manifest); rest != ""; {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		l = strings.TrimSuffix(l, "\r")
		if b, ok := strings.CutPrefix(l, "base "); ok {
			return b
		}
		if strings.HasPrefix(l, "file ") {
			break
		}
	}
	return ""
}

// Locate returns the segment holding the part's document v and v's
// number there.
func (c *Part) Locate(v uint32) (*Segment, uint32) {
	d := c.delta
	if d == nil {
		return c.base, v
	}
	j := sort.Search(len(d.rank), func(j int) bool { return d.rank[j] >= v })
	if j < len(d.rank) && d.rank[j] == v {
		return d.seg, uint32(j)
	}
	if b, ok := d.runs.ToBase(v); ok {
		return c.base, b
	}
	return c.base, c.base.stats.Docs // no such document: its read fails
}

// Lookup returns the part's documents under a key.
func (c *Part) Lookup(ns byte, key string) ([]uint32, error) {
	docs, err := c.base.Lookup(ns, key)
	if err != nil || c.delta == nil {
		return docs, err
	}
	d := c.delta
	added, err := d.seg.Lookup(ns, key)
	if err != nil {
		return nil, err
	}
	if len(added) > 0 && added[len(added)-1] >= uint32(len(d.rank)) {
		return nil, fmt.Errorf("%w: delta segment: keys %c %q", ErrCorrupt, ns, key)
	}
	out := make([]uint32, 0, len(docs)+len(added))
	var at baseCursor
	i, j := 0, 0
	for i < len(docs) || j < len(added) {
		if i < len(docs) {
			v, live := at.number(d, docs[i])
			if !live {
				i++
				continue
			}
			if j == len(added) || v < d.rank[added[j]] {
				out = append(out, v)
				i++
				continue
			}
		}
		out = append(out, d.rank[added[j]])
		j++
	}
	return out, nil
}

// Postings returns the part's postings of term and its document
// frequency: nil, 0 when no live document has it.
func (c *Part) Postings(term string) (PartPostings, int) {
	p, df := c.base.postings(term)
	d := c.delta
	if d == nil {
		if p == nil {
			return nil, 0
		}
		return p, df
	}
	var parts []PartPostings
	if p != nil && p.err != nil {
		return p, df // damaged: the search reports it
	}
	if p != nil {
		dead, err := d.deadDF(term)
		if err != nil {
			return &postings{err: err}, 1
		}
		if df -= dead; df > 0 {
			parts = append(parts, &liveBase{p: p, d: d})
		}
	}
	if q, n := d.seg.postings(term); q != nil {
		parts = append(parts, &deltaPostings{p: q, rank: d.rank})
		df += n
	}
	switch len(parts) {
	case 0:
		return nil, 0
	case 1:
		return parts[0], df
	}
	return &merged{a: parts[0], b: parts[1]}, df
}

// PartPostings are the postings of one part of the index.
type PartPostings interface {
	text.Seeker
	Err() error
}

// liveBase is a base segment's postings of a term without the dead
// documents, numbered as in the code part. Dead documents and insertion
// points are passed in order, each once: the walk costs the list and the
// delta, not their product.
type liveBase struct {
	p   *postings
	d   *Delta
	at  baseCursor
	doc uint32
}

// baseCursor numbers base documents met in increasing order as the code
// part numbers them, passing the dead documents and insertion points once.
type baseCursor struct {
	di, ii int // dead documents below the last one; delta documents before it
}

// number returns base document b's number in the code part of d, and
// false when b is dead. b must not decrease from call to call.
func (c *baseCursor) number(d *Delta, b uint32) (uint32, bool) {
	for c.di < len(d.dead) && d.dead[c.di] < b {
		c.di++
	}
	if c.di < len(d.dead) && d.dead[c.di] == b {
		return 0, false
	}
	for c.ii < len(d.ins) && d.ins[c.ii] <= b {
		c.ii++
	}
	return b - uint32(c.di) + uint32(c.ii), true
}

func (l *liveBase) Next() bool {
	for l.p.Next() {
		if l.settle() {
			return true
		}
	}
	return false
}

// settle numbers the document p stands on and reports whether it is live.
func (l *liveBase) settle() bool {
	v, live := l.at.number(l.d, l.p.Doc())
	l.doc = v
	return live
}

func (l *liveBase) Advance(target uint32) bool {
	// The least live base document numbered at or after target: in the
	// first run that ends after target.
	runs := l.d.runs
	i := sort.Search(len(runs), func(i int) bool { return runs[i].v+runs[i].n > target })
	if i == len(runs) {
		return false
	}
	b := runs[i].b + (max(target, runs[i].v) - runs[i].v)
	if !l.p.Advance(b) {
		return false
	}
	return l.settle() || l.Next()
}

func (l *liveBase) Doc() uint32         { return l.doc }
func (l *liveBase) Freq() int           { return l.p.Freq() }
func (l *liveBase) Positions() []uint32 { return l.p.Positions() }
func (l *liveBase) Err() error          { return l.p.Err() }

// deltaPostings is a delta segment's postings of a term, numbered as in
// the code part.
type deltaPostings struct {
	p    *postings
	rank []uint32
}

func (q *deltaPostings) Next() bool { return q.p.Next() && q.check() }
func (q *deltaPostings) Advance(target uint32) bool {
	j := sort.Search(len(q.rank), func(j int) bool { return q.rank[j] >= target })
	return q.p.Advance(uint32(j)) && q.check()
}

// check stops the walk at a document the delta does not have.
func (q *deltaPostings) check() bool {
	if q.p.Doc() >= uint32(len(q.rank)) {
		q.p.err = fmt.Errorf("%w: delta segment: postings of document %d", ErrCorrupt, q.p.Doc())
		return false
	}
	return true
}
func (q *deltaPostings) Doc() uint32         { return q.rank[q.p.Doc()] }
func (q *deltaPostings) Freq() int           { return q.p.Freq() }
func (q *deltaPostings) Positions() []uint32 { return q.p.Positions() }
func (q *deltaPostings) Err() error          { return q.p.Err() }

// merged is two postings lists of distinct documents, in document order.
type merged struct {
	a, b     PartPostings
	aOK, bOK bool
	started  bool
	cur      PartPostings
}

func (m *merged) pick() bool {
	switch {
	case m.aOK && (!m.bOK || m.a.Doc() < m.b.Doc()):
		m.cur = m.a
	case m.bOK:
		m.cur = m.b
	default:
		m.cur = nil
		return false
	}
	return true
}

func (m *merged) Next() bool {
	if !m.started {
		m.started = true
		m.aOK, m.bOK = m.a.Next(), m.b.Next()
		return m.pick()
	}
	if m.cur == nil {
		return false
	}
	if m.cur == m.a {
		m.aOK = m.a.Next()
	} else {
		m.bOK = m.b.Next()
	}
	return m.pick()
}

func (m *merged) Advance(target uint32) bool {
	if !m.started {
		m.started = true
		m.aOK, m.bOK = m.a.Advance(target), m.b.Advance(target)
		return m.pick()
	}
	if m.aOK && m.a.Doc() < target {
		m.aOK = m.a.Advance(target)
	}
	if m.bOK && m.b.Doc() < target {
		m.bOK = m.b.Advance(target)
	}
	return m.pick()
}

func (m *merged) Doc() uint32         { return m.cur.Doc() }
func (m *merged) Freq() int           { return m.cur.Freq() }
func (m *merged) Positions() []uint32 { return m.cur.Positions() }
func (m *merged) Err() error          { return errors.Join(m.a.Err(), m.b.Err()) }

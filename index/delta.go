package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"

	"github.com/ctx-dev/ctx/index/table"
	"github.com/ctx-dev/ctx/index/text"
	"github.com/ctx-dev/ctx/internal/parallel"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
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
const deltaFile = "delta.tbl" // kind "delta": see the keys below

// The keys of delta.tbl, in byte order.
const (
	deltaDead   = "#dead"   // uvarint deltas: the base's dead documents
	deltaIns    = "#ins"    // uvarint deltas: per delta document, how many base documents sort before it
	deltaTokens = "#tokens" // uvarint: the dead documents' total length
	deltaTerm   = "t"       // "t" + term → uvarint: how many dead documents hold the term
)

// errNoDelta means the change cannot be a delta segment: the base's
// segment is rebuilt instead.
var errNoDelta = errors.New("index: change too large for a delta segment")

// A delta may hold, added and dead together, up to its base's documents
// divided by deltaShare, plus deltaSlack. A variable for tests.
var deltaShare, deltaSlack = 8, 256

// textDelta is an open delta segment.
type textDelta struct {
	seg        *segment
	tbl        *table.Table // delta.tbl
	dead       []uint32     // sorted, distinct, < base documents
	ins        []uint32     // non-decreasing, <= base documents; one per delta document
	rank       []uint32     // per delta document: its number in the code part
	runs       runList      // the base's live documents, by runs of consecutive numbers
	deadTokens uint64
}

// baseRun is n live base documents numbered consecutively on both sides:
// base documents b..b+n-1 are the code part's v..v+n-1. Between two runs
// lie dead documents (in the base) or delta documents (in the code part).
type baseRun struct{ v, b, n uint32 }

// runList is the runs of a base's live entries (documents or nodes), in
// order: baseRuns.
type runList []baseRun

// toBase returns the base number of v, false when v is not a live base
// entry (it is the delta's, or past the end).
func (runs runList) toBase(v uint32) (uint32, bool) {
	i := sort.Search(len(runs), func(i int) bool { return runs[i].v+runs[i].n > v })
	if i == len(runs) || runs[i].v > v {
		return 0, false
	}
	return runs[i].b + v - runs[i].v, true
}

// fromBase returns the number of base entry b, false when b is dead.
func (runs runList) fromBase(b uint32) (uint32, bool) {
	i := sort.Search(len(runs), func(i int) bool { return runs[i].b+runs[i].n > b })
	if i == len(runs) || runs[i].b > b {
		return 0, false
	}
	return runs[i].v + b - runs[i].b, true
}

// status says what the delta holds.
func (d *textDelta) status() *DeltaStatus {
	return &DeltaStatus{Docs: int(d.seg.stats.Docs), Replaced: len(d.dead)}
}

func (d *textDelta) close() error {
	return errors.Join(d.seg.close(), d.tbl.Close())
}

// openDelta opens the delta segment in dir and checks it against base,
// the code segment it extends.
func openDelta(dir string, base *segment) (_ *textDelta, err error) {
	seg, err := openSegment(dir)
	if err != nil {
		return nil, err
	}
	d := &textDelta{seg: seg}
	defer func() {
		if err != nil {
			d.seg.close()
			if d.tbl != nil {
				d.tbl.Close()
			}
		}
	}()
	if seg.manifest.Base != filepath.Base(base.dir) {
		return nil, fmt.Errorf("%w: delta segment of %s, not of %s", ErrCorrupt, seg.manifest.Base, filepath.Base(base.dir))
	}
	if err := openTables(dir, []tableSpec{{deltaFile, "delta", &d.tbl}}); err != nil {
		return nil, err
	}
	nb := base.stats.Docs
	if d.dead, d.ins, err = deadAndIns(d.tbl, "delta segment", nb); err != nil {
		return nil, err
	}
	if uint32(len(d.ins)) != seg.stats.Docs {
		return nil, fmt.Errorf("%w: delta segment: insertion points", ErrCorrupt)
	}
	v, err := deltaValue(d.tbl, "delta segment", deltaTokens)
	if err != nil {
		return nil, err
	}
	t, n := binary.Uvarint(v)
	if n <= 0 || t > base.stats.Tokens {
		return nil, fmt.Errorf("%w: delta segment: dead tokens", ErrCorrupt)
	}
	d.deadTokens = t
	d.rank = ranks(d.dead, d.ins)
	d.runs = baseRuns(nb, d.dead, d.ins)
	return d, nil
}

// deltaValue returns the value of key in a delta's delta.tbl, which must
// have it; what names the segment in errors.
func deltaValue(tbl *table.Table, what, key string) ([]byte, error) {
	v, ok := tbl.Get([]byte(key))
	if !ok {
		if err := tbl.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %s without %q", ErrCorrupt, what, key)
	}
	return v, nil
}

// deadAndIns reads the dead documents (or nodes) and insertion points of
// a delta's delta.tbl and checks them against a base of nb: dead sorted,
// distinct and below nb, the insertion points not decreasing and at most
// nb.
func deadAndIns(tbl *table.Table, what string, nb uint32) (dead, ins []uint32, err error) {
	for _, l := range []struct {
		key  string
		list *[]uint32
	}{{deltaDead, &dead}, {deltaIns, &ins}} {
		v, err := deltaValue(tbl, what, l.key)
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

// ranks returns the numbers in the code part of the delta documents
// with the insertion points ins: the live base documents before each, plus
// the delta documents before it. One walk of both lists.
func ranks(dead, ins []uint32) []uint32 {
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

// baseRuns returns the runs of live base documents (see baseRun) of a
// base of nb documents with the dead documents and insertion points of a
// delta: one walk of both lists.
func baseRuns(nb uint32, dead, ins []uint32) runList {
	var runs runList
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
		runs = append(runs, baseRun{v: v, b: b, n: end - b})
		v += end - b
		b = end
	}
	return runs
}

// deadDF returns how many dead documents hold term.
func (d *textDelta) deadDF(term string) (int, error) {
	v, ok := d.tbl.Get(append([]byte(deltaTerm), term...))
	if !ok {
		return 0, d.tbl.Err()
	}
	n, k := binary.Uvarint(v)
	if k <= 0 || n > uint64(len(d.dead)) {
		return 0, fmt.Errorf("%w: delta segment: term %q", ErrCorrupt, term)
	}
	return int(n), nil
}

// textPart is the code's or the narrative's documents as the index
// numbers them (the narrative's from 0, shifted after the code's by the
// index): the base segment's, or with a delta, the base's live documents
// and the delta's, merged in docOrder.
type textPart struct {
	base  *segment
	delta *textDelta // nil: none
	stats text.Stats
}

// openTextPart opens the text segment in dir and, unless deltaDir is "",
// the delta segment there that extends it.
func openTextPart(dir, deltaDir string) (textPart, error) {
	base, err := openSegment(dir)
	if err != nil {
		return textPart{}, err
	}
	var d *textDelta
	if deltaDir != "" {
		if d, err = openDelta(deltaDir, base); err != nil {
			base.close()
			return textPart{}, err
		}
	}
	return newTextPart(base, d), nil
}

// close unmaps the part's tables; a zero part has none.
func (c *textPart) close() error {
	var errs []error
	if c.base != nil {
		errs = append(errs, c.base.close())
	}
	if c.delta != nil {
		errs = append(errs, c.delta.close())
	}
	return errors.Join(errs...)
}

func newTextPart(base *segment, d *textDelta) textPart {
	c := textPart{base: base, delta: d, stats: base.stats}
	if d != nil {
		c.stats.Docs = base.stats.Docs - uint32(len(d.dead)) + d.seg.stats.Docs
		c.stats.Tokens = base.stats.Tokens - d.deadTokens + d.seg.stats.Tokens
	}
	return c
}

// manifest is what the part was built from: its delta's manifest, which
// records what a full build of the part would, or its base's.
func (c *textPart) manifest() *Manifest {
	if c.delta != nil {
		return c.delta.seg.manifest
	}
	return c.base.manifest
}

// locate returns the segment holding the part's document v and v's
// number there.
func (c *textPart) locate(v uint32) (*segment, uint32) {
	d := c.delta
	if d == nil {
		return c.base, v
	}
	j := sort.Search(len(d.rank), func(j int) bool { return d.rank[j] >= v })
	if j < len(d.rank) && d.rank[j] == v {
		return d.seg, uint32(j)
	}
	if b, ok := d.runs.toBase(v); ok {
		return c.base, b
	}
	return c.base, c.base.stats.Docs // no such document: its read fails
}

// lookup returns the code part's documents under a key.
func (c *textPart) lookup(ns byte, key string) ([]uint32, error) {
	docs, err := c.base.lookup(ns, key)
	if err != nil || c.delta == nil {
		return docs, err
	}
	d := c.delta
	added, err := d.seg.lookup(ns, key)
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

// postings returns the code part's postings of term and its document
// frequency: nil, 0 when no live document has it.
func (c *textPart) postings(term string) (segPostings, int) {
	p, df := c.base.postings(term)
	d := c.delta
	if d == nil {
		if p == nil {
			return nil, 0
		}
		return p, df
	}
	var parts []segPostings
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

// segPostings are the postings of one part of the index.
type segPostings interface {
	text.Seeker
	Err() error
}

// liveBase is a base segment's postings of a term without the dead
// documents, numbered as in the code part. Dead documents and insertion
// points are passed in order, each once: the walk costs the list and the
// delta, not their product.
type liveBase struct {
	p   *postings
	d   *textDelta
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
func (c *baseCursor) number(d *textDelta, b uint32) (uint32, bool) {
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
	a, b     segPostings
	aOK, bOK bool
	started  bool
	cur      segPostings
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

// buildDelta writes into dir, which must not exist, the delta segment
// that brings the code segment in baseDir up to the store as m describes
// it; errNoDelta when the change is too large for one.
func buildDelta(ctx context.Context, r *repo.Repo, m *Manifest, baseDir, dir string, opts BuildOptions) (*BuildStats, error) {
	base, err := openSegment(baseDir)
	if err != nil {
		return nil, err
	}
	defer base.close()
	bm := base.manifest
	// A new repository id changes every document's node: no delta.
	if bm.Tokenizer != m.Tokenizer || bm.Code.IsZero() || bm.Base != "" || bm.Repo != m.Repo {
		return nil, errNoDelta
	}
	was, err := readCommits(r, bm.Heads)
	if err != nil {
		return nil, err
	}
	now, err := readCommits(r, m.Heads)
	if err != nil {
		return nil, err
	}
	budget := int(base.stats.Docs)/deltaShare + deltaSlack
	var changes map[string]*fileChange
	if len(was) == 1 && len(now) == 1 {
		changes, err = changedOneHead(ctx, r, was[0], now[0], budget)
	} else {
		changes, err = changedAcrossHeads(r, was, now, budget)
	}
	if err != nil {
		return nil, err
	}
	paths := slices.Sorted(maps.Keys(changes))

	var dead []uint32
	for _, p := range paths {
		docs, err := base.lookup(nsFile, p)
		if err != nil {
			return nil, err
		}
		dead = append(dead, docs...)
	}
	repoID := r.Config.Repo.ID
	load := newVersions(r, false).get
	perPath := make([][]Doc, len(paths))
	if err := parallel.Do(ctx, len(paths), func(i int) error {
		if c := changes[paths[i]]; c.present {
			var err error
			perPath[i], err = pathDocs(r, repoID, paths[i], c.version, load)
			return err
		}
		return nil // removed
	}); err != nil {
		return nil, err
	}
	var docs []Doc
	for _, pd := range perPath {
		docs = append(docs, pd...)
	}
	// Diagnostics: all of them, again, when any head's changed; in head
	// order, each run once, as collectCode takes them.
	if !slices.EqualFunc(was, now, func(a, b *object.Commit) bool {
		return object.OrZero(a.DiagnosticsSnapshot) == object.OrZero(b.DiagnosticsSnapshot)
	}) {
		old, err := base.lookup(nsKind, string(DocDiagnostic))
		if err != nil {
			return nil, err
		}
		dead = append(dead, old...)
		seen := map[object.ID]bool{}
		for _, c := range now {
			if c.DiagnosticsSnapshot != nil {
				ds, err := diagnosticDocs(r, repoID, *c.DiagnosticsSnapshot, seen)
				if err != nil {
					return nil, err
				}
				docs = append(docs, ds...)
			}
		}
	}
	pm := &Manifest{Tokenizer: m.Tokenizer, Ref: m.Ref, Heads: m.Heads, Repo: m.Repo, Code: m.Code, CodeGraph: m.CodeGraph, Base: filepath.Base(baseDir)}
	return writeDelta(ctx, base, dir, docs, dead, budget, pm, opts)
}

// writeDelta writes into dir the delta segment of base whose documents
// are docs (in any order) and whose dead base documents are dead (with
// repeats); errNoDelta when they number more than budget.
func writeDelta(ctx context.Context, base *segment, dir string, docs []Doc, dead []uint32, budget int, pm *Manifest, opts BuildOptions) (*BuildStats, error) {
	slices.Sort(dead)
	dead = slices.Compact(dead)
	if len(dead)+len(docs) > budget {
		return nil, errNoDelta
	}
	sortDocs(docs)
	ins, err := insertionPoints(base, docs)
	if err != nil {
		return nil, err
	}

	// What the dead documents counted in the base's statistics.
	var deadTokens uint64
	deadDF := map[string]uint64{}
	seen := map[string]bool{}
	var tk text.Tokenizer
	for _, b := range dead {
		d, err := base.doc(b)
		if err != nil {
			return nil, err
		}
		clear(seen)
		tk.Tokenize(d.Text, 0, func(term string, _ uint32) {
			if !seen[term] {
				seen[term] = true
				deadDF[term]++
			}
		})
		deadTokens += uint64(base.docLen(b))
	}

	st, err := writeSegment(ctx, dir, docs, pm, opts)
	if err != nil {
		return nil, err
	}
	out, err := newTableFile(filepath.Join(dir, deltaFile), "delta")
	if err != nil {
		return nil, err
	}
	defer out.abort()
	terms := slices.Sorted(maps.Keys(deadDF))
	if err := out.w.Add([]byte(deltaDead), table.AppendUvarintDeltas(nil, dead)); err != nil {
		return nil, err
	}
	if err := out.w.Add([]byte(deltaIns), table.AppendUvarintDeltas(nil, ins)); err != nil {
		return nil, err
	}
	if err := out.w.Add([]byte(deltaTokens), binary.AppendUvarint(nil, deadTokens)); err != nil {
		return nil, err
	}
	var key []byte
	for _, t := range terms {
		key = append(append(key[:0], deltaTerm...), t...)
		if err := out.w.Add(key, binary.AppendUvarint(nil, deadDF[t])); err != nil {
			return nil, err
		}
	}
	if err := out.close(); err != nil {
		return nil, err
	}
	st.Bytes = filesBytes(dir, docsFile, termsFile, keysFile, metaFile, manifest, deltaFile)
	st.Delta = &DeltaStatus{Docs: len(docs), Replaced: len(dead)}
	return st, nil
}

// fileChange is a file whose documents may have changed, as it is now.
type fileChange struct {
	present bool      // in the heads' root trees
	version object.ID // its entry in their semantic snapshots (Zero: none)
}

// readCommits reads the commits of heads, in order.
func readCommits(r *repo.Repo, heads []object.ID) ([]*object.Commit, error) {
	out := make([]*object.Commit, len(heads))
	for i, h := range heads {
		c, err := r.ReadCommit(h)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// changedOneHead returns the files whose documents may differ between the
// commits was and now (one head each): added or removed, or with another
// file version (a file's documents derive from its path and version
// alone). The trees are walked side by side, past every subtree the two
// share; errNoDelta when more than budget files changed.
func changedOneHead(ctx context.Context, r *repo.Repo, was, now *object.Commit, budget int) (map[string]*fileChange, error) {
	type change struct {
		root, sem           *object.TreeEntry // in the new trees
		rootKnown, semKnown bool
	}
	changes := map[string]*change{}
	at := func(p string) (*change, error) {
		c := changes[p]
		if c == nil {
			if len(changes) >= budget {
				return nil, errNoDelta
			}
			c = &change{}
			changes[p] = c
		}
		return c, nil
	}
	edited := map[string]*object.TreeEntry{} // in both root trees, with other content
	if err := object.DiffTrees(r.Objects, was.RootTree, now.RootTree, func(p string, old, new *object.TreeEntry) error {
		if old != nil && new != nil {
			edited[p] = new // its file version tells whether its documents changed
			return nil
		}
		c, err := at(p)
		if err == nil {
			c.root, c.rootKnown = new, true
		}
		return err
	}); err != nil {
		return nil, deltaErr(err, "root trees")
	}
	nowSem := object.OrZero(now.SemanticSnapshot)
	if err := object.DiffTrees(r.Objects, object.OrZero(was.SemanticSnapshot), nowSem, func(p string, old, new *object.TreeEntry) error {
		c, err := at(p)
		if err == nil {
			c.sem, c.semKnown = new, true
			if e, ok := edited[p]; ok {
				c.root, c.rootKnown = e, true
			}
		}
		return err
	}); err != nil {
		return nil, deltaErr(err, "semantic snapshots")
	}
	// What a walk did not tell is looked up.
	paths := slices.Sorted(maps.Keys(changes))
	out := make([]*fileChange, len(paths))
	if err := parallel.Do(ctx, len(paths), func(i int) error {
		p, c := paths[i], changes[paths[i]]
		if !c.rootKnown {
			e, err := entryAt(r, now.RootTree, p)
			if err != nil {
				return err
			}
			c.root = e
		}
		out[i] = &fileChange{present: c.root != nil}
		if !out[i].present {
			return nil
		}
		if !c.semKnown {
			e, err := entryAt(r, nowSem, p)
			if err != nil {
				return err
			}
			c.sem = e
		}
		if c.sem != nil { // as collectCode: whatever the snapshot holds at p
			out[i].version = c.sem.ID
		}
		return nil
	}); err != nil {
		return nil, err
	}
	m := make(map[string]*fileChange, len(paths))
	for i, p := range paths {
		m[p] = out[i]
	}
	return m, nil
}

// changedAcrossHeads is changedOneHead for any number of heads on either side
// (after a git merge left several): each side's files are those of its
// heads, in order, a path taken from the first head that has it, as
// collectCode takes them. It lists the trees whole, each tree once.
func changedAcrossHeads(r *repo.Repo, was, now []*object.Commit, budget int) (map[string]*fileChange, error) {
	listed := map[object.ID]map[string]object.TreeEntry{}
	list := func(tree object.ID) (map[string]object.TreeEntry, error) {
		if l, ok := listed[tree]; ok {
			return l, nil
		}
		l, err := object.ListTree(r.Objects, tree, "")
		if err != nil {
			return nil, fmt.Errorf("index: tree %s: %w", tree.Short(), err)
		}
		listed[tree] = l
		return l, nil
	}
	files := func(heads []*object.Commit) (map[string]object.ID, error) {
		out := map[string]object.ID{}
		for _, c := range heads {
			root, err := list(c.RootTree)
			if err != nil {
				return nil, err
			}
			sem, err := list(object.OrZero(c.SemanticSnapshot))
			if err != nil {
				return nil, err
			}
			for p := range root {
				if _, seen := out[p]; !seen {
					out[p] = sem[p].ID
				}
			}
		}
		return out, nil
	}
	before, err := files(was)
	if err != nil {
		return nil, err
	}
	after, err := files(now)
	if err != nil {
		return nil, err
	}
	changes := map[string]*fileChange{}
	for p, v := range after {
		if w, ok := before[p]; !ok || w != v {
			changes[p] = &fileChange{present: true, version: v}
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			changes[p] = &fileChange{}
		}
	}
	if len(changes) > budget {
		return nil, errNoDelta
	}
	return changes, nil
}

// insertionPoints returns, for each of docs (in docOrder), how many of
// base's documents sort before it.
func insertionPoints(base *segment, docs []Doc) ([]uint32, error) {
	return sortedBefore(base.stats.Docs, len(docs), func(b uint32, j int) (bool, error) {
		v, err := base.record(b)
		if err != nil {
			return false, err
		}
		bd, _, err := decodeRecordOpts(v, false)
		if err != nil {
			return false, err
		}
		return docOrder(&bd, &docs[j]) >= 0, nil
	})
}

// sortedBefore returns, for each of n new entries in order, how many of
// a base's nb entries sort before it, given atOrAfter(b, j): whether base
// entry b sorts at or after new entry j. A binary search each, from where
// the previous one stopped; the first error stops it.
func sortedBefore(nb uint32, n int, atOrAfter func(b uint32, j int) (bool, error)) ([]uint32, error) {
	ins := make([]uint32, n)
	lo := uint32(0)
	var ferr error
	for j := range n {
		k := lo + uint32(sort.Search(int(nb-lo), func(i int) bool {
			if ferr != nil {
				return true
			}
			ok, err := atOrAfter(lo+uint32(i), j)
			ferr = err
			return ok || err != nil
		}))
		if ferr != nil {
			return nil, ferr
		}
		ins[j], lo = k, k
	}
	return ins, nil
}

// entryAt returns the non-tree entry at p under the tree root; nil when
// there is none.
func entryAt(r *repo.Repo, root object.ID, p string) (*object.TreeEntry, error) {
	list, err := object.ListTree(r.Objects, root, p)
	if err != nil {
		return nil, fmt.Errorf("index: %s: %w", p, err)
	}
	if e, ok := list[p]; ok {
		return &e, nil
	}
	return nil, nil
}

// deltaErr names what a tree walk of buildDelta failed on.
func deltaErr(err error, what string) error {
	if errors.Is(err, errNoDelta) {
		return err
	}
	return fmt.Errorf("index: %s: %w", what, err)
}

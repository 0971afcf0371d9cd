package reader

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/index/table"
	"github.com/ctx-dev/ctx/index/text"
	"github.com/ctx-dev/ctx/narrative/vocab"
)

// Index is the open index: two segments, the code's (documents of the
// current ref's heads) and the narrative's, each a complete set of
// tables with its own document numbers. The index numbers the narrative's
// documents after the code's, and sums the statistics, so that searching
// it gives exactly what one index over all documents would; and either
// segment can be rebuilt alone when only its part of the store changed.
// A delta segment may extend either (see textPart): the part's
// documents are then numbered as a full build would number them.
type Index struct {
	code     Part
	narr     Part
	narrBase uint32 // the index's number of the narrative's document 0
	stats    text.Stats
}

// Close unmaps the tables; values read from them are invalid after.
func (ix *Index) Close() error {
	return errors.Join(ix.code.Close(), ix.narr.Close())
}

// New joins the open parts: the code's and the narrative's. Close closes
// them.
func New(code, narr Part) *Index {
	ix := &Index{code: code, narr: narr}
	ix.narrBase = ix.code.stats.Docs
	ix.stats = text.Stats{Docs: ix.code.stats.Docs + ix.narr.stats.Docs, Tokens: ix.code.stats.Tokens + ix.narr.stats.Tokens}
	return ix
}

// Open opens the index of the code segment in code and the narrative
// segment in narr, each with the delta segment in its delta directory
// unless that is "". A segment's documents table is opened when a
// document of it is first read: a failure then is ErrCorrupt.
func Open(code, codeDelta, narr, narrDelta string) (*Index, error) {
	c, err := openPart(code, codeDelta, true)
	if err != nil {
		return nil, err
	}
	n, err := openPart(narr, narrDelta, true)
	if err != nil {
		c.Close()
		return nil, err
	}
	return New(c, n), nil
}

// Code is the index's code part, Narrative its narrative part.
func (ix *Index) Code() *Part { return &ix.code }

// Narrative is the index's narrative part.
func (ix *Index) Narrative() *Part { return &ix.narr }

// seg returns the segment holding document n and n's number in it.
func (ix *Index) seg(n uint32) (*Segment, uint32) {
	if n >= ix.narrBase {
		return ix.narr.Locate(n - ix.narrBase)
	}
	return ix.code.Locate(n)
}

// Docs returns the number of documents.
func (ix *Index) Docs() int { return int(ix.stats.Docs) }

// Doc returns document n.
func (ix *Index) Doc(n uint32) (Doc, error) {
	s, local := ix.seg(n)
	return s.Doc(local)
}

// DocHead returns the kind, node key and path of document n.
func (ix *Index) DocHead(n uint32) (RecordHead, error) {
	s, local := ix.seg(n)
	return s.DocHead(local)
}

// Lookup returns the documents a key of the keys tables lists: ns is one
// of "path", "file", "key", "name", "node", "kind", "tag", "superseded".
func (ix *Index) Lookup(ns, key string) ([]uint32, error) {
	b, ok := namespaces[ns]
	if !ok {
		return nil, fmt.Errorf("%w: namespace %q (want path, file, key, name, node, kind, tag or superseded)", ErrInvalidQuery, ns)
	}
	out, err := ix.code.Lookup(b, key)
	if err != nil {
		return nil, err
	}
	docs, err := ix.narr.Lookup(b, key)
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		out = append(out, ix.narrBase+d)
	}
	return out, nil
}

// NamespaceName returns the name Lookup takes for the keys table's
// namespace byte b; "" for none.
func NamespaceName(b byte) string {
	for name, nb := range namespaces {
		if nb == b {
			return name
		}
	}
	return ""
}

var namespaces = map[string]byte{"path": NsPath, "file": NsFile, "key": NsKey, "name": NsName, "node": NsNode, "kind": NsKind, "tag": NsTag, "superseded": NsSup}

// Stats implements text.Reader.
func (ix *Index) Stats() text.Stats { return ix.stats }

// DocLen implements text.Reader.
func (ix *Index) DocLen(doc uint32) uint32 {
	s, local := ix.seg(doc)
	return s.DocLen(local)
}

// Postings implements text.Reader: the code's postings, then the
// narrative's, renumbered.
func (ix *Index) Postings(term string) (text.Postings, int) {
	code, df := ix.code.Postings(term)
	var p PartPostings
	if q, n := ix.narr.Postings(term); q != nil {
		p = &shifted{p: q, by: ix.narrBase}
		df += n
	}
	switch {
	case code == nil && p == nil:
		return nil, 0
	case p == nil:
		return code, df
	case code == nil:
		return p, df
	}
	return &joined{parts: [2]PartPostings{code, p}}, df
}

// shifted is a part's postings numbered from by: the narrative's, after
// the code's documents.
type shifted struct {
	p  PartPostings
	by uint32
}

func (s *shifted) Next() bool                 { return s.p.Next() }
func (s *shifted) Advance(target uint32) bool { return s.p.Advance(max(target, s.by) - s.by) }
func (s *shifted) Doc() uint32                { return s.by + s.p.Doc() }
func (s *shifted) Freq() int                  { return s.p.Freq() }
func (s *shifted) Positions() []uint32        { return s.p.Positions() }
func (s *shifted) Err() error                 { return s.p.Err() }

// joined is the postings of one term in the code and the narrative.
type joined struct {
	parts [2]PartPostings
	i     int
}

func (j *joined) Next() bool {
	for j.i < 2 {
		if j.parts[j.i].Next() {
			return true
		}
		if j.parts[j.i].Err() != nil {
			return false
		}
		j.i++
	}
	return false
}
func (j *joined) Advance(target uint32) bool {
	for j.i < 2 {
		if j.parts[j.i].Advance(target) {
			return true
		}
		if j.parts[j.i].Err() != nil {
			return false
		}
		j.i++
	}
	return false
}
func (j *joined) Doc() uint32         { return j.parts[j.i].Doc() }
func (j *joined) Freq() int           { return j.parts[j.i].Freq() }
func (j *joined) Positions() []uint32 { return j.parts[j.i].Positions() }
func (j *joined) Err() error {
	return errors.Join(j.parts[0].Err(), j.parts[1].Err())
}

// postings adapts a segment's positional postings to text.Postings.
// Positions are decoded only when asked for (phrases): a term alone needs
// only its frequency, which the encoding stores first.
type postings struct {
	it      table.PositionIter
	pos     []uint32
	decoded bool
	err     error
}

func (p *postings) Next() bool {
	if p.err != nil || !p.it.Next() {
		return false
	}
	p.decoded = false
	return true
}
func (p *postings) Advance(target uint32) bool {
	if p.err != nil || !p.it.Advance(target) {
		return false
	}
	p.decoded = false
	return true
}
func (p *postings) Doc() uint32 { return p.it.Doc() }
func (p *postings) Freq() int   { return p.it.Freq() }
func (p *postings) Positions() []uint32 {
	if !p.decoded {
		p.pos = p.it.AppendPositions(p.pos[:0])
		p.decoded = true
	}
	return p.pos
}
func (p *postings) Err() error {
	if p.err != nil {
		return p.err
	}
	return p.it.Err()
}

// Hit is a search result.
type Hit struct {
	// Doc is the document without its Text: the snippet shows the part
	// that matched (Index.Doc gives the whole).
	Doc     Doc          `json:"-"`
	Score   float64      `json:"score"`
	Snippet text.Snippet `json:"-"`
}

// SearchOptions configure Search.
type SearchOptions struct {
	Limit int
	// Kinds keeps only documents of these kinds (a node type, "item",
	// "file", "diagnostic"); none keeps all.
	Kinds []string
	// Tags keeps only narrative nodes with every one of these tags.
	Tags []string
	// IncludeSuperseded keeps nodes another replaced, left out by default.
	IncludeSuperseded bool
}

// RetrieveOptions configure Retrieve.
type RetrieveOptions struct {
	// K is the number of hits to return; 0 means 100.
	K int
	// Kinds keeps only documents of these kinds; none keeps all.
	Kinds []string
	// IncludeSuperseded keeps nodes another replaced, left out by default.
	IncludeSuperseded bool
}

// Retrieve ranks the documents for q, a query of text.NaturalQuery, by
// BM25 over any of its terms: the candidates of a prompt pack. It
// returns the best K hits (documents and scores, best first) and how
// many documents matched.
func (ix *Index) Retrieve(q text.Query, opts RetrieveOptions) (text.Result, error) {
	var f filter
	kinds := make([]string, len(opts.Kinds))
	for i, k := range opts.Kinds {
		kinds[i] = strings.ToLower(k)
	}
	if err := f.anyOf(ix, "kind", kinds, false); err != nil {
		return text.Result{}, err
	}
	if !opts.IncludeSuperseded {
		if err := f.anyOf(ix, "superseded", []string{"superseded"}, true); err != nil {
			return text.Result{}, err
		}
	}
	so := text.SearchOptions{K: opts.K, Any: true}
	if so.K <= 0 {
		so.K = 100
	}
	if f.active() {
		so.Accept = f.ok
	}
	return text.Search(ix, q, so)
}

// DocMeta returns document n without its text (Text is empty): what a
// caller that ranks many documents needs, without copying their chunks.
func (ix *Index) DocMeta(n uint32) (Doc, error) {
	s, local := ix.seg(n)
	v, err := s.Record(local)
	if err != nil {
		return Doc{}, err
	}
	d, _, err := DecodeRecordOpts(v, false)
	return d, err
}

// Search runs a full-text query: ranked hits with snippets. Besides
// opts, the query's filters narrow it: type:KIND (or kind:), tag:TAG,
// path:PREFIX, each negated with a leading '-'.
func (ix *Index) Search(q string, opts SearchOptions) ([]Hit, int, error) {
	query := text.ParseQuery(q)
	if strings.TrimSpace(q) == "" {
		return nil, 0, fmt.Errorf("%w: an empty query: give the words to search for", ErrInvalidQuery)
	}
	var f filter
	var kinds, notKinds, tags, notTags, paths, notPaths []string
	for _, k := range opts.Kinds {
		k, err := docKind(k)
		if err != nil {
			return nil, 0, err
		}
		kinds = append(kinds, k)
	}
	// Tags are read as ctx add reads them: lower-cased, checked.
	for _, t := range opts.Tags {
		t, err := searchTag(t)
		if err != nil {
			return nil, 0, err
		}
		tags = append(tags, t)
	}
	for _, fl := range query.Filters {
		v := fl.Value
		switch fl.Field {
		case "type", "kind":
			var err error
			if v, err = docKind(v); err != nil {
				return nil, 0, err
			}
			if fl.Negated {
				notKinds = append(notKinds, v)
			} else {
				kinds = append(kinds, v)
			}
		case "tag":
			var err error
			if v, err = searchTag(v); err != nil {
				return nil, 0, err
			}
			if fl.Negated {
				notTags = append(notTags, v)
			} else {
				tags = append(tags, v)
			}
		case "path":
			if fl.Negated {
				notPaths = append(notPaths, v)
			} else {
				paths = append(paths, v)
			}
		default:
			return nil, 0, fmt.Errorf("%w: unknown filter %s: (use type:, tag: or path:)", ErrInvalidQuery, fl.Field)
		}
	}
	// Sets from the keys: no record is decoded to filter by kind or tag.
	if err := f.anyOf(ix, "kind", kinds, false); err != nil {
		return nil, 0, err
	}
	if err := f.anyOf(ix, "kind", notKinds, true); err != nil {
		return nil, 0, err
	}
	for _, t := range tags {
		if err := f.anyOf(ix, "tag", []string{t}, false); err != nil {
			return nil, 0, err
		}
	}
	if err := f.anyOf(ix, "tag", notTags, true); err != nil {
		return nil, 0, err
	}
	if !opts.IncludeSuperseded {
		if err := f.anyOf(ix, "superseded", []string{"superseded"}, true); err != nil {
			return nil, 0, err
		}
	}
	so := text.SearchOptions{K: opts.Limit}
	if f.active() || len(paths)+len(notPaths) > 0 {
		so.Accept = func(doc uint32) bool {
			if !f.ok(doc) {
				return false
			}
			if len(paths)+len(notPaths) == 0 {
				return true
			}
			d, err := ix.DocHead(doc)
			if err != nil {
				return false
			}
			return (len(paths) == 0 || slices.ContainsFunc(paths, func(p string) bool { return underPath(d.Path, p) })) &&
				!slices.ContainsFunc(notPaths, func(p string) bool { return underPath(d.Path, p) })
		}
	}
	// Symbols named by the query outrank text that merely mentions them:
	// "Client.Do" is first of all net/http.Client.Do.
	symbols, err := ix.symbolsNamed(q, so.Accept)
	if err != nil {
		return nil, 0, err
	}
	// A query with no word to match finds nothing but the symbols it
	// names (errors.Is: "is" is a stop word): without them, it is a
	// mistake, not a search that found nothing.
	if query.Empty() && len(symbols) == 0 {
		return nil, 0, fmt.Errorf("%w: %q has no word to search for: filters and -words only narrow a search, and stop words (the, and, …) are not indexed", ErrInvalidQuery, q)
	}
	limit := opts.Limit
	if limit <= 0 {
		limit = 10
	}
	// At most limit symbols are shown, and text hits fill the rest:
	// the text search needs limit hits besides those symbols. Which
	// symbols the text matches too is noted as they are seen, for the
	// count (a query that names a symbol is one word: it excludes
	// nothing, so every document Accept sees matches).
	so.K = limit + min(len(symbols), limit)
	var named symbolSet
	if len(symbols) > 0 {
		named = newSymbolSet(symbols, ix.Docs())
		accept := so.Accept
		so.Accept = func(doc uint32) bool {
			if accept != nil && !accept(doc) {
				return false
			}
			named.see(doc)
			return true
		}
	}
	res, err := text.Search(ix, query, so)
	if err != nil {
		return nil, 0, err
	}
	top := 0.0
	if len(res.Hits) > 0 {
		top = res.Hits[0].Score
	}
	hits := make([]Hit, 0, min(limit, 64)) // -n 999999999 is a limit, not a size
	seen := map[uint32]bool{}
	// Each hit's text is put together in one buffer, in turn, for its
	// snippet, which is copied out: not a copy of every hit's text.
	var scratch []byte
	add := func(doc uint32, score float64) error {
		if seen[doc] || len(hits) == limit {
			return nil
		}
		seen[doc] = true
		s, local := ix.seg(doc)
		v, err := s.Record(local)
		if err != nil {
			return err
		}
		d, view, _, err := decodeRecord(v, textScratch, &scratch)
		if err != nil {
			return err
		}
		snip := text.BestSnippet(view, query, 0)
		snip.Text = strings.Clone(snip.Text)
		hits = append(hits, Hit{Doc: d, Score: score, Snippet: snip})
		return nil
	}
	for i, doc := range symbols {
		if err := add(doc, top+float64(len(symbols)-i)); err != nil {
			return nil, 0, err
		}
	}
	matched := res.Matched
	for _, h := range res.Hits {
		if err := add(h.Doc, h.Score); err != nil {
			return nil, 0, err
		}
	}
	matched += named.unseen() // named, though their text lacks a query word
	return hits, matched, nil
}

// symbolSet is the documents a search names as symbols, and which of
// them the text matched too. Accept sees every document the text matches
// (tens of thousands for "error", which names as many symbols), where a
// map costs a hash each: many symbols are bits over the index's
// documents; a few, a sorted list, as bits cost a zeroed page of memory
// for every 32,768 documents, a new process's page faults.
type symbolSet struct {
	few        []uint32 // sorted, when there are few
	fewSeen    []bool   // per entry of few
	bits, seen docSet   // when there are many
}

// manySymbols is where a symbolSet turns to bits.
const manySymbols = 64

func newSymbolSet(symbols []uint32, docs int) symbolSet {
	if len(symbols) <= manySymbols {
		few := slices.Clone(symbols)
		slices.Sort(few)
		few = slices.Compact(few)
		return symbolSet{few: few, fewSeen: make([]bool, len(few))}
	}
	s := symbolSet{bits: newDocSet(docs), seen: newDocSet(docs)}
	for _, d := range symbols {
		s.bits.add(d)
	}
	return s
}

// see notes that the text matched doc.
func (s *symbolSet) see(doc uint32) {
	if s.bits == nil {
		if i, ok := slices.BinarySearch(s.few, doc); ok {
			s.fewSeen[i] = true
		}
		return
	}
	if s.bits.has(doc) {
		s.seen.add(doc)
	}
}

// unseen counts the symbols the text did not match.
func (s *symbolSet) unseen() int {
	n := 0
	for _, seen := range s.fewSeen {
		if !seen {
			n++
		}
	}
	for i, w := range s.bits {
		n += bits.OnesCount64(w &^ s.seen[i])
	}
	return n
}

// docKind returns the document kind a search's type filter names: item,
// file, diagnostic, or a node type or its alias (note, question), in any
// case; an unknown one is ErrInvalidQuery, which lists them.
func docKind(k string) (string, error) {
	switch l := strings.ToLower(strings.TrimSpace(k)); l {
	case string(DocItem), string(DocFile), string(DocDiagnostic):
		return l, nil
	}
	t, err := vocab.ParseType(k)
	if err != nil {
		names := make([]string, len(vocab.Types))
		for i, t := range vocab.Types {
			names[i] = string(t)
		}
		return "", fmt.Errorf("%w: type %q: want item, file, diagnostic or a node type (%s; note = observation, question = open-question)", ErrInvalidQuery, k, strings.Join(names, ", "))
	}
	return string(t), nil
}

// searchTag returns the tag a search's tag filter names, as the
// narrative stores tags (lower case); an invalid one is ErrInvalidQuery.
func searchTag(t string) (string, error) {
	tag, err := vocab.ParseTag(t)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidQuery, err)
	}
	return tag, nil
}

// docSet is a set of document numbers below a bound, a bit each.
type docSet []uint64

func newDocSet(n int) docSet { return make(docSet, (n+63)/64) }

func (s docSet) add(doc uint32) {
	if int(doc/64) < len(s) {
		s[doc/64] |= 1 << (doc % 64)
	}
}

// has reports whether doc is in the set; false for a nil set.
func (s docSet) has(doc uint32) bool {
	return int(doc/64) < len(s) && s[doc/64]&(1<<(doc%64)) != 0
}

// symbolsNamed returns the items whose stable key is q or ends with q
// after a separator (".", "/", "::"), compared without case, when q is
// one identifier-like word: shortest key first, then key order.
func (ix *Index) symbolsNamed(q string, accept func(uint32) bool) ([]uint32, error) {
	q = strings.TrimSpace(q)
	if q == "" || strings.ContainsAny(q, " \t\"'") || strings.HasPrefix(q, "-") || strings.Contains(q, ":") && !strings.Contains(q, "::") {
		return nil, nil
	}
	lq := strings.ToLower(q)
	docs, err := ix.Lookup("name", strings.ToLower(LastName(q)))
	if err != nil {
		return nil, err
	}
	type cand struct {
		doc uint32
		key string
	}
	var cs []cand
	for _, doc := range docs {
		if accept != nil && !accept(doc) {
			continue
		}
		d, err := ix.DocHead(doc)
		if err != nil {
			return nil, err
		}
		if d.Kind != DocItem {
			continue
		}
		k := strings.ToLower(d.NodeKey)
		if k == lq || strings.HasSuffix(k, lq) && (strings.HasSuffix(k[:len(k)-len(lq)], ".") || strings.HasSuffix(k[:len(k)-len(lq)], "/") || strings.HasSuffix(k[:len(k)-len(lq)], "::")) {
			cs = append(cs, cand{doc, d.NodeKey})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if len(cs[i].key) != len(cs[j].key) {
			return len(cs[i].key) < len(cs[j].key)
		}
		return cs[i].key < cs[j].key
	})
	out := make([]uint32, len(cs))
	for i, c := range cs {
		out[i] = c.doc
	}
	return out, nil
}

// underPath reports whether p is prefix or lies under it.
func underPath(p, prefix string) bool {
	prefix = strings.TrimSuffix(prefix, "/")
	return p == prefix || strings.HasPrefix(p, prefix+"/") || prefix == ""
}

// filter is the set of documents a search may return: an intersection of
// clauses, each a sorted set of documents to keep or to drop. Membership
// costs a binary search per clause and matching document; nothing is
// proportional to the size of the index.
type filter struct {
	clauses []filterClause
}

type filterClause struct {
	docs    []uint32 // sorted, distinct
	exclude bool
}

func (f *filter) active() bool { return len(f.clauses) > 0 }

// ok reports whether doc is in the set.
func (f *filter) ok(doc uint32) bool {
	for _, c := range f.clauses {
		if _, found := slices.BinarySearch(c.docs, doc); found == c.exclude {
			return false
		}
	}
	return true
}

// anyOf narrows the set to the documents listed under any of keys in
// namespace ns, or with exclude, to those listed under none.
func (f *filter) anyOf(ix *Index, ns string, keys []string, exclude bool) error {
	if len(keys) == 0 {
		return nil
	}
	var docs []uint32
	for _, k := range keys {
		d, err := ix.Lookup(ns, k)
		if err != nil {
			return err
		}
		docs = append(docs, d...)
	}
	if !slices.IsSorted(docs) {
		slices.Sort(docs)
	}
	f.clauses = append(f.clauses, filterClause{docs: slices.Compact(docs), exclude: exclude})
	return nil
}

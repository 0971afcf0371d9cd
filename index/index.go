package index

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/ctx-dev/ctx/index/table"
	"github.com/ctx-dev/ctx/index/text"
	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/fault"
	"github.com/ctx-dev/ctx/internal/lockfile"
	"github.com/ctx-dev/ctx/internal/parallel"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/repo"
)

// Layout of .ctx/index/ (docs/INDEX.md, "Layout and segments"): CURRENT
// names the two segment directories readers use; a rebuild writes new
// ones beside them under temporary names, renames them, then replaces
// CURRENT.
const (
	dirName     = "index"
	currentFile = "CURRENT"
	lockName    = "LOCK"
	segPrefix   = "seg-"
	tmpPrefix   = "tmp-"
)

// Dir returns the index directory of a store.
func Dir(r *repo.Repo) string { return filepath.Join(r.Root, dirName) }

// Index is the open index: two segments, the code's (documents of the
// current ref's heads) and the narrative's, each a complete set of
// tables with its own document numbers. The index numbers the narrative's
// documents after the code's, and sums the statistics, so that searching
// it gives exactly what one index over all documents would; and either
// segment can be rebuilt alone when only its part of the store changed.
// A delta segment may extend either (see textPart): the part's
// documents are then numbered as a full build would number them.
type Index struct {
	Manifest *Manifest
	code     textPart
	narr     textPart
	narrBase uint32 // the index's number of the narrative's document 0
	stats    text.Stats
}

// The parts of the index: the two text segments, in document order, and
// the graph's adjacency in two segments, built when first asked for: the
// code graph (the heads' snapshots: code, build graphs, diagnostics),
// which changes only with the code, and the graph segment, which extends
// it with the edge batches' and the narrative's edges and holds the
// history's commits.
const (
	partCode = iota
	partNarrative
	partGraph
	partCodeGraph
	nParts
)

// partDelta is the code's delta segment, which CURRENT names beside the
// code segment it extends, partGraphDelta the code graph's beside the
// code graph segment, and partNarrDelta the narrative's beside the
// narrative segment (not parts of their own: built in their place).
const (
	partDelta = nParts + iota
	partGraphDelta
	partNarrDelta
	nDirs // the segments CURRENT can name
)

var partNames = [nDirs]string{"code", "narrative", "graph", "codegraph", "delta", "graphdelta", "narrdelta"}

// Close unmaps the tables; values read from them are invalid after.
func (ix *Index) Close() error {
	return errors.Join(ix.code.close(), ix.narr.close())
}

// newIndex joins the open parts: the code's and the narrative's.
func newIndex(code, narr textPart) *Index {
	ix := &Index{code: code, narr: narr}
	cm, nm := ix.code.manifest(), ix.narr.manifest()
	ix.narrBase = ix.code.stats.Docs
	ix.stats = text.Stats{Docs: ix.code.stats.Docs + ix.narr.stats.Docs, Tokens: ix.code.stats.Tokens + ix.narr.stats.Tokens}
	ix.Manifest = &Manifest{Tokenizer: cm.Tokenizer, Ref: cm.Ref, Heads: cm.Heads, Repo: cm.Repo, Code: cm.Code, CodeGraph: cm.CodeGraph, Narrative: nm.Narrative}
	return ix
}

// seg returns the segment holding document n and n's number in it.
func (ix *Index) seg(n uint32) (*segment, uint32) {
	if n >= ix.narrBase {
		return ix.narr.locate(n - ix.narrBase)
	}
	return ix.code.locate(n)
}

// Docs returns the number of documents.
func (ix *Index) Docs() int { return int(ix.stats.Docs) }

// Doc returns document n.
func (ix *Index) Doc(n uint32) (Doc, error) {
	s, local := ix.seg(n)
	return s.doc(local)
}

// docHead returns the kind, node key and path of document n.
func (ix *Index) docHead(n uint32) (recordHead, error) {
	s, local := ix.seg(n)
	return s.docHead(local)
}

// Lookup returns the documents a key of the keys tables lists: ns is one
// of "path", "file", "key", "name", "node", "kind", "tag", "superseded".
func (ix *Index) Lookup(ns, key string) ([]uint32, error) {
	b, ok := namespaces[ns]
	if !ok {
		return nil, fmt.Errorf("%w: namespace %q (want path, file, key, name, node, kind, tag or superseded)", ErrInvalidQuery, ns)
	}
	out, err := ix.code.lookup(b, key)
	if err != nil {
		return nil, err
	}
	docs, err := ix.narr.lookup(b, key)
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		out = append(out, ix.narrBase+d)
	}
	return out, nil
}

var namespaces = map[string]byte{"path": nsPath, "file": nsFile, "key": nsKey, "name": nsName, "node": nsNode, "kind": nsKind, "tag": nsTag, "superseded": nsSup}

// ErrInvalidQuery is a query the index cannot run.
var ErrInvalidQuery = errors.New("index: invalid query")

// Stats implements text.Reader.
func (ix *Index) Stats() text.Stats { return ix.stats }

// DocLen implements text.Reader.
func (ix *Index) DocLen(doc uint32) uint32 {
	s, local := ix.seg(doc)
	return s.docLen(local)
}

// Postings implements text.Reader: the code's postings, then the
// narrative's, renumbered.
func (ix *Index) Postings(term string) (text.Postings, int) {
	code, df := ix.code.postings(term)
	var p segPostings
	if q, n := ix.narr.postings(term); q != nil {
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
	return &joined{parts: [2]segPostings{code, p}}, df
}

// shifted is a part's postings numbered from by: the narrative's, after
// the code's documents.
type shifted struct {
	p  segPostings
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
	parts [2]segPostings
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
	v, err := s.record(local)
	if err != nil {
		return Doc{}, err
	}
	d, _, err := decodeRecordOpts(v, false)
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
			d, err := ix.docHead(doc)
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
	// Sets of document numbers as bits: Accept sees every document the
	// text matches (tens of thousands for "error", which names as many
	// symbols), where maps cost a hash each.
	var isSymbol, inText docSet
	if len(symbols) > 0 {
		isSymbol, inText = newDocSet(ix.Docs()), newDocSet(ix.Docs())
		for _, d := range symbols {
			isSymbol.add(d)
		}
		accept := so.Accept
		so.Accept = func(doc uint32) bool {
			if accept != nil && !accept(doc) {
				return false
			}
			if isSymbol.has(doc) {
				inText.add(doc)
			}
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
	hits := make([]Hit, 0, limit)
	seen := map[uint32]bool{}
	add := func(doc uint32, score float64) error {
		if seen[doc] || len(hits) == limit {
			return nil
		}
		seen[doc] = true
		d, err := ix.Doc(doc)
		if err != nil {
			return err
		}
		hits = append(hits, Hit{Doc: d, Score: score, Snippet: text.BestSnippet(d.Text, query, 0)})
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
	for _, doc := range symbols {
		if !inText.has(doc) {
			matched++ // named, though its text lacks a query word
		}
	}
	return hits, matched, nil
}

// docKind returns the document kind a search's type filter names: item,
// file, diagnostic, or a node type or its alias (note, question), in any
// case; an unknown one is ErrInvalidQuery, which lists them.
func docKind(k string) (string, error) {
	switch l := strings.ToLower(strings.TrimSpace(k)); l {
	case string(DocItem), string(DocFile), string(DocDiagnostic):
		return l, nil
	}
	t, err := narrative.ParseType(k)
	if err != nil {
		names := make([]string, len(narrative.Types))
		for i, t := range narrative.Types {
			names[i] = string(t)
		}
		return "", fmt.Errorf("%w: type %q: want item, file, diagnostic or a node type (%s; note = observation, question = open-question)", ErrInvalidQuery, k, strings.Join(names, ", "))
	}
	return string(t), nil
}

// searchTag returns the tag a search's tag filter names, as the
// narrative stores tags (lower case); an invalid one is ErrInvalidQuery.
func searchTag(t string) (string, error) {
	tag, err := narrative.ParseTag(t)
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
		d, err := ix.docHead(doc)
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

// Status says whether the index matches the store.
type Status struct {
	Present bool   `json:"present"`
	Fresh   bool   `json:"fresh"`
	Dir     string `json:"dir,omitempty"`
	Docs    int    `json:"docs"`
	Reason  string `json:"reason,omitempty"`
	// Delta describes the code's delta segment, if there is one,
	// NarrativeDelta the narrative's, and GraphDelta the code graph's.
	Delta          *DeltaStatus      `json:"delta,omitempty"`
	NarrativeDelta *DeltaStatus      `json:"narrative_delta,omitempty"`
	GraphDelta     *GraphDeltaStatus `json:"graph_delta,omitempty"`
	// Graph says whether the graph segments (built when first asked for)
	// are present and fresh.
	Graph GraphStatus `json:"graph"`
}

// GraphStatus is the state of the graph's segments: present (built),
// fresh, the code graph's nodes, and why not fresh.
type GraphStatus struct {
	Present bool   `json:"present"`
	Fresh   bool   `json:"fresh"`
	Nodes   uint32 `json:"nodes,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// DeltaStatus is what a delta segment holds: documents added, and the
// documents of the segment it extends that it replaces or removes. ctx
// rebuild (full) folds it into a new segment.
type DeltaStatus struct {
	Docs     int `json:"docs"`
	Replaced int `json:"replaced"`
}

// current returns the segment directories CURRENT names, by part; ""
// for a part it does not name.
func current(r *repo.Repo) [nDirs]string {
	var dirs [nDirs]string
	data, err := os.ReadFile(filepath.Join(Dir(r), currentFile))
	if err != nil {
		return dirs
	}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		part, name, ok := strings.Cut(l, " ")
		i := slices.Index(partNames[:], part)
		if !ok || i < 0 || !strings.HasPrefix(name, segPrefix) || strings.ContainsAny(name, "/\\") {
			return [nDirs]string{}
		}
		dirs[i] = filepath.Join(Dir(r), name)
	}
	return dirs
}

// openCurrent opens the text segments CURRENT names.
func openCurrent(r *repo.Repo) (*Index, error) {
	dirs := current(r)
	if dirs[partCode] == "" || dirs[partNarrative] == "" {
		return nil, fs.ErrNotExist
	}
	code, err := openTextPart(dirs[partCode], dirs[partDelta])
	if err != nil {
		return nil, err
	}
	narr, err := openTextPart(dirs[partNarrative], dirs[partNarrDelta])
	if err != nil {
		code.close()
		return nil, err
	}
	return newIndex(code, narr), nil
}

// partFresh reports whether a segment built from built matches the store
// as m describes it.
func partFresh(part int, built, m *Manifest) bool {
	if built == nil || built.Tokenizer != m.Tokenizer {
		return false
	}
	narr := narrativeEqual(built, m)
	heads := built.Ref == m.Ref && slices.Equal(built.Heads, m.Heads)
	switch part {
	case partNarrative:
		return narr
	case partGraph:
		// Every commit's edge batches, the narrative's edges and the
		// history's commits, numbered after the code graph's nodes (the
		// same for the same key: its build is deterministic).
		return narr && heads && built.CodeGraph == m.CodeGraph
	case partCodeGraph:
		return !built.CodeGraph.IsZero() && built.CodeGraph == m.CodeGraph
	}
	// The code's documents derive from the heads' code snapshots alone.
	return !built.Code.IsZero() && built.Code == m.Code
}

// deltaOf is the delta segment that may extend a part's segment; 0 (the
// code's own number, never a delta) for none.
var deltaOf = [nParts]int{partCode: partDelta, partNarrative: partNarrDelta, partCodeGraph: partGraphDelta}

// builtAs returns the manifest of a part as the segments of dirs hold
// it: its delta's when there is one (it records what the part's segment
// would), else the part's segment's; nil if it cannot be read.
func builtAs(dirs [nDirs]string, part int) *Manifest {
	if d := deltaOf[part]; d != 0 && dirs[d] != "" {
		return readManifest(dirs[d])
	}
	return readManifest(dirs[part])
}

// readManifest reads a segment's manifest; nil if it cannot.
func readManifest(dir string) *Manifest {
	data, err := os.ReadFile(filepath.Join(dir, manifest))
	if err != nil {
		return nil
	}
	m := new(Manifest)
	if m.UnmarshalText(data) != nil {
		return nil
	}
	return m
}

// Check reports whether the index is present and fresh, without
// changing anything.
func Check(r *repo.Repo) (*Status, error) {
	st := &Status{}
	ix, err := openCurrent(r)
	if err != nil {
		st.Reason = "no index yet"
		if !errors.Is(err, fs.ErrNotExist) {
			st.Reason = "damaged: " + err.Error()
		}
		// The graph's segments stand apart from the text's.
		m, err := CurrentManifest(r)
		if err != nil {
			return nil, err
		}
		st.Graph = graphStatus(current(r), m)
		return st, nil
	}
	defer ix.Close()
	st.Present, st.Dir, st.Docs = true, Dir(r), ix.Docs()
	if d := ix.code.delta; d != nil {
		st.Delta = d.status()
	}
	if d := ix.narr.delta; d != nil {
		st.NarrativeDelta = d.status()
	}
	cur := current(r)
	if cur[partGraphDelta] != "" && cur[partCodeGraph] != "" {
		if c, err := openCodeGraph(cur[partCodeGraph], cur[partGraphDelta]); err == nil {
			st.GraphDelta, err = c.status()
			c.close()
			if err != nil {
				return nil, err
			}
		}
	}
	m, err := currentManifest(r, ix.Manifest)
	if err != nil {
		return nil, err
	}
	st.Fresh = m.textEqual(ix.Manifest)
	if !st.Fresh {
		st.Reason = staleReason(ix.Manifest, m)
	}
	st.Graph = graphStatus(cur, m)
	return st, nil
}

// graphStatus tells whether the graph segments of dirs match the store
// as m describes it.
func graphStatus(dirs [nDirs]string, m *Manifest) GraphStatus {
	if dirs[partGraph] == "" || dirs[partCodeGraph] == "" {
		return GraphStatus{Reason: "not built yet"}
	}
	code, rest := builtAs(dirs, partCodeGraph), readManifest(dirs[partGraph])
	gs := GraphStatus{Present: true}
	if code != nil {
		gs.Nodes = code.Nodes
	}
	switch {
	case code == nil || rest == nil || code.Tokenizer != m.Tokenizer || rest.Tokenizer != m.Tokenizer:
		gs.Reason = "built by another version of ctx, or damaged"
	case code.Repo != m.Repo:
		gs.Reason = fmt.Sprintf("the repository id changed (%q, built for %q)", m.Repo, code.Repo)
	case !partFresh(partCodeGraph, code, m):
		gs.Reason = "the code changed"
	case !partFresh(partGraph, rest, m):
		gs.Reason = "new commits or narrative files changed"
	default:
		gs.Fresh = true
	}
	return gs
}

func staleReason(old, now *Manifest) string {
	switch {
	case old.Tokenizer != now.Tokenizer:
		return "built by another version of ctx"
	case old.Repo != now.Repo:
		return fmt.Sprintf("the repository id changed (%q, built for %q)", now.Repo, old.Repo)
	case old.Code != now.Code:
		return "the code snapshot changed"
	default:
		return fmt.Sprintf("%d narrative file(s) changed", len(old.ChangedNarrative(now)))
	}
}

// Open returns the index, fresh: when it is missing, damaged or does not
// match the store (a new commit, pulled heads, a narrative file edited),
// the stale segments are rebuilt first. rebuilt reports that some were.
func Open(ctx context.Context, r *repo.Repo, opts BuildOptions) (ix *Index, rebuilt bool, err error) {
	cur, err := openCurrent(r)
	var built *Manifest
	if err == nil {
		built = cur.Manifest
	}
	// A damaged table does not show in a manifest: the text segments are
	// then rebuilt whole.
	damaged := err != nil && !errors.Is(err, fs.ErrNotExist)
	m, err := currentManifest(r, built)
	if err != nil {
		if cur != nil {
			cur.Close()
		}
		return nil, false, err
	}
	if cur != nil {
		if cur.Manifest.textEqual(m) {
			return cur, false, nil
		}
		cur.Close()
	}
	opts.IfStale = !damaged
	return rebuildOrPrivate(ctx, r, m, opts)
}

// rebuildOrPrivate is Rebuild, for a store as m describes it; in a store
// this user cannot write (another user's checkout, a read-only mount), it
// answers from an index built for this process. rebuilt reports that
// some segment was built.
func rebuildOrPrivate(ctx context.Context, r *repo.Repo, m *Manifest, opts BuildOptions) (ix *Index, rebuilt bool, err error) {
	ix, st, err := Rebuild(ctx, r, opts)
	if err != nil && (errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)) {
		ix, err := buildPrivate(ctx, r, m, opts)
		return ix, err == nil, err
	}
	return ix, err == nil && st != nil, err
}

// Damaged reports whether err comes from a damaged index file: a table
// or record that does not decode (which opening the index need not
// notice: it reads only each table's header and footer), or a table of
// another format version.
func Damaged(err error) bool {
	return errors.Is(err, ErrCorrupt) || errors.Is(err, table.ErrCorrupt) || errors.Is(err, table.ErrVersion)
}

// Use opens the index, fresh, and calls fn with it. When the index, or
// fn's reading of it, turns out damaged (Damaged), the text segments are
// rebuilt whole and fn is called once more: the index is derived data,
// and a damaged one never stops a reading command. fn may be called
// twice, so it should return its results rather than print them.
func Use(ctx context.Context, r *repo.Repo, opts BuildOptions, fn func(*Index) error) error {
	ix, _, err := Open(ctx, r, opts)
	if err == nil {
		err = fn(ix)
		ix.Close()
	}
	if !Damaged(err) {
		return err
	}
	m, err := CurrentManifest(r)
	if err != nil {
		return err
	}
	opts.IfStale = false
	if ix, _, err = rebuildOrPrivate(ctx, r, m, opts); err != nil {
		return err
	}
	defer ix.Close()
	return fn(ix)
}

// buildPart writes the segment of one part of the store as m describes
// it into dir, which must not exist. The graph segment extends the code
// graph segment in base.
func buildPart(ctx context.Context, r *repo.Repo, m *Manifest, part int, dir string, base [2]string, vs *versions, opts BuildOptions) (*BuildStats, error) {
	var docs []Doc
	var err error
	pm := &Manifest{Tokenizer: m.Tokenizer, Ref: m.Ref}
	switch part {
	case partCodeGraph:
		pm.Heads, pm.Repo, pm.CodeGraph = m.Heads, m.Repo, m.CodeGraph
		adj, err := collectCodeGraph(ctx, r, m.Heads, vs)
		if err != nil {
			return nil, err
		}
		vs.release()
		pm.Nodes = uint32(len(adj.nodes))
		return writeGraphSegment(dir, adj, pm)
	case partGraph:
		pm.Heads, pm.Repo, pm.CodeGraph = m.Heads, m.Repo, m.CodeGraph
		bg, err := openCodeGraph(base[0], base[1])
		if err != nil {
			return nil, err
		}
		defer bg.close()
		// The history, walked once for the edge batches and the commits.
		history, err := r.Log(ctx, m.Heads, 0)
		if err != nil {
			return nil, fmt.Errorf("index: history: %w", err)
		}
		rr := newRacyRead(m)
		adj, err := collectGraph(ctx, r, rr.space(r.Narrative()), m.Heads, history, bg)
		if err != nil {
			return nil, err
		}
		pm.Narrative = rr.stats(m.Narrative)
		pm.Nodes = adj.first
		st, err := writeGraphSegment(dir, adj, pm)
		if err != nil {
			return nil, err
		}
		return st, writeCommits(history, dir)
	case partCode:
		pm.Heads, pm.Repo, pm.Code, pm.CodeGraph = m.Heads, m.Repo, m.Code, m.CodeGraph
		docs, err = collectCode(ctx, r, m.Heads, vs.get)
		vs.release()
	default:
		rr := newRacyRead(m)
		docs, pm.Hidden, err = collectNarrative(rr.space(r.Narrative()))
		pm.Narrative = rr.stats(m.Narrative)
	}
	if err != nil {
		return nil, err
	}
	return writeSegment(ctx, dir, docs, pm, opts)
}

// buildPrivate builds both segments in a temporary directory outside the
// store and opens them; the files are removed at once (their mappings
// stay valid until Close).
func buildPrivate(ctx context.Context, r *repo.Repo, m *Manifest, opts BuildOptions) (*Index, error) {
	tmp, err := os.MkdirTemp("", "ctx-index-")
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	defer os.RemoveAll(tmp)
	return buildIn(ctx, r, m, tmp, opts)
}

// buildIn builds both text segments in subdirectories of tmp and opens
// them.
func buildIn(ctx context.Context, r *repo.Repo, m *Manifest, tmp string, opts BuildOptions) (*Index, error) {
	var parts [2]textPart
	for part := range []int{partCode, partNarrative} {
		dir := filepath.Join(tmp, partNames[part])
		_, err := buildPart(ctx, r, m, part, dir, [2]string{}, newVersions(r, false), opts)
		if err == nil {
			parts[part], err = openTextPart(dir, "")
		}
		if err != nil {
			parts[partCode].close()
			return nil, err
		}
	}
	return newIndex(parts[partCode], parts[partNarrative]), nil
}

// Rebuild writes new text segments (and with opts.Graph the graph's) and
// makes them current, under the index lock. With opts.IfStale it
// rebuilds only the segments that no longer match the store (none, when
// another process rebuilt them while this one waited for the lock; then
// BuildStats is nil). A crash at any point leaves the old segments
// current, or the new ones complete.
func Rebuild(ctx context.Context, r *repo.Repo, opts BuildOptions) (*Index, *BuildStats, error) {
	st, err := rebuild(ctx, r, opts, [nParts]bool{true, true, opts.Graph, opts.Graph})
	if err != nil {
		return nil, nil, err
	}
	ix, err := openCurrent(r)
	if err != nil {
		return nil, nil, err
	}
	if st != nil {
		st.Docs = ix.Docs()
	}
	return ix, st, nil
}

// rebuild writes the segments of the parts wanted and makes them
// current; the other parts keep theirs.
func rebuild(ctx context.Context, r *repo.Repo, opts BuildOptions, want [nParts]bool) (*BuildStats, error) {
	dir := Dir(r)
	if err := atomicfile.MkdirAll(dir); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	lk, err := lockfile.Acquire(ctx, filepath.Join(dir, lockName), lockfile.Options{
		Timeout: 10 * time.Minute, Holder: lockfile.Holder{PID: os.Getpid(), Command: "ctx: index rebuild"},
	})
	if err != nil {
		return nil, fmt.Errorf("index: lock: %w", err)
	}
	defer lk.Release()
	m, err := CurrentManifest(r)
	if err != nil {
		return nil, err
	}
	// The lock was written as it was taken: its time is the file
	// system's clock before any narrative file was stat or read.
	if m.since, err = fsNow(filepath.Join(dir, lockName)); err != nil {
		return nil, fmt.Errorf("index: lock: %w", err)
	}
	cur := current(r)
	build := want
	for part := range nParts {
		if cur[part] == "" {
			continue
		}
		built := builtAs(cur, part)
		if !want[part] || opts.IfStale && partFresh(part, built, m) {
			build[part] = false
		}
	}
	if build[partCodeGraph] {
		build[partGraph] = want[partGraph] // numbered after the code graph's nodes
	}
	var names, tmps [nDirs]string
	removeTmps := func() {
		for _, t := range tmps {
			if t != "" {
				os.RemoveAll(t)
			}
		}
	}
	newName := func(part int) error {
		var suffix [8]byte
		if _, err := rand.Read(suffix[:]); err != nil {
			return err
		}
		names[part] = segPrefix + hex.EncodeToString(suffix[:])
		tmps[part] = filepath.Join(dir, tmpPrefix+names[part])
		return nil
	}
	// A stale code or narrative segment is brought up to date by a delta
	// segment, and a stale code graph segment by a code graph delta, when
	// the change allows; else it is rebuilt.
	var stats [nDirs]*BuildStats
	var parts []int
	for _, d := range []struct {
		part, delta int
		build       func(dir string) (*BuildStats, error)
	}{
		{partCode, partDelta, func(dir string) (*BuildStats, error) { return buildDelta(ctx, r, m, cur[partCode], dir, opts) }},
		{partNarrative, partNarrDelta, func(dir string) (*BuildStats, error) { return buildNarrDelta(ctx, r, m, cur[partNarrative], dir, opts) }},
		{partCodeGraph, partGraphDelta, func(dir string) (*BuildStats, error) { return buildGraphDelta(ctx, r, m, cur[partCodeGraph], dir) }},
	} {
		if !build[d.part] {
			if cur[d.delta] != "" {
				names[d.delta] = filepath.Base(cur[d.delta])
			}
			continue
		}
		if !opts.IfStale || cur[d.part] == "" {
			continue
		}
		if err := newName(d.delta); err != nil {
			removeTmps()
			return nil, err
		}
		stats[d.delta], err = d.build(tmps[d.delta])
		switch {
		case err == nil:
			build[d.part] = false
			parts = append(parts, d.delta)
		case ctx.Err() != nil:
			removeTmps()
			return nil, ctx.Err()
		default:
			// Too large a change, a base that cannot be read (damaged
			// inside a table, of an older format), or for the code graph
			// a change of the build graphs: the segment is rebuilt,
			// which needs nothing of the base.
			os.RemoveAll(tmps[d.delta])
			names[d.delta], tmps[d.delta] = "", ""
		}
	}
	for _, part := range []int{partCode, partCodeGraph, partGraph, partNarrative} { // the large ones first
		if !build[part] {
			if cur[part] != "" {
				names[part] = filepath.Base(cur[part])
			}
			continue
		}
		if err := newName(part); err != nil {
			removeTmps()
			return nil, err
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return nil, nil // every wanted segment is fresh
	}
	// The code's text and the graph read the same file versions: when
	// both are built, they are decoded once, first, on every core. The
	// parts are then built side by side, so that the one-core phases of
	// each (sorting, writing) overlap.
	vs := newVersions(r, build[partCode] && build[partCodeGraph])
	if vs.keep {
		if err := vs.prefetch(ctx, m.Heads); err != nil {
			return nil, err
		}
	}
	// A job builds its parts in order: the graph segment after the code
	// graph it extends, when both are built.
	var jobs [][]int
	for _, part := range parts {
		if part >= nParts {
			continue // a delta: built
		}
		if part == partGraph && build[partCodeGraph] {
			i := slices.IndexFunc(jobs, func(j []int) bool { return j[0] == partCodeGraph })
			jobs[i] = append(jobs[i], part)
			continue
		}
		jobs = append(jobs, []int{part})
	}
	// The code graph the graph segment extends: as current, or as built.
	base := [2]string{cur[partCodeGraph], cur[partGraphDelta]}
	switch {
	case build[partCodeGraph]:
		base = [2]string{tmps[partCodeGraph], ""}
	case tmps[partGraphDelta] != "":
		base[1] = tmps[partGraphDelta]
	}
	if err := parallel.Do(ctx, len(jobs), func(i int) error {
		for _, part := range jobs[i] {
			o := opts
			if part == partNarrative && build[partCode] {
				o.Progress = nil // the code's bar, not two
			}
			var err error
			if stats[part], err = buildPart(ctx, r, m, part, tmps[part], base, vs, o); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		removeTmps()
		return nil, err
	}
	st := &BuildStats{}
	for part := range nDirs {
		if slices.Contains(parts, part) {
			st.Segments = append(st.Segments, partNames[part])
		}
	}
	for _, part := range parts {
		st.add(stats[part])
		fault.Hit("index.built")
		if err := os.Rename(tmps[part], filepath.Join(dir, names[part])); err != nil {
			removeTmps()
			return nil, fmt.Errorf("index: %w", err)
		}
		tmps[part] = ""
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		return nil, err
	}
	fault.Hit("index.renamed")
	var b strings.Builder
	for part, name := range names {
		if name != "" {
			fmt.Fprintf(&b, "%s %s\n", partNames[part], name)
		}
	}
	if err := atomicfile.Write(filepath.Join(dir, currentFile), []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	fault.Hit("index.current")
	removeOld(dir, names[:])
	return st, nil
}

// removeOld deletes segments other than keep and temporary directories
// left by interrupted rebuilds. A reader that still has an old segment
// open keeps its mapped files.
func removeOld(dir string, keep []string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() || !(strings.HasPrefix(n, segPrefix) || strings.HasPrefix(n, tmpPrefix) || strings.HasPrefix(n, "gen-")) {
			continue
		}
		if !slices.Contains(keep, n) {
			_ = os.RemoveAll(filepath.Join(dir, n))
		}
	}
}

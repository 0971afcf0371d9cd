package pack

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/index"
	"github.com/ctx-dev/ctx/index/text"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// Source is what Build reads.
type Source struct {
	Repo  *repo.Repo
	Index *index.Index
	// Graph is the graph segment the expansion walks; nil skips it.
	Graph *index.GraphIndex
	// Catalog is the working narrative, for the narrative sections; nil
	// leaves them out.
	Catalog *narrative.Catalog
	// Head is the commit the pack is built from (its files' contents);
	// zero when the store has none.
	Head object.ID
}

// The retrieval's fixed parameters. They are general, not fitted to any
// benchmark: how many candidates to read, when a name is too common to
// identify anything, how many files seed the expansion, and when a node
// has too many neighbours to spread through.
const (
	candidates   = 1000 // text hits read
	maxNameCount = 50   // a name declared more often identifies nothing
	seedFiles    = 10   // files whose items seed the expansion
	maxDegree    = 200
)

// Build runs the retrieval pipeline of design §12.2 for task: seeds from
// the full text and from the names the task mentions, expansion through
// the graph, content at span granularity, narrative, and the budget.
func Build(ctx context.Context, src Source, task string, opts Options) (*Pack, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	b := &builder{src: src, opts: opts, files: map[string]*fileCand{}, blobs: map[string]object.ID{}}
	b.query = text.NaturalQuery(task)
	b.query = expandQuery(b.query, src.Index)
	if err := b.seedText(); err != nil {
		return nil, err
	}
	if opts.Where == nil {
		if err := b.seedNames(); err != nil {
			return nil, err
		}
		if err := b.seedRecent(ctx); err != nil {
			return nil, err
		}
		if err := b.rankFiles(); err != nil {
			return nil, err
		}
		if !opts.NoGraph && src.Graph != nil && len(b.ranked) > 0 {
			if err := b.expand(ctx); err != nil {
				return nil, err
			}
			if err := b.rankFiles(); err != nil {
				return nil, err
			}
		}
	}
	p := &Pack{
		Task:         task,
		GraphContext: GraphContext{SeedNodes: b.seedList, ExpandedNodes: b.expanded, ExpansionDepth: b.depth},
		TokenBudget:  TokenBudget{Total: opts.Budget, ReservedForResponse: opts.Reserve},
	}
	if !src.Head.IsZero() {
		p.HeadCommit = src.Head.String()
	}
	if p.GraphContext.SeedNodes == nil {
		p.GraphContext.SeedNodes = []string{}
	}
	if p.GraphContext.ExpandedNodes == nil {
		p.GraphContext.ExpandedNodes = []string{}
	}
	if opts.Explain {
		p.Explain = &Explain{}
		for _, c := range b.query.Clauses {
			if c.Weight > 0 {
				p.Explain.Variants = append(p.Explain.Variants, c.Terms[0])
			} else {
				p.Explain.Terms = append(p.Explain.Terms, c.Terms[0])
			}
		}
	}
	var cands []candidate
	if opts.Where == nil {
		cands = b.codeChunks()
	}
	var recent string
	if opts.IncludeNarrative && src.Catalog != nil {
		cands = append(cands, loaded(b.narrativeChunks(), true)...)
		recent = b.recentLog()
	}
	return fit(p, cands, recent, opts)
}

// builder holds one Build's state.
type builder struct {
	src   Source
	opts  Options
	query text.Query

	files    map[string]*fileCand       // by path
	narr     []hit                      // narrative and diagnostic hits, best first
	ranked   []*fileCand                // files, best first
	blobs    map[string]object.ID       // path → blob at Head, as read
	root     object.ID                  // Head's root tree, once read
	trees    map[object.ID]*object.Tree // read by tree
	sources  map[object.ID][]byte
	mass     float64
	testsOf  map[string][]*fileCand
	maxFused float64

	seedList  []string
	graphNarr []reachedNode // narrative nodes the expansion reached
	expanded  []string
	depth     int
}

// hit is a document the text search returned.
type hit struct {
	doc   uint32
	score float64
	meta  index.Doc
}

// fileCand is a file and the evidence for it.
type fileCand struct {
	path        string
	items       []hit // its items the text matched, best first
	pathScore   float64
	nameScore   float64
	graphScore  float64
	recentScore float64 // recently touched (seedRecent)
	reach       string  // the edge path that reached it, for --explain
	ranks       map[string]int
	fused       float64
	nameOf      []string // the names it declares that the task mentions
}

func (b *builder) file(path string) *fileCand {
	f := b.files[path]
	if f == nil {
		f = &fileCand{path: path, ranks: map[string]int{}}
		b.files[path] = f
	}
	return f
}

// seedText runs the task as a natural-language query and sorts the hits
// into files (items and paths) and narrative.
func (b *builder) seedText() error {
	if len(b.query.Clauses) == 0 {
		return nil
	}
	res, err := b.src.Index.Retrieve(b.query, index.RetrieveOptions{K: candidates, IncludeSuperseded: b.opts.IncludeSuperseded})
	if err != nil {
		return err
	}
	for _, h := range res.Hits {
		d, err := b.src.Index.DocMeta(h.Doc)
		if err != nil {
			return err
		}
		x := hit{doc: h.Doc, score: h.Score, meta: d}
		switch d.Kind {
		case index.DocItem:
			f := b.file(d.Path)
			f.items = append(f.items, x)
		case index.DocFile:
			f := b.file(d.Path)
			f.pathScore = max(f.pathScore, h.Score)
		default:
			b.narr = append(b.narr, x)
		}
	}
	return nil
}

// seedNames credits the files that declare a name the task mentions (a
// word or an identifier equal to an item's last name) with the share of
// the query's information that name carries: its idf over the sum of the
// idf of the query's terms. The share is absolute, not scaled to the best
// file: a task whose only declared name is "use" lends little to the
// files that declare Use.
func (b *builder) seedNames() error {
	for _, c := range b.query.Clauses {
		name := c.Terms[0]
		docs, err := b.src.Index.Lookup("name", name)
		if err != nil {
			return err
		}
		var files []string
		for _, doc := range docs {
			d, err := b.src.Index.DocMeta(doc)
			if err != nil {
				return err
			}
			if d.Kind == index.DocItem && !slices.Contains(files, d.Path) {
				files = append(files, d.Path)
			}
			if len(files) > maxNameCount {
				break
			}
		}
		if len(files) == 0 || len(files) > maxNameCount {
			continue
		}
		w := weight(c) * b.idf(name) / b.queryMass()
		for _, p := range files {
			f := b.file(p)
			f.nameScore += w
			f.nameOf = append(f.nameOf, name)
		}
	}
	return nil
}

type signalDef struct {
	name     string
	score    func(f *fileCand) float64
	absolute bool // scores are on a scale of their own, not divided by the best
}

// idf is the BM25 idf of term in the index.
func (b *builder) idf(term string) float64 {
	_, df := b.src.Index.Postings(term)
	return text.DefaultBM25.IDF(b.src.Index.Stats().Docs, df)
}

// queryMass is the sum of the idf of the query's terms, each times its
// weight: how much a document matching all of them would know.
func (b *builder) queryMass() float64 {
	if b.mass == 0 {
		for _, c := range b.query.Clauses {
			b.mass += float64(weight(c) * b.idf(c.Terms[0]))
		}
	}
	return max(b.mass, 1e-9)
}

// weight is a clause's weight: 1 for a word the query wrote.
func weight(c text.Clause) float64 {
	if c.Weight > 0 {
		return c.Weight
	}
	return 1
}

// signals are the rankings of files that rankFiles fuses.
var signals = []signalDef{
	// The best chunk: a file with one function about the task.
	{name: "chunk", score: func(f *fileCand) float64 {
		if len(f.items) == 0 {
			return 0
		}
		return f.items[0].score
	}},
	// Breadth: a file with many matching chunks, each counting half the
	// one before.
	{name: "chunks", score: func(f *fileCand) float64 {
		s, w := 0.0, 1.0
		for _, it := range f.items {
			s += float64(w * it.score)
			w /= 2
		}
		return s
	}},
	{name: "path", score: func(f *fileCand) float64 { return f.pathScore }},
	{name: "names", score: func(f *fileCand) float64 { return f.nameScore }, absolute: true},
	{name: "graph", score: func(f *fileCand) float64 { return f.graphScore }},
	{name: "recent", score: func(f *fileCand) float64 { return f.recentScore }, absolute: true},
}

// rankFiles orders the files by CombSUM of the signals (Fox and Shaw,
// 1994): each signal's scores are divided by the best file's, and a file
// scores the sum. Unlike reciprocal-rank fusion, which gives the first
// file of every ranking the same credit, a weak match counts for little
// even when few files have any: a common word that happens to name a
// function in two files does not lift both to the top. A test file's
// evidence also counts for the file it tests (subjectOf, when the index
// has that file): a test restates its subject's names and behaviour at
// greater length, and would otherwise outrank the code a task changes.
func (b *builder) rankFiles() error {
	b.testsOf = map[string][]*fileCand{}
	for _, f := range b.files {
		if !isTest(f.path) {
			continue
		}
		subj := subjectOf(f.path)
		if subj == "" {
			continue
		}
		if b.files[subj] == nil {
			docs, err := b.src.Index.Lookup("path", subj)
			if err != nil {
				return err
			}
			if len(docs) == 0 {
				continue
			}
		}
		b.testsOf[subj] = append(b.testsOf[subj], f)
	}
	for subj := range b.testsOf {
		b.file(subj)
	}
	all := make([]*fileCand, 0, len(b.files))
	for _, f := range b.files {
		slices.SortStableFunc(f.items, func(x, y hit) int { return cmp.Or(cmp.Compare(y.score, x.score), cmp.Compare(x.doc, y.doc)) })
		f.fused = 0
		clear(f.ranks)
		all = append(all, f)
	}
	slices.SortFunc(all, func(x, y *fileCand) int { return strings.Compare(x.path, y.path) })
	score := func(s signalDef, f *fileCand) float64 {
		v := s.score(f)
		for _, t := range b.testsOf[f.path] {
			v = max(v, s.score(t))
		}
		return v
	}
	for _, s := range signals {
		var list []*fileCand
		for _, f := range all {
			if score(s, f) > 0 {
				list = append(list, f)
			}
		}
		if len(list) == 0 {
			continue
		}
		slices.SortStableFunc(list, func(x, y *fileCand) int { return cmp.Compare(score(s, y), score(s, x)) })
		top := score(s, list[0])
		if s.absolute {
			top = 1
		}
		for r, f := range list {
			f.ranks[s.name] = r + 1
			f.fused += score(s, f) / top
		}
	}
	slices.SortStableFunc(all, func(x, y *fileCand) int { return cmp.Compare(y.fused, x.fused) })
	b.ranked = all
	b.maxFused = 0
	if len(all) > 0 {
		b.maxFused = all[0].fused
	}
	return nil
}

// tree returns the tree id, read once per pack: the lookups of files at
// Head and the diffs of recent commits walk the same trees.
func (b *builder) tree(id object.ID) (*object.Tree, error) {
	if t := b.trees[id]; t != nil {
		return t, nil
	}
	t := new(object.Tree)
	// A pack is derived, rebuildable data: the lax read of FORMAT.md
	// §4.1 (the id is verified).
	if err := object.GetTypedLax(b.src.Repo.Objects, id, t); err != nil {
		return nil, err
	}
	if b.trees == nil {
		b.trees = map[object.ID]*object.Tree{}
	}
	b.trees[id] = t
	return t, nil
}

// blobOf returns the blob of path at Head.
func (b *builder) blobOf(path string) (object.ID, error) {
	if id, ok := b.blobs[path]; ok {
		return id, nil
	}
	if b.src.Head.IsZero() {
		return object.Zero, fmt.Errorf("pack: no commit to read %s from", path)
	}
	if b.root.IsZero() {
		c, err := b.src.Repo.ReadCommit(b.src.Head)
		if err != nil {
			return object.Zero, err
		}
		b.root = c.RootTree
	}
	id := b.root
	for _, el := range strings.Split(path, "/") {
		t, err := b.tree(id)
		if err != nil {
			return object.Zero, err
		}
		e, ok := t.Lookup(el)
		if !ok {
			return object.Zero, fmt.Errorf("pack: %s is not in commit %s", path, b.src.Head.Short())
		}
		id = e.ID
	}
	b.blobs[path] = id
	return id, nil
}

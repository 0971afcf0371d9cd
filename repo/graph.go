package repo

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/graph/extract"
	"github.com/ctx-dev/ctx/internal/lazyre"
	"github.com/ctx-dev/ctx/internal/parallel"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
)

// EdgeOrigin says where an edge of a Graph comes from: an edge batch and
// the commit listing it, or a narrative file whose node declares it.
type EdgeOrigin struct {
	Batch  *object.ID `json:"batch,omitempty"`
	Commit *object.ID `json:"commit,omitempty"`
	// File and Version are the file whose code declares the edge and its
	// file_version in the semantic snapshot.
	File    string     `json:"file,omitempty"`
	Version *object.ID `json:"file_version,omitempty"`
	// Snapshot and Derived name the build graph or command run an edge
	// is derived from ("build graph go .", "command go test ./...").
	Snapshot *object.ID `json:"snapshot,omitempty"`
	Derived  string     `json:"derived,omitempty"`
	// Narrative is the file (relative to narrative/) of the node that
	// declares the edge: its derived-from header, a supersede, or a
	// mention of a file or symbol in its body.
	Narrative string `json:"narrative,omitempty"`
}

// Graph is the relationship graph at some commits (design §9.4): the edges
// of every edge batch in their ancestry, less those tombstones removed,
// and the edges the narrative declares.
type Graph struct {
	*graph.Graph
	// Heads are the commits whose batches the graph holds.
	Heads []object.ID
	// Catalog is the narrative whose declared edges the graph holds.
	Catalog *narrative.Catalog
	// Removed counts the edges tombstones removed.
	Removed int
	// Batches counts the edge batches read.
	Batches int

	edges   []graph.Edge
	origins []EdgeOrigin
	narr    map[object.ID]*narrative.Node // graph id of a narrative node → the node
	names   map[object.ID]*narrative.Node // GraphOptions.Names, for Describe
	items   map[object.ID]itemInfo        // code items of the semantic snapshots
	diags   map[object.ID]diagInfo        // diagnostics of the latest command runs
	root    string                        // the project root
	repoID  string

	// While Graph builds it: the file versions of the semantic
	// snapshots, their items by file once itemAt asked, and with
	// GraphOptions.NoEvidence the graph so far, of the code's edges and
	// edges[:coded].
	fvs     []*extract.FileVersion
	byFile  map[string][]*extract.FileVersion
	builder *graph.Builder
	coded   int
}

// Origin returns where edge e comes from.
func (g *Graph) Origin(e int32) EdgeOrigin { return g.origins[g.Source(e)] }

// itemInfo is what a semantic snapshot says of an item.
type itemInfo struct {
	kind extract.ItemKind
	path string
	line uint32
}

// itemAt returns the key of the innermost item of a file spanning a line.
func (g *Graph) itemAt(path string, line uint32) (string, error) {
	if g.byFile == nil {
		g.byFile = map[string][]*extract.FileVersion{}
		for _, fv := range g.fvs {
			g.byFile[fv.Path] = append(g.byFile[fv.Path], fv)
		}
	}
	return ItemAt(g.byFile[path], line), nil
}

// ItemAt returns the key of the innermost item spanning a line among the
// items of fvs (a file's versions, in the order the graph reads them:
// by head, each version once); of equal spans, the first. "" for none.
func ItemAt(fvs []*extract.FileVersion, line uint32) string {
	best, size := "", uint32(0)
	for _, fv := range fvs {
		for _, it := range fv.Items {
			if s := it.Span; line >= s.StartLine && line <= s.EndLine && (best == "" || s.EndLine-s.StartLine < size) {
				best, size = it.Key, s.EndLine-s.StartLine
			}
		}
	}
	return best
}

// NarrativeNode returns the narrative node a graph node stands for, if it
// is one the catalog has.
func (g *Graph) NarrativeNode(id object.ID) *narrative.Node { return g.narr[id] }

// Describe returns a node as it is shown: its kind, the key it derives
// from, and for a narrative node its current type, title and state.
func (g *Graph) Describe(n graph.NodeID) NodeInfo {
	info := NodeInfo{ID: n.ID, Kind: n.Kind, Key: n.Key}
	if i, ok := g.Lookup(n.ID); ok && info.Key == "" {
		info.Key = g.Node(i).Key
	}
	if it, ok := g.items[n.ID]; ok {
		info.Title = fmt.Sprintf("%s at %s:%d", it.kind, it.path, it.line)
	}
	if d, ok := g.diags[n.ID]; ok {
		info.Title = string(d.severity)
		if d.code != "" {
			info.Title += " " + d.code
		}
		info.Title += ": " + d.message + " (" + d.command + ")"
	}
	if nn := g.names[n.ID]; nn != nil {
		info.Kind = graph.NarrativeNode(string(nn.Type), string(nn.ID)).Kind
		info.Key, info.Title = string(nn.ID), nn.Title
	}
	if nn := g.narr[n.ID]; nn != nil {
		info.Kind = graph.NarrativeNode(string(nn.Type), string(nn.ID)).Kind
		info.Key, info.Title = string(nn.ID), nn.Title
		switch {
		case nn.Deleted:
			info.State = "deleted"
		case nn.SupersededBy != "":
			info.State = "superseded"
		}
	}
	return info
}

// NodeInfo is a node as commands show it.
type NodeInfo struct {
	ID    object.ID      `json:"id"`
	Kind  graph.NodeKind `json:"kind"`
	Key   string         `json:"key,omitempty"`
	Title string         `json:"title,omitempty"`
	State string         `json:"state,omitempty"` // "deleted" or "superseded" for such narrative nodes
}

// Name is how the node is written: kind:key ("task:8kq2m4x7ab",
// "file:src/main.go"), a commit by its short id.
func (n NodeInfo) Name() string {
	return graph.NodeID{Kind: n.Kind, ID: n.ID, Key: n.Key}.Name()
}

// GraphOptions configure Repo.Graph.
type GraphOptions struct {
	// At are the commits whose graph to build; none means the effective
	// heads of the ref HEAD names.
	At []object.ID
	// Catalog is the narrative whose declared edges join the graph; nil
	// means the working narrative when At is empty, and the narrative the
	// commits recorded otherwise.
	Catalog *narrative.Catalog
	// NoNarrative leaves the narrative's edges out.
	NoNarrative bool
	// NoCode leaves out the edges of the commits' snapshots: code, build
	// graphs and diagnostics, by far the most edges of an ingested
	// project. None of them touches a narrative node, so a caller that
	// wants only the edges between narrative nodes (ctx view render's
	// "Depends on") gets them all, faster. A narrative node's mention of
	// a code item becomes an edge only if an edge batch has the item.
	NoCode bool
	// NoBatches leaves out the edges of edge batches (and so their
	// tombstones): with NoNarrative, the graph is the heads' snapshots'
	// alone, which the index keeps apart from the rest because it changes
	// only with the code.
	NoBatches bool
	// Item resolves a narrative node's mention of a code item the graph
	// itself lacks (with NoCode): the index looks it up in its code graph.
	Item func(key string) (graph.NodeID, bool)
	// Names is a narrative consulted only to describe nodes Catalog lacks
	// (their type and title): the working narrative, when the graph is
	// that of an old commit, which records only the narrative committed
	// by then while edge batches name nodes committed later.
	Names *narrative.Catalog
	// FileVersion, if set, reads the file versions of the semantic
	// snapshots instead of object.GetTyped: the index shares one decoding
	// between its text and its graph. It is called from several
	// goroutines at once, and must not change what it returns.
	FileVersion func(object.ID) (*extract.FileVersion, error)
	// History, if set, is r.Log of At (every entry, newest first), which
	// the caller read already: the edge batches are read from it rather
	// than walking the history again.
	History []*Entry
	// NoEvidence builds the adjacency alone, for a caller that reads
	// only nodes, edge ends, labels and confidences (the index, whose
	// code graph has a million edges): the code's edges are numbered as
	// they are read, per file, and never made graph.Edge values. The
	// graph's Edge then returns nil, Origin and View must not be called,
	// and Describe does not title code items. Needs NoNarrative (or
	// NoCode): a narrative's mention of a code item is resolved among
	// the graph's edges.
	NoEvidence bool
}

// Validate reports options that contradict each other.
func (o *GraphOptions) Validate() error {
	if o.NoEvidence && !o.NoNarrative && !o.NoCode {
		return fmt.Errorf("%w: graph options NoEvidence without NoNarrative", ErrInvalidArgument)
	}
	return nil
}

// Graph builds the relationship graph at some commits. An edge batch's
// tombstones remove the edges with the same from, to and label that its
// commit could see: those of the commit's ancestors and of batches listed
// before it in the same commit. An edge added on another line of history
// and merged in later survives (add wins), so merges never lose an edge
// a teammate asserted without seeing the unlink (docs/FORMAT.md §4.5).
func (r *Repo) Graph(ctx context.Context, opts GraphOptions) (*Graph, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	heads := opts.At
	working := len(heads) == 0
	if working {
		var err error
		if _, heads, err = r.WorkingHeads(); err != nil {
			return nil, err
		}
	}
	g := &Graph{Heads: heads, root: r.ProjectRoot(), repoID: r.Config.Repo.ID, narr: map[object.ID]*narrative.Node{},
		items: map[object.ID]itemInfo{}, diags: map[object.ID]diagInfo{}}
	if !opts.NoBatches {
		if err := r.batchEdges(ctx, g, opts.History); err != nil {
			return nil, err
		}
	}
	if !opts.NoCode {
		if err := r.codeEdges(ctx, g, opts.FileVersion, opts.NoEvidence); err != nil {
			return nil, err
		}
		if err := r.buildEdges(g); err != nil {
			return nil, err
		}
		if err := r.diagnosticEdges(g); err != nil {
			return nil, err
		}
	}
	cat := opts.Catalog
	if cat == nil {
		var err error
		if working {
			cat, err = r.Narrative().Load()
		} else {
			cat, err = r.CatalogAt(ctx, heads...)
		}
		if err != nil {
			return nil, err
		}
	}
	g.Catalog = cat
	for _, id := range cat.IDs() {
		n := cat.Nodes[id]
		g.narr[graph.NarrativeNode(string(n.Type), string(n.ID)).ID] = n
	}
	if opts.Names != nil {
		g.names = map[object.ID]*narrative.Node{}
		for _, id := range opts.Names.IDs() {
			n := opts.Names.Nodes[id]
			if gid := graph.NarrativeNode(string(n.Type), string(n.ID)).ID; g.narr[gid] == nil {
				g.names[gid] = n
			}
		}
	}
	if !opts.NoNarrative {
		g.narrativeEdges(opts.Item)
	}
	g.fvs, g.byFile = nil, nil
	if g.builder == nil {
		g.Graph = graph.New(g.edges)
		return g, nil
	}
	// NoEvidence: the edges after the code's join it, and none is kept.
	addEdges(g.builder, g.edges[g.coded:])
	g.Graph = g.builder.Graph(nil)
	g.edges, g.origins, g.builder = nil, nil, nil
	return g, nil
}

// addEdges adds edges to b as graph.New does.
func addEdges(b *graph.Builder, edges []graph.Edge) {
	for i := range edges {
		e := &edges[i]
		if e.Label.Valid() { // no nodes for an edge the graph leaves out
			from := b.Node(e.From)
			b.Add(from, b.Node(e.To), e.Label, e.Evidence.Confidence)
		}
	}
}

// ProjectRoot returns the directory the store belongs to: the parent of
// .ctx. Paths of file nodes are relative to it.
func (r *Repo) ProjectRoot() string { return filepath.Dir(r.Root) }

// added is an edge some batch added, with where.
type added struct {
	commit, batch int // index of the commit in history; position of the batch in it
	key           graph.EdgeKey
}

// batchEdges reads every edge batch in the history of g.Heads (history,
// when not nil: r.Log of them), oldest commit first, and applies their
// tombstones.
func (r *Repo) batchEdges(ctx context.Context, g *Graph, history []*Entry) error {
	entries := slices.Clone(history)
	if history == nil {
		var err error
		if entries, err = r.Log(ctx, g.Heads, 0); err != nil {
			return err
		}
	}
	slices.Reverse(entries) // oldest first: the first among equal edges is the original assertion
	index := make(map[object.ID]int, len(entries))
	for i, e := range entries {
		index[e.ID] = i
	}
	type tomb struct {
		commit, batch int
		key           graph.EdgeKey
	}
	type job struct {
		commit, batch int
		id            object.ID
	}
	var jobs []job
	for ci, e := range entries {
		if e.Commit == nil {
			continue
		}
		for bi, bid := range e.Commit.EdgeBatches {
			jobs = append(jobs, job{ci, bi, bid})
		}
	}
	// Decoding is most of the cost: spread it over the cores.
	batches := make([]*graph.EdgeBatch, len(jobs))
	errs := make([]error, len(jobs))
	// Each job keeps its error, so that the first failing batch in order,
	// not in time, is the one reported.
	if err := parallel.Do(ctx, len(jobs), func(i int) error {
		batches[i], errs[i] = r.ReadEdgeBatch(jobs[i].id)
		return nil
	}); err != nil {
		return err
	}
	total := 0
	for i, b := range batches {
		if errs[i] != nil {
			return fmt.Errorf("edge batch %s of commit %s: %w", jobs[i].id.Short(), entries[jobs[i].commit].ID.Short(), errs[i])
		}
		total += len(b.Edges)
	}
	g.Batches = len(batches)
	g.edges = make([]graph.Edge, 0, total)
	g.origins = make([]EdgeOrigin, 0, total)
	adds := make([]added, 0, total)
	var tombs []tomb
	for i, b := range batches {
		j := jobs[i]
		batch, commit := j.id, entries[j.commit].ID
		for k := range b.Edges {
			g.edges = append(g.edges, b.Edges[k])
			g.origins = append(g.origins, EdgeOrigin{Batch: &batch, Commit: &commit})
			adds = append(adds, added{j.commit, j.batch, b.Edges[k].Key()})
		}
		for k := range b.Tombstones {
			tombs = append(tombs, tomb{j.commit, j.batch, b.Tombstones[k].Key()})
		}
		batches[i] = nil // let the decoded batch go
	}
	if len(tombs) == 0 {
		return nil
	}
	byKey := make(map[graph.EdgeKey][]int)
	for i, a := range adds {
		byKey[a.key] = append(byKey[a.key], i)
	}
	parents := make([][]int, len(entries))
	for i, e := range entries {
		for _, p := range e.Parents() {
			if j, ok := index[p]; ok {
				parents[i] = append(parents[i], j)
			}
		}
	}
	ancestors := map[int][]bool{} // per tombstoning commit: its strict ancestors
	removed := make([]bool, len(adds))
	for _, t := range tombs {
		anc, ok := ancestors[t.commit]
		if !ok {
			anc = make([]bool, len(entries))
			stack := slices.Clone(parents[t.commit])
			for len(stack) > 0 {
				c := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if !anc[c] {
					anc[c] = true
					stack = append(stack, parents[c]...)
				}
			}
			ancestors[t.commit] = anc
		}
		for _, a := range byKey[t.key] {
			if anc[adds[a].commit] || adds[a].commit == t.commit && adds[a].batch < t.batch {
				removed[a] = true
			}
		}
	}
	keep := 0
	for i := range g.edges {
		if removed[i] {
			g.Removed++
			continue
		}
		g.edges[keep], g.origins[keep] = g.edges[i], g.origins[i]
		keep++
	}
	g.edges, g.origins = g.edges[:keep], g.origins[:keep]
	return nil
}

// ReadEdgeBatch reads an edge batch.
func (r *Repo) ReadEdgeBatch(id object.ID) (*graph.EdgeBatch, error) {
	_, payload, err := r.Objects.Get(id)
	if err != nil {
		return nil, err
	}
	name, err := object.TypeOf(payload)
	if err != nil {
		return nil, &object.Error{Op: "decode", ID: id, Path: object.RelPath(id), Err: err}
	}
	if name != "edge_batch" {
		return nil, fmt.Errorf("%w: %s is a %s, not an edge_batch", ErrWrongTarget, id.Short(), name)
	}
	b := new(graph.EdgeBatch)
	if err := object.Decode(payload, b); err != nil {
		return nil, &object.Error{Op: "decode", ID: id, Path: object.RelPath(id), Err: err}
	}
	return b, nil
}

// narrativeEdges adds the edges the narrative declares: derived_from from a
// node to each node of its derived-from header, supersedes from the node
// that replaced another to it, and mentions from a node to each file of
// the project and each symbol already in the graph that its body names in
// a code span or link. Deleted nodes declare nothing.
func (g *Graph) narrativeEdges(lookup func(string) (graph.NodeID, bool)) {
	items := map[string]graph.NodeID{}
	for _, e := range g.edges {
		for _, n := range []graph.NodeID{e.From, e.To} {
			if n.Kind == graph.NodeItem && n.Key != "" {
				items[n.Key] = n
			}
		}
	}
	human := graph.Evidence{Tool: graph.ToolHuman, Confidence: graph.High}
	parsed := graph.Evidence{Tool: graph.ToolParser, Confidence: graph.Medium}
	cat := g.Catalog
	add := func(n *narrative.Node, from, to graph.NodeID, l graph.Label, ev graph.Evidence) {
		g.edges = append(g.edges, graph.Edge{From: from, To: to, Label: l, Evidence: ev})
		g.origins = append(g.origins, EdgeOrigin{Narrative: n.Path})
	}
	for _, id := range cat.IDs() {
		n := cat.Nodes[id]
		if n.Deleted {
			continue
		}
		self := graph.NarrativeNode(string(n.Type), string(n.ID))
		for _, d := range n.DerivedFrom {
			if src, ok := cat.Nodes[d]; ok {
				add(n, self, graph.NarrativeNode(string(src.Type), string(src.ID)), graph.DerivedFrom, human)
			}
		}
		if by, ok := cat.Nodes[n.SupersededBy]; ok && !by.Deleted {
			// The supersede event is in the replaced node's file.
			add(n, graph.NarrativeNode(string(by.Type), string(by.ID)), self, graph.Supersedes, human)
		}
		seen := map[string]bool{}
		for _, m := range n.Mentions {
			item, ok := items[m]
			if !ok && lookup != nil {
				item, ok = lookup(m)
			}
			if ok && !seen["item:"+m] {
				seen["item:"+m] = true
				add(n, self, item, graph.Mentions, parsed)
				continue
			}
			p, ok := mentionedPath(g.root, m)
			if ok && !seen["file:"+p] {
				seen["file:"+p] = true
				add(n, self, graph.FileNode(g.repoID, p), graph.Mentions, parsed)
			}
		}
	}
}

// lineSuffix matches a position after a file name: ":12", ":12:5",
// "#L12", "#L12-L20".
var lineSuffix = lazyre.New(`(:\d+(:\d+)?|#L\d+(-L?\d+)?)$`)

// mentionedPath returns the project path a mention names, if it is a
// regular file of the project ("src/main.go", "./src/main.go:12").
func mentionedPath(root, m string) (string, bool) {
	m = lineSuffix.ReplaceAllString(strings.TrimSpace(m), "")
	if m == "" || strings.ContainsAny(m, " \t\n`\\") || strings.Contains(m, "://") {
		return "", false
	}
	p := path.Clean(strings.TrimPrefix(m, "./"))
	if !filepath.IsLocal(filepath.FromSlash(p)) || p == ".ctx" || strings.HasPrefix(p, ".ctx/") {
		return "", false
	}
	st, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
	if err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	return p, true
}

// codeEdges adds the edges of the code of the heads' semantic snapshots:
// those of every file version (a head's code graph is that of its files,
// not of its history). After a git merge left several heads, the union
// of theirs.
func (r *Repo) codeEdges(ctx context.Context, g *Graph, load func(object.ID) (*extract.FileVersion, error), noEvidence bool) error {
	if load == nil {
		load = func(id object.ID) (*extract.FileVersion, error) {
			fv := new(extract.FileVersion)
			return fv, object.GetTyped(r.Objects, id, fv)
		}
	}
	seen := map[object.ID]bool{}
	var versions []object.ID
	var paths []string
	for _, h := range g.Heads {
		c, err := r.ReadCommit(h)
		if err != nil {
			return err
		}
		if c.SemanticSnapshot == nil {
			continue
		}
		list, err := object.ListTree(r.Objects, *c.SemanticSnapshot, "")
		if err != nil {
			return fmt.Errorf("semantic snapshot of %s: %w", h.Short(), err)
		}
		// In path order: the graph numbers nodes and edges as it meets
		// them, and of two equal edges keeps the first, so a map's order
		// would make it differ from run to run.
		for _, p := range slices.Sorted(maps.Keys(list)) {
			if e := list[p]; e.Kind == object.EntryTyped && !seen[e.ID] {
				seen[e.ID] = true
				versions = append(versions, e.ID)
				paths = append(paths, p)
			}
		}
	}
	// Decoding and deriving the edges is most of the work: every core
	// takes versions; the order of the result stays theirs.
	fvs := make([]*extract.FileVersion, len(versions))
	var ids [][]graph.NodeID // with noEvidence: the graph nodes of each file's node table
	if noEvidence {
		ids = make([][]graph.NodeID, len(versions))
	}
	if err := parallel.Do(ctx, len(versions), func(i int) error {
		fv, err := load(versions[i])
		if err != nil {
			return fmt.Errorf("file version of %s: %w", paths[i], err)
		}
		fvs[i] = fv
		if ids != nil {
			ids[i] = make([]graph.NodeID, len(fv.Nodes))
			for k, n := range fv.Nodes {
				ids[i][k] = n.ID(g.repoID)
			}
		}
		return nil
	}); err != nil {
		return err
	}
	g.fvs = fvs
	n := 0
	for _, fv := range fvs {
		n += len(fv.Edges)
	}
	if noEvidence {
		g.builder = graph.NewBuilder(len(g.edges) + n)
		addEdges(g.builder, g.edges)
		g.coded = len(g.edges)
		g.addCode(ids)
		return nil
	}
	// Every file's edges go straight to their place in g.edges, sized
	// once: a million edges are not worth copying twice.
	start := make([]int, len(fvs)+1)
	start[0] = len(g.edges)
	for i, fv := range fvs {
		start[i+1] = start[i] + len(fv.Edges)
	}
	g.edges = slices.Grow(g.edges, n)[:start[len(fvs)]]
	g.origins = slices.Grow(g.origins, n)[:start[len(fvs)]]
	if err := parallel.Do(ctx, len(fvs), func(i int) error {
		lo, hi := start[i], start[i+1]
		fvs[i].GraphEdges(g.edges[lo:lo:hi], g.repoID)
		origin := EdgeOrigin{File: fvs[i].Path, Version: &versions[i]}
		for k := lo; k < hi; k++ {
			g.origins[k] = origin
		}
		return nil
	}); err != nil {
		return err
	}
	for _, fv := range fvs {
		for _, it := range fv.Items {
			g.items[graph.ItemNode(g.repoID, it.Key).ID] = itemInfo{kind: it.Kind, path: fv.Path, line: it.Span.StartLine}
		}
	}
	return nil
}

// addCode adds the edges of the file versions g.fvs to g.builder, in
// order, as addEdges would add them made graph.Edge values: ids are the
// graph nodes of each file's node table, numbered once per file.
func (g *Graph) addCode(ids [][]graph.NodeID) {
	b := g.builder
	var num []int32 // a node of the file's table → its number; -1 before its first edge
	for i, fv := range g.fvs {
		num = slices.Grow(num[:0], len(fv.Nodes))[:len(fv.Nodes)]
		for k := range num {
			num[k] = -1
		}
		node := func(k uint32) int32 {
			if num[k] < 0 {
				num[k] = b.Node(ids[i][k])
			}
			return num[k]
		}
		for _, e := range fv.Edges {
			if e.Label.Valid() {
				from := node(e.From)
				b.Add(from, node(e.To), e.Label, e.Confidence)
			}
		}
		ids[i] = nil
	}
}

// Targets returns the narrative nodes the narrative node id has an edge
// to with the label: what view.Render asks for its "Depends on" lines.
func (g *Graph) Targets(id narrative.ID, label string) []narrative.ID {
	// A narrative node's graph id derives from its id alone: the type
	// given here does not matter.
	i, ok := g.Lookup(graph.NarrativeNode("", string(id)).ID)
	if !ok {
		return nil
	}
	var out []narrative.ID
	for _, x := range g.Out(i) {
		if string(g.Label(x)) != label {
			continue
		}
		_, to := g.Ends(x)
		if n := g.NarrativeNode(g.Node(to).ID); n != nil {
			out = append(out, n.ID)
		}
	}
	return out
}

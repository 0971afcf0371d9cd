package index

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/index/reader"
	"github.com/ctx-dev/ctx/index/table"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// The files of the graph segment (docs/INDEX.md, "Adjacency").
const (
	nodesFile = "nodes.tbl" // kind "nodes": node number (u32 big-endian) → 32-byte id | str kind | str key
	adjFile   = "adj.tbl"   // kind "adj": direction and confidence byte | node number (u32 BE) | label → neighbour numbers (uvarint deltas)
	nsGraph   = 'g'         // keys: node name ("kind:key") → its node number
)

// adjacency is a graph segment's part of the graph, numbered: the
// code graph's nodes from 0, or the nodes the graph segment adds, from
// first (the code graph's node count). Its edges are by node numbers of
// both.
type adjacency struct {
	first  uint32
	nodes  []graph.NodeID // by number less first: sorted by kind, key, id
	labels []graph.Label  // sorted; adjEdge.label indexes it
	// out and in hold the edges by confidence (high, medium, low), each
	// list sorted and distinct: node, label, then other; in is seen from
	// the other end.
	out, in [3][]adjEdge
	// mult, of a code graph, holds the edges asserted more than once,
	// sorted by from, to and label name (mult.tbl); nil for a graph
	// segment.
	mult []multEdge
}

// multEdge is an edge of the code graph asserted more than once: how
// often, by confidence rank (low counting those of none).
type multEdge struct {
	from, to uint32
	label    graph.Label
	n        [3]uint32
}

// The first byte of an adj.tbl key: the direction and the confidence of
// the edges listed. Keys sort by it, then node, then label.
var (
	dirOut = [3]byte{'o', 'p', 'q'} // high, medium, low
	dirIn  = [3]byte{'i', 'j', 'k'}
)

// confRank is a confidence's index in graph.Confidences (0 high).
func confRank(c graph.Confidence) int {
	switch c {
	case graph.High:
		return 0
	case graph.Medium:
		return 1
	}
	return 2
}

// adjEdge is an edge seen from node: its label, and the node at the
// other end.
type adjEdge struct {
	node, other uint32
	label       uint32
}

// collectCodeGraph builds the graph of the heads' snapshots (code,
// build graphs, diagnostics) and numbers its nodes from 0.
func collectCodeGraph(ctx context.Context, r *repo.Repo, heads []object.ID, vs *versions) (*adjacency, error) {
	g, err := r.Graph(ctx, repo.GraphOptions{At: heads, Catalog: narrative.CatalogOf(nil), NoNarrative: true, NoBatches: true, NoEvidence: true, FileVersion: vs.get})
	if err != nil {
		return nil, fmt.Errorf("index: code graph: %w", err)
	}
	return number(g, 0, nil)
}

// collectGraph builds the rest of the graph of the heads (whose history
// is r.Log of them) and the working narrative (edge batches with their
// tombstones, the edges the narrative declares), as ctx edges sees it
// together with the code graph base, and numbers the nodes base lacks
// after base's.
func collectGraph(ctx context.Context, r *repo.Repo, sp *narrative.Space, heads []object.ID, history []*repo.Entry, base *codeGraph) (*adjacency, error) {
	cat, err := sp.Load()
	if err != nil {
		return nil, err
	}
	var lookupErr error
	item := func(key string) (graph.NodeID, bool) {
		n, ok, err := base.lookup(graph.NodeID{Kind: graph.NodeItem, Key: key}.Name())
		if err == nil && ok {
			var id graph.NodeID
			if id, err = base.node(n); err == nil {
				return id, true
			}
		}
		if err != nil && lookupErr == nil {
			lookupErr = err
		}
		return graph.NodeID{}, false
	}
	g, err := r.Graph(ctx, repo.GraphOptions{At: heads, Catalog: cat, NoCode: true, Item: item, History: history})
	if err != nil {
		return nil, fmt.Errorf("index: graph: %w", err)
	}
	if lookupErr != nil {
		return nil, lookupErr
	}
	return number(g, base.count, base)
}

// number numbers the nodes of g that base (nil: none) lacks from first,
// sorted by kind, key and id, and lists g's edges by number.
func number(g *repo.Graph, first uint32, base *codeGraph) (*adjacency, error) {
	n := g.Len()
	num := make([]uint32, n)
	var order []uint32
	for i := int32(0); i < int32(n); i++ {
		if base != nil {
			k, ok, err := base.lookupID(g.Node(i))
			if err != nil {
				return nil, err
			}
			if ok {
				num[i] = k
				continue
			}
		}
		order = append(order, uint32(i))
	}
	// In nodeOrder: by kind, key, then id.
	sortKinded(order,
		func(i uint32) string { return string(g.Node(int32(i)).Kind) },
		func(i uint32) string { return g.Node(int32(i)).Key },
		func(x, y uint32) int {
			if c := g.Node(int32(x)).ID.Compare(g.Node(int32(y)).ID); c != 0 {
				return c
			}
			return cmp.Compare(x, y)
		})
	a := &adjacency{first: first, nodes: make([]graph.NodeID, len(order))}
	for k, i := range order {
		num[i] = first + uint32(k)
		a.nodes[k] = g.Node(int32(i))
	}
	// Labels are numbered in their order, so that sorting by number
	// sorts the table's keys; per edge, by the index in graph.Labels.
	var used [256]bool
	m := int32(g.EdgeCount())
	var count [3]int
	for e := range m {
		used[g.LabelIndex(e)] = true
		count[confRank(g.Confidence(e))]++
	}
	for i, l := range graph.Labels {
		if used[i] {
			a.labels = append(a.labels, l)
		}
	}
	slices.Sort(a.labels)
	var label [256]uint32
	for i, l := range graph.Labels {
		if used[i] {
			label[i] = uint32(slices.Index(a.labels, l))
		}
	}
	for c := range 3 {
		a.out[c] = make([]adjEdge, 0, count[c])
		a.in[c] = make([]adjEdge, 0, count[c])
	}
	// The lists sort by node, label and other: node by node in the
	// order of their numbers, each node's few edges sorted by label and
	// other, rather than a million edges sorted at once.
	var byNum []int32
	if base == nil {
		// The code graph's numbers follow order.
		byNum = make([]int32, len(order))
		for k, i := range order {
			byNum[k] = int32(i)
		}
	} else {
		byNum = make([]int32, n)
		for i := range byNum {
			byNum[i] = int32(i)
		}
		slices.SortFunc(byNum, func(x, y int32) int { return cmp.Compare(num[x], num[y]) })
	}
	var edges [3][]uint64 // of one node, by confidence: label << 32 | other
	list := func(lists *[3][]adjEdge, node uint32, adj []int32, other func(int32) int32) {
		for c := range edges {
			edges[c] = edges[c][:0]
		}
		for _, e := range adj {
			c := confRank(g.Confidence(e))
			edges[c] = append(edges[c], uint64(label[g.LabelIndex(e)])<<32|uint64(num[other(e)]))
		}
		for c, es := range edges {
			slices.Sort(es)
			for k, x := range es {
				if k == 0 || x != es[k-1] {
					lists[c] = append(lists[c], adjEdge{node: node, label: uint32(x >> 32), other: uint32(x)})
				}
			}
		}
	}
	to := func(e int32) int32 { _, t := g.Ends(e); return t }
	from := func(e int32) int32 { f, _ := g.Ends(e); return f }
	for _, i := range byNum {
		list(&a.out, num[i], g.Out(i), to)
		list(&a.in, num[i], g.In(i), from)
	}
	if base == nil {
		rep := g.Repeated()
		a.mult = make([]multEdge, 0, len(rep))
		for _, e := range rep {
			n := g.Assertions(e)
			f, t := g.Ends(e)
			a.mult = append(a.mult, multEdge{from: num[f], to: num[t], label: graph.Labels[g.LabelIndex(e)], n: [3]uint32{n[0], n[1], n[2] + n[3]}})
		}
		slices.SortFunc(a.mult, func(x, y multEdge) int {
			return cmp.Or(cmp.Compare(x.from, y.from), cmp.Compare(x.to, y.to), strings.Compare(string(x.label), string(y.label)))
		})
	}
	return a, nil
}

// writeGraphSegment writes a graph segment into dir, which must not
// exist: nodes.tbl, adj.tbl, keys.tbl (node names) and the manifest.
func writeGraphSegment(dir string, a *adjacency, m *Manifest) (*BuildStats, error) {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	// The nodes are numbered in nodeOrder, by kind then key, which is the
	// order of their names ("kind:key") but for nodes without a key: a
	// keyRun, which spills into the table at the first name out of order.
	keys := newKeyTable()
	run := newKeyRun(keys, len(a.nodes), 48) // 45 bytes a name on Go's tree
	if err := a.write(dir, run); err != nil {
		return nil, err
	}
	if err := keys.writeWith(dir, run); err != nil {
		return nil, err
	}
	if err := writeManifest(dir, m); err != nil {
		return nil, err
	}
	return &BuildStats{Keys: keys.len() + run.len(), Bytes: filesBytes(dir, nodesFile, adjFile, keysFile, manifest)}, nil
}

// write writes nodes.tbl and adj.tbl into dir and adds the node names to
// keys.
func (a *adjacency) write(dir string, keys *keyRun) error {
	nodesOut, err := newTableFile(filepath.Join(dir, nodesFile), "nodes")
	if err != nil {
		return err
	}
	defer nodesOut.abort()
	var k [4]byte
	var v []byte
	for i, n := range a.nodes {
		num := a.first + uint32(i)
		binary.BigEndian.PutUint32(k[:], num)
		v = appendNode(v[:0], n)
		if err := nodesOut.w.Add(k[:], v); err != nil {
			return err
		}
		keys.addName(n.AppendName(append(keys.buf[:0], nsGraph)), num)
	}
	if err := nodesOut.close(); err != nil {
		return err
	}
	adjOut, err := newTableFile(filepath.Join(dir, adjFile), "adj")
	if err != nil {
		return err
	}
	defer adjOut.abort()
	// Keys sort by direction and confidence ('i' 'j' 'k' 'o' 'p' 'q'),
	// node, then label: the order of the lists.
	var list []uint32
	var kb []byte
	for _, d := range []struct {
		dir   byte
		edges []adjEdge
	}{{dirIn[0], a.in[0]}, {dirIn[1], a.in[1]}, {dirIn[2], a.in[2]}, {dirOut[0], a.out[0]}, {dirOut[1], a.out[1]}, {dirOut[2], a.out[2]}} {
		for i := 0; i < len(d.edges); {
			e := d.edges[i]
			list = list[:0]
			for ; i < len(d.edges) && d.edges[i].node == e.node && d.edges[i].label == e.label; i++ {
				list = append(list, d.edges[i].other)
			}
			kb = append(binary.BigEndian.AppendUint32(append(kb[:0], d.dir), e.node), a.labels[e.label]...)
			if err := adjOut.w.Add(kb, table.AppendUvarintDeltas(v[:0], list)); err != nil {
				return err
			}
		}
	}
	if err := adjOut.close(); err != nil {
		return err
	}
	if a.mult == nil {
		return nil
	}
	multOut, err := newTableFile(filepath.Join(dir, multFile), "mult")
	if err != nil {
		return err
	}
	defer multOut.abort()
	for _, e := range a.mult {
		kb = append(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(kb[:0], e.from), e.to), e.label...)
		v = v[:0]
		for _, n := range e.n {
			v = binary.AppendUvarint(v, uint64(n))
		}
		if err := multOut.w.Add(kb, v); err != nil {
			return err
		}
	}
	return multOut.close()
}

// appendNode appends a nodes.tbl value: the node's id, kind and key.
func appendNode(v []byte, n graph.NodeID) []byte {
	v = append(v, n.ID[:]...)
	v = reader.AppendString(v, string(n.Kind))
	return reader.AppendString(v, n.Key)
}

// Neighbor is a node next to another in the graph.
type Neighbor struct {
	Label graph.Label
	Node  graph.NodeID
}

// graphPart is an open graph or code graph segment.
type graphPart struct {
	nodes, adj, keys *table.Table
	count            uint32 // its manifest's Nodes: of a code graph, its nodes
}

func (p *graphPart) close() error {
	var errs []error
	for _, t := range []*table.Table{p.nodes, p.adj, p.keys} {
		if t != nil {
			errs = append(errs, t.Close())
		}
	}
	return errors.Join(errs...)
}

// openGraphPart opens the adjacency tables of a graph or code graph
// segment, whose manifest (readManifest of dir) is m.
func openGraphPart(dir string, m *Manifest) (*graphPart, error) {
	if m == nil {
		if _, err := os.Stat(filepath.Join(dir, manifest)); errors.Is(err, fs.ErrNotExist) {
			// Removed by a rebuild since CURRENT was read: not damage.
			return nil, fmt.Errorf("index: graph segment %s: %w", filepath.Base(dir), err)
		}
		return nil, fmt.Errorf("%w: graph segment %s has no manifest", ErrCorrupt, filepath.Base(dir))
	}
	p := &graphPart{count: m.Nodes}
	if err := openTables(dir, []tableSpec{{Name: nodesFile, Kind: "nodes", T: &p.nodes}, {Name: adjFile, Kind: "adj", T: &p.adj}, {Name: keysFile, Kind: "keys", T: &p.keys}}); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// lookup returns the first node named name.
func (p *graphPart) lookup(name string) (uint32, bool, error) { return first(p.named(name)) }

// first returns the first of nums; false when there is none or err.
func first(nums []uint32, err error) (uint32, bool, error) {
	if err != nil || len(nums) == 0 {
		return 0, false, err
	}
	return nums[0], true, nil
}

// named returns the nodes named name.
func (p *graphPart) named(name string) ([]uint32, error) {
	v, ok := p.keys.Get(append([]byte{nsGraph}, name...))
	if !ok {
		return nil, p.keys.Err()
	}
	nums, err := table.DecodeUvarintDeltas(nil, v)
	if err != nil || len(nums) == 0 {
		return nil, fmt.Errorf("%w: graph key %q", ErrCorrupt, name)
	}
	return nums, nil
}

// lookupID returns the number of node id.
func (p *graphPart) lookupID(id graph.NodeID) (uint32, bool, error) {
	return lookupID(p.named, p.node, id)
}

// lookupID returns the number of node id among the nodes named its name
// (named), whose ids node gives.
func lookupID(named func(string) ([]uint32, error), node func(uint32) (graph.NodeID, error), id graph.NodeID) (uint32, bool, error) {
	nums, err := named(id.Name())
	if err != nil {
		return 0, false, err
	}
	for _, n := range nums {
		got, err := node(n)
		if err != nil {
			return 0, false, err
		}
		if got.ID == id.ID {
			return n, true, nil
		}
	}
	return 0, false, nil
}

// node returns node n, which this part must hold.
func (p *graphPart) node(n uint32) (graph.NodeID, error) {
	var k [4]byte
	binary.BigEndian.PutUint32(k[:], n)
	v, ok := p.nodes.Get(k[:])
	if !ok || len(v) < object.IDSize {
		if err := p.nodes.Err(); err != nil {
			return graph.NodeID{}, err
		}
		return graph.NodeID{}, fmt.Errorf("%w: no node %d", ErrCorrupt, n)
	}
	var id graph.NodeID
	copy(id.ID[:], v)
	kind, rest, err := reader.ReadString(v[object.IDSize:])
	if err != nil {
		return graph.NodeID{}, err
	}
	id.Kind = graph.NodeKind(kind)
	id.Key, _, err = reader.ReadString(rest)
	return id, err
}

// adjacent appends to res the neighbours of n this part lists, out of it
// or into it, over the labels given (none: all), by edges of confidence
// rank c.
func (p *graphPart) adjacent(res []Adjacency, n NodeNum, dir byte, labels []graph.Label) ([]Adjacency, error) {
	var prefix [5]byte
	prefix[0] = dir
	binary.BigEndian.PutUint32(prefix[1:], n)
	it := p.adj.Prefix(prefix[:])
	for it.Next() {
		lb := it.Key()[5:]
		if len(lb) == 0 {
			continue // a delta's mark of the lists it replaces
		}
		if len(labels) > 0 && !slices.ContainsFunc(labels, func(l graph.Label) bool { return string(l) == string(lb) }) {
			continue
		}
		label := graph.Label(strings.Clone(string(lb)))
		var d table.DeltaIter
		d.Reset(it.Value())
		for d.Next() {
			res = append(res, Adjacency{Label: label, Node: d.Value()})
		}
		if err := d.Err(); err != nil {
			return nil, fmt.Errorf("%w: adjacency: %v", ErrCorrupt, err)
		}
	}
	return res, it.Err()
}

// GraphIndex is the open graph: the adjacency of the heads' graph in two
// segments, the code graph and the graph segment that extends it, and
// the history's commits.
type GraphIndex struct {
	code    *codeGraph
	rest    *graphPart
	commits *table.Table
}

// Close unmaps the tables.
func (gx *GraphIndex) Close() error {
	var errs []error
	if gx.code != nil {
		errs = append(errs, gx.code.close())
	}
	if gx.rest != nil {
		errs = append(errs, gx.rest.close())
	}
	if gx.commits != nil {
		errs = append(errs, gx.commits.Close())
	}
	return errors.Join(errs...)
}

// openGraph opens the graph segment and the code graph segment it
// extends that dirs name (current's), whose manifests are ms.
func openGraph(dirs [nDirs]string, ms [nParts]*Manifest) (*GraphIndex, error) {
	gx := &GraphIndex{}
	dir := dirs[partGraph]
	var err error
	if gx.code, err = openCodeGraph(dirs[partCodeGraph], dirs[partGraphDelta]); err == nil {
		if gx.rest, err = openGraphPart(dir, ms[partGraph]); err == nil {
			err = openTables(dir, []tableSpec{{Name: commitsFile, Kind: "commits", T: &gx.commits}})
		}
	}
	if err == nil && gx.code.count != gx.rest.count {
		err = fmt.Errorf("%w: the graph segment extends a code graph of %d nodes, not %d", ErrCorrupt, gx.rest.count, gx.code.count)
	}
	if err != nil {
		gx.Close()
		return nil, err
	}
	return gx, nil
}

// OpenGraph returns the graph, fresh: its segments built, under the
// index lock, when missing or stale. The code graph is rebuilt only when
// the heads' snapshots changed; a commit of notes or edges rebuilds the
// small graph segment alone. The graph is not part of what a search
// needs, so only its first user pays for it.
func OpenGraph(ctx context.Context, r *repo.Repo) (*GraphIndex, error) {
	// The code segment's manifest (or its delta's) has the code keys of
	// its heads: when they are still the heads, no commit need be read.
	dirs := current(r)
	var built *Manifest
	if dirs[partCode] != "" {
		built = builtAs(dirs, partCode)
	}
	m, err := currentManifest(r, built)
	if err != nil {
		return nil, err
	}
	// graphParts returns the manifests of the graph segments of dirs;
	// false when either is missing.
	graphParts := func(dirs [nDirs]string) (ms [nParts]*Manifest, ok bool) {
		if dirs[partGraph] == "" || dirs[partCodeGraph] == "" {
			return ms, false
		}
		ms[partGraph], ms[partCodeGraph] = readManifest(dirs[partGraph]), builtAs(dirs, partCodeGraph)
		return ms, true
	}
	// Fresh segments that do not open are damaged (a manifest does not
	// show it): both are then rebuilt whole.
	stale := true
	if ms, ok := graphParts(dirs); ok && partFresh(partGraph, ms[partGraph], m) && partFresh(partCodeGraph, ms[partCodeGraph], m) {
		gx, err := openGraph(dirs, ms)
		if err == nil {
			return gx, nil
		}
		stale = errors.Is(err, fs.ErrNotExist)
	}
	if _, err := rebuild(ctx, r, BuildOptions{IfStale: stale}, [nParts]bool{partGraph: true, partCodeGraph: true}); err != nil {
		return nil, err
	}
	dirs = current(r)
	ms, ok := graphParts(dirs)
	if !ok {
		return nil, fmt.Errorf("%w: no graph segment after a rebuild", ErrCorrupt)
	}
	return openGraph(dirs, ms)
}

// Neighbors returns the nodes next to the node named name ("kind:key",
// as graph.NodeID.Name gives it: "item:net/http.Client.Do",
// "file:net/http/client.go", "task:8kq2m4x7ab") in the graph of the
// heads and the narrative, out of it or into it, over the labels given
// (none: all), at any confidence. Neighbours come sorted by label, then
// node.
func (gx *GraphIndex) Neighbors(name string, out bool, labels ...graph.Label) ([]Neighbor, error) {
	n, ok, err := gx.Lookup(name)
	if err != nil || !ok {
		return nil, err
	}
	adj, err := gx.Adjacent(n, out, graph.Low, labels...)
	if err != nil {
		return nil, err
	}
	res := make([]Neighbor, len(adj))
	for i, a := range adj {
		node, err := gx.Node(a.Node)
		if err != nil {
			return nil, err
		}
		res[i] = Neighbor{Label: a.Label, Node: node}
	}
	return res, nil
}

// NodeNum is a node's number in the graph segment: what Adjacent takes
// and returns, so that a walk decodes only the nodes it keeps.
type NodeNum = uint32

// Adjacency is a neighbour by number.
type Adjacency struct {
	Label graph.Label
	Node  NodeNum
}

// Lookup returns the number of the node named name; false if the graph
// has no such node.
func (gx *GraphIndex) Lookup(name string) (NodeNum, bool, error) {
	if n, ok, err := gx.code.lookup(name); err != nil || ok {
		return n, ok, err
	}
	return gx.rest.lookup(name)
}

// Adjacent returns the neighbours of node n, out of it or into it, over
// the labels given (none: all), by edges of confidence min or higher,
// sorted by label, then number, each once.
func (gx *GraphIndex) Adjacent(n NodeNum, out bool, min graph.Confidence, labels ...graph.Label) ([]Adjacency, error) {
	dirs := dirIn
	if out {
		dirs = dirOut
	}
	var res []Adjacency
	lists := 0
	for c := 0; c <= confRank(min); c++ {
		for _, p := range []interface {
			adjacent([]Adjacency, NodeNum, byte, []graph.Label) ([]Adjacency, error)
		}{gx.code, gx.rest} {
			if p == gx.code && n >= gx.code.count {
				continue // a node of the graph segment: no code edges
			}
			k := len(res)
			var err error
			if res, err = p.adjacent(res, n, dirs[c], labels); err != nil {
				return nil, err
			}
			if len(res) > k {
				lists++
			}
		}
	}
	if lists > 1 {
		// Lists of several confidences or segments: one order, each
		// neighbour once.
		slices.SortFunc(res, func(x, y Adjacency) int {
			return cmp.Or(strings.Compare(string(x.Label), string(y.Label)), cmp.Compare(x.Node, y.Node))
		})
		res = slices.Compact(res)
	}
	return res, nil
}

// Node returns node n of the graph.
func (gx *GraphIndex) Node(n NodeNum) (graph.NodeID, error) {
	if n < gx.code.count {
		return gx.code.node(n)
	}
	return gx.rest.node(n)
}

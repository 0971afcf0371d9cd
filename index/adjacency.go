package index

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/index/table"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// The files of the graph segment (docs/INDEX.md, "Adjacency").
const (
	nodesFile = "nodes.tbl" // kind "nodes": node number (u32 big-endian) → 32-byte id | str kind | str key
	adjFile   = "adj.tbl"   // kind "adj": direction and confidence byte | node number (u32 BE) | label → neighbour numbers (uvarint deltas)
	nsGraph   = 'g'         // keys: node name ("kind:key") → its node number
)

// adjacency is the commit-recorded graph of the heads, numbered.
type adjacency struct {
	nodes  []graph.NodeID // by number: sorted by kind, key, id
	labels []graph.Label  // sorted; adjEdge.label indexes it
	// out and in hold the edges by confidence (high, medium, low), each
	// list sorted and distinct: node, label, then other; in is seen from
	// the other end.
	out, in [3][]adjEdge
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

func (e adjEdge) compare(f adjEdge) int {
	switch {
	case e.node != f.node:
		return cmp.Compare(e.node, f.node)
	case e.label != f.label:
		return cmp.Compare(e.label, f.label)
	}
	return cmp.Compare(e.other, f.other)
}

// collectAdjacency builds the whole graph of the heads and the working
// narrative (edge batches, code, build graphs, diagnostics, and the
// edges the narrative declares), as ctx edges sees it, and numbers its
// nodes deterministically.
func collectAdjacency(ctx context.Context, r *repo.Repo, heads []object.ID, vs *versions) (*adjacency, error) {
	cat, err := r.Narrative().Load()
	if err != nil {
		return nil, err
	}
	g, err := r.Graph(ctx, repo.GraphOptions{At: heads, Catalog: cat, FileVersion: vs.get})
	if err != nil {
		return nil, fmt.Errorf("index: graph: %w", err)
	}
	n := g.Len()
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	sort.Slice(order, func(a, b int) bool {
		x, y := g.Node(order[a]), g.Node(order[b])
		if x.Kind != y.Kind {
			return x.Kind < y.Kind
		}
		if x.Key != y.Key {
			return x.Key < y.Key
		}
		return x.ID.Compare(y.ID) < 0
	})
	num := make([]uint32, n)
	a := &adjacency{nodes: make([]graph.NodeID, n)}
	for k, i := range order {
		num[i] = uint32(k)
		a.nodes[k] = g.Node(i)
	}
	// Labels are numbered in their order, so that sorting by number
	// sorts the table's keys.
	label := map[graph.Label]uint32{}
	for i := int32(0); i < int32(n); i++ {
		for _, e := range g.Out(i) {
			label[g.Edge(e).Label] = 0
		}
	}
	for l := range label {
		a.labels = append(a.labels, l)
	}
	slices.Sort(a.labels)
	for i, l := range a.labels {
		label[l] = uint32(i)
	}
	for i := int32(0); i < int32(n); i++ {
		for _, e := range g.Out(i) {
			edge := g.Edge(e)
			to, ok := g.Lookup(edge.To.ID)
			if !ok {
				continue
			}
			l, c := label[edge.Label], confRank(edge.Evidence.Confidence)
			a.out[c] = append(a.out[c], adjEdge{node: num[i], label: l, other: num[to]})
			a.in[c] = append(a.in[c], adjEdge{node: num[to], label: l, other: num[i]})
		}
	}
	for c := range 3 {
		for _, l := range []*[]adjEdge{&a.out[c], &a.in[c]} {
			slices.SortFunc(*l, adjEdge.compare)
			*l = slices.Compact(*l)
		}
	}
	return a, nil
}

// writeGraphSegment writes a graph segment into dir, which must not
// exist: nodes.tbl, adj.tbl, keys.tbl (node names) and the manifest.
func writeGraphSegment(dir string, a *adjacency, m *Manifest) (*BuildStats, error) {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	keys := map[string][]uint32{}
	if err := a.write(dir, keys); err != nil {
		return nil, err
	}
	if err := writeKeys(dir, keys); err != nil {
		return nil, err
	}
	if err := writeManifest(dir, m); err != nil {
		return nil, err
	}
	return &BuildStats{Keys: len(keys), Bytes: filesBytes(dir, nodesFile, adjFile, keysFile, manifest)}, nil
}

// write writes nodes.tbl and adj.tbl into dir and adds the node names to
// keys.
func (a *adjacency) write(dir string, keys map[string][]uint32) error {
	nodesOut, err := newTableFile(filepath.Join(dir, nodesFile), "nodes")
	if err != nil {
		return err
	}
	defer nodesOut.abort()
	var k [4]byte
	var v []byte
	for i, n := range a.nodes {
		binary.BigEndian.PutUint32(k[:], uint32(i))
		v = append(v[:0], n.ID[:]...)
		v = appendString(v, string(n.Kind))
		v = appendString(v, n.Key)
		if err := nodesOut.w.Add(k[:], v); err != nil {
			return err
		}
		keys[string(nsGraph)+n.Name()] = append(keys[string(nsGraph)+n.Name()], uint32(i))
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
	return adjOut.close()
}

// Neighbor is a node next to another in the graph.
type Neighbor struct {
	Label graph.Label
	Node  graph.NodeID
}

// GraphIndex is the open graph segment: the adjacency of the heads'
// commit-recorded graph.
type GraphIndex struct {
	dir     string
	nodes   *table.Table
	adj     *table.Table
	keys    *table.Table
	commits *table.Table
}

// Close unmaps the tables.
func (gx *GraphIndex) Close() error {
	var errs []error
	for _, t := range []*table.Table{gx.nodes, gx.adj, gx.keys, gx.commits} {
		if t != nil {
			errs = append(errs, t.Close())
		}
	}
	return errors.Join(errs...)
}

func openGraphSegment(dir string) (*GraphIndex, error) {
	gx := &GraphIndex{dir: dir}
	if err := openTables(dir, []tableSpec{{nodesFile, "nodes", &gx.nodes}, {adjFile, "adj", &gx.adj}, {keysFile, "keys", &gx.keys}, {commitsFile, "commits", &gx.commits}}); err != nil {
		gx.Close()
		return nil, err
	}
	return gx, nil
}

// OpenGraph returns the graph segment, fresh: built, under the index
// lock, when it is missing or the heads moved since it was. It is not
// part of what a search needs, so only its first user pays for it.
func OpenGraph(ctx context.Context, r *repo.Repo) (*GraphIndex, error) {
	m, err := CurrentManifest(r)
	if err != nil {
		return nil, err
	}
	if dir := current(r)[partGraph]; dir != "" && partFresh(partGraph, readManifest(dir), m) {
		if gx, err := openGraphSegment(dir); err == nil {
			return gx, nil
		}
	}
	if _, err := rebuild(ctx, r, BuildOptions{IfStale: true}, [3]bool{false, false, true}); err != nil {
		return nil, err
	}
	dir := current(r)[partGraph]
	if dir == "" {
		return nil, fmt.Errorf("%w: no graph segment after a rebuild", ErrCorrupt)
	}
	return openGraphSegment(dir)
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
	v, ok := gx.keys.Get(append([]byte{nsGraph}, name...))
	if !ok {
		return 0, false, gx.keys.Err()
	}
	nums, err := table.DecodeUvarintDeltas(nil, v)
	if err != nil || len(nums) == 0 {
		return 0, false, fmt.Errorf("%w: graph key %q", ErrCorrupt, name)
	}
	return nums[0], true, nil
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
	for c := 0; c <= confRank(min); c++ {
		var prefix [5]byte
		prefix[0] = dirs[c]
		binary.BigEndian.PutUint32(prefix[1:], n)
		it := gx.adj.Prefix(prefix[:])
		for it.Next() {
			lb := it.Key()[5:]
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
		if err := it.Err(); err != nil {
			return nil, err
		}
	}
	if confRank(min) > 0 {
		// Lists of several confidences: one order, each neighbour once.
		slices.SortFunc(res, func(x, y Adjacency) int {
			return cmp.Or(strings.Compare(string(x.Label), string(y.Label)), cmp.Compare(x.Node, y.Node))
		})
		res = slices.Compact(res)
	}
	return res, nil
}

// Node returns node n of the graph.
func (gx *GraphIndex) Node(n NodeNum) (graph.NodeID, error) { return gx.node(n) }

// node returns node n of the graph.
func (gx *GraphIndex) node(n uint32) (graph.NodeID, error) {
	var k [4]byte
	binary.BigEndian.PutUint32(k[:], n)
	v, ok := gx.nodes.Get(k[:])
	if !ok || len(v) < object.IDSize {
		return graph.NodeID{}, fmt.Errorf("%w: no node %d", ErrCorrupt, n)
	}
	var id graph.NodeID
	copy(id.ID[:], v)
	r := &recordReader{b: v[object.IDSize:]}
	id.Kind = graph.NodeKind(r.string())
	id.Key = r.string()
	return id, r.err
}

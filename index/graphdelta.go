package index

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/graph/diag"
	"github.com/ctx-dev/ctx/graph/extract"
	"github.com/ctx-dev/ctx/index/table"
	"github.com/ctx-dev/ctx/internal/parallel"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// A code graph delta segment brings the code graph segment (its base) up
// to a change of the code in time proportional to the change, as a delta
// segment does the code's text (docs/INDEX.md, "Code graph deltas"). It
// holds the nodes the change added, names the base's nodes it removed
// (dead), and replaces the adjacency lists the change touched, whole.
// Readers number the base's live nodes and the delta's merged in node
// order, which is exactly a full build's numbering, so every lookup and
// walk answers as a full build's would.
//
// What makes it exact: the code graph is the union of the edges its
// asserters (the file versions of the semantic snapshots, the build
// graphs, the command runs) add, an edge kept once at the highest
// confidence it was added with. The base's mult.tbl counts the
// assertions of every edge added more than once; any other edge was
// added once, at the confidence of the list that holds it. A delta
// subtracts the assertions of the file versions the change removed, adds
// those of the versions it added, and so knows every edge's confidence
// after the change without reading the files it did not touch.

// A code graph delta may hold, nodes added, removed and with replaced
// lists together, up to its base's nodes divided by graphDeltaShare, plus
// graphDeltaSlack. Variables for tests.
var graphDeltaShare, graphDeltaSlack = 8, 256

// multFile is the code graph segment's table of repeated edges: from
// (u32 big-endian) | to (u32 big-endian) | label → uv assertions at high,
// medium and low (or no) confidence.
const multFile = "mult.tbl"

// codeGraph is the code graph as readers number it: the code graph
// segment's nodes, or, with a delta, the base's live nodes and the
// delta's, merged in node order (kind, key, id).
type codeGraph struct {
	base  *graphPart
	delta *graphPart // nil without a delta; its nodes are numbered as here
	dead  []uint32   // base nodes the delta removed: sorted, distinct
	ins   []uint32   // per delta node, in order: the base nodes before it
	runs  runList    // the base's live nodes by runs of consecutive numbers
	count uint32     // nodes
}

func (c *codeGraph) close() error {
	errs := []error{c.base.close()}
	if c.delta != nil {
		errs = append(errs, c.delta.close())
	}
	return errors.Join(errs...)
}

// openCodeGraph opens the code graph segment in dir, with the delta
// segment in deltaDir unless that is "".
func openCodeGraph(dir, deltaDir string) (_ *codeGraph, err error) {
	base, err := openGraphPart(dir, readManifest(dir))
	if err != nil {
		return nil, err
	}
	c := &codeGraph{base: base, count: base.count}
	if deltaDir == "" {
		return c, nil
	}
	defer func() {
		if err != nil {
			c.close()
		}
	}()
	dm := readManifest(deltaDir)
	if dm != nil && dm.Base != filepath.Base(dir) {
		return nil, fmt.Errorf("%w: code graph delta of %s, not of %s", ErrCorrupt, dm.Base, filepath.Base(dir))
	}
	if c.delta, err = openGraphPart(deltaDir, dm); err != nil {
		return nil, err
	}
	var tbl *table.Table // read here only: its lists are decoded
	if err := openTables(deltaDir, []tableSpec{{Name: deltaFile, Kind: "delta", T: &tbl}}); err != nil {
		return nil, err
	}
	defer tbl.Close()
	nb := base.count
	if c.dead, c.ins, err = deadAndIns(tbl, "code graph delta", nb); err != nil {
		return nil, err
	}
	if uint64(nb)-uint64(len(c.dead))+uint64(len(c.ins)) != uint64(dm.Nodes) {
		return nil, fmt.Errorf("%w: code graph delta: %d nodes, not %d", ErrCorrupt, uint64(nb)-uint64(len(c.dead))+uint64(len(c.ins)), dm.Nodes)
	}
	c.runs = baseRuns(nb, c.dead, c.ins)
	c.count = dm.Nodes
	return c, nil
}

// fromBase returns base node b's number in the code graph; false when the
// delta removed it.
func (c *codeGraph) fromBase(b uint32) (uint32, bool) {
	if c.delta == nil {
		return b, true
	}
	return c.runs.FromBase(b)
}

// toBase returns node v's number in the base; false when it is the
// delta's.
func (c *codeGraph) toBase(v uint32) (uint32, bool) {
	if c.delta == nil {
		return v, true
	}
	return c.runs.ToBase(v)
}

// named returns the nodes named name, in increasing order.
func (c *codeGraph) named(name string) ([]uint32, error) {
	nums, err := c.base.named(name)
	if err != nil || c.delta == nil {
		return nums, err
	}
	live := nums[:0]
	for _, b := range nums {
		if v, ok := c.fromBase(b); ok {
			live = append(live, v)
		}
	}
	added, err := c.delta.named(name)
	if err != nil {
		return nil, err
	}
	out := append(live, added...)
	slices.Sort(out)
	return out, nil
}

// lookup returns the first node named name.
func (c *codeGraph) lookup(name string) (uint32, bool, error) { return first(c.named(name)) }

// lookupID returns the number of node id.
func (c *codeGraph) lookupID(id graph.NodeID) (uint32, bool, error) {
	return lookupID(c.named, c.node, id)
}

// node returns node v, which must be below c.count.
func (c *codeGraph) node(v uint32) (graph.NodeID, error) {
	if b, ok := c.toBase(v); ok {
		return c.base.node(b)
	}
	return c.delta.node(v)
}

// adjacent appends to res the neighbours of node v by the lists of the
// direction and confidence byte dir, over the labels given (none: all):
// the delta's lists when it replaced them, else the base's.
func (c *codeGraph) adjacent(res []Adjacency, v NodeNum, dir byte, labels []graph.Label) ([]Adjacency, error) {
	if c.delta != nil {
		var key [5]byte
		key[0] = dir
		binary.BigEndian.PutUint32(key[1:], v)
		if _, ok := c.delta.adj.Get(key[:]); ok {
			return c.delta.adjacent(res, v, dir, labels)
		}
		if err := c.delta.adj.Err(); err != nil {
			return nil, err
		}
	}
	b, ok := c.toBase(v)
	if !ok {
		return res, nil // a node of the delta: its lists are all there
	}
	k := len(res)
	res, err := c.base.adjacent(res, b, dir, labels)
	if err != nil || c.delta == nil {
		return res, err
	}
	for i := k; i < len(res); i++ {
		if res[i].Node, ok = c.fromBase(res[i].Node); !ok {
			return nil, fmt.Errorf("%w: code graph delta: an edge to a removed node", ErrCorrupt)
		}
	}
	return res, nil
}

// status says what the delta holds; nil without one.
func (c *codeGraph) status() (*GraphDeltaStatus, error) {
	if c.delta == nil {
		return nil, nil
	}
	st := &GraphDeltaStatus{Nodes: len(c.ins), Removed: len(c.dead)}
	seen := map[uint32]bool{}
	it := c.delta.adj.All()
	for it.Next() {
		if k := it.Key(); len(k) == 5 && !seen[binary.BigEndian.Uint32(k[1:])] {
			seen[binary.BigEndian.Uint32(k[1:])] = true
			st.Lists++
		}
	}
	return st, it.Err()
}

// edgeKey is an edge of the code graph as its asserters name it.
type edgeKey struct {
	from, to object.ID
	label    graph.Label
}

// dirsOf is the adj.tbl key bytes of a direction, by confidence: out of
// a node (0), into it (1).
var dirsOf = [2][3]byte{dirOut, dirIn}

// listEdit moves a neighbour of a node between lists: out of the list of
// confidence rank from, into that of rank to (3: none).
type listEdit struct {
	label    graph.Label
	other    object.ID
	from, to int
}

// adjEntry is a key and value of a delta's adj.tbl.
type adjEntry struct{ key, val []byte }

// nodeRef is a neighbour while a delta is built: a base node by number,
// or a node the delta adds, by id.
type nodeRef struct {
	base  bool
	num   uint32
	added object.ID
}

// buildGraphDelta writes into dir, which must not exist, the code graph
// delta segment that brings the code graph segment in baseDir up to the
// store as m describes it; errNoDelta when the change is not one a delta
// can hold (too large, or of the build graphs or command runs).
func buildGraphDelta(ctx context.Context, r *repo.Repo, m *Manifest, baseDir, dir string) (*BuildStats, error) {
	bm := readManifest(baseDir)
	// A new repository id changes every node: no delta.
	if bm == nil || bm.Tokenizer != m.Tokenizer || bm.CodeGraph.IsZero() || bm.Base != "" || bm.Repo != m.Repo {
		return nil, errNoDelta
	}
	base, err := openGraphPart(baseDir, bm)
	if err != nil {
		return nil, err
	}
	defer base.close()
	var mult *table.Table
	if err := openTables(baseDir, []tableSpec{{Name: multFile, Kind: "mult", T: &mult}}); err != nil {
		return nil, err
	}
	defer mult.Close()
	was, err := readCommits(r, bm.Heads)
	if err != nil {
		return nil, err
	}
	now, err := readCommits(r, m.Heads)
	if err != nil {
		return nil, err
	}
	// The build graphs: the same, or a full build.
	buildOf := func(c *object.Commit) *object.ID { return c.BuildSnapshot }
	if !slices.Equal(snapshotIDs(was, buildOf), snapshotIDs(now, buildOf)) {
		return nil, errNoDelta
	}
	budget := int(base.count)/graphDeltaShare + graphDeltaSlack
	removed, added, err := changedVersions(r, was, now, budget)
	if err != nil {
		return nil, err
	}
	// The assertions the change takes away and adds, by edge.
	as, err := changedAssertions(ctx, r, was, now, bm.Heads, m.Heads, removed, added)
	if err != nil {
		return nil, err
	}
	change, nodes := as.change, as.nodes
	if len(change) > 8*budget {
		return nil, errNoDelta
	}

	// The base's number of each node met; false for a new one.
	type baseNum struct {
		num uint32
		ok  bool
	}
	inBase := map[object.ID]baseNum{}
	numOf := func(id object.ID) (baseNum, error) {
		if b, ok := inBase[id]; ok {
			return b, nil
		}
		n, ok, err := base.lookupID(nodes[id])
		if err != nil {
			return baseNum{}, err
		}
		inBase[id] = baseNum{n, ok}
		return inBase[id], nil
	}
	// Each changed edge's assertions before the change: mult.tbl's for a
	// repeated one, else one at the confidence of the list that holds it.
	lists := map[string][]uint32{}
	baseList := func(dir byte, node uint32, label graph.Label) ([]uint32, error) {
		key := string(append(binary.BigEndian.AppendUint32([]byte{dir}, node), label...))
		if l, ok := lists[key]; ok {
			return l, nil
		}
		v, ok := base.adj.Get([]byte(key))
		if !ok {
			return nil, base.adj.Err()
		}
		l, err := table.DecodeUvarintDeltas(nil, v)
		if err != nil {
			return nil, fmt.Errorf("%w: adjacency: %v", ErrCorrupt, err)
		}
		lists[key] = l
		return l, nil
	}
	edits := map[object.ID]*[2][]listEdit{} // by node: out of it, into it
	editOf := func(id object.ID) *[2][]listEdit {
		e := edits[id]
		if e == nil {
			e = new([2][]listEdit)
			edits[id] = e
		}
		return e
	}
	keys := slices.SortedFunc(maps.Keys(change), func(a, b edgeKey) int {
		return cmp.Or(a.from.Compare(b.from), a.to.Compare(b.to), strings.Compare(string(a.label), string(b.label)))
	})
	for _, k := range keys {
		from, err := numOf(k.from)
		if err != nil {
			return nil, err
		}
		to, err := numOf(k.to)
		if err != nil {
			return nil, err
		}
		var was [3]int
		if from.ok && to.ok {
			label := k.label
			key := append(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, from.num), to.num), label...)
			if v, ok := mult.Get(key); ok {
				if was, err = decodeAssertions(v); err != nil {
					return nil, err
				}
			} else if err := mult.Err(); err != nil {
				return nil, err
			} else {
				for c := range 3 {
					l, err := baseList(dirOut[c], from.num, label)
					if err != nil {
						return nil, err
					}
					if _, found := slices.BinarySearch(l, to.num); found {
						was[c] = 1
						break
					}
				}
			}
		}
		d := change[k]
		oldRank, newRank := 3, 3
		for c := 2; c >= 0; c-- {
			if was[c]+d[c] < 0 {
				return nil, fmt.Errorf("%w: code graph: an edge removed more often than it was added", ErrCorrupt)
			}
			if was[c] > 0 {
				oldRank = c
			}
			if was[c]+d[c] > 0 {
				newRank = c
			}
		}
		if oldRank == newRank {
			continue // its lists stay
		}
		fe, te := editOf(k.from), editOf(k.to)
		fe[0] = append(fe[0], listEdit{label: k.label, other: k.to, from: oldRank, to: newRank})
		te[1] = append(te[1], listEdit{label: k.label, other: k.from, from: oldRank, to: newRank})
	}

	// The touched nodes' new lists, by direction, confidence and label.
	type nodeLists struct {
		id      object.ID
		touched [2]bool
		lists   [2][3]map[graph.Label][]nodeRef
	}
	touched := make([]*nodeLists, 0, len(edits))
	var dead []uint32
	var fresh []graph.NodeID // the nodes the delta adds
	for _, id := range slices.SortedFunc(maps.Keys(edits), object.ID.Compare) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := numOf(id)
		if err != nil {
			return nil, err
		}
		nl := &nodeLists{id: id}
		alive := false
		for d, es := range edits[id] {
			dirs := dirsOf[d]
			if len(es) == 0 {
				// Untouched: the base's lists stay, if it has any.
				if b.ok && !alive {
					for _, dir := range dirs {
						it := base.adj.Prefix(binary.BigEndian.AppendUint32([]byte{dir}, b.num))
						if it.Next() {
							alive = true
						}
						if err := it.Err(); err != nil {
							return nil, err
						}
					}
				}
				continue
			}
			nl.touched[d] = true
			for c, dir := range dirs {
				ls := map[graph.Label][]nodeRef{}
				if b.ok {
					var adj []Adjacency
					if adj, err = base.adjacent(nil, b.num, dir, nil); err != nil {
						return nil, err
					}
					for _, a := range adj {
						ls[a.Label] = append(ls[a.Label], nodeRef{base: true, num: a.Node})
					}
				}
				nl.lists[d][c] = ls
			}
			for _, e := range es {
				o, err := numOf(e.other)
				if err != nil {
					return nil, err
				}
				ref := nodeRef{base: o.ok, num: o.num}
				if !o.ok {
					ref = nodeRef{added: e.other}
				}
				label := e.label
				if e.from < 3 {
					l := nl.lists[d][e.from][label]
					i := slices.Index(l, ref)
					if i < 0 {
						return nil, fmt.Errorf("%w: code graph: an edge missing from its list", ErrCorrupt)
					}
					nl.lists[d][e.from][label] = slices.Delete(l, i, i+1)
				}
				if e.to < 3 {
					nl.lists[d][e.to][label] = append(nl.lists[d][e.to][label], ref)
				}
			}
			for c := range 3 {
				for _, l := range nl.lists[d][c] {
					if len(l) > 0 {
						alive = true
					}
				}
			}
		}
		switch {
		case alive && !b.ok:
			fresh = append(fresh, nodes[id])
		case !alive && b.ok:
			dead = append(dead, b.num)
		}
		if alive {
			touched = append(touched, nl)
		}
	}
	slices.Sort(dead)
	slices.SortFunc(fresh, nodeOrder)
	if len(dead)+len(fresh)+len(touched) > budget {
		return nil, errNoDelta
	}

	// Number the new nodes among the base's live ones.
	ins, err := sortedBefore(base.count, len(fresh), func(b uint32, j int) (bool, error) {
		bn, err := base.node(b)
		return nodeOrder(bn, fresh[j]) >= 0, err
	})
	if err != nil {
		return nil, err
	}
	rank, runs := ranks(dead, ins), baseRuns(base.count, dead, ins)
	count := base.count - uint32(len(dead)) + uint32(len(fresh))
	freshNum := make(map[object.ID]uint32, len(fresh))
	for j, n := range fresh {
		freshNum[n.ID] = rank[j]
	}
	number := func(ref nodeRef) (uint32, error) {
		if !ref.base {
			return freshNum[ref.added], nil
		}
		v, ok := runs.FromBase(ref.num)
		if !ok {
			return 0, fmt.Errorf("%w: code graph: an edge to a removed node", ErrCorrupt)
		}
		return v, nil
	}

	// The replaced lists, keyed as in adj.tbl: a key without a label
	// marks each direction and confidence whose lists the delta replaces.
	var entries []adjEntry
	for _, nl := range touched {
		v, err := number(nodeRef{base: inBase[nl.id].ok, num: inBase[nl.id].num, added: nl.id})
		if err != nil {
			return nil, err
		}
		for d := range 2 {
			if !nl.touched[d] {
				continue
			}
			for c, dir := range dirsOf[d] {
				prefix := binary.BigEndian.AppendUint32([]byte{dir}, v)
				entries = append(entries, adjEntry{key: prefix})
				for label, l := range nl.lists[d][c] {
					if len(l) == 0 {
						continue
					}
					nums := make([]uint32, len(l))
					for i, ref := range l {
						if nums[i], err = number(ref); err != nil {
							return nil, err
						}
					}
					slices.Sort(nums)
					entries = append(entries, adjEntry{key: append(slices.Clip(prefix), label...), val: table.AppendUvarintDeltas(nil, nums)})
				}
			}
		}
	}
	slices.SortFunc(entries, func(a, b adjEntry) int { return bytes.Compare(a.key, b.key) })

	pm := &Manifest{Tokenizer: m.Tokenizer, Ref: m.Ref, Heads: m.Heads, Repo: m.Repo, CodeGraph: m.CodeGraph, Nodes: count, Base: filepath.Base(baseDir)}
	nkeys, err := writeGraphDelta(dir, fresh, rank, entries, dead, ins, pm)
	if err != nil {
		return nil, err
	}
	return &BuildStats{
		Keys:       nkeys,
		Bytes:      filesBytes(dir, nodesFile, adjFile, keysFile, deltaFile, manifest),
		GraphDelta: &GraphDeltaStatus{Nodes: len(fresh), Removed: len(dead), Lists: len(touched)},
	}, nil
}

// assertions counts, by edge, the assertions a change takes away and
// adds, by confidence rank; nodes has each node an edge names.
type assertions struct {
	change map[edgeKey]*[3]int
	nodes  map[object.ID]graph.NodeID
}

// add counts an assertion of an edge, sign -1 when the change takes it
// away.
func (as *assertions) add(from, to graph.NodeID, l graph.Label, c graph.Confidence, sign int) {
	if !l.Valid() {
		return // the graph leaves it out
	}
	k := edgeKey{from.ID, to.ID, l}
	d := as.change[k]
	if d == nil {
		d = new([3]int)
		as.change[k] = d
	}
	d[confRank(c)] += sign
	// A node is its id, with the kind and key it was met with.
	if _, ok := as.nodes[from.ID]; !ok {
		as.nodes[from.ID] = from
	}
	if _, ok := as.nodes[to.ID]; !ok {
		as.nodes[to.ID] = to
	}
}

// changedAssertions counts the assertions of the file versions removed
// (taken away) and added, and of the command runs before the change
// (the commits was, of the heads wasHeads) and after it (now, nowHeads)
// when they may differ; edges asserted again as they were are left out.
func changedAssertions(ctx context.Context, r *repo.Repo, was, now []*object.Commit, wasHeads, nowHeads []object.ID, removed, added map[object.ID]string) (*assertions, error) {
	repoID := r.Config.Repo.ID
	ids := slices.Concat(slices.SortedFunc(maps.Keys(removed), object.ID.Compare), slices.SortedFunc(maps.Keys(added), object.ID.Compare))
	fvs := make([]*extract.FileVersion, len(ids))
	load := newVersions(r, false).get
	if err := parallel.Do(ctx, len(ids), func(i int) error {
		var err error
		fvs[i], err = load(ids[i])
		return err
	}); err != nil {
		return nil, err
	}
	as := &assertions{change: map[edgeKey]*[3]int{}, nodes: map[object.ID]graph.NodeID{}}
	for i, fv := range fvs {
		sign := 1
		if i < len(removed) {
			sign = -1
		}
		nids := make([]graph.NodeID, len(fv.Nodes))
		for k, n := range fv.Nodes {
			nids[k] = n.ID(repoID)
		}
		for _, e := range fv.Edges {
			if int(e.From) >= len(nids) || int(e.To) >= len(nids) {
				return nil, fmt.Errorf("%w: file version %s: an edge to no node", ErrCorrupt, fv.Path)
			}
			as.add(nids[e.From], nids[e.To], e.Label, e.Confidence, sign)
		}
	}
	// The command runs' edges: those before the change taken away, those
	// after it added, when the runs changed or a file with a diagnostic
	// at a line did (the edge to the item at the line depends on the
	// file's items).
	runs, err := runsChanged(r, was, now, nowHeads, removed, added)
	if err != nil {
		return nil, err
	}
	if runs {
		for _, side := range []struct {
			sign  int
			cs    []*object.Commit
			heads []object.ID
		}{{-1, was, wasHeads}, {1, now, nowHeads}} {
			if err := r.DiagnosticEdges(side.heads, itemsAt(r, side.cs), func(_ object.ID, _ *diag.CommandRun, _ int, edges []graph.Edge) {
				for _, e := range edges {
					as.add(e.From, e.To, e.Label, e.Evidence.Confidence, side.sign)
				}
			}); err != nil {
				return nil, err
			}
		}
	}
	for k, d := range as.change {
		if *d == ([3]int{}) {
			delete(as.change, k) // asserted again as it was
		}
	}
	return as, nil
}

// writeGraphDelta writes the files of a code graph delta segment into
// dir, which must not exist: nodes.tbl (the nodes fresh, numbered rank),
// adj.tbl (entries, sorted), keys.tbl (the fresh nodes' names),
// delta.tbl (dead, ins) and the manifest pm; it returns the keys written.
func writeGraphDelta(dir string, fresh []graph.NodeID, rank []uint32, entries []adjEntry, dead, ins []uint32, pm *Manifest) (int, error) {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return 0, fmt.Errorf("index: %w", err)
	}
	keysOut := newKeyTable()
	nodesOut, err := newTableFile(filepath.Join(dir, nodesFile), "nodes")
	if err != nil {
		return 0, err
	}
	defer nodesOut.abort()
	for j, n := range fresh {
		var k [4]byte
		binary.BigEndian.PutUint32(k[:], rank[j])
		if err := nodesOut.w.Add(k[:], appendNode(nil, n)); err != nil {
			return 0, err
		}
		keysOut.add(nsGraph, n.Name(), rank[j])
	}
	if err := nodesOut.close(); err != nil {
		return 0, err
	}
	adjOut, err := newTableFile(filepath.Join(dir, adjFile), "adj")
	if err != nil {
		return 0, err
	}
	defer adjOut.abort()
	for _, e := range entries {
		if err := adjOut.w.Add(e.key, e.val); err != nil {
			return 0, err
		}
	}
	if err := adjOut.close(); err != nil {
		return 0, err
	}
	if err := keysOut.write(dir); err != nil {
		return 0, err
	}
	dOut, err := newTableFile(filepath.Join(dir, deltaFile), "delta")
	if err != nil {
		return 0, err
	}
	defer dOut.abort()
	if err := dOut.w.Add([]byte(deltaDead), table.AppendUvarintDeltas(nil, dead)); err != nil {
		return 0, err
	}
	if err := dOut.w.Add([]byte(deltaIns), table.AppendUvarintDeltas(nil, ins)); err != nil {
		return 0, err
	}
	if err := dOut.close(); err != nil {
		return 0, err
	}
	if err := writeManifest(dir, pm); err != nil {
		return 0, err
	}
	return keysOut.len(), nil
}

// GraphDeltaStatus is what a code graph delta segment holds: the nodes it
// adds and removes, and the nodes whose adjacency it replaces.
type GraphDeltaStatus struct {
	Nodes   int `json:"nodes"`
	Removed int `json:"removed"`
	Lists   int `json:"lists"`
}

// changedVersions returns the file versions of the heads' semantic
// snapshots that the change from was to now removed and added, each with
// its path; errNoDelta when more than budget changed. With one head on
// each side, the snapshots' trees are walked side by side, past every
// subtree they share.
func changedVersions(r *repo.Repo, was, now []*object.Commit, budget int) (removed, added map[object.ID]string, err error) {
	removed, added = map[object.ID]string{}, map[object.ID]string{}
	if len(was) == 1 && len(now) == 1 {
		err := object.DiffTrees(r.Objects, object.OrZero(was[0].SemanticSnapshot), object.OrZero(now[0].SemanticSnapshot), func(p string, old, new *object.TreeEntry) error {
			if old != nil && old.Kind == object.EntryTyped {
				removed[old.ID] = p
			}
			if new != nil && new.Kind == object.EntryTyped {
				added[new.ID] = p
			}
			if len(removed)+len(added) > budget {
				return errNoDelta
			}
			return nil
		})
		if err != nil {
			return nil, nil, deltaErr(err, "semantic snapshots")
		}
		return removed, added, nil
	}
	versions := func(cs []*object.Commit) (map[object.ID]string, error) {
		out := map[object.ID]string{}
		for _, c := range cs {
			if c.SemanticSnapshot == nil {
				continue
			}
			list, err := object.ListTree(r.Objects, *c.SemanticSnapshot, "")
			if err != nil {
				return nil, fmt.Errorf("index: semantic snapshot: %w", err)
			}
			for p, e := range list {
				if e.Kind == object.EntryTyped {
					out[e.ID] = p
				}
			}
		}
		return out, nil
	}
	old, err := versions(was)
	if err != nil {
		return nil, nil, err
	}
	cur, err := versions(now)
	if err != nil {
		return nil, nil, err
	}
	for id, p := range old {
		if _, ok := cur[id]; !ok {
			removed[id] = p
		}
	}
	for id, p := range cur {
		if _, ok := old[id]; !ok {
			added[id] = p
		}
	}
	if len(removed)+len(added) > budget {
		return nil, nil, errNoDelta
	}
	return removed, added, nil
}

// runsChanged reports whether the command runs' edges may differ between
// the commits was and now (of the heads heads): their diagnostics
// snapshots differ, either side has several heads, or a file version the
// change removed or added is of a file with a diagnostic at a line.
func runsChanged(r *repo.Repo, was, now []*object.Commit, heads []object.ID, removed, added map[object.ID]string) (bool, error) {
	diagOf := func(c *object.Commit) *object.ID { return c.DiagnosticsSnapshot }
	snaps := snapshotIDs(now, diagOf)
	if !slices.Equal(snapshotIDs(was, diagOf), snaps) {
		return true, nil
	}
	if len(snaps) == 0 {
		return false, nil
	}
	if len(was) > 1 || len(now) > 1 {
		// Of equal spans at a diagnostic's line, the item of the first
		// head's version is taken: another commit can reorder the heads
		// while their versions stay.
		return true, nil
	}
	changed := map[string]bool{}
	for _, p := range removed {
		changed[p] = true
	}
	for _, p := range added {
		changed[p] = true
	}
	hit := false
	err := r.DiagnosticEdges(heads, func(p string, _ uint32) (string, error) {
		hit = hit || changed[p]
		return "", nil
	}, func(object.ID, *diag.CommandRun, int, []graph.Edge) {})
	return hit, err
}

// snapshotIDs returns the ids of of's snapshot of each commit of cs that
// has one, sorted and distinct.
func snapshotIDs(cs []*object.Commit, of func(*object.Commit) *object.ID) []object.ID {
	var ids []object.ID
	for _, c := range cs {
		if id := of(c); id != nil {
			ids = append(ids, *id)
		}
	}
	slices.SortFunc(ids, object.ID.Compare)
	return slices.Compact(ids)
}

// itemsAt returns the items a graph of the commits cs sees at a line of a
// file (repo.ItemAt): the file versions of their semantic snapshots at the
// file's path, by head, each once.
func itemsAt(r *repo.Repo, cs []*object.Commit) func(string, uint32) (string, error) {
	load := newVersions(r, false).get
	byPath := map[string][]*extract.FileVersion{}
	return func(p string, line uint32) (string, error) {
		fvs, ok := byPath[p]
		if !ok {
			seen := map[object.ID]bool{}
			for _, c := range cs {
				if c.SemanticSnapshot == nil {
					continue
				}
				e, err := entryAt(r, *c.SemanticSnapshot, p)
				if err != nil {
					return "", err
				}
				if e == nil || e.Kind != object.EntryTyped || seen[e.ID] {
					continue
				}
				seen[e.ID] = true
				fv, err := load(e.ID)
				if err != nil {
					return "", err
				}
				fvs = append(fvs, fv)
			}
			byPath[p] = fvs
		}
		return repo.ItemAt(fvs, line), nil
	}
}

// decodeAssertions decodes a mult.tbl value.
func decodeAssertions(v []byte) ([3]int, error) {
	var a [3]int
	for c := range a {
		x, n := binary.Uvarint(v)
		if n <= 0 || x > 1<<31 {
			return a, fmt.Errorf("%w: mult.tbl value", ErrCorrupt)
		}
		a[c], v = int(x), v[n:]
	}
	if len(v) != 0 {
		return a, fmt.Errorf("%w: mult.tbl value", ErrCorrupt)
	}
	return a, nil
}

// nodeOrder orders graph nodes as segments number them: by kind, key,
// then id.
func nodeOrder(x, y graph.NodeID) int {
	if x.Kind != y.Kind {
		return strings.Compare(string(x.Kind), string(y.Kind))
	}
	if x.Key != y.Key {
		return strings.Compare(x.Key, y.Key)
	}
	return x.ID.Compare(y.ID)
}

package repo

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/object"
)

// EdgeOptions configure Writer.Link and Writer.Unlink.
type EdgeOptions struct {
	// Message is the commit message; empty means one describing the edges.
	Message string
	Author  string
	// Note is a text stored as a blob and named by the evidence of every
	// edge or tombstone written (why the edge holds, or why it went).
	Note string
}

// EdgeResult is what Link or Unlink did.
type EdgeResult struct {
	// Commit is the commit made; nil when nothing changed.
	Commit *CommitResult `json:"commit,omitempty"`
	// Batch is the edge batch written.
	Batch *object.ID `json:"batch,omitempty"`
	// Added are the edges written (origin: the new batch); Present the
	// edges the graph had already that made an asked-for edge redundant
	// (their own origin).
	Added   []EdgeView `json:"added"`
	Present []EdgeView `json:"present"`
	// Removed are the edges tombstoned, with the origin where they were
	// added; Kept those a narrative node declares, which only changing
	// that node removes.
	Removed []EdgeView `json:"removed"`
	Kept    []EdgeView `json:"kept"`
}

// EdgeView is an edge as commands show it.
type EdgeView struct {
	From     NodeInfo       `json:"from"`
	Label    graph.Label    `json:"label"`
	To       NodeInfo       `json:"to"`
	Weight   *float64       `json:"weight,omitempty"`
	Evidence graph.Evidence `json:"evidence"`
	Origin   EdgeOrigin     `json:"origin"`
}

// View returns edge e of the graph as shown: nodes described, evidence
// with the commit filled in from its origin.
func (g *Graph) View(e int32) EdgeView { return g.viewOf(g.Source(e)) }

// viewOf is View of g.edges[i], which need not be the edge the graph
// shows for its from, to and label.
func (g *Graph) viewOf(i int) EdgeView {
	ed := &g.edges[i]
	o := g.origins[i]
	v := EdgeView{From: g.Describe(ed.From), Label: ed.Label, To: g.Describe(ed.To), Weight: ed.Weight, Evidence: ed.Evidence, Origin: o}
	if v.Evidence.CommitID == nil {
		v.Evidence.CommitID = o.Commit
	}
	return v
}

// String is "FROM label TO".
func (v EdgeView) String() string {
	return v.From.Name() + " " + string(v.Label) + " " + v.To.Name()
}

// Has returns the edges of the graph from from to to with the label (any
// label if empty).
func (g *Graph) Has(from, to object.ID, label graph.Label) []int32 {
	i, ok := g.Lookup(from)
	if !ok {
		return nil
	}
	var out []int32
	for _, e := range g.Out(i) {
		if ed := g.Edge(e); ed.To.ID == to && (label == "" || ed.Label == label) {
			out = append(out, e)
		}
	}
	return out
}

// byKey indexes g.edges by key: every edge a batch or the narrative
// declares, not only the one per key the graph shows (the strongest).
func (g *Graph) byKey() map[graph.EdgeKey][]int {
	m := make(map[graph.EdgeKey][]int, len(g.edges))
	for i := range g.edges {
		k := g.edges[i].Key()
		m[k] = append(m[k], i)
	}
	return m
}

// redundant reports whether the graph already has edge ed with evidence
// at least as strong: the same tool, a confidence as high, and the same
// span and blob when ed has them. Every edge with ed's key counts, not
// only the one the graph shows: linking again an edge whose evidence is
// weaker than another's, or differs from it, changes nothing.
func (g *Graph) redundant(byKey map[graph.EdgeKey][]int, ed *graph.Edge) (int, bool) {
	for _, i := range byKey[ed.Key()] {
		old := g.edges[i].Evidence
		nu := ed.Evidence
		if old.Tool != nu.Tool || slices.Index(graph.Confidences, old.Confidence) > slices.Index(graph.Confidences, nu.Confidence) {
			continue
		}
		if nu.Span != nil && (old.Span == nil || *old.Span != *nu.Span) || nu.BlobID != nil && (old.BlobID == nil || *old.BlobID != *nu.BlobID) {
			continue
		}
		return i, true
	}
	return -1, false
}

// Link writes the edges the graph g (read under this lock) does not
// already have, in one edge batch and a commit on the ref HEAD names.
// Edges it has with evidence as strong are reported as present; linking
// them again changes nothing (design: ctx link is idempotent).
func (w *Writer) Link(ctx context.Context, g *Graph, edges []graph.Edge, opts EdgeOptions) (*EdgeResult, error) {
	res := &EdgeResult{Added: []EdgeView{}, Present: []EdgeView{}, Removed: []EdgeView{}, Kept: []EdgeView{}}
	blob := noteBlob(opts.Note)
	var batch graph.EdgeBatch
	seen := map[graph.EdgeKey]bool{}
	byKey := g.byKey()
	for _, ed := range edges {
		if blob != nil && ed.Evidence.BlobID == nil {
			ed.Evidence.BlobID = blob
		}
		if err := ed.Validate(); err != nil {
			return nil, fmt.Errorf("%w: edge %s %s %s: %w", ErrInvalidArgument, ed.From.Name(), ed.Label, ed.To.Name(), err)
		}
		v := EdgeView{From: g.Describe(ed.From), Label: ed.Label, To: g.Describe(ed.To), Weight: ed.Weight, Evidence: ed.Evidence}
		if seen[ed.Key()] {
			res.Present = append(res.Present, v)
			continue
		}
		if i, ok := g.redundant(byKey, &ed); ok {
			res.Present = append(res.Present, g.viewOf(i)) // the edge already there
			continue
		}
		seen[ed.Key()] = true
		batch.Edges = append(batch.Edges, ed)
		res.Added = append(res.Added, v)
	}
	if len(batch.Edges) == 0 {
		return res, nil
	}
	msg := opts.Message
	if msg == "" {
		msg = describe("relate", res.Added)
	}
	return w.writeBatch(ctx, res, &batch, msg, opts)
}

// Unlink removes the edges from from to to with one of the labels (any
// label if none) that edge batches added, by writing tombstones in one
// batch and a commit. Edges a narrative node declares are reported as
// kept: its derived-from header, supersede or body says so, and only
// changing the node removes them. With no such edge nothing changes
// (ctx unlink is idempotent).
func (w *Writer) Unlink(ctx context.Context, g *Graph, from, to graph.NodeID, labels []graph.Label, opts EdgeOptions) (*EdgeResult, error) {
	res := &EdgeResult{Added: []EdgeView{}, Present: []EdgeView{}, Removed: []EdgeView{}, Kept: []EdgeView{}}
	blob := noteBlob(opts.Note)
	var batch graph.EdgeBatch
	byKey := g.byKey()
	for _, e := range g.Has(from.ID, to.ID, "") {
		ed := g.Edge(e)
		if len(labels) > 0 && !slices.Contains(labels, ed.Label) {
			continue
		}
		// The graph shows one edge per key, the strongest; a batch's edge
		// may hide behind the narrative's, or the other way round. Each
		// batch edge is tombstoned, each declaration kept.
		batched, declared := -1, -1
		for _, i := range byKey[ed.Key()] {
			switch {
			case g.origins[i].Narrative != "":
				if declared < 0 {
					declared = i
				}
			case batched < 0 || i == g.Source(e):
				batched = i
			}
		}
		if declared >= 0 {
			res.Kept = append(res.Kept, g.viewOf(declared))
		}
		if batched < 0 {
			continue
		}
		batch.Tombstones = append(batch.Tombstones, graph.Tombstone{
			From: ed.From, To: ed.To, Label: ed.Label,
			Evidence: graph.Evidence{Tool: graph.ToolHuman, Confidence: graph.High, BlobID: blob},
		})
		res.Removed = append(res.Removed, g.viewOf(batched))
	}
	if len(batch.Tombstones) == 0 {
		return res, nil
	}
	msg := opts.Message
	if msg == "" {
		msg = describe("unlink", res.Removed)
	}
	return w.writeBatch(ctx, res, &batch, msg, opts)
}

func (w *Writer) writeBatch(ctx context.Context, res *EdgeResult, batch *graph.EdgeBatch, msg string, opts EdgeOptions) (*EdgeResult, error) {
	batch.CreatedAt = w.Clock.Now().Unix()
	co := CommitOptions{Message: msg, Author: opts.Author, NoNarrative: true, EdgeBatches: []*graph.EdgeBatch{batch}}
	if opts.Note != "" {
		co.Blobs = [][]byte{[]byte(opts.Note)}
	}
	cr, err := w.Commit(ctx, co)
	if err != nil {
		return nil, err
	}
	res.Commit = cr
	if n := len(cr.Commit.EdgeBatches); n > 0 {
		id := cr.Commit.EdgeBatches[n-1]
		res.Batch = &id
	}
	// Added edges now come from the new batch; removed ones keep the
	// origin they had (where they were added).
	for i := range res.Added {
		if res.Added[i].Evidence.CommitID == nil {
			res.Added[i].Evidence.CommitID = &cr.ID
		}
		res.Added[i].Origin = EdgeOrigin{Batch: res.Batch, Commit: &cr.ID}
	}
	return res, nil
}

// noteBlob returns the id of the blob holding a note, or nil.
func noteBlob(note string) *object.ID {
	if note == "" {
		return nil
	}
	id := object.Sum(object.KindBlob, []byte(note))
	return &id
}

// describe makes a commit message for edges: "relate task:x mentions
// file:y" for one, "relate 3 edges" with one line each for several.
func describe(verb string, edges []EdgeView) string {
	if len(edges) == 1 {
		return verb + " " + edges[0].String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d edges\n", verb, len(edges))
	for _, e := range edges {
		b.WriteString("\n" + e.String())
	}
	return b.String()
}

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
	// Added are the edges written, Present those the graph had already.
	Added   []EdgeView `json:"added"`
	Present []EdgeView `json:"present"`
	// Removed are the edges tombstoned; Kept those a narrative node
	// declares, which only changing that node removes.
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
func (g *Graph) View(e int32) EdgeView {
	ed := g.Edge(e)
	o := g.Origin(e)
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

// declared returns the origin of a narrative-declared edge with key k, if
// the narrative declares one.
func (g *Graph) declared(k graph.EdgeKey) *EdgeOrigin {
	for i := range g.edges {
		if g.origins[i].Narrative != "" && g.edges[i].Key() == k {
			return &g.origins[i]
		}
	}
	return nil
}

// redundant reports whether the graph already has edge ed with evidence
// at least as strong: the same tool, a confidence as high, and the same
// span and blob when ed has them.
func (g *Graph) redundant(ed *graph.Edge) bool {
	for _, e := range g.Has(ed.From.ID, ed.To.ID, ed.Label) {
		old := g.Edge(e).Evidence
		nu := ed.Evidence
		if old.Tool != nu.Tool || slices.Index(graph.Confidences, old.Confidence) > slices.Index(graph.Confidences, nu.Confidence) {
			continue
		}
		if nu.Span != nil && (old.Span == nil || *old.Span != *nu.Span) || nu.BlobID != nil && (old.BlobID == nil || *old.BlobID != *nu.BlobID) {
			continue
		}
		return true
	}
	return false
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
	for _, ed := range edges {
		if blob != nil && ed.Evidence.BlobID == nil {
			ed.Evidence.BlobID = blob
		}
		if err := ed.Validate(); err != nil {
			return nil, fmt.Errorf("%w: edge %s %s %s: %w", ErrInvalidArgument, ed.From.Name(), ed.Label, ed.To.Name(), err)
		}
		v := EdgeView{From: g.Describe(ed.From), Label: ed.Label, To: g.Describe(ed.To), Weight: ed.Weight, Evidence: ed.Evidence}
		if seen[ed.Key()] || g.redundant(&ed) {
			res.Present = append(res.Present, v)
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
	for _, e := range g.Has(from.ID, to.ID, "") {
		ed := g.Edge(e)
		if len(labels) > 0 && !slices.Contains(labels, ed.Label) {
			continue
		}
		v := g.View(e)
		if g.Origin(e).Narrative != "" {
			res.Kept = append(res.Kept, v)
			continue
		}
		if d := g.declared(ed.Key()); d != nil {
			// A batch also added it, but the narrative still declares it.
			kept := v
			kept.Origin, kept.Evidence = *d, graph.Evidence{Tool: graph.ToolHuman, Confidence: graph.High}
			res.Kept = append(res.Kept, kept)
		}
		batch.Tombstones = append(batch.Tombstones, graph.Tombstone{
			From: ed.From, To: ed.To, Label: ed.Label,
			Evidence: graph.Evidence{Tool: graph.ToolHuman, Confidence: graph.High, BlobID: blob},
		})
		res.Removed = append(res.Removed, v)
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
	for _, list := range [][]EdgeView{res.Added, res.Removed} {
		for i := range list {
			if list[i].Evidence.CommitID == nil {
				list[i].Evidence.CommitID = &cr.ID
			}
			list[i].Origin = EdgeOrigin{Batch: res.Batch, Commit: &cr.ID}
		}
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

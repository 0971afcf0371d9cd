package exchange

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/internal/secrets"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// ImportOptions configure Import.
type ImportOptions struct {
	// Merge imports into a store that already has some of the nodes: a
	// node the store has is skipped when identical, updated when the
	// file's is newer (its updated time is later), and kept otherwise.
	// Without Merge, any such node fails the import (ErrConflict).
	Merge bool
	// AllowSecrets imports nodes and notes in which secrets are found;
	// by default they fail the import.
	AllowSecrets bool
	// Message is the commit message; empty means one counting what was
	// imported.
	Message string
	Author  string
}

// Report is what Import did.
type Report struct {
	Added   []narrative.ID `json:"added"`
	Updated []narrative.ID `json:"updated"`
	Skipped []Skip         `json:"skipped"`
	// EdgesAdded counts the edges written; EdgesPresent those the store
	// had already with the same evidence.
	EdgesAdded   int `json:"edges_added"`
	EdgesPresent int `json:"edges_present"`
	// Commit is the commit made; nil when nothing changed.
	Commit *object.ID `json:"commit,omitempty"`
}

// Skip is a node of the file the import left as the store has it.
type Skip struct {
	ID     narrative.ID `json:"id"`
	Reason string       `json:"reason"` // SkipIdentical or SkipLocalNewer
}

// The reasons of a Skip.
const (
	SkipIdentical  = "identical"
	SkipLocalNewer = "local is newer"
)

// Problem is what is wrong with one entry of an export file.
type Problem struct {
	Entry string `json:"entry"` // "nodes[3] (9x2k4m7qab)", "edges[0]"
	Msg   string `json:"message"`
}

// Error lists every problem of an export file; it wraps ErrInvalid.
type Error struct {
	Problems []Problem
}

// Error names the first problems and counts the rest.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d problem", len(e.Problems))
	if len(e.Problems) != 1 {
		b.WriteString("s")
	}
	b.WriteString(", nothing was imported")
	for i, p := range e.Problems {
		if i == 5 {
			fmt.Fprintf(&b, "; and %d more", len(e.Problems)-i)
			break
		}
		fmt.Fprintf(&b, "; %s: %s", p.Entry, p.Msg)
	}
	return b.String()
}

// Unwrap returns ErrInvalid.
func (e *Error) Unwrap() error { return ErrInvalid }

// plan is an import checked and ready to write.
type plan struct {
	add     []*narrative.Draft
	update  []*narrative.Draft // the file's state of nodes to update
	edges   []graph.Edge
	blobs   [][]byte
	report  *Report
	written bool
}

// Import writes the nodes and edges of f into the store w holds locked.
// Every entry is checked first, against the file and the store: a bad
// entry, a supersede naming no node, or (without Merge) a node the store
// has fails the import before anything is written. Then new nodes get
// their files (same ids, times and state), nodes to update get events
// (an edit, tags, metadata, type, supersede, delete: the append-only
// changes teammates' git merges expect), and one commit records the
// narrative with an edge batch of the new edges, on the line a staging
// session routes it to. The commit records every narrative change not
// yet committed, as ctx commit would.
func Import(ctx context.Context, w *repo.Writer, f *File, opts ImportOptions) (*Report, error) {
	sp := w.Narrative()
	cat, err := sp.Load()
	if err != nil {
		return nil, err
	}
	p, err := check(ctx, w, sp, cat, f, opts)
	if err != nil {
		return nil, err
	}
	for _, d := range p.add {
		if err := sp.Put(d); err != nil {
			return nil, err
		}
		p.written = true
	}
	for _, d := range p.update {
		if err := update(sp, cat.Nodes[d.Node.ID], d.Node); err != nil {
			return nil, fmt.Errorf("update %s: %w", d.Node.ID, err)
		}
		p.written = true
	}
	if !p.written && len(p.edges) == 0 {
		return p.report, nil
	}
	msg := opts.Message
	if msg == "" {
		msg = fmt.Sprintf("import %d nodes (%d new, %d updated) and %d edges", len(p.add)+len(p.update), len(p.add), len(p.update), len(p.edges))
	}
	co := repo.CommitOptions{Message: msg, Author: opts.Author, Blobs: p.blobs}
	if len(p.edges) > 0 {
		co.EdgeBatches = []*graph.EdgeBatch{{Edges: p.edges, CreatedAt: w.Clock.Now().Unix()}}
	}
	cr, err := w.Commit(ctx, co)
	if err != nil {
		return nil, err
	}
	if cr.Committed {
		p.report.Commit = &cr.ID
	}
	return p.report, nil
}

// check validates f against itself and the store, and plans the import.
func check(ctx context.Context, w *repo.Writer, sp *narrative.Space, cat *narrative.Catalog, f *File, opts ImportOptions) (*plan, error) {
	var probs []Problem
	bad := func(entry, format string, args ...any) {
		probs = append(probs, Problem{Entry: entry, Msg: fmt.Sprintf(format, args...)})
	}
	p := &plan{report: &Report{Added: []narrative.ID{}, Updated: []narrative.ID{}, Skipped: []Skip{}}}
	if f == nil {
		return nil, fmt.Errorf("%w: no file", ErrInvalid)
	}
	if f.Format != FormatName || f.Version != Version {
		return nil, fmt.Errorf("%w: format %q version %d (this ctx reads %q version %d)", ErrInvalid, f.Format, f.Version, FormatName, Version)
	}
	drafts := map[narrative.ID]*narrative.Draft{}
	entries := map[narrative.ID]string{}
	var order []narrative.ID
	for i, n := range f.Nodes {
		entry := fmt.Sprintf("nodes[%d]", i)
		if n.ID != "" {
			entry += " (" + string(n.ID) + ")"
		}
		if first, dup := entries[n.ID]; dup && n.ID != "" {
			bad(entry, "duplicate id: %s has it too", first)
			continue
		}
		entries[n.ID] = entry
		typ, err := narrative.ParseType(string(n.Type))
		if err != nil {
			bad(entry, "%s", msgOf(err))
			continue
		}
		d, err := sp.Draft(narrative.State{ID: n.ID, Type: typ, Stream: n.Stream, Title: n.Title, Body: n.Body,
			Tags: n.Tags, Meta: n.Meta, Created: n.Created, Updated: n.Updated,
			SupersededBy: n.SupersededBy, Deleted: n.Deleted, DerivedFrom: n.DerivedFrom})
		if err != nil {
			bad(entry, "%s", msgOf(err))
			continue
		}
		if !opts.AllowSecrets {
			text := d.Node.Content
			for _, v := range d.Node.Meta {
				text += "\n" + v
			}
			if found := secrets.Scan([]byte(text)); len(found) > 0 {
				bad(entry, "holds a secret (%s); --allow-secrets imports it anyway", found[0].Reason)
				continue
			}
		}
		drafts[n.ID] = d
		order = append(order, n.ID)
	}
	typeOf := func(id narrative.ID) (narrative.Type, bool) {
		if d, ok := drafts[id]; ok {
			return d.Node.Type, true
		}
		if n, ok := cat.Nodes[id]; ok {
			return n.Type, true
		}
		return "", false
	}
	for _, id := range order {
		if s := drafts[id].Node.SupersededBy; s != "" {
			if _, ok := typeOf(s); !ok {
				bad(entries[id], "superseded_by %s names no node of the file or the store", s)
			}
		}
	}
	if err := checkEdges(ctx, w, f, opts, typeOf, bad, p); err != nil {
		return nil, err
	}
	if len(probs) > 0 {
		return nil, &Error{Problems: probs}
	}
	var clash []string
	for _, id := range order {
		local, ok := cat.Nodes[id]
		switch {
		case !ok:
			p.add = append(p.add, drafts[id])
			p.report.Added = append(p.report.Added, id)
		case !opts.Merge:
			clash = append(clash, string(id))
		case same(local, drafts[id].Node):
			p.report.Skipped = append(p.report.Skipped, Skip{ID: id, Reason: SkipIdentical})
		case drafts[id].Node.Updated.After(local.Updated):
			p.update = append(p.update, drafts[id])
			p.report.Updated = append(p.report.Updated, id)
		default:
			p.report.Skipped = append(p.report.Skipped, Skip{ID: id, Reason: SkipLocalNewer})
		}
	}
	if len(clash) > 0 {
		list := clash
		if len(list) > 10 {
			list = append(list[:10:10], fmt.Sprintf("and %d more", len(clash)-10))
		}
		return nil, fmt.Errorf("%w: %d node(s): %s; nothing was imported", ErrConflict, len(clash), strings.Join(list, ", "))
	}
	return p, nil
}

// checkEdges validates the edges of f and keeps in p those the store
// lacks.
func checkEdges(ctx context.Context, w *repo.Writer, f *File, opts ImportOptions, typeOf func(narrative.ID) (narrative.Type, bool), bad func(string, string, ...any), p *plan) error {
	if len(f.Edges) == 0 {
		return nil
	}
	g, err := w.Graph(ctx, repo.GraphOptions{NoCode: true, NoNarrative: true})
	if err != nil {
		return err
	}
	repoID := w.Config.Repo.ID
	seen := map[graph.EdgeKey]bool{}
	for i, x := range f.Edges {
		entry := fmt.Sprintf("edges[%d]", i)
		from, err := resolveEnd(repoID, x.From, typeOf)
		if err != nil {
			bad(entry, "from: %s", err)
			continue
		}
		to, err := resolveEnd(repoID, x.To, typeOf)
		if err != nil {
			bad(entry, "to: %s", err)
			continue
		}
		if x.From.Node == "" && x.To.Node == "" {
			bad(entry, "neither end is a narrative node (an export holds only edges from or to its nodes)")
			continue
		}
		ed := graph.Edge{From: from, To: to, Label: x.Label, Weight: x.Weight,
			Evidence: graph.Evidence{Tool: x.Evidence.Tool, Confidence: x.Evidence.Confidence, Span: x.Evidence.Span}}
		var note []byte
		switch {
		case x.Evidence.Note != "" && x.Evidence.NoteBase64 != nil:
			bad(entry, "evidence has both note and note_base64")
			continue
		case x.Evidence.Note != "":
			note = []byte(x.Evidence.Note)
		case x.Evidence.NoteBase64 != nil:
			note = x.Evidence.NoteBase64
		}
		if note != nil {
			if !opts.AllowSecrets {
				if found := secrets.Scan(note); len(found) > 0 {
					bad(entry, "the evidence note holds a secret (%s); --allow-secrets imports it anyway", found[0].Reason)
					continue
				}
			}
			id := object.Sum(object.KindBlob, note)
			ed.Evidence.BlobID = &id
		}
		if x.Weight != nil && (math.IsNaN(*x.Weight) || math.IsInf(*x.Weight, 0)) {
			bad(entry, "weight is not a finite number")
			continue
		}
		if err := ed.Validate(); err != nil {
			bad(entry, "%s", err)
			continue
		}
		if seen[ed.Key()] {
			bad(entry, "a second edge %s %s %s (one per from, label and to)", x.From, x.Label, x.To)
			continue
		}
		seen[ed.Key()] = true
		if present(g, &ed) {
			p.report.EdgesPresent++
			continue
		}
		p.edges = append(p.edges, ed)
		if note != nil {
			p.blobs = append(p.blobs, note)
		}
		p.report.EdgesAdded++
	}
	return nil
}

// resolveEnd returns the graph node an end names in a store whose
// repository id is repoID.
func resolveEnd(repoID string, e End, typeOf func(narrative.ID) (narrative.Type, bool)) (graph.NodeID, error) {
	if e.Node != "" {
		if e.Kind != "" || e.Key != "" || e.ID != "" || e.Ecosystem != "" {
			return graph.NodeID{}, fmt.Errorf("a narrative end has node alone")
		}
		typ, ok := typeOf(e.Node)
		if !ok {
			return graph.NodeID{}, fmt.Errorf("node %s is in neither the file nor the store", e.Node)
		}
		return graph.NarrativeNode(string(typ), string(e.Node)), nil
	}
	switch {
	case !e.Kind.Valid():
		return graph.NodeID{}, fmt.Errorf("kind %q is not a node kind", e.Kind)
	case narrativeKinds[e.Kind]:
		return graph.NodeID{}, fmt.Errorf("a narrative node is named by \"node\", not by kind %q", e.Kind)
	case e.Ecosystem != "" && !slices.Contains([]string{graph.EcosystemGo, graph.EcosystemCargo, graph.EcosystemNPM, graph.EcosystemPyPI}, e.Ecosystem):
		return graph.NodeID{}, fmt.Errorf("ecosystem %q is not go, cargo, npm or pypi", e.Ecosystem)
	case strings.ContainsAny(e.Key, "\x00\r\n"):
		return graph.NodeID{}, fmt.Errorf("key %q holds a NUL or line break", e.Key)
	}
	if e.ID != "" {
		id, err := object.ParseID(e.ID)
		if err != nil || id.IsZero() {
			return graph.NodeID{}, fmt.Errorf("id %q is not 64 lowercase hex digits", e.ID)
		}
		return graph.NodeID{Kind: e.Kind, ID: id, Key: e.Key}, nil
	}
	id, ok := deriveID(repoID, e)
	if !ok {
		return graph.NodeID{}, fmt.Errorf("%s:%s: no id, and a %s node's id does not derive from its key (give \"id\")", e.Kind, e.Key, e.Kind)
	}
	return graph.NodeID{Kind: e.Kind, ID: id, Key: e.Key}, nil
}

// present reports whether the graph has edge ed already, with the same
// evidence (the commit aside) and weight.
func present(g *repo.Graph, ed *graph.Edge) bool {
	for _, e := range g.Has(ed.From.ID, ed.To.ID, ed.Label) {
		old := g.Edge(e)
		if old.Evidence.Tool == ed.Evidence.Tool && old.Evidence.Confidence == ed.Evidence.Confidence &&
			eqPtr(old.Evidence.Span, ed.Evidence.Span) && eqPtr(old.Evidence.BlobID, ed.Evidence.BlobID) && eqPtr(old.Weight, ed.Weight) {
			return true
		}
	}
	return false
}

func eqPtr[T comparable](a, b *T) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// same reports whether a store's node already has the state of the file's
// node, in everything an update could change.
func same(local, in *narrative.Node) bool {
	return local.Type == in.Type && local.Content == in.Content && slices.Equal(local.Tags, in.Tags) &&
		sameMeta(local.Meta, in.Meta) && local.SupersededBy == in.SupersededBy && local.Deleted == in.Deleted
}

func sameMeta(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if x, ok := b[k]; !ok || x != v {
			return false
		}
	}
	return true
}

// update brings a store's node n to the file's state in, by events. Its
// id, created time, stream and derived-from stay the store's: an update
// changes what a node says, not what it is. A metadata value that is the
// empty string cannot be set by an event (an empty value removes the key)
// and is left out.
func update(sp *narrative.Space, n, in *narrative.Node) error {
	if n.Content != in.Content {
		if err := sp.Edit(n, in.Content); err != nil {
			return err
		}
	}
	change := func(op narrative.Op, arg string) error {
		_, err := sp.Change(n, op, arg)
		return err
	}
	if n.Type != in.Type {
		if err := change(narrative.OpType, string(in.Type)); err != nil {
			return err
		}
	}
	for _, t := range slices.Clone(n.Tags) {
		if !slices.Contains(in.Tags, t) {
			if err := change(narrative.OpUntag, t); err != nil {
				return err
			}
		}
	}
	for _, t := range in.Tags {
		if !n.HasTag(t) {
			if err := change(narrative.OpTag, t); err != nil {
				return err
			}
		}
	}
	keys := make([]string, 0, len(n.Meta)+len(in.Meta))
	for k := range n.Meta {
		keys = append(keys, k)
	}
	for k := range in.Meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range slices.Compact(keys) {
		old, had := n.Meta[k]
		nu, want := in.Meta[k]
		switch {
		case want && nu != "" && (!had || old != nu):
			if err := change(narrative.OpMeta, k+"="+nu); err != nil {
				return err
			}
		case had && (!want || nu == "") && old != "":
			if err := change(narrative.OpMeta, k+"="); err != nil {
				return err
			}
		}
	}
	if n.SupersededBy != in.SupersededBy {
		op, arg := narrative.OpSupersede, string(in.SupersededBy)
		if arg == "" {
			op = narrative.OpUnsupersede
		}
		if err := change(op, arg); err != nil {
			return err
		}
	}
	if n.Deleted != in.Deleted {
		op := narrative.OpDelete
		if !in.Deleted {
			op = narrative.OpRestore
		}
		if err := change(op, ""); err != nil {
			return err
		}
	}
	return nil
}

// msgOf is an error's message without the package prefix a library
// error starts with.
func msgOf(err error) string {
	return strings.TrimPrefix(err.Error(), "narrative: ")
}

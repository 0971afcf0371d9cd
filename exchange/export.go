package exchange

import (
	"context"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// ExportOptions select what Export writes.
type ExportOptions struct {
	// Catalog is the narrative to export; nil loads the working narrative.
	Catalog *narrative.Catalog
	// Match, if set, selects the nodes to export (a --query expression).
	Match func(*narrative.Node) bool
	// IncludeDeleted and IncludeSuperseded export such nodes too; by
	// default only active ones are.
	IncludeDeleted    bool
	IncludeSuperseded bool
}

// Export returns the export of r's working narrative: the nodes the
// options select, sorted by id, and the edges edge batches assert between
// two of them or between one of them and a node that is not narrative
// (code, commits), sorted by from, label and to. The node that supersedes
// an exported node is exported too, whatever the options, so that the
// file imports on its own. Edges the narrative declares (derived-from
// headers, supersedes, mentions in bodies) are not listed: the nodes
// declare them again wherever they are imported. Of several edges with
// the same from, label and to, the one the graph shows (the strongest
// evidence) is exported.
func Export(ctx context.Context, r *repo.Repo, opts ExportOptions) (*File, error) {
	cat := opts.Catalog
	if cat == nil {
		var err error
		if cat, err = r.Narrative().Load(); err != nil {
			return nil, err
		}
	}
	chosen := map[narrative.ID]bool{}
	for _, n := range cat.List(narrative.Filter{IncludeDeleted: opts.IncludeDeleted, IncludeSuperseded: opts.IncludeSuperseded}) {
		if opts.Match == nil || opts.Match(n) {
			chosen[n.ID] = true
		}
	}
	// Close over supersedes: a superseded node's successor comes along.
	for grew := true; grew; {
		grew = false
		for id := range chosen {
			s := cat.Nodes[id].SupersededBy
			if s != "" && !chosen[s] && cat.Nodes[s] != nil {
				chosen[s], grew = true, true
			}
		}
	}
	f := &File{Format: FormatName, Version: Version, Nodes: []Node{}, Edges: []Edge{}}
	for _, id := range cat.IDs() {
		if chosen[id] {
			f.Nodes = append(f.Nodes, nodeOf(cat.Nodes[id]))
		}
	}
	g, err := r.Graph(ctx, repo.GraphOptions{Catalog: cat, NoCode: true, NoNarrative: true})
	if err != nil {
		return nil, err
	}
	repoID := r.Config.Repo.ID
	for e := int32(0); int(e) < g.EdgeCount(); e++ {
		ed := g.Edge(e)
		from, okFrom, narrFrom := endOf(g, repoID, ed.From, chosen)
		to, okTo, narrTo := endOf(g, repoID, ed.To, chosen)
		if !okFrom || !okTo || !narrFrom && !narrTo {
			continue
		}
		x := Edge{From: from, Label: ed.Label, To: to, Weight: ed.Weight,
			Evidence: Evidence{Tool: ed.Evidence.Tool, Confidence: ed.Evidence.Confidence, Span: ed.Evidence.Span}}
		if id := ed.Evidence.BlobID; id != nil {
			if kind, data, err := r.Objects.Get(*id); err == nil && kind == object.KindBlob {
				if utf8.Valid(data) {
					x.Evidence.Note = string(data)
				} else {
					x.Evidence.NoteBase64 = data
				}
			}
		}
		f.Edges = append(f.Edges, x)
	}
	sort.SliceStable(f.Edges, func(i, j int) bool { return f.Edges[i].sortKey() < f.Edges[j].sortKey() })
	return f, nil
}

// nodeOf is the export of a node.
func nodeOf(n *narrative.Node) Node {
	x := Node{ID: n.ID, Type: n.Type, Stream: n.Stream, Title: n.Title, Body: n.Body(),
		Tags: append([]string{}, n.Tags...), Meta: map[string]string{},
		Created: n.Created.UTC(), Updated: n.Updated.UTC(), SupersededBy: n.SupersededBy, Deleted: n.Deleted}
	for k, v := range n.Meta {
		x.Meta[k] = v
	}
	if len(n.DerivedFrom) > 0 {
		x.DerivedFrom = append([]narrative.ID{}, n.DerivedFrom...)
	}
	return x
}

// narrativeKinds are the graph kinds of narrative nodes (and "note", an
// older name of observations).
var narrativeKinds = map[graph.NodeKind]bool{
	graph.NodeTask: true, graph.NodeNote: true, graph.NodeDecision: true, graph.NodeFact: true,
	graph.NodePattern: true, graph.NodeObservation: true, graph.NodeHypothesis: true,
	graph.NodeOpenQuestion: true, graph.NodeSummary: true, graph.NodeSource: true,
}

// endOf returns the export of an edge's end: ok is false for a narrative
// node that is not exported (or not in the narrative at all); narr says
// whether the end is a narrative node.
func endOf(g *repo.Graph, repoID string, n graph.NodeID, chosen map[narrative.ID]bool) (e End, ok, narr bool) {
	if nn := g.NarrativeNode(n.ID); nn != nil {
		return End{Node: nn.ID}, chosen[nn.ID], true
	}
	if narrativeKinds[n.Kind] {
		return End{}, false, true
	}
	if n.Key == "" {
		n.Key = g.Describe(n).Key
	}
	return codeEnd(repoID, n), true, false
}

// codeEnd names a node that is not narrative by kind and key, with the
// ecosystem for packages and targets, and with its id only when no store
// could derive the id from those.
func codeEnd(repoID string, n graph.NodeID) End {
	e := End{Kind: n.Kind, Key: n.Key}
	ecos := []string{""}
	if n.Kind == graph.NodePackage || n.Kind == graph.NodeTarget {
		ecos = []string{graph.EcosystemGo, graph.EcosystemCargo, graph.EcosystemNPM, graph.EcosystemPyPI}
	}
	for _, eco := range ecos {
		e.Ecosystem = eco
		if id, ok := deriveID(repoID, e); ok && id == n.ID {
			return e
		}
	}
	e.Ecosystem = ""
	e.ID = n.ID.String()
	return e
}

// deriveID returns the id a store with repository id repoID gives the node
// an end names by kind and key; false for kinds whose ids do not derive
// from their keys.
func deriveID(repoID string, e End) (object.ID, bool) {
	if e.Key == "" {
		return object.ID{}, false
	}
	switch e.Kind {
	case graph.NodeFile:
		return graph.FileNode(repoID, e.Key).ID, true
	case graph.NodeDirectory:
		return graph.DirectoryNode(repoID, e.Key).ID, true
	case graph.NodeItem:
		return graph.ItemNode(repoID, e.Key).ID, true
	case graph.NodeModule:
		return graph.ModuleNode(repoID, e.Key).ID, true
	case graph.NodeCrate:
		return graph.CrateNode(repoID, e.Key).ID, true
	case graph.NodePackage:
		if e.Ecosystem != "" {
			return graph.PackageNode(repoID, e.Ecosystem, e.Key).ID, true
		}
	case graph.NodeTarget:
		// The key is PACKAGE#KIND:NAME; the id derives from the whole key.
		i := strings.LastIndexByte(e.Key, '#')
		if e.Ecosystem != "" && i >= 0 {
			kind, name, ok := strings.Cut(e.Key[i+1:], ":")
			if ok {
				return graph.TargetNode(repoID, e.Ecosystem, e.Key[:i], kind, name).ID, true
			}
		}
	case graph.NodeCommit:
		if id, err := object.ParseID(e.Key); err == nil {
			return id, true
		}
	}
	return object.ID{}, false
}

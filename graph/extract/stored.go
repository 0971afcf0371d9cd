package extract

import (
	"errors"
	"fmt"

	"github.com/zeebo/blake3"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/object"
)

// FileVersion is a file as one ingestion saw it: its content and, when
// its language was read, what it declares and the edges of its code
// graph. Stored under the type name "file_version"; a commit's
// semantic_snapshot is a tree of them by path (docs/FORMAT.md §4.8).
//
// The edges are stored as a node table and index pairs rather than as an
// edge_batch: a file has hundreds of edges that share their file, tool and
// evidence blob, and the same file version is shared by every commit that
// has it. Edges materializes them as graph edges.
type FileVersion struct {
	Path  string    `json:"path"`
	Blob  object.ID `json:"blob"`
	Bytes uint64    `json:"bytes"`
	Lines uint64    `json:"lines"`
	// Language is the language read, if any.
	Language string `json:"language,omitempty"`
	// Binary marks content that is not text: stored, not read.
	Binary bool `json:"binary,omitempty"`
	// Module is the module or package the file is part of.
	Module *Node `json:"module,omitempty"`
	// SyntaxErrors counts what the parser could not read.
	SyntaxErrors uint64         `json:"syntax_errors,omitempty"`
	Items        []StoredItem   `json:"items,omitempty"`
	Imports      []StoredImport `json:"imports,omitempty"`
	// Nodes is the table the edges index.
	Nodes []Node       `json:"nodes,omitempty"`
	Edges []StoredEdge `json:"edges,omitempty"`
}

// StoredItem is an Item as stored.
type StoredItem struct {
	Kind       ItemKind   `json:"kind"`
	Name       string     `json:"name"`
	Key        string     `json:"key"`
	Parent     string     `json:"parent,omitempty"`
	Visibility Visibility `json:"visibility"`
	Span       graph.Span `json:"span"`
	// SignatureHash is the first 16 bytes of the BLAKE3 hash of the
	// signature, if the item has one.
	SignatureHash []byte `json:"signature_hash,omitempty"`
	Doc           string `json:"doc,omitempty"`
}

// StoredImport is an Import as stored.
type StoredImport struct {
	Path   string     `json:"path"`
	Alias  string     `json:"alias,omitempty"`
	Target Node       `json:"target"`
	Span   graph.Span `json:"span"`
}

// StoredEdge is one edge: indexes into FileVersion.Nodes.
type StoredEdge struct {
	From       uint32           `json:"from"`
	To         uint32           `json:"to"`
	Label      graph.Label      `json:"label"`
	Span       *graph.Span      `json:"span,omitempty"`
	Confidence graph.Confidence `json:"confidence"`
}

// TypeName returns "file_version".
func (*FileVersion) TypeName() string { return "file_version" }

// Links returns the content blob.
func (v *FileVersion) Links() []object.Link {
	return []object.Link{{Field: "blob", ID: v.Blob, Kind: object.KindBlob}}
}

// Validate checks kinds, labels and edge indexes.
func (v *FileVersion) Validate() error {
	if err := object.CheckRelPath(v.Path); err != nil {
		return fmt.Errorf("path: %w", err)
	}
	if v.Blob.IsZero() {
		return errors.New("blob is the zero id")
	}
	for i, it := range v.Items {
		if !validItemKind(it.Kind) {
			return fmt.Errorf("items[%d]: kind %q is not an item kind", i, it.Kind)
		}
		if it.Visibility != Public && it.Visibility != Package && it.Visibility != Private {
			return fmt.Errorf("items[%d]: visibility %q", i, it.Visibility)
		}
		if it.SignatureHash != nil && len(it.SignatureHash) != 16 {
			return fmt.Errorf("items[%d]: signature_hash has %d bytes, want 16", i, len(it.SignatureHash))
		}
	}
	for i, n := range append(v.Nodes, v.moduleNodes()...) {
		if !n.Kind.Valid() || n.Kind == graph.NodePackage && n.Ecosystem == "" {
			return fmt.Errorf("node %d: kind %q, ecosystem %q", i, n.Kind, n.Ecosystem)
		}
	}
	for i, e := range v.Edges {
		if int(e.From) >= len(v.Nodes) || int(e.To) >= len(v.Nodes) {
			return fmt.Errorf("edges[%d]: node index out of range (%d nodes)", i, len(v.Nodes))
		}
		if !e.Label.Valid() || !e.Confidence.Valid() {
			return fmt.Errorf("edges[%d]: label %q, confidence %q", i, e.Label, e.Confidence)
		}
		if s := e.Span; s != nil && (s.StartLine == 0 || s.EndLine < s.StartLine) {
			return fmt.Errorf("edges[%d]: span is not a forward 1-based range", i)
		}
	}
	return nil
}

func (v *FileVersion) moduleNodes() []Node {
	var out []Node
	if v.Module != nil {
		out = append(out, *v.Module)
	}
	for _, im := range v.Imports {
		out = append(out, im.Target)
	}
	return out
}

func validItemKind(k ItemKind) bool {
	for _, x := range ItemKinds {
		if x == k {
			return true
		}
	}
	return false
}

// Types returns the constructors of the typed objects this package
// defines, for an object.Registry.
func Types() []func() object.Typed {
	return []func() object.Typed{func() object.Typed { return new(FileVersion) }}
}

// SignatureHash hashes a signature to 16 bytes; nil for none.
func SignatureHash(sig string) []byte {
	if sig == "" {
		return nil
	}
	h := blake3.New()
	_, _ = h.Write([]byte(sig))
	return h.Sum(nil)[:16]
}

// NewFileVersion builds the stored form of a file read with r (nil when
// no language read it) and its resolved edges.
func NewFileVersion(path string, blob object.ID, src []byte, r *Result, edges []Edge) *FileVersion {
	v := &FileVersion{Path: path, Blob: blob, Bytes: uint64(len(src)), Lines: uint64(goLines(src))}
	if r == nil {
		return v
	}
	v.Language, v.SyntaxErrors = r.Language, uint64(r.SyntaxErrors)
	mod := r.Module
	v.Module = &mod
	for _, it := range r.Items {
		v.Items = append(v.Items, StoredItem{Kind: it.Kind, Name: it.Name, Key: it.Key, Parent: it.Parent,
			Visibility: it.Visibility, Span: it.Span, SignatureHash: SignatureHash(it.Signature), Doc: it.Doc})
	}
	for _, im := range r.Imports {
		v.Imports = append(v.Imports, StoredImport{Path: im.Path, Alias: im.Alias, Target: im.Target, Span: im.Span})
	}
	index := map[Node]uint32{}
	node := func(n Node) uint32 {
		if i, ok := index[n]; ok {
			return i
		}
		i := uint32(len(v.Nodes))
		index[n] = i
		v.Nodes = append(v.Nodes, n)
		return i
	}
	for _, e := range edges {
		se := StoredEdge{From: node(e.From), To: node(e.To), Label: e.Label, Confidence: e.Confidence}
		if e.Span.StartLine > 0 {
			sp := e.Span
			se.Span = &sp
		}
		v.Edges = append(v.Edges, se)
	}
	return v
}

// GraphEdges materializes the file's edges as graph edges of repository
// repoID, with evidence: tool parser, the span, the file's content blob.
func (v *FileVersion) GraphEdges(repoID string) []graph.Edge {
	ids := make([]graph.NodeID, len(v.Nodes))
	for i, n := range v.Nodes {
		ids[i] = n.ID(repoID)
	}
	out := make([]graph.Edge, len(v.Edges))
	blob := v.Blob
	for i, e := range v.Edges {
		out[i] = graph.Edge{From: ids[e.From], To: ids[e.To], Label: e.Label,
			Evidence: graph.Evidence{Tool: graph.ToolParser, Confidence: e.Confidence, Span: e.Span, BlobID: &blob}}
	}
	return out
}

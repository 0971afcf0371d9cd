package extract

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

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
	// Integers are signed 64-bit in the format (FORMAT §4.1).
	if v.Bytes > math.MaxInt64 || v.Lines > math.MaxInt64 || v.SyntaxErrors > math.MaxInt64 {
		return fmt.Errorf("bytes %d, lines %d or syntax_errors %d over 2^63-1", v.Bytes, v.Lines, v.SyntaxErrors)
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
	// The node table, then the module and import targets, numbered on.
	// (Not append(v.Nodes, …): it would write into v.Nodes's spare
	// capacity, a race when two goroutines validate one value.)
	i := 0
	for _, nodes := range [][]Node{v.Nodes, v.moduleNodes()} {
		for _, n := range nodes {
			if !n.Kind.Valid() || n.Kind == graph.NodePackage && n.Ecosystem == "" {
				return fmt.Errorf("node %d: kind %q, ecosystem %q", i, n.Kind, n.Ecosystem)
			}
			i++
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
	sum := blake3.Sum256([]byte(sig)) // no Hasher: this runs once per item
	return sum[:16:16]
}

// validText returns s with every byte sequence that is not UTF-8 replaced
// by U+FFFD. Source files may hold any bytes (Go's own testdata imports
// "abc\xffdef"), but the strings of a stored object must be UTF-8 (CBOR
// text strings; FORMAT.md): an object holding one could never be read.
func validText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

func validNode(n Node) Node {
	n.Key = validText(n.Key)
	return n
}

// NewFileVersion builds the stored form of a file read with r (nil when
// no language read it) and its resolved edges.
func NewFileVersion(path string, blob object.ID, src []byte, r *Result, edges []Edge) *FileVersion {
	v := &FileVersion{Path: path, Blob: blob, Bytes: uint64(len(src)), Lines: uint64(goLines(src))}
	if r == nil {
		return v
	}
	v.Language, v.SyntaxErrors = r.Language, uint64(r.SyntaxErrors)
	mod := validNode(r.Module)
	v.Module = &mod
	if len(r.Items) > 0 { // nil, not empty, when there are none: omitted
		v.Items = make([]StoredItem, 0, len(r.Items))
	}
	for _, it := range r.Items {
		v.Items = append(v.Items, StoredItem{Kind: it.Kind, Name: validText(it.Name), Key: validText(it.Key), Parent: validText(it.Parent),
			Visibility: it.Visibility, Span: it.Span, SignatureHash: SignatureHash(it.Signature), Doc: validText(it.Doc)})
	}
	if len(r.Imports) > 0 {
		v.Imports = make([]StoredImport, 0, len(r.Imports))
	}
	for _, im := range r.Imports {
		v.Imports = append(v.Imports, StoredImport{Path: validText(im.Path), Alias: validText(im.Alias), Target: validNode(im.Target), Span: im.Span})
	}
	index := make(map[Node]uint32, len(edges)/2)
	node := func(n Node) uint32 {
		n = validNode(n)
		if i, ok := index[n]; ok {
			return i
		}
		i := uint32(len(v.Nodes))
		index[n] = i
		v.Nodes = append(v.Nodes, n)
		return i
	}
	if len(edges) > 0 {
		v.Edges = make([]StoredEdge, 0, len(edges))
	}
	spans := make([]graph.Span, 0, len(edges)) // one allocation for the spans; never grows
	for _, e := range edges {
		se := StoredEdge{From: node(e.From), To: node(e.To), Label: e.Label, Confidence: e.Confidence}
		if e.Span.StartLine > 0 {
			spans = append(spans, e.Span)
			se.Span = &spans[len(spans)-1]
		}
		v.Edges = append(v.Edges, se)
	}
	return v
}

// GraphEdges appends the file's edges to dst as graph edges of
// repository repoID, with evidence: tool parser, the span, the file's
// content blob. A caller gathering the edges of many files sizes dst
// once for them all, so that no file's edges are copied.
func (v *FileVersion) GraphEdges(dst []graph.Edge, repoID string) []graph.Edge {
	ids := make([]graph.NodeID, len(v.Nodes))
	for i, n := range v.Nodes {
		ids[i] = n.ID(repoID)
	}
	// Appending make(…)... grows dst without an allocation when it has
	// room. The blob is a copy: the edges must not keep the whole file
	// version alive.
	k := len(dst)
	dst = append(dst, make([]graph.Edge, len(v.Edges))...)
	blob := v.Blob
	for i, e := range v.Edges {
		dst[k+i] = graph.Edge{From: ids[e.From], To: ids[e.To], Label: e.Label,
			Evidence: graph.Evidence{Tool: graph.ToolParser, Confidence: e.Confidence, Span: e.Span, BlobID: &blob}}
	}
	return dst
}

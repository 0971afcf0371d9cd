package graph

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/ctx-dev/ctx/object"
)

// NodeKind is the kind of a node.
type NodeKind string

// The node kinds. The zero value is invalid.
const (
	NodeFile         NodeKind = "file"
	NodeDirectory    NodeKind = "directory"
	NodeModule       NodeKind = "module"
	NodeItem         NodeKind = "item"
	NodePackage      NodeKind = "package"
	NodeTarget       NodeKind = "target"
	NodeCrate        NodeKind = "crate"
	NodeCommit       NodeKind = "commit"
	NodeTask         NodeKind = "task"
	NodeNote         NodeKind = "note"
	NodeDecision     NodeKind = "decision"
	NodeDiagnostic   NodeKind = "diagnostic"
	NodeFact         NodeKind = "fact"
	NodePattern      NodeKind = "pattern"
	NodeObservation  NodeKind = "observation"
	NodeHypothesis   NodeKind = "hypothesis"
	NodeOpenQuestion NodeKind = "open_question"
	NodeSummary      NodeKind = "summary"
	NodeSource       NodeKind = "source"
)

// NodeKinds lists every node kind.
var NodeKinds = []NodeKind{
	NodeFile, NodeDirectory, NodeModule, NodeItem, NodePackage, NodeTarget, NodeCrate, NodeCommit,
	NodeTask, NodeNote, NodeDecision, NodeDiagnostic, NodeFact, NodePattern, NodeObservation,
	NodeHypothesis, NodeOpenQuestion, NodeSummary, NodeSource,
}

// Valid reports whether k is a defined node kind.
func (k NodeKind) Valid() bool { return contains(NodeKinds, k) }

// String returns the kind's name.
func (k NodeKind) String() string { return string(k) }

// Label is the relation an edge expresses.
type Label string

// The edge labels: the design's four tiers, its extensions, and the
// knowledge-graph relations. The zero value is invalid.
const (
	// Tier 1: structure.
	Contains   Label = "contains"
	Defines    Label = "defines"
	HasVersion Label = "has_version"
	// Tier 2: build graph.
	DependsOn       Label = "depends_on"
	TargetOf        Label = "target_of"
	CrateFromTarget Label = "crate_from_target"
	// Tier 3: semantics.
	Imports    Label = "imports"
	References Label = "references"
	Calls      Label = "calls"
	Implements Label = "implements"
	UsesType   Label = "uses_type"
	// Tier 4: narrative.
	Mentions    Label = "mentions"
	UpdatedIn   Label = "updated_in"
	DerivedFrom Label = "derived_from"
	// Extensions.
	AffectsTest    Label = "affects_test"
	OwnedBy        Label = "owned_by"
	PerformanceHot Label = "performance_hot"
	// Knowledge graph.
	Supersedes Label = "supersedes"
	RelatesTo  Label = "relates_to"
	ChildOf    Label = "child_of"
)

// Labels lists every label.
var Labels = []Label{
	Contains, Defines, HasVersion, DependsOn, TargetOf, CrateFromTarget, Imports, References, Calls,
	Implements, UsesType, Mentions, UpdatedIn, DerivedFrom, AffectsTest, OwnedBy, PerformanceHot,
	Supersedes, RelatesTo, ChildOf,
}

// Valid reports whether l is a defined label.
func (l Label) Valid() bool {
	_, ok := labelIndex[l] // a map: every edge of the code graph asks
	return ok
}

// String returns the label's name.
func (l Label) String() string { return string(l) }

// ParseLabel accepts a label in any of its spellings, ignoring case,
// underscores and hyphens: "DerivedFrom", "DERIVED_FROM", "derived-from"
// and "derived_from" are the same label. An unknown label is an error that
// lists the valid ones.
func ParseLabel(s string) (Label, error) {
	want := squash(s)
	for _, l := range Labels {
		if squash(string(l)) == want {
			return l, nil
		}
	}
	names := make([]string, len(Labels))
	for i, l := range Labels {
		names[i] = string(l)
	}
	return "", fmt.Errorf("%w %q (valid: %s; case, '_' and '-' do not matter)", ErrInvalidLabel, s, strings.Join(names, ", "))
}

// ErrInvalidLabel means a string names no edge label.
var ErrInvalidLabel = errors.New("graph: unknown label")

func squash(s string) string {
	return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(s))
}

// Tool names what produced an edge.
type Tool string

// The evidence tools. The zero value is invalid.
const (
	ToolHuman    Tool = "human"    // asserted by a person
	ToolParser   Tool = "parser"   // syntax (tree-sitter)
	ToolBuild    Tool = "build"    // build metadata (go list, cargo metadata)
	ToolAnalyzer Tool = "analyzer" // type-aware analysis (go/types, rust-analyzer)
	ToolCommand  Tool = "command"  // output of a command (compiler, tests)
	ToolLLM      Tool = "llm"      // a language model's response
)

// Tools lists every tool.
var Tools = []Tool{ToolHuman, ToolParser, ToolBuild, ToolAnalyzer, ToolCommand, ToolLLM}

// Valid reports whether t is a defined tool.
func (t Tool) Valid() bool { return contains(Tools, t) }

// Confidence grades evidence.
type Confidence string

// The confidence levels. The zero value is invalid.
const (
	High   Confidence = "high"
	Medium Confidence = "medium"
	Low    Confidence = "low"
)

// Confidences lists every level, highest first.
var Confidences = []Confidence{High, Medium, Low}

// Valid reports whether c is a defined level.
func (c Confidence) Valid() bool { return contains(Confidences, c) }

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// NodeID names a node.
type NodeID struct {
	Kind NodeKind  `json:"kind"`
	ID   object.ID `json:"id"`
	// Key is the human name the ID derives from (a narrative node id, a
	// file path, a symbol's stable key, a commit id), so that any reader
	// can show the node without a lookup; optional.
	Key string `json:"key,omitempty"`
}

// A node's identity is its ID alone: ids of different kinds of node are
// derived in separate domains (node.go), so they cannot meet, and a
// narrative node whose type changes (kind task → decision) stays the same
// node. Kind and Key describe the node; readers take the first they see.

// Span is a region of a source file: 1-based lines, 1-based byte columns,
// the end inclusive.
type Span struct {
	StartLine uint32 `json:"start_line"`
	StartCol  uint32 `json:"start_col"`
	EndLine   uint32 `json:"end_line"`
	EndCol    uint32 `json:"end_col"`
}

// Evidence is the provenance of an edge.
type Evidence struct {
	// CommitID is the commit that produced the evidence. It is absent for
	// edges whose batch is created before their commit (the usual case:
	// a batch cannot name the commit that lists it); the commit is then
	// the one whose edge_batches lists the batch.
	CommitID *object.ID `json:"commit_id,omitempty"`
	// Span is the source region supporting the edge, if any.
	Span *Span `json:"span,omitempty"`
	// BlobID is a blob with supporting text, if any.
	BlobID *object.ID `json:"blob_id,omitempty"`
	// Tool produced the edge.
	Tool Tool `json:"tool"`
	// Confidence grades the evidence.
	Confidence Confidence `json:"confidence"`
}

// Edge is one labelled relation.
type Edge struct {
	From     NodeID   `json:"from"`
	To       NodeID   `json:"to"`
	Label    Label    `json:"label"`
	Weight   *float64 `json:"weight,omitempty"`
	Evidence Evidence `json:"evidence"`
}

// EdgeBatch is the immutable set of edges created in one operation, and of
// edges it removes. Stored under the type name "edge_batch".
type EdgeBatch struct {
	Edges []Edge `json:"edges"`
	// CreatedAt is the creation time in seconds since the Unix epoch.
	CreatedAt int64 `json:"created_at"`
	// Tombstones remove edges: every edge with the same from, to and label
	// that the batch's commit could see (added by its ancestors, or by
	// batches listed before this one in the same commit; not this batch's
	// own, so a batch can replace an edge). An edge added concurrently on
	// another line of history survives (add wins); see docs/FORMAT.md
	// §15.2. Optional.
	Tombstones []Tombstone `json:"tombstones,omitempty"`
}

// Tombstone names the edges an unlink removes.
type Tombstone struct {
	From  NodeID `json:"from"`
	To    NodeID `json:"to"`
	Label Label  `json:"label"`
	// Evidence says who removed them and why.
	Evidence Evidence `json:"evidence"`
}

// EdgeKey is what identifies an edge for adding and removing it.
type EdgeKey struct {
	From, To object.ID
	Label    Label
}

// Key returns the edge's key.
func (e *Edge) Key() EdgeKey { return EdgeKey{e.From.ID, e.To.ID, e.Label} }

// Key returns the key of the edges the tombstone removes.
func (t *Tombstone) Key() EdgeKey { return EdgeKey{t.From.ID, t.To.ID, t.Label} }

// TypeName returns "edge_batch".
func (*EdgeBatch) TypeName() string { return "edge_batch" }

// Links returns the commits and blobs the evidence of the edges and
// tombstones names.
func (b *EdgeBatch) Links() []object.Link {
	var ls []object.Link
	for i, t := range b.Tombstones {
		if t.Evidence.CommitID != nil {
			ls = append(ls, object.Link{Field: fmt.Sprintf("tombstones[%d].evidence.commit_id", i), ID: *t.Evidence.CommitID, Kind: object.KindTyped, Type: "commit"})
		}
		if t.Evidence.BlobID != nil {
			ls = append(ls, object.Link{Field: fmt.Sprintf("tombstones[%d].evidence.blob_id", i), ID: *t.Evidence.BlobID, Kind: object.KindBlob})
		}
	}
	for i, e := range b.Edges {
		if e.Evidence.CommitID != nil {
			ls = append(ls, object.Link{Field: fmt.Sprintf("edges[%d].evidence.commit_id", i), ID: *e.Evidence.CommitID, Kind: object.KindTyped, Type: "commit"})
		}
		if e.Evidence.BlobID != nil {
			ls = append(ls, object.Link{Field: fmt.Sprintf("edges[%d].evidence.blob_id", i), ID: *e.Evidence.BlobID, Kind: object.KindBlob})
		}
	}
	return ls
}

// Validate checks every edge's kinds, label, evidence and weight.
func (b *EdgeBatch) Validate() error {
	for i := range b.Edges {
		if err := b.Edges[i].Validate(); err != nil {
			return fmt.Errorf("edges[%d]: %w", i, err)
		}
	}
	for i, t := range b.Tombstones {
		e := Edge{From: t.From, To: t.To, Label: t.Label, Evidence: t.Evidence}
		if err := e.Validate(); err != nil {
			return fmt.Errorf("tombstones[%d]: %w", i, err)
		}
	}
	return nil
}

// Validate checks the edge's kinds, label, evidence and weight.
func (e *Edge) Validate() error {
	switch {
	case !e.From.Kind.Valid():
		return fmt.Errorf("from.kind %q is not a node kind", e.From.Kind)
	case !e.To.Kind.Valid():
		return fmt.Errorf("to.kind %q is not a node kind", e.To.Kind)
	case e.From.ID.IsZero() || e.To.ID.IsZero():
		return errors.New("node id is the zero id")
	case !e.Label.Valid():
		return fmt.Errorf("label %q is not an edge label", e.Label)
	case !e.Evidence.Tool.Valid():
		return fmt.Errorf("evidence.tool %q is not one of %v", e.Evidence.Tool, Tools)
	case !e.Evidence.Confidence.Valid():
		return fmt.Errorf("evidence.confidence %q is not one of %v", e.Evidence.Confidence, Confidences)
	case e.Weight != nil && (math.IsNaN(*e.Weight) || math.IsInf(*e.Weight, 0)):
		return errors.New("weight is not a finite number")
	}
	for _, id := range []*object.ID{e.Evidence.CommitID, e.Evidence.BlobID} {
		if id != nil && id.IsZero() {
			return errors.New("evidence names the zero id")
		}
	}
	if s := e.Evidence.Span; s != nil && (s.StartLine == 0 || s.EndLine < s.StartLine) {
		return fmt.Errorf("span %d:%d-%d:%d is not a forward 1-based range", s.StartLine, s.StartCol, s.EndLine, s.EndCol)
	}
	return nil
}

// Types returns the constructors of the typed objects this package
// defines, for an object.Registry.
func Types() []func() object.Typed {
	return []func() object.Typed{
		func() object.Typed { return new(EdgeBatch) },
		func() object.Typed { return new(SccView) },
	}
}

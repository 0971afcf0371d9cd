package pack

import (
	"errors"
	"fmt"
	"time"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/narrative/where"
	"github.com/ctx-dev/ctx/object"
)

// Pack is a prompt pack (design §12.4): what a query retrieved, fitted to
// a token budget. Its JSON form is the pack format of docs/QUERY.md.
type Pack struct {
	Task            string       `json:"task"`
	HeadCommit      string       `json:"head_commit"`
	Retrieved       []Chunk      `json:"retrieved"`
	GraphContext    GraphContext `json:"graph_context"`
	RecentNarrative string       `json:"recent_narrative"`
	TokenBudget     TokenBudget  `json:"token_budget"`
	// Explain is set with Options.Explain: why each chunk is there, and
	// what the budget cut.
	Explain *Explain `json:"explain,omitempty"`
}

// Chunk is one retrieved piece of content.
type Chunk struct {
	Title          string    `json:"title"`
	ObjectID       string    `json:"object_id"`
	Snippet        string    `json:"snippet"`
	RelevanceScore float64   `json:"relevance_score"`
	ChunkKind      ChunkKind `json:"chunk_kind"`
	// Path (relative to the project root) and Span locate a chunk that
	// comes from a file.
	Path string `json:"path,omitempty"`
	Span *Span  `json:"span,omitempty"`
	// Node is the graph node the chunk stands for ("item:net.Client.Do",
	// "decision:8kq2m4x7ab").
	Node string `json:"node"`
	// Why is the chunk's explanation, with Options.Explain.
	Why *Why `json:"why,omitempty"`
}

// Span is a range of lines, 1-based and inclusive.
type Span struct {
	Start uint32 `json:"start"`
	End   uint32 `json:"end"`
}

// ChunkKind is what a chunk holds (design §12.1).
type ChunkKind string

// The chunk kinds.
const (
	FileContent      ChunkKind = "FileContent"      // lines of a file no item covers
	SymbolDefinition ChunkKind = "SymbolDefinition" // an item's source span
	Decision         ChunkKind = "Decision"         // a decision node
	NarrativeExcerpt ChunkKind = "NarrativeExcerpt" // any other narrative node
	DiagnosticOutput ChunkKind = "DiagnosticOutput" // a diagnostic of a recorded run
)

// GraphContext says how the graph widened the query.
type GraphContext struct {
	SeedNodes      []string `json:"seed_nodes"`
	ExpandedNodes  []string `json:"expanded_nodes"`
	ExpansionDepth int      `json:"expansion_depth"`
	SCCDAGUsed     bool     `json:"scc_dag_used"`
}

// TokenBudget is the pack's budget: Used counts the rendered pack.
type TokenBudget struct {
	Total               int `json:"total"`
	Used                int `json:"used"`
	ReservedForResponse int `json:"reserved_for_response"`
}

// Format is a rendering of a pack.
type Format string

// The formats.
const (
	JSON     Format = "json"
	Markdown Format = "markdown"
	Text     Format = "text"
)

// ParseFormat accepts json, markdown (md) or text.
func ParseFormat(s string) (Format, error) {
	switch s {
	case "json":
		return JSON, nil
	case "markdown", "md":
		return Markdown, nil
	case "text", "txt":
		return Text, nil
	}
	return "", fmt.Errorf("%w: format %q (want json, markdown or text)", ErrInvalidOptions, s)
}

// ErrInvalidOptions reports options out of range.
var ErrInvalidOptions = errors.New("pack: invalid options")

// Defaults of Options (design §12.3).
const (
	DefaultBudget        = 16000
	DefaultDepth         = 2
	DefaultMaxExpanded   = 50
	DefaultNarrativeDays = 7
	// MaxBudget is the largest budget: a billion tokens is more than any
	// model reads, and keeps the counting in range.
	MaxBudget = 1 << 30
	// MaxChunkTokens bounds one chunk: a long function is cut, with a
	// marker, so that one item cannot take the budget of ten.
	MaxChunkTokens = 600
)

// DefaultLabels are the edge labels the graph expansion follows.
var DefaultLabels = []graph.Label{graph.Imports, graph.References, graph.Calls, graph.DependsOn, graph.Contains, graph.Defines, graph.Mentions}

// Options configure Build.
type Options struct {
	// Budget is the pack's total budget in tokens, response included;
	// 0 means DefaultBudget.
	Budget int
	// Reserve is kept for the response, out of Budget; negative means
	// none, 0 means a quarter of the budget, at most 2,048.
	Reserve int
	// Format is the rendering the budget is counted on; "" means JSON.
	Format Format
	// Depth bounds the graph expansion, in edges; 0 means DefaultDepth.
	Depth int
	// NoGraph skips the graph expansion.
	NoGraph bool
	// MaxExpanded bounds the nodes the expansion adds; 0 means
	// DefaultMaxExpanded.
	MaxExpanded int
	// Labels are the edge labels followed; none means DefaultLabels.
	Labels []graph.Label
	// MinConfidence is the lowest confidence of an edge followed; ""
	// means graph.Medium (design §12.3).
	MinConfidence graph.Confidence
	// IncludeNarrative adds the narrative: the active task, decisions
	// and notes that match, the recent log.
	IncludeNarrative bool
	// NarrativeDays is how far back the recent log goes; 0 means
	// DefaultNarrativeDays.
	NarrativeDays int
	// IncludeSuperseded lets superseded nodes in.
	IncludeSuperseded bool
	// Explain records why each chunk is there.
	Explain bool
	// Where, if set, keeps only the narrative nodes it matches (asking
	// WhereGraph about edges and summaries), and no code: `--where
	// "tag:tier:reference"` asks for knowledge, not source. With an
	// empty task, every matching node is a candidate, newest first.
	Where      *where.Expr
	WhereGraph where.Graph
	// Now is the time the recent log is counted back from.
	Now time.Time
}

func (o Options) withDefaults() (Options, error) {
	if o.Budget == 0 {
		o.Budget = DefaultBudget
	}
	if o.Budget < 0 || o.Budget > MaxBudget {
		return o, fmt.Errorf("%w: budget %d (want 1 to %d tokens)", ErrInvalidOptions, o.Budget, MaxBudget)
	}
	switch {
	case o.Reserve < 0:
		o.Reserve = 0
	case o.Reserve == 0:
		o.Reserve = min(o.Budget/4, 2048)
	}
	if o.Reserve >= o.Budget {
		return o, fmt.Errorf("%w: %d tokens reserved for the response leave nothing of a budget of %d", ErrInvalidOptions, o.Reserve, o.Budget)
	}
	if o.Format == "" {
		o.Format = JSON
	}
	if _, err := ParseFormat(string(o.Format)); err != nil {
		return o, err
	}
	if o.Depth == 0 {
		o.Depth = DefaultDepth
	}
	if o.Depth < 0 {
		return o, fmt.Errorf("%w: depth %d", ErrInvalidOptions, o.Depth)
	}
	if o.MaxExpanded == 0 {
		o.MaxExpanded = DefaultMaxExpanded
	}
	if len(o.Labels) == 0 {
		o.Labels = DefaultLabels
	}
	switch o.MinConfidence {
	case "":
		o.MinConfidence = graph.Medium
	case graph.High, graph.Medium, graph.Low:
	default:
		return o, fmt.Errorf("%w: confidence %q (want high, medium or low)", ErrInvalidOptions, o.MinConfidence)
	}
	if o.Where != nil {
		o.IncludeNarrative = true
	}
	if o.NarrativeDays == 0 {
		o.NarrativeDays = DefaultNarrativeDays
	}
	return o, nil
}

// shortID is how a pack shows an object id.
func shortID(id object.ID) string { return id.String() }

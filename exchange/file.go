package exchange

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/narrative"
)

// FormatName is the value of an export file's "format" field.
const FormatName = "ctx-export"

// Version is the version of the export schema this package writes, and the
// only one it reads.
//
//	1: nodes (id, type, stream, title, body, tags, meta, created, updated,
//	   superseded_by, deleted, derived_from) and edges (from, label, to,
//	   weight, evidence: tool, confidence, span, note).
const Version = 1

// MaxFileSize bounds the export files Decode reads: 1 GiB.
const MaxFileSize = 1 << 30

var (
	// ErrInvalid means an export file is not one this ctx can import: not
	// JSON of the schema, an unknown format or version, or entries that do
	// not validate (*Error lists them).
	ErrInvalid = errors.New("exchange: invalid export file")
	// ErrConflict means an import without merge found nodes the store
	// already has.
	ErrConflict = errors.New("exchange: the store already has nodes of the export")
	// ErrDocument means a file given to Ingest is not a text document
	// ctx keeps: binary, too large, or a file of credentials.
	ErrDocument = errors.New("exchange: not an ingestible document")
)

// File is an export document.
type File struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Nodes   []Node `json:"nodes"`
	Edges   []Edge `json:"edges"`
}

// Node is a narrative node with its whole state.
type Node struct {
	ID           narrative.ID      `json:"id"`
	Type         narrative.Type    `json:"type"`
	Stream       string            `json:"stream"`
	Title        string            `json:"title"`
	Body         string            `json:"body"`
	Tags         []string          `json:"tags"`
	Meta         map[string]string `json:"meta"`
	Created      time.Time         `json:"created"`
	Updated      time.Time         `json:"updated"`
	SupersededBy narrative.ID      `json:"superseded_by,omitempty"`
	Deleted      bool              `json:"deleted,omitempty"`
	DerivedFrom  []narrative.ID    `json:"derived_from,omitempty"`
}

// Edge is an edge an edge batch asserts, from or to an exported node.
type Edge struct {
	From     End         `json:"from"`
	Label    graph.Label `json:"label"`
	To       End         `json:"to"`
	Weight   *float64    `json:"weight,omitempty"`
	Evidence Evidence    `json:"evidence"`
}

// End is one end of an edge. A narrative node is named by Node alone. Any
// other node by Kind and Key (and Ecosystem for packages and targets), from
// which the importing store derives its id; ID is given only for a node
// whose id cannot be derived so (a diagnostic, a node of another store),
// and is then kept as it is.
type End struct {
	Node      narrative.ID   `json:"node,omitempty"`
	Kind      graph.NodeKind `json:"kind,omitempty"`
	Key       string         `json:"key,omitempty"`
	Ecosystem string         `json:"ecosystem,omitempty"`
	ID        string         `json:"id,omitempty"`
}

// Evidence is an edge's provenance. The commit that recorded the edge is
// not exported: it is the exporting store's history. Note is the text of
// the evidence blob (why the edge holds); NoteBase64 holds a blob that is
// not UTF-8.
type Evidence struct {
	Tool       graph.Tool       `json:"tool"`
	Confidence graph.Confidence `json:"confidence"`
	Span       *graph.Span      `json:"span,omitempty"`
	Note       string           `json:"note,omitempty"`
	NoteBase64 []byte           `json:"note_base64,omitempty"`
}

// String names the end as errors and sort keys do: the node id, or
// kind:key.
func (e End) String() string {
	if e.Node != "" {
		return string(e.Node)
	}
	s := string(e.Kind) + ":" + e.Key
	if e.Ecosystem != "" {
		s += "@" + e.Ecosystem
	}
	if e.ID != "" {
		s += "#" + e.ID
	}
	return s
}

// sortKey orders edges: from, label, to.
func (e *Edge) sortKey() string {
	return e.From.String() + "\x00" + string(e.Label) + "\x00" + e.To.String()
}

// Encode writes f as indented JSON ending in a newline: with the nodes and
// edges in Export's order, the same File always gives the same bytes.
func (f *File) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(f)
}

// Decode reads an export file: one JSON document of the schema, nothing
// after it, no field the schema lacks, format "ctx-export" and a version
// this package reads. It checks the shape only; Import validates the
// entries.
func Decode(r io.Reader) (*File, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("exchange: read: %w", err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%w: larger than %d MiB", ErrInvalid, MaxFileSize>>20)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%w: the input is empty (pipe in what ctx export wrote)", ErrInvalid)
	}
	// The format and version first, so that a newer file is reported as
	// such rather than as unknown fields.
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrInvalid, jsonError(data, err))
	}
	if head.Format != FormatName {
		return nil, fmt.Errorf("%w: format is %q, not %q (is this a file ctx export wrote?)", ErrInvalid, head.Format, FormatName)
	}
	if head.Version != Version {
		return nil, fmt.Errorf("%w: version %d is not supported (this ctx reads version %d; a newer ctx may read it)", ErrInvalid, head.Version, Version)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	f := new(File)
	if err := dec.Decode(f); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrInvalid, jsonError(data, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the JSON document", ErrInvalid)
	}
	return f, nil
}

// jsonError describes a JSON error with the line it happened on, if known.
func jsonError(data []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if off >= 0 && off <= int64(len(data)) {
		return fmt.Sprintf("line %d: %s", bytes.Count(data[:off], []byte("\n"))+1, msg)
	}
	return msg
}

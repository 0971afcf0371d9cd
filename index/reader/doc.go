// Package reader reads the text segments of ctx's index (docs/INDEX.md):
// it opens a code and a narrative segment, each with the delta segment
// that may extend it, numbers their documents as one index, and runs
// ranked full-text searches and key lookups over them.
//
// It is the index's read side alone. It imports only the table and text
// packages and the standard library (and narrative/vocab, to check a
// search's filters), so a program that links it starts in about the time
// an empty Go program does: ctx's lean front end (cmd/ctx) answers
// ctx search with it, without the object store, the Markdown parser or
// tree-sitter. Package index builds the segments, keeps them fresh, and
// wraps this package for everything else.
package reader

import (
	"errors"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/index/table"
	"github.com/ctx-dev/ctx/index/text"
)

// IDSize is the length of a node id in bytes (an object.ID's).
const IDSize = 32

// shortLen is the number of hex characters of a short id (object.ShortLen).
const shortLen = 12

var (
	// ErrCorrupt is an index file that does not decode.
	ErrCorrupt = errors.New("index: corrupt index file")
	// ErrInvalidQuery is a query the index cannot run.
	ErrInvalidQuery = errors.New("index: invalid query")
)

// The files of a segment (docs/INDEX.md, "Layout and segments").
const (
	DocsFile     = "docs.tbl"  // kind "docs": doc number (u32 big-endian) → record
	TermsFile    = "terms.tbl" // kind "terms": term → uv df | [uv len | skip table, when df > table.SkipEvery] | positional postings
	KeysFile     = "keys.tbl"  // kind "keys": lookup key → doc numbers (uvarint deltas)
	MetaFile     = "meta.tbl"  // kind "meta": "stats", "doclens"
	ManifestFile = "manifest"  // what the segment was built from
)

// The namespaces of the keys table: a byte, then the key.
const (
	NsPath = 'p' // project path → the file's doc
	NsFile = 'f' // project path → the docs of the file and its items
	NsKey  = 'k' // stable key of an item → its doc
	NsName = 'n' // lower-cased last name of an item or node title → docs
	NsNode = 'i' // node id (its 32 bytes; looked up in hex) → the node's doc
	NsKind = 't' // document kind → docs
	NsTag  = 'a' // tag of a narrative node → docs
	NsSup  = 's' // "superseded" → the superseded nodes' docs
)

// DocKind is what a document of the index stands for.
type DocKind string

// The document kinds. Narrative nodes use their node type ("task",
// "decision", "observation", …).
const (
	DocFile       DocKind = "file"       // a file of the snapshot: its path
	DocItem       DocKind = "item"       // a function, type, … : its source span
	DocDiagnostic DocKind = "diagnostic" // a diagnostic of a recorded command run
)

// Doc is one document as a segment stores it (package index's Doc, with
// the node as plain values).
type Doc struct {
	Kind DocKind
	// Node is the graph node the document stands for.
	Node Node
	// Title is what a hit shows first: an item's key, a node's title, a
	// path, a diagnostic's message.
	Title string
	// Path and lines locate a code chunk or a diagnostic in the project
	// (1-based, inclusive; 0 when unknown).
	Path               string
	StartLine, EndLine uint32
	// Text is what the tokenizer reads.
	Text string
	// Tags, Updated (Unix seconds) and Superseded are the metadata
	// filters use; Tokens estimates the document's size in a context.
	Tags       []string
	Updated    int64
	Superseded bool
	Tokens     int
}

// Node names a graph node as graph.NodeID does: its kind, id and key.
type Node struct {
	Kind string
	ID   [IDSize]byte
	Key  string
}

// Name is the node's name as graph.NodeID.Name gives it: "kind:key", a
// commit's key shortened, or "kind:" and the short id when it has no key.
func (n Node) Name() string {
	if n.Key != "" {
		if n.Kind == "commit" && len(n.Key) > shortLen {
			return "commit:" + n.Key[:shortLen]
		}
		return n.Kind + ":" + n.Key
	}
	const hexDigits = "0123456789abcdef"
	var b strings.Builder
	b.WriteString(n.Kind)
	b.WriteByte(':')
	for _, c := range n.ID[:shortLen/2] {
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

// LastName returns the last part of a stable key: "Connect" of
// "net.Client.Connect", "connect" of "core::net::Client::connect".
func LastName(key string) string {
	if i := strings.LastIndex(key, "::"); i >= 0 {
		key = key[i+2:]
	}
	if i := strings.LastIndexAny(key, "./"); i >= 0 {
		key = key[i+1:]
	}
	return key
}

// Format names the formats of what this package reads (document records,
// tables, the tokenizer's terms): the stamp records it (index/stamp), so
// that a reader built from another version of ctx does not trust a stamp
// written by this one.
var Format = "record" + strconv.Itoa(recordVersion) + "-table" + strconv.Itoa(table.Version) + "-text" + strconv.Itoa(text.Version)

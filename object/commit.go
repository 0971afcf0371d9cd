package object

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// Commit is a node of the canonical history: a point-in-time snapshot of
// the code tree, the edge batches it introduced and the narrative files it
// snapshotted. Stored under the type name "commit".
type Commit struct {
	// Parents are the commits this one follows: none for a root commit,
	// two or more for a merge. Order matters: the first is the mainline.
	Parents []ID `json:"parents"`
	// TimestampUnix is the commit time in seconds since the Unix epoch.
	TimestampUnix int64 `json:"timestamp_unix"`
	// Author names who made the commit; optional.
	Author string `json:"author,omitempty"`
	// Message is the human-readable commit message.
	Message string `json:"message"`
	// RootTree is the tree snapshot of the ingested files.
	RootTree ID `json:"root_tree"`
	// EdgeBatches are the edge batches this commit introduces. The graph
	// at a commit is the union of the batches of all its ancestors.
	EdgeBatches []ID `json:"edge_batches"`
	// NarrativeRefs are the narrative files this commit snapshotted: only
	// those that changed since its parents.
	NarrativeRefs []NarrativeRef `json:"narrative_refs"`
	// BuildSnapshot is the build graph (go list, cargo metadata, …); optional.
	BuildSnapshot *ID `json:"build_snapshot,omitempty"`
	// SemanticSnapshot is the semantic graph of the code; optional.
	SemanticSnapshot *ID `json:"semantic_snapshot,omitempty"`
	// DiagnosticsSnapshot is the compiler and test diagnostics; optional.
	DiagnosticsSnapshot *ID `json:"diagnostics_snapshot,omitempty"`
}

// TypeName returns "commit".
func (*Commit) TypeName() string { return "commit" }

// Links returns the parents, root tree, edge batches, narrative blobs and
// snapshots.
func (c *Commit) Links() []Link {
	ls := make([]Link, 0, len(c.Parents)+1+len(c.EdgeBatches)+len(c.NarrativeRefs)+3)
	for i, p := range c.Parents {
		ls = append(ls, Link{Field: fmt.Sprintf("parents[%d]", i), ID: p, Kind: KindTyped, Type: "commit"})
	}
	ls = append(ls, Link{Field: "root_tree", ID: c.RootTree, Kind: KindTyped, Type: "tree"})
	for i, b := range c.EdgeBatches {
		ls = append(ls, Link{Field: fmt.Sprintf("edge_batches[%d]", i), ID: b, Kind: KindTyped, Type: "edge_batch"})
	}
	for i, n := range c.NarrativeRefs {
		ls = append(ls, Link{Field: fmt.Sprintf("narrative_refs[%d].blob_id", i), ID: n.BlobID, Kind: KindBlob})
	}
	for _, s := range []struct {
		field, typ string
		id         *ID
	}{{"build_snapshot", "build_snapshot", c.BuildSnapshot}, {"semantic_snapshot", "tree", c.SemanticSnapshot}, {"diagnostics_snapshot", "diagnostics_snapshot", c.DiagnosticsSnapshot}} {
		if s.id != nil {
			ls = append(ls, Link{Field: s.field, ID: *s.id, Kind: KindTyped, Type: s.typ})
		}
	}
	return ls
}

// Validate checks that the IDs are set, no parent repeats and the texts are
// UTF-8.
func (c *Commit) Validate() error {
	if err := uniqueIDs("parents", c.Parents); err != nil {
		return err
	}
	if c.RootTree.IsZero() {
		return errors.New("root_tree is the zero id")
	}
	if err := uniqueIDs("edge_batches", c.EdgeBatches); err != nil {
		return err
	}
	if !utf8.ValidString(c.Message) || !utf8.ValidString(c.Author) {
		return errors.New("message or author is not UTF-8")
	}
	for i := range c.NarrativeRefs {
		if err := c.NarrativeRefs[i].Validate(); err != nil {
			return fmt.Errorf("narrative_refs[%d]: %w", i, err)
		}
	}
	for _, s := range []*ID{c.BuildSnapshot, c.SemanticSnapshot, c.DiagnosticsSnapshot} {
		if s != nil && s.IsZero() {
			return errors.New("a snapshot field is the zero id")
		}
	}
	return nil
}

func uniqueIDs(field string, ids []ID) error {
	seen := make(map[ID]struct{}, len(ids))
	for i, id := range ids {
		if id.IsZero() {
			return fmt.Errorf("%s[%d] is the zero id", field, i)
		}
		if _, dup := seen[id]; dup {
			return fmt.Errorf("%s[%d] repeats %s", field, i, id.Short())
		}
		seen[id] = struct{}{}
	}
	return nil
}

package llm

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/index"
	"github.com/ctx-dev/ctx/object"
)

// MaxMentions bounds the mentions edges one response gives.
const MaxMentions = 100

// Resolver looks names up in the index; *index.Index is one.
type Resolver interface {
	// Lookup returns the documents a key of namespace ns lists ("path",
	// "key", "name"); none is not an error.
	Lookup(ns, key string) ([]uint32, error)
	// DocMeta returns a document without its text.
	DocMeta(n uint32) (index.Doc, error)
}

var _ Resolver = (*index.Index)(nil)

// Mention is a name of a response that resolved to a node of the graph.
type Mention struct {
	// Text is the name as the response wrote it (cleaned).
	Text string       `json:"text"`
	Node graph.NodeID `json:"node"`
	// Confidence is medium for a path that exists, low for a symbol (a
	// name matched to a declaration, which the model may have meant
	// otherwise).
	Confidence graph.Confidence `json:"confidence"`
}

// Unresolved is a name in backticks or a link that named nothing.
type Unresolved struct {
	Text   string `json:"text"`
	Reason string `json:"reason"`
}

// ResolveOptions say where names are looked up.
type ResolveOptions struct {
	// Index is the store's index: paths of the snapshot, stable keys and
	// names of items.
	Index Resolver
	// Project is the directory holding .ctx, for paths the index does
	// not have (files not ingested); "" looks only in the index.
	Project string
	// RepoID is config.toml's repo.id, from which file node ids derive.
	RepoID string
}

// Resolve finds the nodes the candidates name (design §14.3, step 3), in
// their order, each node once and at most MaxMentions:
//
//   - a path (relative to the project root, not under .ctx/) that the
//     index has as a file of the snapshot, or that is a regular file or
//     directory of the project: the file or directory node, confidence
//     medium;
//   - otherwise a symbol: the item whose stable key is the name, or the
//     one item whose key ends with it after a separator ("Client.Connect"
//     → "example.com/m/net.Client.Connect"), compared with case:
//     confidence low. A name several items end with is ambiguous and
//     left out.
//
// Candidates from plain prose that resolve to nothing are dropped
// silently; those in backticks or links are returned as unresolved.
func Resolve(cands []Candidate, o ResolveOptions) ([]Mention, []Unresolved, error) {
	out := []Mention{}
	unres := []Unresolved{}
	seen := map[object.ID]bool{}
	for _, c := range cands {
		m, reason, err := resolveOne(c.Text, o)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case reason != "":
			if c.Quoted && len(unres) < maxCandidates {
				unres = append(unres, Unresolved{Text: c.Text, Reason: reason})
			}
		case seen[m.Node.ID], len(out) >= MaxMentions:
		default:
			seen[m.Node.ID] = true
			out = append(out, m)
		}
	}
	return out, unres, nil
}

func resolveOne(name string, o ResolveOptions) (Mention, string, error) {
	if p, ok := projectPath(name); ok {
		n, ok, err := o.path(p)
		if err != nil {
			return Mention{}, "", err
		}
		if ok {
			return Mention{Text: name, Node: n, Confidence: graph.Medium}, "", nil
		}
	}
	keys, err := o.symbol(name)
	if err != nil {
		return Mention{}, "", err
	}
	switch len(keys) {
	case 0:
		return Mention{}, "no file or symbol of the project", nil
	case 1:
		return Mention{Text: name, Node: graph.ItemNode(o.RepoID, keys[0]), Confidence: graph.Low}, "", nil
	}
	return Mention{}, fmt.Sprintf("ambiguous: %d symbols (%s, …)", len(keys), keys[0]), nil
}

// projectPath returns name as a clean slash-separated project path, if it
// can be one: relative, inside the project, not in .ctx.
func projectPath(name string) (string, bool) {
	if strings.Contains(name, "::") || strings.ContainsAny(name, "\\#@") {
		return "", false
	}
	p := path.Clean(name)
	if p == "." || path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") || p == ".ctx" || strings.HasPrefix(p, ".ctx/") {
		return "", false
	}
	return p, true
}

// path looks a project path up: a file of the index's snapshot, else a
// regular file or directory on disk.
func (o ResolveOptions) path(p string) (graph.NodeID, bool, error) {
	if o.Index != nil {
		docs, err := o.Index.Lookup("path", p)
		if err != nil {
			return graph.NodeID{}, false, err
		}
		for _, d := range docs {
			doc, err := o.Index.DocMeta(d)
			if err != nil {
				return graph.NodeID{}, false, err
			}
			if doc.Path == p {
				return graph.FileNode(o.RepoID, p), true, nil
			}
		}
	}
	if o.Project == "" {
		return graph.NodeID{}, false, nil
	}
	st, err := os.Lstat(filepath.Join(o.Project, filepath.FromSlash(p)))
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.ENAMETOOLONG):
		return graph.NodeID{}, false, nil
	case err != nil:
		return graph.NodeID{}, false, fmt.Errorf("llm: %w", err)
	case st.Mode().IsRegular():
		return graph.FileNode(o.RepoID, p), true, nil
	case st.IsDir():
		return graph.DirectoryNode(o.RepoID, p), true, nil
	}
	return graph.NodeID{}, false, nil
}

// symbol returns the stable keys of the items name names: its own key, or
// the keys ending with it after ".", "/" or "::".
func (o ResolveOptions) symbol(name string) ([]string, error) {
	if o.Index == nil {
		return nil, nil
	}
	last := index.LastName(name)
	if last == "" || !identifier(last) {
		return nil, nil
	}
	docs, err := o.Index.Lookup("key", name)
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		doc, err := o.Index.DocMeta(d)
		if err != nil {
			return nil, err
		}
		if doc.Kind == index.DocItem && doc.Node.Key == name {
			return []string{name}, nil
		}
	}
	if docs, err = o.Index.Lookup("name", strings.ToLower(last)); err != nil {
		return nil, err
	}
	var keys []string
	for _, d := range docs {
		doc, err := o.Index.DocMeta(d)
		if err != nil {
			return nil, err
		}
		k := doc.Node.Key
		if doc.Kind != index.DocItem || !strings.HasSuffix(k, name) {
			continue
		}
		before := k[:len(k)-len(name)]
		if before != "" && !strings.HasSuffix(before, ".") && !strings.HasSuffix(before, "/") && !strings.HasSuffix(before, "::") {
			continue
		}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

func identifier(s string) bool {
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return s != ""
}

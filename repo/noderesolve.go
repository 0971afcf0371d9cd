package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
)

// AmbiguousNodeError lists the nodes a name could mean.
type AmbiguousNodeError struct {
	Arg        string
	Candidates []NodeInfo
}

// Error lists the candidates.
func (e *AmbiguousNodeError) Error() string {
	names := make([]string, len(e.Candidates))
	for i, c := range e.Candidates {
		names[i] = c.Name()
		if c.Title != "" {
			names[i] += " (" + narrative.Truncate(c.Title, 40) + ")"
		}
	}
	return fmt.Sprintf("%q could mean %d nodes: %s; name one with its kind (file:PATH, item:KEY, commit:REV, node:ID)",
		e.Arg, len(names), strings.Join(names, ", "))
}

// Unwrap returns ErrAmbiguousNode.
func (e *AmbiguousNodeError) Unwrap() error { return ErrAmbiguousNode }

// nodeKinds are the prefixes that say what a node argument names.
var nodeKinds = []string{"file", "dir", "item", "commit", "node", "package", "module", "target", "crate", "diagnostic"}

// ResolveNode finds the node a command-line argument names. Without a
// prefix it may be:
//
//   - a narrative node's id or a unique prefix of it (at least 4 characters),
//   - a commit's id or a unique prefix of it (at least 4 hex digits),
//   - a file or directory path that exists (relative to wd when wd is in
//     the project, else to the project root), or a path the graph
//     already has a node for,
//   - a narrative node's title or file-name slug ("add-retry-backoff"),
//   - the stable key of a symbol the graph has ("core::net::Client::connect",
//     "net.Client.Connect"), or its last part when that is unique.
//
// A prefix picks one reading: file:PATH, dir:PATH, item:KEY (also a
// symbol not yet ingested: the caller asserts it exists), commit:REV (any
// revision: HEAD~2), node:ID. A name matching several nodes is an
// *AmbiguousNodeError listing them; none is ErrNodeNotFound.
func (r *Repo) ResolveNode(g *Graph, arg, wd string) (graph.NodeID, error) {
	if arg == "" {
		return graph.NodeID{}, fmt.Errorf("%w: empty node name", ErrInvalidArgument)
	}
	if kind, rest, ok := strings.Cut(arg, ":"); ok {
		for _, k := range nodeKinds {
			if kind == k {
				return r.resolveKind(g, k, rest, wd)
			}
		}
	}
	c := candidates{}
	lower := strings.ToLower(arg)
	// Exact ids win outright.
	if n, ok := g.Catalog.Nodes[narrative.ID(lower)]; ok {
		return narrativeNodeID(n), nil
	}
	if len(lower) == 2*object.IDSize && object.IsHex(lower) {
		return r.resolveKind(g, "commit", lower, wd)
	}
	if n, err := g.Catalog.Resolve(arg); err == nil {
		c.add(narrativeNodeID(n))
	} else if ae := (*narrative.AmbiguousError)(nil); errors.As(err, &ae) {
		for _, id := range ae.Candidates {
			c.add(narrativeNodeID(g.Catalog.Nodes[id]))
		}
	}
	if object.IsHex(lower) && len(lower) >= object.MinPrefix {
		if id, err := r.Objects.Resolve(lower); err == nil {
			if _, err := r.ReadCommit(id); err == nil {
				c.add(graph.CommitNode(id))
			}
		}
	}
	if n, ok := r.pathNode(g, arg, wd); ok {
		c.add(n)
	}
	for _, id := range g.Catalog.IDs() {
		n := g.Catalog.Nodes[id]
		if !n.Deleted && (strings.EqualFold(n.Title, arg) || strings.EqualFold(slugOf(n), arg)) {
			c.add(narrativeNodeID(n))
		}
	}
	for _, n := range g.nodesKeyed(arg, graph.NodePackage, graph.NodeModule, graph.NodeTarget, graph.NodeCrate, graph.NodeDiagnostic) {
		c.add(n)
	}
	for _, n := range itemsNamed(g, arg) {
		c.add(n)
	}
	switch len(c.list) {
	case 1:
		return c.list[0], nil
	case 0:
		return graph.NodeID{}, fmt.Errorf("%w: %q is not a node id, commit, file or directory of the project, node title or known symbol (name a symbol not yet ingested with item:%s)",
			ErrNodeNotFound, arg, arg)
	}
	return graph.NodeID{}, c.ambiguous(g, arg)
}

// resolveKind resolves an argument with a kind prefix.
func (r *Repo) resolveKind(g *Graph, kind, rest, wd string) (graph.NodeID, error) {
	if rest == "" {
		return graph.NodeID{}, fmt.Errorf("%w: %s: names nothing", ErrInvalidArgument, kind)
	}
	switch kind {
	case "package", "module", "target", "crate", "diagnostic":
		c := candidates{}
		for _, n := range g.nodesKeyed(rest, graph.NodeKind(kind)) {
			c.add(n)
		}
		switch len(c.list) {
		case 0:
			return graph.NodeID{}, fmt.Errorf("%w: the graph has no %s %q (ctx add go, ctx add cargo and ctx add code record them)", ErrNodeNotFound, kind, rest)
		case 1:
			return c.list[0], nil
		}
		return graph.NodeID{}, c.ambiguous(g, kind+":"+rest)
	case "node":
		n, err := g.Catalog.Resolve(rest)
		// Report like an argument without a prefix: callers check
		// ErrNodeNotFound and *AmbiguousNodeError.
		if ae := (*narrative.AmbiguousError)(nil); errors.As(err, &ae) {
			c := candidates{}
			for _, id := range ae.Candidates {
				c.add(narrativeNodeID(g.Catalog.Nodes[id]))
			}
			return graph.NodeID{}, c.ambiguous(g, kind+":"+rest)
		}
		if errors.Is(err, narrative.ErrNotFound) {
			return graph.NodeID{}, fmt.Errorf("%w: %w", ErrNodeNotFound, err)
		}
		if err != nil {
			return graph.NodeID{}, err
		}
		return narrativeNodeID(n), nil
	case "commit":
		id, err := r.Resolve(rest)
		if err != nil {
			return graph.NodeID{}, err
		}
		if _, err := r.ReadCommit(id); err != nil {
			return graph.NodeID{}, err
		}
		return graph.CommitNode(id), nil
	case "item":
		key := strings.TrimSpace(rest)
		if key != rest || strings.ContainsAny(key, "\n\t") {
			return graph.NodeID{}, fmt.Errorf("%w: symbol key %q has surrounding or inner control space", ErrInvalidArgument, rest)
		}
		if n, ok := g.itemByKey(key); ok {
			return n, nil
		}
		return graph.ItemNode(r.Config.Repo.ID, key), nil
	}
	n, ok := r.pathNode(g, rest, wd)
	if !ok {
		return graph.NodeID{}, fmt.Errorf("%w: %s is not a file or directory of the project %s (nor a path the graph knows)", ErrNodeNotFound, rest, r.ProjectRoot())
	}
	if kind == "dir" && n.Kind != graph.NodeDirectory || kind == "file" && n.Kind != graph.NodeFile {
		return graph.NodeID{}, fmt.Errorf("%w: %s is a %s, not a %s", ErrInvalidArgument, rest, n.Kind, map[string]string{"dir": "directory", "file": "file"}[kind])
	}
	return n, nil
}

// pathNode returns the file or directory node of a path of the project
// that exists, or that the graph has a node for.
func (r *Repo) pathNode(g *Graph, arg, wd string) (graph.NodeID, bool) {
	p, ok := r.projectPath(arg, wd)
	if !ok {
		return graph.NodeID{}, false
	}
	repoID := r.Config.Repo.ID
	st, err := os.Stat(filepath.Join(r.ProjectRoot(), filepath.FromSlash(p)))
	switch {
	case err == nil && st.Mode().IsRegular():
		return graph.FileNode(repoID, p), true
	case err == nil && st.IsDir():
		return graph.DirectoryNode(repoID, p), true
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return graph.NodeID{}, false
	}
	for _, n := range []graph.NodeID{graph.FileNode(repoID, p), graph.DirectoryNode(repoID, p)} {
		if _, ok := g.Lookup(n.ID); ok {
			return n, true
		}
	}
	if len(g.Heads) == 1 {
		if _, err := r.Resolve(g.Heads[0].String() + ":" + p); err == nil {
			return graph.FileNode(repoID, p), true // in the ingested tree, gone from the disk
		}
	}
	return graph.NodeID{}, false
}

// projectPath turns a path argument into a slash-separated path relative
// to the project root: relative paths are taken from wd when wd is inside
// the project, else from the root. Paths outside the project, and the
// store itself, are not project paths.
func (r *Repo) projectPath(arg, wd string) (string, bool) {
	root := r.ProjectRoot()
	p := filepath.FromSlash(arg)
	if !filepath.IsAbs(p) {
		base := root
		if wd != "" {
			if rel, err := filepath.Rel(root, wd); err == nil && filepath.IsLocal(rel) {
				base = wd
			}
		}
		p = filepath.Join(base, p)
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if rel == DirName || strings.HasPrefix(rel, DirName+"/") {
		return "", false
	}
	return path.Clean(rel), true
}

// itemByKey returns the item node with exactly this key, if the graph has
// one.
func (g *Graph) itemByKey(key string) (graph.NodeID, bool) {
	for i := int32(0); i < int32(g.Len()); i++ {
		if n := g.Node(i); n.Kind == graph.NodeItem && n.Key == key {
			return n, true
		}
	}
	return graph.NodeID{}, false
}

// itemsNamed returns the item nodes whose key is name, or if none, those
// whose key ends in name after a separator ("Connect" finds
// "net.Client.Connect" and "core::net::Client::connect" does not).
func itemsNamed(g *Graph, name string) []graph.NodeID {
	if n, ok := g.itemByKey(name); ok {
		return []graph.NodeID{n}
	}
	var out []graph.NodeID
	for i := int32(0); i < int32(g.Len()); i++ {
		n := g.Node(i)
		if n.Kind != graph.NodeItem || !strings.HasSuffix(n.Key, name) {
			continue
		}
		before := strings.TrimSuffix(n.Key, name)
		if strings.HasSuffix(before, ".") || strings.HasSuffix(before, "::") || strings.HasSuffix(before, "/") {
			out = append(out, n)
		}
	}
	return out
}

// slugOf returns the slug of a node's file name: "add-retry" of
// "tasks/add-retry-8kq2m4x7ab.md".
func slugOf(n *narrative.Node) string {
	base := strings.TrimSuffix(path.Base(n.Path), ".md")
	return strings.TrimSuffix(base, "-"+string(n.ID))
}

func narrativeNodeID(n *narrative.Node) graph.NodeID {
	return graph.NarrativeNode(string(n.Type), string(n.ID))
}

// candidates collects the nodes a name may mean, each once.
type candidates struct {
	list []graph.NodeID
}

func (c *candidates) add(n graph.NodeID) {
	for _, x := range c.list {
		if x.ID == n.ID {
			return
		}
	}
	c.list = append(c.list, n)
}

func (c *candidates) ambiguous(g *Graph, arg string) error {
	e := &AmbiguousNodeError{Arg: arg}
	for _, n := range c.list {
		e.Candidates = append(e.Candidates, g.Describe(n))
	}
	sort.Slice(e.Candidates, func(i, j int) bool { return e.Candidates[i].Name() < e.Candidates[j].Name() })
	return e
}

// nodesKeyed returns the graph's nodes of the kinds with this key.
func (g *Graph) nodesKeyed(key string, kinds ...graph.NodeKind) []graph.NodeID {
	var out []graph.NodeID
	for i := int32(0); i < int32(g.Len()); i++ {
		if n := g.Node(i); n.Key == key && slices.Contains(kinds, n.Kind) {
			out = append(out, n)
		}
	}
	return out
}

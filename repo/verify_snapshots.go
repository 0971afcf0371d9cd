package repo

import (
	"fmt"
	"path"

	"github.com/ctx-dev/ctx/graph/extract"
	"github.com/ctx-dev/ctx/object"
)

// snapshotChecker checks the trees a commit reaches (FORMAT §4.3, §4.8):
// a root tree holds blobs and trees only; a semantic snapshot holds
// trees and file_version objects, each describing the root tree's blob
// at its path. Subtrees shared between commits are checked once.
type snapshotChecker struct {
	r     *Repo
	infos map[object.ID]object.Info
	roots map[object.ID]bool    // root subtrees checked
	pairs map[[2]object.ID]bool // (semantic subtree, root subtree) checked
	trees map[object.ID]*object.Tree
}

func newSnapshotChecker(r *Repo, infos map[object.ID]object.Info) *snapshotChecker {
	return &snapshotChecker{r: r, infos: infos, roots: map[object.ID]bool{}, pairs: map[[2]object.ID]bool{}, trees: map[object.ID]*object.Tree{}}
}

// tree reads a tree the object check found sound; nil if it is missing
// or damaged (reported elsewhere).
func (s *snapshotChecker) tree(id object.ID) *object.Tree {
	if t, ok := s.trees[id]; ok {
		return t
	}
	var t *object.Tree
	if info, ok := s.infos[id]; ok && info.Kind == object.KindTyped && info.Type == "tree" {
		t = new(object.Tree)
		if object.GetTyped(s.r.Objects, id, t) != nil {
			t = nil
		}
	}
	s.trees[id] = t
	return t
}

// commit returns the problems of c's snapshot trees.
func (s *snapshotChecker) commit(c *object.Commit) []error {
	var errs []error
	s.root(c.RootTree, "", &errs)
	if c.SemanticSnapshot != nil {
		s.semantic(*c.SemanticSnapshot, c.RootTree, "", &errs)
	}
	return errs
}

func (s *snapshotChecker) root(id object.ID, dir string, errs *[]error) {
	if s.roots[id] {
		return
	}
	s.roots[id] = true
	t := s.tree(id)
	if t == nil {
		return
	}
	for _, e := range t.Entries {
		p := path.Join(dir, e.Name)
		switch e.Kind {
		case object.EntryTyped:
			*errs = append(*errs, fmt.Errorf("%w: root_tree: %s is a typed entry; a root tree holds blobs and trees", ErrWrongTarget, p))
		case object.EntryTree:
			s.root(e.ID, p, errs)
		}
	}
}

// semantic checks the semantic subtree id at dir against the root
// subtree at the same path (zero when the root tree has none there).
func (s *snapshotChecker) semantic(id, root object.ID, dir string, errs *[]error) {
	k := [2]object.ID{id, root}
	if s.pairs[k] {
		return
	}
	s.pairs[k] = true
	t := s.tree(id)
	if t == nil {
		return
	}
	rootEntries := map[string]object.TreeEntry{}
	if !root.IsZero() {
		rt := s.tree(root)
		if rt == nil {
			return // the root tree is missing or damaged: reported for itself
		}
		for _, e := range rt.Entries {
			rootEntries[e.Name] = e
		}
	}
	for _, e := range t.Entries {
		p := path.Join(dir, e.Name)
		re, inRoot := rootEntries[e.Name]
		switch e.Kind {
		case object.EntryTree:
			sub := object.Zero
			if inRoot && re.Kind == object.EntryTree {
				sub = re.ID
			}
			s.semantic(e.ID, sub, p, errs)
		case object.EntryTyped:
			info, ok := s.infos[e.ID]
			if !ok {
				continue // missing: a dangling link, reported for the tree
			}
			if info.Type != "file_version" {
				*errs = append(*errs, fmt.Errorf("%w: semantic_snapshot: %s names a %s, want a file_version", ErrWrongTarget, p, info.Type))
				continue
			}
			var v extract.FileVersion
			if err := object.GetTyped(s.r.Objects, e.ID, &v); err != nil {
				continue // damaged: reported for itself
			}
			switch {
			case v.Path != p:
				*errs = append(*errs, fmt.Errorf("%w: semantic_snapshot: the file_version at %s has path %q", ErrWrongTarget, p, v.Path))
			case !inRoot || re.Kind != object.EntryBlob:
				*errs = append(*errs, fmt.Errorf("%w: semantic_snapshot: %s has a file_version but the root tree has no file there", ErrWrongTarget, p))
			case v.Blob != re.ID:
				*errs = append(*errs, fmt.Errorf("%w: semantic_snapshot: the file_version of %s describes blob %s, the root tree has %s", ErrWrongTarget, p, v.Blob.Short(), re.ID.Short()))
			}
		default:
			*errs = append(*errs, fmt.Errorf("%w: semantic_snapshot: %s is a %s entry; a semantic snapshot holds trees and file versions", ErrWrongTarget, p, e.Kind))
		}
	}
}

package repo

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/graph/extract"
	"github.com/ctx-dev/ctx/object"
)

// MergeResult is a merge commit built from several heads.
type MergeResult struct {
	ID        object.ID
	Commit    *object.Commit
	Conflicts []string // paths both sides changed differently; the newer side was taken
}

// Merge builds the merge commit of several commits and writes it and any
// merged trees through w (typically a Batch). The result depends only on
// the heads, never on who merges or when, so two teammates who reconcile
// the same heads create the same commit and their next git merge sees the
// same files on both sides:
//
//   - parents: the heads sorted by ID;
//   - time: the latest of the heads' times;
//   - message: "Merge N heads of <what>" and the list of conflicting paths;
//   - root tree: the heads' trees merged three-way, in parent order, each
//     against the latest common ancestor (by time, then ID) of what is
//     merged so far and the next head. Where both sides changed an entry
//     differently, the side whose head is newer (by time, then ID) wins and
//     the path is reported as a conflict.
//
// Edge batches and narrative snapshots are not repeated: the graph and
// narrative at a commit already include those of all its ancestors.
//
// w must read back what the store holds (the heads' trees): pass the
// repo's object store or a Batch on it, not a store of its own.
func (r *Repo) Merge(w GetPutter, heads []object.ID, what string) (*MergeResult, error) {
	if len(heads) < 2 {
		return nil, fmt.Errorf("repo: merge needs at least two heads, got %d", len(heads))
	}
	sorted := append([]object.ID(nil), heads...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Compare(sorted[j]) < 0 })
	commits := make([]*object.Commit, len(sorted))
	for i, h := range sorted {
		c, err := r.ReadCommit(h)
		if err != nil {
			return nil, fmt.Errorf("repo: merge %s: %w", what, err)
		}
		commits[i] = c
	}
	merged, err := r.ancestors(sorted[:1])
	if err != nil {
		return nil, err
	}
	tree := commits[0].RootTree
	sem := object.OrZero(commits[0].SemanticSnapshot)
	newest, newestTime := sorted[0], commits[0].TimestampUnix
	var conflicts []string
	for i := 1; i < len(sorted); i++ {
		theirs, err := r.ancestors(sorted[i : i+1])
		if err != nil {
			return nil, err
		}
		baseTree, baseSem := object.Zero, object.Zero
		var best *Entry
		for id, e := range theirs {
			if merged[id] == nil || e.Commit == nil {
				continue
			}
			if best == nil || e.Time() > best.Time() || e.Time() == best.Time() && id.Compare(best.ID) > 0 {
				best = e
			}
		}
		if best != nil {
			baseTree = best.Commit.RootTree
			baseSem = object.OrZero(best.Commit.SemanticSnapshot)
		}
		t := commits[i].TimestampUnix
		preferTheirs := t > newestTime || t == newestTime && sorted[i].Compare(newest) > 0
		m := treeMerger{w: w, preferTheirs: preferTheirs}
		if tree, err = m.merge(baseTree, tree, commits[i].RootTree, ""); err != nil {
			return nil, fmt.Errorf("repo: merge %s: %w", what, err)
		}
		conflicts = append(conflicts, m.conflicts...)
		// The semantic snapshots merge the same way; their conflicts are
		// the files' own, reported above.
		sm := treeMerger{w: w, preferTheirs: preferTheirs}
		if sem, err = sm.merge(baseSem, sem, object.OrZero(commits[i].SemanticSnapshot), ""); err != nil {
			return nil, fmt.Errorf("repo: merge %s: semantic snapshots: %w", what, err)
		}
		if sem, err = dropStaleVersions(w, tree, sem, sm.conflicts); err != nil {
			return nil, fmt.Errorf("repo: merge %s: semantic snapshots: %w", what, err)
		}
		for id, e := range theirs {
			merged[id] = e
		}
		if preferTheirs {
			newest, newestTime = sorted[i], t
		}
	}
	maxTime := commits[0].TimestampUnix
	for _, c := range commits {
		maxTime = max(maxTime, c.TimestampUnix)
	}
	msg := fmt.Sprintf("Merge %d heads of %s", len(sorted), what)
	if len(conflicts) > 0 {
		sort.Strings(conflicts)
		// With three or more heads, several steps may report one path.
		conflicts = slices.Compact(conflicts)
		msg += "\n\nBoth sides changed these paths; the newer side was kept:\n  " + strings.Join(conflicts, "\n  ")
	}
	c := &object.Commit{Parents: sorted, TimestampUnix: maxTime, Message: msg, RootTree: tree}
	if !sem.IsZero() {
		if t, err := (&treeMerger{w: w}).read(sem); err != nil {
			return nil, err
		} else if len(t.Entries) > 0 {
			c.SemanticSnapshot = &sem
		}
	}
	// A build or diagnostics snapshot is one run's: the newest head's.
	newestCommit := commits[slices.Index(sorted, newest)]
	c.BuildSnapshot, c.DiagnosticsSnapshot = newestCommit.BuildSnapshot, newestCommit.DiagnosticsSnapshot
	id, err := object.PutTyped(w, c)
	if err != nil {
		return nil, fmt.Errorf("repo: merge %s: %w", what, err)
	}
	return &MergeResult{ID: id, Commit: c, Conflicts: conflicts}, nil
}

// GetPutter reads and writes objects.
type GetPutter interface {
	object.Getter
	object.Putter
}

// treeMerger merges trees three-way.
type treeMerger struct {
	w            GetPutter
	preferTheirs bool
	conflicts    []string
}

func (m *treeMerger) read(id object.ID) (*object.Tree, error) {
	t := new(object.Tree)
	if id.IsZero() {
		return t, nil
	}
	return t, object.GetTyped(m.w, id, t)
}

func sameEntry(a, b *object.TreeEntry) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Kind == b.Kind && a.ID == b.ID
}

// merge returns the merge of ours and theirs against base (each a tree ID;
// the zero ID is an empty tree).
func (m *treeMerger) merge(base, ours, theirs object.ID, prefix string) (object.ID, error) {
	switch {
	case ours == theirs:
		return ours, nil
	case base == ours:
		return theirs, nil
	case base == theirs:
		return ours, nil
	}
	bt, err := m.read(base)
	if err != nil {
		return object.Zero, err
	}
	ot, err := m.read(ours)
	if err != nil {
		return object.Zero, err
	}
	tt, err := m.read(theirs)
	if err != nil {
		return object.Zero, err
	}
	names := make(map[string]bool)
	for _, t := range []*object.Tree{bt, ot, tt} {
		for _, e := range t.Entries {
			names[e.Name] = true
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	lookup := func(t *object.Tree, name string) *object.TreeEntry {
		if e, ok := t.Lookup(name); ok {
			return &e
		}
		return nil
	}
	out := &object.Tree{}
	for _, name := range sorted {
		b, o, t := lookup(bt, name), lookup(ot, name), lookup(tt, name)
		var pick *object.TreeEntry
		switch {
		case sameEntry(o, t), sameEntry(b, t):
			pick = o
		case sameEntry(b, o):
			pick = t
		case o != nil && t != nil && o.Kind == object.EntryTree && t.Kind == object.EntryTree:
			sub := object.Zero
			if b != nil && b.Kind == object.EntryTree {
				sub = b.ID
			}
			id, err := m.merge(sub, o.ID, t.ID, prefix+name+"/")
			if err != nil {
				return object.Zero, err
			}
			if st, err := m.read(id); err != nil {
				return object.Zero, err
			} else if len(st.Entries) > 0 {
				pick = &object.TreeEntry{Name: name, Kind: object.EntryTree, ID: id}
			}
		default:
			m.conflicts = append(m.conflicts, prefix+name)
			pick = o
			if m.preferTheirs {
				pick = t
			}
		}
		if pick != nil {
			out.Entries = append(out.Entries, *pick)
		}
	}
	return object.PutTyped(m.w, out)
}

// dropStaleVersions removes from a merged semantic snapshot the versions
// of the paths its merge had conflicts on that do not describe the merged
// tree's content there (each side changed the file's version, and the
// tree kept the other side's content): a semantic snapshot only holds
// current versions.
func dropStaleVersions(w GetPutter, tree, sem object.ID, paths []string) (object.ID, error) {
	drop := map[string]*object.TreeEntry{}
	for _, p := range paths {
		files, err := object.ListTree(w, tree, p)
		if err != nil {
			return object.Zero, err
		}
		vs, err := object.ListTree(w, sem, p)
		if err != nil {
			return object.Zero, err
		}
		for vp, ve := range vs {
			fv := new(extract.FileVersion)
			if err := object.GetTyped(w, ve.ID, fv); err != nil || files[vp].ID != fv.Blob {
				drop[vp] = nil
			}
		}
	}
	if len(drop) == 0 {
		return sem, nil
	}
	return object.EditTree(w, sem, drop)
}

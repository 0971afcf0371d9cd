package index

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// commitsFile is the graph segment's table of the heads' history
// (docs/INDEX.md, "Commits"): commit id (32 bytes) → a flag byte (1:
// semantic snapshot, 2: build snapshot, 4: diagnostics snapshot), the
// root tree id, then the id of each snapshot the flags name, in that
// order.
const commitsFile = "commits.tbl"

// Snapshots are the snapshot pointers of a commit.
type Snapshots struct {
	RootTree    object.ID  `json:"root_tree"`
	Semantic    *object.ID `json:"semantic_snapshot,omitempty"`
	Build       *object.ID `json:"build_snapshot,omitempty"`
	Diagnostics *object.ID `json:"diagnostics_snapshot,omitempty"`
}

// writeCommits writes the snapshot pointers of every commit of a
// history (r.Log of the heads).
func writeCommits(entries []*repo.Entry, dir string) error {
	byID := make(map[object.ID]*object.Commit, len(entries))
	ids := make([]object.ID, 0, len(entries))
	for _, e := range entries {
		byID[e.ID] = e.Commit
		ids = append(ids, e.ID)
	}
	sortIDs(ids)
	out, err := newTableFile(filepath.Join(dir, commitsFile), "commits")
	if err != nil {
		return err
	}
	defer out.abort()
	var v []byte
	for _, id := range ids {
		c := byID[id]
		flags := byte(0)
		for i, p := range []*object.ID{c.SemanticSnapshot, c.BuildSnapshot, c.DiagnosticsSnapshot} {
			if p != nil {
				flags |= 1 << i
			}
		}
		v = append(append(v[:0], flags), c.RootTree[:]...)
		for _, p := range []*object.ID{c.SemanticSnapshot, c.BuildSnapshot, c.DiagnosticsSnapshot} {
			if p != nil {
				v = append(v, p[:]...)
			}
		}
		if err := out.w.Add(id[:], v); err != nil {
			return err
		}
	}
	return out.close()
}

func sortIDs(ids []object.ID) {
	slices.SortFunc(ids, func(a, b object.ID) int { return a.Compare(b) })
}

// Commit returns the snapshot pointers of a commit in the history of the
// heads the index was built from; ok is false for another commit.
func (gx *GraphIndex) Commit(id object.ID) (Snapshots, bool, error) {
	v, ok := gx.commits.Get(id[:])
	if !ok {
		return Snapshots{}, false, gx.commits.Err()
	}
	bad := fmt.Errorf("%w: commit %s: bad record", ErrCorrupt, id.Short())
	if len(v) < 1+object.IDSize {
		return Snapshots{}, false, bad
	}
	flags, rest := v[0], v[1:]
	var snap Snapshots
	copy(snap.RootTree[:], rest)
	rest = rest[object.IDSize:]
	for i, p := range []**object.ID{&snap.Semantic, &snap.Build, &snap.Diagnostics} {
		if flags&(1<<i) == 0 {
			continue
		}
		if len(rest) < object.IDSize {
			return Snapshots{}, false, bad
		}
		var pid object.ID
		copy(pid[:], rest)
		*p = &pid
		rest = rest[object.IDSize:]
	}
	if len(rest) != 0 || flags > 7 {
		return Snapshots{}, false, bad
	}
	return snap, true, nil
}

package gc

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ctx-dev/ctx/internal/fault"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
	"github.com/ctx-dev/ctx/staging"
)

// DefaultKeepDays is how old an unreachable loose object must be before
// gc removes it (design §15.3).
const DefaultKeepDays = 7

// Options configure Run.
type Options struct {
	// KeepDays keeps unreachable loose objects younger than this many
	// days; 0 means DefaultKeepDays, a negative value none (with the
	// store locked, no other ctx process is writing one).
	KeepDays int
	// DryRun reports what would be removed and packed, and changes
	// nothing.
	DryRun bool
	// Pack moves the reachable loose objects into a new pack file.
	Pack bool
	// Now is the time ages are measured from.
	Now time.Time
	// DropAborted removes the journals of aborted staging sessions first
	// (--aggressive), so that their objects become unreachable.
	DropAborted bool
}

// Report is what a collection found and did.
type Report struct {
	Scanned   int                `json:"scanned"`   // objects in the store, loose and packed
	Reachable int                `json:"reachable"` // from the roots
	Deleted   int                `json:"deleted"`   // unreachable loose objects removed (with DryRun: that would be)
	Reclaimed int64              `json:"reclaimed"` // bytes of their files
	Young     int                `json:"young"`     // unreachable loose objects kept for their age
	Packed    *object.PackResult `json:"packed,omitempty"`
	DryRun    bool               `json:"dry_run"`
	Roots     int                `json:"roots"`
	// Dropped are the aborted sessions whose journals were removed (with
	// DryRun: would be).
	Dropped []string `json:"dropped_sessions"`
}

// Run collects the store's garbage under w's lock: it marks every object
// reachable from the roots (every head of every ref, the staging pointer
// if any), following the links of typed objects; removes the unreachable
// loose objects older than KeepDays; and, with Pack, moves the reachable
// loose ones into a new pack. The blobs that a commit's narrative refs
// name are kept even when the commit is unreachable (an amended commit's
// narrative), and so is everything an unreachable object younger than
// the margin reaches, so that nothing kept dangles. Packed objects are never removed. An object that cannot be
// read or decoded stops the collection before anything is removed: run
// ctx verify.
func Run(ctx context.Context, w *repo.Writer, opts Options) (*Report, error) {
	keep := opts.KeepDays
	if keep == 0 {
		keep = DefaultKeepDays
	}
	rep := &Report{DryRun: opts.DryRun}
	// A ref that does not read (a damaged STAGE, a head file that is a
	// symbolic link) is left out of the roots by List: collecting then
	// would remove what it names.
	if errs := w.Refs.Check(); len(errs) > 0 {
		return nil, fmt.Errorf("gc: the refs are damaged (%w): run ctx verify; nothing was removed", errors.Join(errs...))
	}
	all, _, err := w.Objects.List(ctx)
	if err != nil {
		return nil, err
	}
	rep.Scanned = len(all)
	rep.Dropped = []string{}
	if opts.DropAborted {
		_, aborted, err := w.SessionRoots()
		if err != nil {
			return nil, fmt.Errorf("gc: %w; nothing was removed", err)
		}
		for _, id := range aborted {
			if !opts.DryRun {
				if err := w.DropSession(id); err != nil {
					return nil, err
				}
			}
			rep.Dropped = append(rep.Dropped, id)
		}
	}
	roots, err := Roots(w.Repo)
	if err != nil {
		return nil, err
	}
	if opts.DryRun && len(rep.Dropped) > 0 {
		// The dropped sessions' states are not roots.
		keep := roots[:0]
		for _, id := range roots {
			var st staging.State
			if object.GetTyped(w.Objects, id, &st) == nil && slices.Contains(rep.Dropped, st.SessionID) {
				continue
			}
			keep = append(keep, id)
		}
		roots = keep
	}
	rep.Roots = len(roots)
	marked, err := Mark(ctx, w.Repo, roots)
	if err != nil {
		return nil, err
	}
	rep.Reachable = len(marked)
	reachable := maps.Clone(marked)
	// Unreachable: keep the narrative blobs of unreachable commits too.
	var unreachable []object.ID
	for _, id := range all {
		if !marked[id] {
			unreachable = append(unreachable, id)
		}
	}
	for _, id := range unreachable {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		kind, payload, err := w.Objects.Get(id)
		if errors.Is(err, object.ErrTooLarge) {
			continue // a large blob: not a commit
		}
		if err != nil {
			return nil, fmt.Errorf("gc: %w (run ctx verify; nothing was removed)", err)
		}
		if kind != object.KindTyped {
			continue
		}
		if name, _ := object.TypeOf(payload); name != "commit" {
			continue
		}
		var c object.Commit
		if err := object.DecodeLax(payload, &c); err != nil {
			return nil, fmt.Errorf("gc: commit %s: %w (run ctx verify; nothing was removed)", id.Short(), err)
		}
		for _, ref := range c.NarrativeRefs {
			marked[ref.BlobID] = true
		}
	}
	cutoff := opts.Now.AddDate(0, 0, -keep)
	if keep < 0 {
		cutoff = opts.Now
	}
	// Loose objects: reachable ones (what a pack takes), young unreachable
	// ones (kept, and what they reach is kept too, so that a kept object
	// never dangles), old unreachable ones (removed).
	dir := w.Objects.Dir()
	type looseFile struct {
		id   object.ID
		path string
		size int64
		old  bool
	}
	var files []looseFile
	var young []object.ID
	for _, id := range all {
		path := filepath.Join(dir, id.String()[:2], id.String())
		st, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // packed only
		}
		if err != nil {
			return nil, fmt.Errorf("gc: %w", err)
		}
		old := st.ModTime().Before(cutoff)
		files = append(files, looseFile{id, path, st.Size(), old})
		if !old && !marked[id] {
			young = append(young, id)
			rep.Young++
		}
	}
	// Packed objects are never removed: what an unreachable one links to
	// is kept as well (a packed tree naming a blob too large to pack).
	looseSet := map[object.ID]bool{}
	for _, f := range files {
		looseSet[f.id] = true
	}
	for _, id := range all {
		if !looseSet[id] && !marked[id] {
			young = append(young, id)
		}
	}
	if len(young) > 0 {
		more, err := mark(ctx, w.Repo, young, true)
		if err != nil {
			return nil, err
		}
		for id := range more {
			marked[id] = true
		}
	}
	var loose []object.ID // reachable from the roots and loose
	var doomed []looseFile
	for _, f := range files {
		switch {
		case reachable[f.id]:
			loose = append(loose, f.id)
		case marked[f.id] || !f.old:
			// kept: a narrative blob, or reached from a young object
		default:
			doomed = append(doomed, f)
		}
	}
	// Remove referrers before what they name, so that a crash midway
	// never leaves an object whose link dangles (verify stays clean).
	doomed = referrersFirst(w.Repo, doomed, func(f looseFile) object.ID { return f.id })
	for _, f := range doomed {
		rep.Deleted++
		rep.Reclaimed += f.size
		if opts.DryRun {
			continue
		}
		if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("gc: %w", err)
		}
		fault.Hit("gc.removed")
	}
	if opts.Pack {
		if opts.DryRun {
			rep.Packed = &object.PackResult{}
			for _, f := range files {
				switch {
				case !reachable[f.id]:
				case f.size > object.MaxPackedObject:
					rep.Packed.Skipped++ // stays loose
				default:
					rep.Packed.Objects++
				}
			}
		} else if rep.Packed, err = w.Objects.WritePack(loose); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// referrersFirst orders objects so that each comes before every object of
// the list it links to (content addressing rules out cycles). An object
// that does not decode keeps its place: it names nothing gc can see.
func referrersFirst[T any](r *repo.Repo, items []T, idOf func(T) object.ID) []T {
	index := make(map[object.ID]int, len(items))
	for i, it := range items {
		index[idOf(it)] = i
	}
	links := make([][]int, len(items))
	indeg := make([]int, len(items))
	for i, it := range items {
		kind, payload, err := r.Objects.Get(idOf(it))
		if err != nil || kind != object.KindTyped {
			continue
		}
		v, err := r.Types.DecodeLax(payload)
		if err != nil {
			continue
		}
		for _, l := range v.Links() {
			if j, ok := index[l.ID]; ok && j != i && !slices.Contains(links[i], j) {
				links[i] = append(links[i], j)
				indeg[j]++
			}
		}
	}
	out := make([]T, 0, len(items))
	var queue []int
	for i := range items {
		if indeg[i] == 0 {
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		out = append(out, items[i])
		for _, j := range links[i] {
			if indeg[j]--; indeg[j] == 0 {
				queue = append(queue, j)
			}
		}
	}
	return out
}

// Roots returns the objects gc starts from: every head of every ref,
// STAGE included when it is set, and every state the staging sessions'
// journals name. A damaged session is an error: gc cannot tell what it
// still needs.
func Roots(r *repo.Repo) ([]object.ID, error) {
	refs, err := r.Refs.List()
	if err != nil {
		return nil, err
	}
	roots, _, err := r.SessionRoots()
	if err != nil {
		return nil, fmt.Errorf("gc: %w; nothing was removed", err)
	}
	for _, ref := range refs {
		roots = append(roots, ref.Heads...)
	}
	slices.SortFunc(roots, func(a, b object.ID) int { return a.Compare(b) })
	return slices.Compact(roots), nil
}

// Mark returns every object reachable from roots through the links of
// typed objects (parents, trees, snapshots, edge batches, narrative
// blobs, …). A root or link that names a missing object is an error: gc
// cannot tell what else it would have kept.
func Mark(ctx context.Context, r *repo.Repo, roots []object.ID) (map[object.ID]bool, error) {
	return mark(ctx, r, roots, false)
}

// mark is Mark; with missingOK, a link to a missing object is skipped
// (an unreachable object may name one an earlier gc removed).
func mark(ctx context.Context, r *repo.Repo, roots []object.ID, missingOK bool) (map[object.ID]bool, error) {
	marked := map[object.ID]bool{}
	stack := slices.Clone(roots)
	for len(stack) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if marked[id] {
			continue
		}
		kind, payload, err := r.Objects.Get(id)
		if errors.Is(err, object.ErrTooLarge) {
			marked[id] = true // a large blob: no links
			continue
		}
		if missingOK && errors.Is(err, object.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("gc: %w (run ctx verify; nothing was removed)", err)
		}
		marked[id] = true
		if kind != object.KindTyped {
			continue
		}
		// Lax: the id is verified, and gc needs the links, not the
		// schema (ctx verify checks that).
		v, err := r.Types.DecodeLax(payload)
		if err != nil {
			return nil, fmt.Errorf("gc: %s: %w (run ctx verify; nothing was removed)", id.Short(), err)
		}
		for _, l := range v.Links() {
			if !marked[l.ID] {
				stack = append(stack, l.ID)
			}
		}
	}
	return marked, nil
}

package repo

import (
	"container/heap"
	"context"
	"fmt"

	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
)

// Entry is a node of history: a commit or a work commit.
type Entry struct {
	ID     object.ID
	Commit *object.Commit     // set for a commit
	Work   *object.WorkCommit // set for a work commit
}

// Parents returns the entry's parents.
func (e *Entry) Parents() []object.ID {
	if e.Commit != nil {
		return e.Commit.Parents
	}
	return e.Work.Parents
}

// Time returns the entry's time in Unix seconds.
func (e *Entry) Time() int64 {
	if e.Commit != nil {
		return e.Commit.TimestampUnix
	}
	return e.Work.CreatedAt
}

// ReadEntry reads a commit or work commit.
func (r *Repo) ReadEntry(id object.ID) (*Entry, error) {
	kind, payload, err := r.Objects.Get(id)
	if err != nil {
		return nil, err
	}
	name := kind.String()
	if kind == object.KindTyped {
		if name, err = object.TypeOf(payload); err != nil {
			return nil, &object.Error{Op: "decode", ID: id, Path: object.RelPath(id), Err: err}
		}
	}
	e := &Entry{ID: id}
	var v object.Typed
	switch name {
	case "commit":
		e.Commit = new(object.Commit)
		v = e.Commit
	case "work_commit":
		e.Work = new(object.WorkCommit)
		v = e.Work
	default:
		return nil, fmt.Errorf("%w: %s is a %s", ErrNotCommit, id.Short(), name)
	}
	if err := object.Decode(payload, v); err != nil {
		return nil, &object.Error{Op: "decode", ID: id, Path: object.RelPath(id), Err: err}
	}
	return e, nil
}

// ReadCommit reads a canonical commit.
func (r *Repo) ReadCommit(id object.ID) (*object.Commit, error) {
	e, err := r.ReadEntry(id)
	if err != nil {
		return nil, err
	}
	if e.Commit == nil {
		return nil, fmt.Errorf("%w: %s is a work commit", ErrNotCommit, id.Short())
	}
	return e.Commit, nil
}

// Heads returns the effective heads of a ref: its heads that are not
// ancestors of another of its heads, sorted by ID. A ref left with a stale
// head by a crash between writing the new head and removing the old one
// thus still reads as one head.
//
// STAGE reads as the selected staging session's head step.
func (r *Repo) Heads(n refs.Name) ([]object.ID, error) {
	if n == refs.STAGE {
		return r.sessionHead()
	}
	raw, err := r.Refs.Heads(n)
	if err != nil || len(raw) == 1 {
		return raw, err
	}
	return r.effective(raw)
}

func (r *Repo) effective(heads []object.ID) ([]object.ID, error) {
	dropped := make(map[object.ID]bool)
	for _, h := range heads {
		if dropped[h] {
			continue
		}
		e, err := r.ReadEntry(h)
		if err != nil {
			continue // not a commit: it stands on its own
		}
		anc, err := r.ancestors(e.Parents())
		if err != nil {
			return nil, err
		}
		for _, o := range heads {
			if o != h && anc[o] != nil {
				dropped[o] = true
			}
		}
	}
	var out []object.ID
	for _, h := range heads {
		if !dropped[h] {
			out = append(out, h)
		}
	}
	return out, nil
}

// ancestors returns every commit reachable from starts, starts included.
func (r *Repo) ancestors(starts []object.ID) (map[object.ID]*Entry, error) {
	seen := make(map[object.ID]*Entry)
	stack := append([]object.ID(nil), starts...)
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[id] != nil {
			continue
		}
		e, err := r.ReadEntry(id)
		if err != nil {
			return nil, err
		}
		seen[id] = e
		stack = append(stack, e.Parents()...)
	}
	return seen, nil
}

// Log returns the history reachable from starts, newest first (ties by
// ID), at most limit entries (0: all).
func (r *Repo) Log(ctx context.Context, starts []object.ID, limit int) ([]*Entry, error) {
	var q entryQueue
	seen := make(map[object.ID]bool)
	push := func(id object.ID) error {
		if seen[id] {
			return nil
		}
		seen[id] = true
		e, err := r.ReadEntry(id)
		if err != nil {
			return err
		}
		heap.Push(&q, e)
		return nil
	}
	for _, s := range starts {
		if err := push(s); err != nil {
			return nil, err
		}
	}
	var out []*Entry
	for q.Len() > 0 && (limit <= 0 || len(out) < limit) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e := heap.Pop(&q).(*Entry)
		out = append(out, e)
		for _, p := range e.Parents() {
			if err := push(p); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// entryQueue is a max-heap by time, then min by ID.
type entryQueue []*Entry

func (q entryQueue) Len() int { return len(q) }
func (q entryQueue) Less(i, j int) bool {
	if ti, tj := q[i].Time(), q[j].Time(); ti != tj {
		return ti > tj
	}
	return q[i].ID.Compare(q[j].ID) < 0
}
func (q entryQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *entryQueue) Push(x any)   { *q = append(*q, x.(*Entry)) }
func (q *entryQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

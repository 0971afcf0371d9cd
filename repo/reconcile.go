package repo

import (
	"context"
	"fmt"

	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
)

// Reconciled reports what Reconcile did to one ref.
type Reconciled struct {
	Ref       refs.Name   `json:"ref"`
	Heads     []object.ID `json:"heads"`     // the heads before
	Result    object.ID   `json:"result"`    // the single head after
	Merged    bool        `json:"merged"`    // a merge commit was written; otherwise stale heads were dropped
	Conflicts []string    `json:"conflicts"` // see MergeResult
	// Skipped says why the ref was left alone (its heads are not all
	// commits, so they cannot be merged); Result is then zero.
	Skipped string `json:"skipped,omitempty"`
}

// Reconcile gives every shared ref with several heads a single head again.
// Heads that are ancestors of another head are dropped; if several remain
// (two clones advanced the ref independently and were merged with git),
// they are merged into a merge commit (see Merge) that becomes the head.
// Refs whose remaining heads are not all commits are left alone and
// reported with Skipped set.
func (w *Writer) Reconcile(ctx context.Context) ([]Reconciled, error) {
	all, err := w.Refs.List()
	if err != nil {
		return nil, err
	}
	var out []Reconciled
	for _, ref := range all {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if !ref.Name.Shared() || len(ref.Heads) < 2 {
			continue
		}
		rec, err := w.reconcile(ref)
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
	return out, nil
}

func (w *Writer) reconcile(ref refs.Ref) (Reconciled, error) {
	rec := Reconciled{Ref: ref.Name, Heads: ref.Heads}
	eff, err := w.effective(ref.Heads)
	if err != nil {
		return rec, err
	}
	if len(eff) == 1 {
		rec.Result = eff[0]
	} else {
		for _, h := range eff {
			if _, err := w.ReadCommit(h); err != nil {
				rec.Skipped = fmt.Sprintf("head %s is not a readable commit: %v", h.Short(), err)
				return rec, nil
			}
		}
		b := w.Objects.NewBatch()
		m, err := w.Merge(b, eff, ref.Name.String())
		if err != nil {
			b.Abort()
			return rec, err
		}
		if err := b.Commit(); err != nil {
			return rec, err
		}
		rec.Result, rec.Merged, rec.Conflicts = m.ID, true, m.Conflicts
	}
	if err := w.refStore.Update(ref.Name, rec.Result, refs.Among(ref.Heads...)); err != nil {
		return rec, fmt.Errorf("repo: reconcile %s: %w", ref.Name, err)
	}
	return rec, nil
}

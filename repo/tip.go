package repo

import (
	"context"
	"fmt"

	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
)

// tip is where a writing operation adds its commit: the ref HEAD names,
// reconciled to one head, and that head's commit.
//
// With an active staging session the tip is the session's: the commit its
// steps have built, and install records a step of kind kind instead of
// moving a ref.
type tip struct {
	ref        refs.Name
	label      string // what results call the tip: "refs/main", "session/<id>"
	head       object.ID
	commit     *object.Commit
	reconciled []Reconciled

	sess *Session
	kind object.StepKind
	ctx  context.Context // for what a step triggers (an automatic compaction)
}

// currentTip returns where a write of the given step kind goes: the active
// session's tip, or else the main tip (see mainTip).
func (w *Writer) currentTip(ctx context.Context, kind object.StepKind) (*tip, error) {
	s, err := w.ActiveSession()
	if err != nil {
		return nil, err
	}
	if s != nil {
		return w.sessionTip(ctx, s, kind)
	}
	return w.mainTip(ctx)
}

// mainTip reconciles the heads git merges left on the refs and returns
// the tip of the ref HEAD names. A ref that cannot be reconciled is
// ErrDiverged: a commit must have one parent to extend.
func (w *Writer) mainTip(ctx context.Context) (*tip, error) {
	recs, err := w.Reconcile(ctx)
	if err != nil {
		return nil, err
	}
	for _, rec := range recs {
		if rec.Skipped != "" {
			return nil, fmt.Errorf("%w: %s cannot be reconciled: %s", ErrDiverged, rec.Ref, rec.Skipped)
		}
	}
	target, err := w.Refs.Target()
	if err != nil {
		return nil, err
	}
	head, err := w.Resolve(string(target))
	if err != nil {
		return nil, err
	}
	c, err := w.ReadCommit(head)
	if err != nil {
		return nil, err
	}
	return &tip{ref: target, label: target.String(), head: head, commit: c, reconciled: recs}, nil
}

// child returns a commit on the tip that keeps its root tree and its
// snapshots: a commit of the narrative, of edges or of one snapshot
// does not change the rest of what the tip records. The caller sets what
// changes.
func (t *tip) child(w *Writer, author, message string) *object.Commit {
	p := t.commit
	return &object.Commit{
		Parents: []object.ID{t.head}, TimestampUnix: w.Clock.Now().Unix(), Author: author, Message: message,
		RootTree: p.RootTree, SemanticSnapshot: p.SemanticSnapshot, BuildSnapshot: p.BuildSnapshot,
		DiagnosticsSnapshot: p.DiagnosticsSnapshot, EdgeBatches: []object.ID{}, NarrativeRefs: []object.NarrativeRef{},
	}
}

// advance stores c in b, makes the batch durable and moves the tip's ref
// to c, if it still holds the tip's head.
func (w *Writer) advance(b *object.Batch, t *tip, c *object.Commit) (object.ID, error) {
	id, err := object.PutTyped(b, c)
	if err != nil {
		return object.Zero, err
	}
	return id, w.install(b, t, id)
}

// install makes the batch, which holds commit id, durable and moves the
// tip's ref to id, if it still holds the tip's head.
func (w *Writer) install(b *object.Batch, t *tip, id object.ID) error {
	if t.sess != nil {
		return w.recordStep(b, t, id)
	}
	if err := b.Commit(); err != nil {
		return err
	}
	return w.UpdateRef(t.ref, id, refs.Among(t.head))
}

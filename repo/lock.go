package repo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ctx-dev/ctx/internal/clock"
	"github.com/ctx-dev/ctx/internal/lockfile"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
	"github.com/ctx-dev/ctx/staging"
)

// DefaultLockTimeout is how long ctx's commands wait for another writer
// unless told otherwise (--lock-timeout).
const DefaultLockTimeout = 10 * time.Second

// LockOptions configure Lock.
type LockOptions struct {
	// Timeout is how long to wait for another writer; 0 means do not wait.
	Timeout time.Duration
	// Command describes the locking process for a waiting writer's error
	// message, e.g. "ctx update-ref".
	Command string
}

// Writer is a Repo whose writer lock is held. It is the only way to move
// refs. Release it with Unlock.
type Writer struct {
	*Repo
	lock *lockfile.Lock
	// Notices are things the commands run through the Writer did besides
	// what was asked (an automatic compaction), for the user to hear of.
	Notices []string
}

// Lock takes the store's writer lock (.ctx/LOCK). If another process holds
// it for longer than the timeout, Lock fails with an error wrapping
// lockfile.ErrLocked that names the holder.
func (r *Repo) Lock(ctx context.Context, opts LockOptions) (*Writer, error) {
	host, _ := os.Hostname()
	l, err := lockfile.Acquire(ctx, filepath.Join(r.Root, "LOCK"), lockfile.Options{
		Timeout: max(opts.Timeout, 0),
		// The note is a diagnostic for a waiting writer: wall-clock time,
		// not the repo's clock (which CTX_DATE may fix in the past).
		Holder: lockfile.Holder{PID: os.Getpid(), Host: host, Since: clock.Real{}.Now(), Command: opts.Command},
	})
	if err != nil {
		return nil, err
	}
	return &Writer{Repo: r, lock: l}, nil
}

// Unlock releases the writer lock. The Writer must not be used afterwards.
func (w *Writer) Unlock() error {
	return w.lock.Release()
}

// UpdateRef sets ref n to id if its state meets exp (see refs.Store.Update).
// The object must exist.
func (w *Writer) UpdateRef(n refs.Name, id object.ID, exp refs.Expect) error {
	ok, err := w.Objects.Has(id)
	if err != nil {
		return err
	}
	if !ok {
		return &object.Error{Op: "update-ref " + n.String(), ID: id, Path: object.RelPath(id), Err: object.ErrNotFound}
	}
	if n == refs.STAGE {
		// STAGE names a session by one of its work commits.
		wc := new(object.WorkCommit)
		if err := object.GetTyped(w.Objects, id, wc); err != nil {
			return fmt.Errorf("%w: STAGE names a staging session by one of its work commits; %s is not one (%v)", ErrInvalidArgument, id.Short(), err)
		}
		if _, err := staging.ReadJournal(w.Root, wc.SessionID); err != nil {
			return fmt.Errorf("%w: %s is a step of session %s, which has no journal (ctx stage list)", ErrNoSession, id.Short(), wc.SessionID)
		}
	}
	// Another process may have renamed the object into place in a batch
	// that has not synced yet: make its entry durable before a ref names
	// it (FORMAT.md §10).
	if err := w.Objects.Sync(id); err != nil {
		return err
	}
	if err := w.refStore.Update(n, id, exp); err != nil {
		return fmt.Errorf("repo: %w", err)
	}
	// The ref has moved: tidying stale heads is best effort, and a failure
	// must not make the caller believe the update failed.
	_ = w.pruneStale(n)
	return nil
}

// pruneStale removes the heads of n that are ancestors of another of its
// heads, such as an old head a crash kept beside its successor.
func (w *Writer) pruneStale(n refs.Name) error {
	raw, err := w.Refs.Heads(n)
	if err != nil || len(raw) < 2 {
		return nil
	}
	eff, err := w.effective(raw)
	if err != nil || len(eff) == len(raw) {
		return err
	}
	var stale []object.ID
	for _, h := range raw {
		if !slices.Contains(eff, h) {
			stale = append(stale, h)
		}
	}
	if err := w.refStore.Delete(n, refs.Among(stale...)); err != nil {
		return fmt.Errorf("repo: %w", err)
	}
	return nil
}

// DeleteRef deletes ref n if its state meets exp.
func (w *Writer) DeleteRef(n refs.Name, exp refs.Expect) error {
	if err := w.refStore.Delete(n, exp); err != nil {
		return fmt.Errorf("repo: %w", err)
	}
	return nil
}

package repo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/lockfile"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
)

func TestLock(t *testing.T) {
	r := NewTestRepo(t)
	w1, err := r.Lock(t.Context(), LockOptions{Timeout: -1, Command: "ctx first"})
	if err != nil {
		t.Fatal(err)
	}
	// Another Repo on the same store, as another process would open it.
	r2, err := Open(r.Root, Options{})
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		timeout time.Duration
		waited  time.Duration
	}{
		{"short timeout", 20 * time.Millisecond, 20 * time.Millisecond},
		{"negative timeout", -1, 0},
		{"very negative timeout", -time.Hour, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, rr := range []*Repo{r, r2} {
				w, err := rr.Lock(t.Context(), LockOptions{Timeout: tc.timeout, Command: "ctx second"})
				if err == nil {
					w.Unlock()
					t.Fatal("second Lock succeeded while the first is held")
				}
				if !errors.Is(err, lockfile.ErrLocked) {
					t.Fatalf("second Lock: %v, want lockfile.ErrLocked", err)
				}
				for _, word := range []string{fmt.Sprintf("pid %d", os.Getpid()), "ctx first", "LOCK"} {
					if !strings.Contains(err.Error(), word) {
						t.Errorf("error %q does not name %q", err, word)
					}
				}
				var le *lockfile.LockedError
				if !errors.As(err, &le) {
					t.Fatalf("error %T, want *lockfile.LockedError", err)
				}
				if le.Holder == nil || le.Holder.PID != os.Getpid() || le.Holder.Command != "ctx first" || le.Holder.Since.Equal(TestTime) {
					t.Errorf("Holder = %+v", le.Holder)
				}
				if le.Waited != tc.waited {
					t.Errorf("Waited = %v, want %v", le.Waited, tc.waited)
				}
			}
		})
	}

	t.Run("cancelled while waiting", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := r.Lock(ctx, LockOptions{Timeout: time.Hour}); !errors.Is(err, context.Canceled) {
			t.Errorf("Lock with a cancelled context: %v, want context.Canceled", err)
		}
	})

	if err := w1.Unlock(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(r.Root, "LOCK")); err != nil || len(b) != 0 {
		t.Errorf("LOCK after Unlock holds %q, %v; want it empty", b, err)
	}
	w2, err := r2.Lock(t.Context(), LockOptions{Timeout: -1, Command: "ctx second"})
	if err != nil {
		t.Fatalf("Lock after Unlock: %v", err)
	}
	if h := lockfile.ReadHolder(filepath.Join(r.Root, "LOCK")); h == nil || h.Command != "ctx second" {
		t.Errorf("holder recorded = %+v", h)
	}
	if err := w2.Unlock(); err != nil {
		t.Fatal(err)
	}
	// An unheld lock is taken at once however short the timeout.
	w3, err := r.Lock(t.Context(), LockOptions{Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	w3.Unlock()
}

func TestWriterUpdateRef(t *testing.T) {
	h := newHistory(t)
	w := lock(t, h.r)
	missing := object.Sum(object.KindTyped, []byte("missing"))

	if err := w.UpdateRef("feature/x", missing, refs.Absent()); !errors.Is(err, object.ErrNotFound) {
		t.Errorf("UpdateRef to a missing object: %v, want object.ErrNotFound", err)
	}
	if _, err := h.r.Refs.Heads("feature/x"); !errors.Is(err, refs.ErrNotFound) {
		t.Errorf("feature/x exists after a failed update: %v", err)
	}
	if err := w.UpdateRef("feature/x", h.c1, refs.Absent()); err != nil {
		t.Fatal(err)
	}
	err := w.UpdateRef("feature/x", h.c2, refs.Among(h.side))
	if !errors.Is(err, refs.ErrChanged) {
		t.Fatalf("UpdateRef with a wrong old value: %v, want refs.ErrChanged", err)
	}
	var ce *refs.ChangedError
	if !errors.As(err, &ce) || len(ce.Actual) != 1 || ce.Actual[0] != h.c1 {
		t.Errorf("ChangedError = %+v", ce)
	}
	if err := w.UpdateRef("feature/x", h.c2, refs.Among(h.c1)); err != nil {
		t.Fatal(err)
	}
	checkRawHeads(t, h.r, "feature/x", h.c2)

	// A stale head (an ancestor) left beside the new one is pruned by the
	// next update; a diverged head is kept for Reconcile.
	AddHead(t, h.r, "feature/x", h.c1)
	AddHead(t, h.r, "feature/x", h.side)
	if err := w.UpdateRef("feature/x", h.m, refs.Among(h.c2)); err != nil {
		t.Fatal(err)
	}
	checkRawHeads(t, h.r, "feature/x", h.m)
	other := CommitFiles(t, h.r, at(60), map[string]string{"o": "o"}, "other", h.c1)
	AddHead(t, h.r, "feature/x", h.c2)
	AddHead(t, h.r, "feature/x", other)
	if err := w.UpdateRef("feature/x", h.tip, refs.Among(h.m)); err != nil {
		t.Fatal(err)
	}
	checkRawHeads(t, h.r, "feature/x", h.tip, other)

	// STAGE names a session by a work commit: a commit is refused.
	if err := w.UpdateRef(refs.STAGE, h.c1, refs.Absent()); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("UpdateRef(STAGE, a commit): %v, want ErrInvalidArgument", err)
	}
	started, err := w.StartSession(t.Context(), StartOptions{Task: "t", ID: "s1", Detach: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.UpdateRef(refs.STAGE, started.Step, refs.Absent()); err != nil {
		t.Fatal(err)
	}
	checkRawHeads(t, h.r, refs.STAGE, started.Step)

	if err := w.DeleteRef("feature/x", refs.Among(h.c1)); !errors.Is(err, refs.ErrChanged) {
		t.Errorf("DeleteRef with a wrong old value: %v, want refs.ErrChanged", err)
	}
	if err := w.DeleteRef("feature/x", refs.Any()); err != nil {
		t.Fatal(err)
	}
	if err := w.DeleteRef("feature/x", refs.Any()); !errors.Is(err, refs.ErrNotFound) {
		t.Errorf("DeleteRef of a missing ref: %v, want refs.ErrNotFound", err)
	}
}

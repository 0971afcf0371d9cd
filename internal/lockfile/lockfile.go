// Package lockfile is the writer lock of a ctx store: an exclusive OS file
// lock (flock(2) through gofrs/flock) on .ctx/LOCK.
//
// Only writers that move refs take the lock; readers never do. The kernel
// drops the lock when its holder exits, however it exits, so a lock can never
// be left stale by a crash. While it holds the lock, the holder writes who it
// is (pid, host, start time, command) into the lock file, so that a writer
// that gives up waiting can say which process is in the way.
package lockfile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/ctx-dev/ctx/internal/regfile"
)

// ErrLocked is returned, wrapped in a *LockedError, when the lock stays held
// by another process for longer than the caller is willing to wait.
var ErrLocked = errors.New("lockfile: held by another process")

// Holder describes the process holding a lock.
type Holder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Since   time.Time `json:"since"`
	Command string    `json:"command,omitempty"`
}

// String describes the holder for an error message.
func (h Holder) String() string {
	s := fmt.Sprintf("pid %d on %s since %s", h.PID, h.Host, h.Since.UTC().Format(time.RFC3339))
	if h.Command != "" {
		s += " (" + h.Command + ")"
	}
	return s
}

// LockedError reports a lock that could not be taken in time.
type LockedError struct {
	Path   string
	Waited time.Duration
	Holder *Holder // nil when the holder did not record itself (yet)
}

// Error describes the failure.
func (e *LockedError) Error() string {
	who := "another process"
	if e.Holder != nil {
		who = e.Holder.String()
	}
	return fmt.Sprintf("%s is held by %s; gave up after %s", e.Path, who, e.Waited)
}

// Unwrap returns ErrLocked.
func (e *LockedError) Unwrap() error { return ErrLocked }

// Lock is a held lock.
type Lock struct {
	f *flock.Flock
}

// Options configure Acquire.
type Options struct {
	// Timeout is how long to wait for another holder to finish. Zero means
	// try once and fail at once.
	Timeout time.Duration
	// Poll is the interval between attempts while waiting; default 5ms.
	Poll time.Duration
	// Holder is recorded in the lock file while the lock is held.
	Holder Holder
}

// Acquire takes the exclusive lock on path, creating the file if needed. It
// waits up to opts.Timeout and then fails with a *LockedError. A cancelled
// ctx stops the wait and returns ctx.Err().
func Acquire(ctx context.Context, path string, opts Options) (*Lock, error) {
	f := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(0o644))
	poll := opts.Poll
	if poll <= 0 {
		poll = 5 * time.Millisecond
	}
	ok, err := f.TryLock()
	if err == nil && !ok && opts.Timeout > 0 {
		wctx, cancel := context.WithTimeout(ctx, opts.Timeout)
		ok, err = f.TryLockContext(wctx, poll)
		cancel()
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			err = nil
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lockfile: lock %s: %w", path, err)
	}
	if !ok {
		_ = f.Close()
		return nil, &LockedError{Path: path, Waited: opts.Timeout, Holder: ReadHolder(path)}
	}
	// Best effort: the lock is valid without the note, which only helps a
	// waiting process name us.
	if b, err := json.Marshal(opts.Holder); err == nil {
		if w, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0); err == nil {
			_, _ = w.Write(append(b, '\n'))
			_ = w.Close()
		}
	}
	return &Lock{f: f}, nil
}

// Release clears the holder note and drops the lock.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	if w, err := os.OpenFile(l.f.Path(), os.O_WRONLY|os.O_TRUNC, 0); err == nil {
		_ = w.Close()
	}
	err := l.f.Unlock()
	_ = l.f.Close()
	l.f = nil
	if err != nil {
		return fmt.Errorf("lockfile: unlock: %w", err)
	}
	return nil
}

// ReadHolder returns the holder recorded in the lock file at path, or nil if
// none is recorded.
func ReadHolder(path string) *Holder {
	b, err := regfile.Read(path, 4096)
	if err != nil || len(strings.TrimSpace(string(b))) == 0 {
		return nil
	}
	var h Holder
	if json.Unmarshal(b, &h) != nil || h.PID == 0 {
		return nil
	}
	return &h
}

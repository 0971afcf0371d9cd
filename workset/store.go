package workset

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/clock"
	"github.com/ctx-dev/ctx/internal/lockfile"
	"github.com/ctx-dev/ctx/object"
)

// Dir is where the working set lives, relative to the .ctx directory:
// under local/, which .ctx/.gitignore keeps out of git.
const Dir = "local/workset"

// Options configure a Store.
type Options struct {
	// Clock stamps versions; default the wall clock.
	Clock clock.Clock
	// FilesystemID is this machine's file system id; default
	// HostFilesystemID().
	FilesystemID string
	// LockTimeout is how long a writer waits for another's lock.
	LockTimeout time.Duration
}

// Validate checks the options.
func (o Options) Validate() error {
	if o.LockTimeout < 0 {
		return fmt.Errorf("%w: negative lock timeout", ErrInvalid)
	}
	return nil
}

// Store is the working set of a ctx store: the file objects of the machine,
// the content blobs, and one state per agent session. Reads take no lock;
// every change runs under the working set's own lock (Update), never the
// store's writer lock, so that an agent's bookkeeping never waits for a
// commit.
type Store struct {
	dir   string
	clock clock.Clock
	host  string
	wait  time.Duration
	store *object.Store
}

// Open returns the working set of the store whose .ctx directory is root.
// It creates nothing.
func Open(root string, opts Options) (*Store, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	s := &Store{dir: filepath.Join(root, filepath.FromSlash(Dir)), clock: opts.Clock, host: opts.FilesystemID, wait: opts.LockTimeout}
	if s.clock == nil {
		s.clock = clock.Real{}
	}
	if s.host == "" {
		s.host = HostFilesystemID()
	}
	return s, nil
}

// HostID returns the file system id of this machine as the store uses it.
func (s *Store) HostID() string { return s.host }

// blobs returns the content store, created when create is set; nil
// without error when it does not exist and create is not set.
func (s *Store) blobs(create bool) (*object.Store, error) {
	if s.store != nil {
		return s.store, nil
	}
	dir := filepath.Join(s.dir, "objects")
	if create {
		if err := atomicfile.MkdirAll(dir); err != nil {
			return nil, err
		}
	} else if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	st, err := object.NewStore(dir, object.StoreOptions{})
	if err != nil {
		return nil, err
	}
	s.store = st
	return st, nil
}

// blob returns a blob's bytes, verified.
func (s *Store) blob(id object.ID) ([]byte, error) {
	st, err := s.blobs(false)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, fmt.Errorf("workset: blob %s: %w", id.Short(), object.ErrNotFound)
	}
	kind, b, err := st.Get(id)
	if err != nil {
		return nil, fmt.Errorf("workset: %w", err)
	}
	if kind != object.KindBlob {
		return nil, fmt.Errorf("%w: object %s is not a blob", ErrState, id.Short())
	}
	return b, nil
}

func (s *Store) putBlob(b []byte) (object.ID, error) {
	st, err := s.blobs(true)
	if err != nil {
		return object.ID{}, err
	}
	id, err := st.Put(object.KindBlob, b)
	if err != nil {
		return object.ID{}, fmt.Errorf("workset: %w", err)
	}
	return id, nil
}

// Load returns the state of an agent session without locking: a new, empty
// session when it has none yet.
func (s *Store) Load(session string) (*Session, error) {
	key, err := SessionKey(session)
	if err != nil {
		return nil, err
	}
	st, err := readState(s.statePath(key), session)
	if err != nil {
		return nil, err
	}
	return &Session{store: s, key: key, State: st}, nil
}

// Update runs fn on the session's state under the working set's lock and
// saves the state when fn succeeds. Objects fn stores are durable before
// the state names them.
func (s *Store) Update(ctx context.Context, session string, fn func(*Session) error) error {
	if err := atomicfile.MkdirAll(s.dir); err != nil {
		return err
	}
	host, _ := os.Hostname()
	l, err := lockfile.Acquire(ctx, filepath.Join(s.dir, "LOCK"), lockfile.Options{
		Timeout: s.wait,
		Holder:  lockfile.Holder{PID: os.Getpid(), Host: host, Since: s.clock.Now().UTC(), Command: "ctx context"},
	})
	if err != nil {
		return err
	}
	defer l.Release()
	sess, err := s.Load(session)
	if err != nil {
		return err
	}
	if err := fn(sess); err != nil {
		return err
	}
	if !sess.dirty {
		return nil
	}
	return writeState(s.statePath(sess.key), sess.State)
}

func (s *Store) statePath(key string) string {
	return filepath.Join(s.dir, "sessions", key, "state.json")
}

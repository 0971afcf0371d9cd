package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/index"
	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/clock"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/pack"
	"github.com/ctx-dev/ctx/repo"
	"github.com/ctx-dev/ctx/workset"
)

// Options configure a Session.
type Options struct {
	// Agent names the agent session whose working set the file
	// observations feed (Claude Code's session_id, say); "" is "default",
	// as for ctx context.
	Agent string
	// Stage selects the staging session writes become steps of, as
	// --session does; "" means the one STAGE names, if any.
	Stage string
	// Clock stamps nodes, commits and versions; nil is the wall clock.
	Clock clock.Clock
	// LockTimeout is how long a write waits for another writer's lock.
	LockTimeout time.Duration
	// Author is written into the commits the session makes.
	Author string
}

var (
	// ErrInvalidArgument is an argument no call can use (an empty note,
	// a path outside the project).
	ErrInvalidArgument = errors.New("agent: invalid argument")
)

// Session is one agent's use of a store: the calls of the contract.
type Session struct {
	root string // the store's .ctx directory
	opts Options
}

// Open returns the session of the store that holds dir (dir or a parent
// has .ctx). It checks that the store opens.
func Open(dir string, opts Options) (*Session, error) {
	if opts.LockTimeout < 0 {
		return nil, fmt.Errorf("%w: negative lock timeout %s", ErrInvalidArgument, opts.LockTimeout)
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Agent == "" {
		opts.Agent = "default"
	}
	root, err := repo.Locate(dir, true)
	if err != nil {
		return nil, err
	}
	s := &Session{root: root, opts: opts}
	if _, err := s.open(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Session) open() (*repo.Repo, error) {
	return repo.Open(s.root, repo.Options{Clock: s.opts.Clock, Session: s.opts.Stage})
}

// write runs fn holding the store's writer lock for one call.
func (s *Session) write(ctx context.Context, call string, fn func(*repo.Writer) error) error {
	r, err := s.open()
	if err != nil {
		return err
	}
	w, err := r.Lock(ctx, repo.LockOptions{Timeout: s.opts.LockTimeout, Command: "agent " + call})
	if err != nil {
		return err
	}
	err = fn(w)
	if uerr := w.Unlock(); err == nil {
		err = uerr
	}
	return err
}

// FileObservation is what an observation of a file did: the working
// set's change (created, updated or unchanged) and the store's snapshot.
type FileObservation struct {
	Working  workset.Change     `json:"working_set"`
	Snapshot *repo.IngestResult `json:"snapshot"`
}

// ObserveFileRead records that the agent read the file at path (absolute,
// or relative to the project directory): the working set indexes it and
// makes it active, and the store snapshots it (with its code's items and
// edges) as ctx add file --extract-semantics does.
func (s *Session) ObserveFileRead(ctx context.Context, path string) (*FileObservation, error) {
	return s.observeFile(ctx, "observe_file_read", path, nil, false)
}

// ObserveFileWrite records that the agent wrote content to the file at
// path: ctx writes it (crash-safely: temporary file, fsync, rename), the
// working set indexes the new version, and the store snapshots it. A nil
// content records the file as it is on disk.
func (s *Session) ObserveFileWrite(ctx context.Context, path string, content []byte) (*FileObservation, error) {
	return s.observeFile(ctx, "observe_file_write", path, content, true)
}

func (s *Session) observeFile(ctx context.Context, call, path string, content []byte, wrote bool) (*FileObservation, error) {
	project := filepath.Dir(s.root)
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(project, path)
	}
	abs = filepath.Clean(abs)
	rel, err := filepath.Rel(project, abs)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("%w: %s is outside the project %s", ErrInvalidArgument, path, project)
	}
	if wrote && content != nil {
		mode := os.FileMode(0o644)
		if st, err := os.Stat(abs); err == nil {
			mode = st.Mode().Perm()
		}
		if err := atomicfile.Write(abs, content, mode); err != nil {
			return nil, fmt.Errorf("agent: write %s: %w", path, err)
		}
	}
	ws, err := workset.Open(s.root, workset.Options{Clock: s.opts.Clock, LockTimeout: s.opts.LockTimeout})
	if err != nil {
		return nil, err
	}
	out := &FileObservation{}
	if err := ws.Update(ctx, s.opts.Agent, func(ss *workset.Session) error {
		var err error
		if wrote {
			out.Working, err = ss.WriteFile(filepath.ToSlash(abs), content)
		} else {
			out.Working, err = ss.ReadFile(filepath.ToSlash(abs), nil)
		}
		return err
	}); err != nil {
		return nil, err
	}
	err = s.write(ctx, call, func(w *repo.Writer) error {
		var err error
		out.Snapshot, err = w.Ingest(ctx, repo.IngestOptions{Paths: []string{filepath.ToSlash(rel)}, Wd: project, Semantics: true, Author: s.opts.Author})
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ObserveCommand records a command the agent ran, its output and exit
// code: its diagnostics, linked to the files and functions they name, as
// ctx add command does.
func (s *Session) ObserveCommand(ctx context.Context, cmd string, output []byte, exitCode int) (*repo.CommandResult, error) {
	if cmd == "" {
		return nil, fmt.Errorf("%w: the command is empty", ErrInvalidArgument)
	}
	var res *repo.CommandResult
	err := s.write(ctx, "observe_command", func(w *repo.Writer) error {
		var err error
		res, err = w.RecordCommand(ctx, repo.CommandOptions{Name: cmd, Output: output, ExitCode: exitCode, Author: s.opts.Author})
		return err
	})
	return res, err
}

// Note is what ObserveNote wrote: the node, and the step when a staging
// session recorded it (nil outside a session, where the narrative waits
// for ctx commit as after ctx add note).
type Note struct {
	Node *narrative.Node  `json:"node"`
	Step *repo.StepResult `json:"step,omitempty"`
}

// ObserveNote adds an observation node whose first line is its title, as
// ctx add note does.
func (s *Session) ObserveNote(ctx context.Context, text string) (*Note, error) {
	var out Note
	err := s.write(ctx, "observe_note", func(w *repo.Writer) error {
		// A session that cannot take a step refuses before anything is
		// written, as the CLI does.
		sess, err := w.ActiveSession()
		if err != nil {
			return err
		}
		n, err := w.Narrative().Add(narrative.NewNode{Type: narrative.Observation, Content: text})
		if err != nil {
			return err
		}
		out.Node = n
		out.Step, err = w.NarrativeStep(ctx, sess, "agent: note", s.opts.Author, object.StepNote)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// ObserveRelations asserts edges (ctx relate): the ones the graph already
// has with evidence as strong are reported present and not written again.
func (s *Session) ObserveRelations(ctx context.Context, edges []graph.Edge) (*repo.EdgeResult, error) {
	if len(edges) == 0 {
		return nil, fmt.Errorf("%w: no edge", ErrInvalidArgument)
	}
	var res *repo.EdgeResult
	err := s.write(ctx, "observe_relations", func(w *repo.Writer) error {
		g, err := w.Graph(ctx, repo.GraphOptions{})
		if err != nil {
			return err
		}
		res, err = w.Link(ctx, g, edges, repo.EdgeOptions{Author: s.opts.Author})
		return err
	})
	return res, err
}

// BuildPack builds the prompt pack for query within budget tokens (0: the
// default), as ctx query does.
func (s *Session) BuildPack(ctx context.Context, query string, budget int) (*pack.Pack, error) {
	if budget < 0 {
		return nil, fmt.Errorf("%w: budget %d", ErrInvalidArgument, budget)
	}
	r, err := s.open()
	if err != nil {
		return nil, err
	}
	return pack.Query(ctx, r, query, pack.Options{Budget: budget}, pack.QueryOptions{})
}

// FlushStep records the narrative's unrecorded changes (hand edits) as a
// step of the active staging session, as ctx stage flush does; no active
// session is repo.ErrSessionState.
func (s *Session) FlushStep(ctx context.Context) (*repo.StepResult, error) {
	var res *repo.StepResult
	err := s.write(ctx, "flush_step", func(w *repo.Writer) error {
		var err error
		res, err = w.FlushStep(ctx, "", s.opts.Author)
		return err
	})
	return res, err
}

// CompactSession squashes the active staging session's steps into one
// commit on main and ends it, as ctx stage compact does.
func (s *Session) CompactSession(ctx context.Context) (*repo.CompactResult, error) {
	var res *repo.CompactResult
	err := s.write(ctx, "compact_session", func(w *repo.Writer) error {
		id, err := w.SelectedSession()
		if err != nil {
			return err
		}
		if id == "" {
			return fmt.Errorf("%w: no session is active: start one with ctx stage start \"TASK\"", repo.ErrSessionState)
		}
		res, err = w.CompactSession(ctx, id, repo.CompactOptions{Author: s.opts.Author})
		return err
	})
	return res, err
}

// RebuildIndex rebuilds every segment of the index, the graph's included,
// as ctx rebuild does.
func (s *Session) RebuildIndex(ctx context.Context) (*index.BuildStats, error) {
	r, err := s.open()
	if err != nil {
		return nil, err
	}
	ix, st, err := index.Rebuild(ctx, r, index.BuildOptions{Graph: true})
	if err != nil {
		return nil, err
	}
	ix.Close()
	return st, nil
}

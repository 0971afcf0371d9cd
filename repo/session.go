package repo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/internal/fault"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
	"github.com/ctx-dev/ctx/staging"
)

// Staging sessions (design §11; docs/FORMAT.md §6.5).
//
// A session is a journal, .ctx/sessions/<id>, naming the session's
// successive session_state objects. Each state names the session's latest
// work_commit; each work_commit's first payload entry is the commit the
// session's steps have built so far, a commit like any on main but on a
// line of its own that starts at the state's base. A command that writes
// while a session is active builds its commit on that line and records a
// step (work commit, then state, then a journal line) instead of moving
// main. Compaction squashes the line into one commit on main.
//
// STAGE names the current session: it holds the ID of the session's first
// work commit, whose session_id says which session it is. --session or
// CTX_SESSION select another for one process (Repo.Session).

var (
	// ErrNoSession means the session named does not exist.
	ErrNoSession = errors.New("repo: no such session")
	// ErrSessionDamaged means a session's journal, or STAGE, names a
	// missing or invalid object, or a compaction was interrupted.
	ErrSessionDamaged = errors.New("repo: staging state is inconsistent")
	// ErrSessionState means the session cannot do what was asked in the
	// state it is in (aborted, or none is active).
	ErrSessionState = errors.New("repo: staging session")
)

// Session is an open staging session: its newest state.
type Session struct {
	ID      string
	StateID object.ID
	State   *staging.State
	// Work is the state's head step.
	Work *object.WorkCommit
	// Commit is what the steps since the base have built: the head
	// step's first payload entry (the base itself before the first step).
	Commit object.ID
}

// ReadState reads a session_state object.
func (r *Repo) ReadState(id object.ID) (*staging.State, error) {
	st := new(staging.State)
	if err := object.GetTyped(r.Objects, id, st); err != nil {
		return nil, err
	}
	return st, nil
}

// OpenSession reads session id at the newest state of its journal.
func (r *Repo) OpenSession(id string) (*Session, error) {
	if err := staging.ValidID(id); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	j, err := staging.ReadJournal(r.Root, id)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s", ErrNoSession, id)
		}
		return nil, fmt.Errorf("%w: session %s: %w", ErrSessionDamaged, id, err)
	}
	last, ok := j.Last()
	if !ok {
		return nil, fmt.Errorf("%w: session %s: its journal (.ctx/sessions/%s) names no state; run `ctx stage recover`", ErrSessionDamaged, id, id)
	}
	s, err := r.loadSession(id, last)
	if err != nil {
		return nil, fmt.Errorf("%w: session %s: its newest state %s: %w; run `ctx stage recover`", ErrSessionDamaged, id, last.Short(), err)
	}
	return s, nil
}

// loadSession reads state stateID of session id and checks that what it
// names is there: the head step, of this session, and the commit the
// step built.
func (r *Repo) loadSession(id string, stateID object.ID) (*Session, error) {
	st, err := r.ReadState(stateID)
	if err != nil {
		return nil, err
	}
	if st.SessionID != id {
		return nil, fmt.Errorf("the state is of session %q", st.SessionID)
	}
	w := new(object.WorkCommit)
	if err := object.GetTyped(r.Objects, st.Head, w); err != nil {
		return nil, fmt.Errorf("head step: %w", err)
	}
	if w.SessionID != id {
		return nil, fmt.Errorf("head step %s is of session %q", st.Head.Short(), w.SessionID)
	}
	if len(w.Payload) == 0 {
		return nil, fmt.Errorf("head step %s names no commit", st.Head.Short())
	}
	if _, err := r.ReadCommit(w.Payload[0]); err != nil {
		return nil, fmt.Errorf("head step %s: %w", st.Head.Short(), err)
	}
	if _, err := r.ReadCommit(st.Base); err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	return &Session{ID: id, StateID: stateID, State: st, Work: w, Commit: w.Payload[0]}, nil
}

// StageSession returns the session STAGE names; "" when STAGE is not set.
func (r *Repo) StageSession() (string, error) {
	heads, err := r.Refs.Heads(refs.STAGE)
	if err != nil {
		if errors.Is(err, refs.ErrNotFound) {
			return "", nil
		}
		if errors.Is(err, refs.ErrCorrupt) {
			return "", fmt.Errorf("%w: %v; run `ctx stage recover`", ErrSessionDamaged, err)
		}
		return "", err
	}
	w := new(object.WorkCommit)
	if err := object.GetTyped(r.Objects, heads[0], w); err != nil {
		return "", fmt.Errorf("%w: STAGE names %s, which is not a readable work commit: %w; run `ctx stage recover`", ErrSessionDamaged, heads[0].Short(), err)
	}
	return w.SessionID, nil
}

// SelectedSession returns the session this process works in: Repo.Session
// if set (--session, CTX_SESSION), else the one STAGE names; "" for none.
func (r *Repo) SelectedSession() (string, error) {
	if r.Session != "" {
		if err := staging.ValidID(r.Session); err != nil {
			return "", fmt.Errorf("%w: %w", ErrInvalidArgument, err)
		}
		return r.Session, nil
	}
	return r.StageSession()
}

// ActiveSession returns the selected session, nil when none is selected.
// A selected session that is damaged, aborted or was interrupted while
// compacting is an error: commands must not write past it.
func (r *Repo) ActiveSession() (*Session, error) {
	id, err := r.SelectedSession()
	if err != nil || id == "" {
		return nil, err
	}
	s, err := r.OpenSession(id)
	if err != nil {
		if errors.Is(err, ErrNoSession) && r.Session == "" {
			return nil, fmt.Errorf("%w: STAGE names session %s, which has no journal; run `ctx stage recover`", ErrSessionDamaged, id)
		}
		return nil, err
	}
	switch s.State.Mode {
	case staging.ModeCompacting:
		return nil, fmt.Errorf("%w: session %s was being compacted when a process stopped; run `ctx stage recover`", ErrSessionDamaged, id)
	case staging.ModeAborted:
		return nil, fmt.Errorf("%w: session %s was aborted; start another with `ctx stage start`", ErrSessionState, id)
	}
	return s, nil
}

// WorkingHeads returns what readers see: with an active session, the
// commit its steps have built; otherwise the effective heads of the ref
// HEAD names. name labels the source: "session/<id>" or "refs/main".
// A session being compacted (by another process, or by one that stopped)
// reads as the compaction's result once main holds it, and as its last
// step before that: readers never wait for, or fail on, a compaction.
func (r *Repo) WorkingHeads() (name string, heads []object.ID, err error) {
	s, err := r.ActiveSession()
	if errors.Is(err, ErrSessionDamaged) {
		if c, ok := r.compactingView(); ok {
			return "session/" + c.ID, []object.ID{c.Commit}, nil
		}
	}
	if err != nil {
		return "", nil, err
	}
	if s != nil {
		return "session/" + s.ID, []object.ID{s.Commit}, nil
	}
	target, err := r.Refs.Target()
	if err != nil {
		return "", nil, err
	}
	heads, err = r.Heads(target)
	return target.String(), heads, err
}

// compactingView returns the selected session when it is compacting,
// with Commit set to what readers see: the target if main holds it,
// else the commit of the step before the compaction.
func (r *Repo) compactingView() (*Session, bool) {
	id, err := r.SelectedSession()
	if err != nil || id == "" {
		return nil, false
	}
	s, err := r.OpenSession(id)
	if err != nil || s.State.Mode != staging.ModeCompacting || len(s.Work.Parents) == 0 {
		return nil, false
	}
	if target, err := r.Refs.Target(); err == nil {
		if heads, err := r.Heads(target); err == nil {
			if anc, err := r.ancestors(heads); err == nil && anc[*s.State.Target] != nil {
				s.Commit = *s.State.Target
				return s, true
			}
		}
	}
	prev := new(object.WorkCommit)
	if object.GetTyped(r.Objects, s.Work.Parents[0], prev) != nil || len(prev.Payload) == 0 {
		return nil, false
	}
	s.Commit = prev.Payload[0]
	return s, true
}

// sessionHeads is Heads for STAGE: the selected session's head step.
func (r *Repo) sessionHead() ([]object.ID, error) {
	s, err := r.ActiveSession()
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("%w: STAGE (no session is active)", refs.ErrNotFound)
	}
	return []object.ID{s.State.Head}, nil
}

// sessionTip is the tip of an active session: its built commit.
func (w *Writer) sessionTip(ctx context.Context, s *Session, kind object.StepKind) (*tip, error) {
	c, err := w.ReadCommit(s.Commit)
	if err != nil {
		return nil, err
	}
	return &tip{ref: refs.STAGE, label: "session/" + s.ID, head: s.Commit, commit: c, sess: s, kind: kind, ctx: ctx}, nil
}

// recordStep makes the batch, which holds commit id, durable as a step of
// the tip's session: a work commit and a state in the batch, then a
// journal line. The step is written when recordStep returns.
func (w *Writer) recordStep(b *object.Batch, t *tip, id object.ID) error {
	s := t.sess
	c := new(object.Commit)
	if err := object.GetTyped(b, id, c); err != nil {
		return err
	}
	if max := s.State.Budgets.MaxEdgesPerStep; max > 0 {
		n := 0
		for _, eb := range c.EdgeBatches {
			batch := new(graph.EdgeBatch)
			if err := object.GetTyped(b, eb, batch); err != nil {
				return err
			}
			n += len(batch.Edges) + len(batch.Tombstones)
		}
		if n > max {
			return fmt.Errorf("%w: the step asserts %d edges; session %s allows %d per step (max_edges_per_step)", ErrBudgetExceeded, n, s.ID, max)
		}
	}
	payload := []object.ID{id}
	add := func(p *object.ID, old *object.ID) {
		if p != nil && (old == nil || *p != *old) && !slices.Contains(payload, *p) {
			payload = append(payload, *p)
		}
	}
	for i := range c.EdgeBatches {
		add(&c.EdgeBatches[i], nil)
	}
	p := t.commit
	add(&c.RootTree, &p.RootTree)
	add(c.SemanticSnapshot, p.SemanticSnapshot)
	add(c.BuildSnapshot, p.BuildSnapshot)
	add(c.DiagnosticsSnapshot, p.DiagnosticsSnapshot)
	now := w.Clock.Now().Unix()
	work := &object.WorkCommit{
		Parents: []object.ID{s.State.Head}, Base: s.State.Base, SessionID: s.ID, CreatedAt: now,
		StepKind: t.kind, Payload: payload, NarrativeRefs: append([]object.NarrativeRef{}, c.NarrativeRefs...),
	}
	wid, err := object.PutTyped(b, work)
	if err != nil {
		return err
	}
	st := *s.State
	st.Head, st.UpdatedAt, st.Steps, st.Tokens = wid, now, st.Steps+1, st.Tokens+b.NewBlobBytes()/4
	sid, err := object.PutTyped(b, &st)
	if err != nil {
		return err
	}
	if err := b.Commit(); err != nil {
		return err
	}
	fault.Hit("stage.step-stored")
	if err := staging.Append(w.Root, s.ID, sid); err != nil {
		return err
	}
	*s = Session{ID: s.ID, StateID: sid, State: &st, Work: work, Commit: id}
	w.afterStep(t)
	return nil
}

// appendState stores st (with whatever else b holds) and appends it to the
// session's journal.
func (w *Writer) appendState(b *object.Batch, st *staging.State) (object.ID, error) {
	sid, err := object.PutTyped(b, st)
	if err != nil {
		return object.Zero, err
	}
	if err := b.Commit(); err != nil {
		return object.Zero, err
	}
	if err := staging.Append(w.Root, st.SessionID, sid); err != nil {
		return object.Zero, err
	}
	return sid, nil
}

// clearStage removes STAGE if it names session id.
func (w *Writer) clearStage(id string) error {
	cur, err := w.StageSession()
	if err != nil && !errors.Is(err, ErrSessionDamaged) {
		return err
	}
	if cur != id && err == nil {
		return nil
	}
	if err := w.DeleteRef(refs.STAGE, refs.Any()); err != nil && !errors.Is(err, refs.ErrNotFound) {
		return err
	}
	return nil
}

// Notice is something a command did besides what was asked, for the user
// to hear about: an automatic compaction, or its failure.
func (w *Writer) notice(format string, args ...any) {
	w.Notices = append(w.Notices, fmt.Sprintf(format, args...))
}

// sessionNames lists the session IDs, for messages.
func sessionNames(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// NarrativeStep records the narrative's changes as a step of s, the
// active staging session (ActiveSession, which callers read before they
// write, to refuse a session that cannot take a step): what every
// narrative command does after it ran (ctx add, tag, the hooks' <ctx:*>
// commands, MCP's remember, agent's ObserveNote), and what ctx stage
// flush does for hand edits. With s nil (no session) it does nothing and
// returns nil: the narrative waits for ctx commit. The step's id is the
// session's new head (res.Step).
func (w *Writer) NarrativeStep(ctx context.Context, s *Session, msg, author string, kind object.StepKind) (*StepResult, error) {
	if s == nil {
		return nil, nil
	}
	res, err := w.Commit(ctx, CommitOptions{Message: msg, Author: author, Step: kind})
	if err != nil {
		return nil, fmt.Errorf("the narrative was written, but recording it as a step of session %s failed (ctx stage flush retries): %w", s.ID, err)
	}
	out := &StepResult{Session: s.ID, CommitResult: res}
	if res.Committed {
		out.Step = res.ID
		if ns, err := w.OpenSession(s.ID); err == nil {
			out.Step = ns.State.Head
		}
	}
	return out, nil
}

// StepResult is what NarrativeStep recorded: the commit (Committed false
// when the narrative had no change) and the session's step.
type StepResult struct {
	*CommitResult
	Session string    `json:"session"`
	Step    object.ID `json:"step"`
}

// FlushStep records the narrative's unrecorded changes (hand edits) as a
// step of the active session: ctx stage flush. No active session is
// ErrSessionState. An empty msg is "Flush narrative changes".
func (w *Writer) FlushStep(ctx context.Context, msg, author string) (*StepResult, error) {
	s, err := w.ActiveSession()
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("%w: no session is active: start one with ctx stage start \"TASK\"", ErrSessionState)
	}
	if msg == "" {
		msg = "Flush narrative changes"
	}
	return w.NarrativeStep(ctx, s, msg, author, object.StepNote)
}

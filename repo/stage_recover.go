package repo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
	"github.com/ctx-dev/ctx/staging"
)

// Recovered is what RecoverSessions did to one session, or to STAGE.
type Recovered struct {
	Session string `json:"session"` // "" for STAGE itself
	// Action is "intact" (nothing to do), "repaired" (a torn or damaged
	// journal line cut off), "resumed" (back to the newest readable
	// state), "reset" (no readable state: the session is gone),
	// "finished" or "undone" (an interrupted compaction), or "cleared"
	// (STAGE named nothing usable and was removed).
	Action string     `json:"action"`
	Detail string     `json:"detail"`
	State  *object.ID `json:"state,omitempty"` // the state the session is at now
}

// RecoverSessions checks every session journal and STAGE after a crash or
// damage (design §11.5), and brings each back to a state every command can
// use: the newest state whose objects are all readable, an interrupted
// compaction finished (main moved) or undone (main did not), STAGE
// cleared when it names no usable session.
func (w *Writer) RecoverSessions(ctx context.Context) ([]Recovered, error) {
	ids, err := staging.List(w.Root)
	if err != nil {
		return nil, err
	}
	out := []Recovered{}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		rec, err := w.recoverSession(ctx, id)
		if err != nil {
			return out, fmt.Errorf("recovering session %s: %w", id, err)
		}
		out = append(out, rec)
	}
	rec, err := w.recoverStage()
	if err != nil {
		return out, err
	}
	if rec != nil {
		out = append(out, *rec)
	}
	return out, nil
}

func (w *Writer) recoverStage() (*Recovered, error) {
	heads, err := w.Refs.Heads(refs.STAGE)
	var why string
	switch {
	case errors.Is(err, refs.ErrNotFound):
		return nil, nil
	case errors.Is(err, refs.ErrCorrupt), errors.Is(err, ErrSessionDamaged):
		why = fmt.Sprintf("STAGE was damaged (%v)", err)
	case err != nil:
		return nil, err
	default:
		wc := new(object.WorkCommit)
		if err := object.GetTyped(w.Objects, heads[0], wc); err != nil {
			why = fmt.Sprintf("STAGE named %s, which is not a readable work commit (%v)", heads[0].Short(), err)
		} else if s, err := w.OpenSession(wc.SessionID); err != nil {
			why = fmt.Sprintf("STAGE named session %s, which no longer exists", wc.SessionID)
		} else if s.State.Mode == staging.ModeAborted {
			why = fmt.Sprintf("STAGE named session %s, which was aborted", wc.SessionID)
		} else {
			return nil, nil
		}
	}
	// The file itself: a damaged STAGE does not read, so the refs
	// store's compare-and-delete would refuse it.
	if err := atomicfile.Remove(filepath.Join(w.Root, string(refs.STAGE))); err != nil {
		return nil, err
	}
	return &Recovered{Action: "cleared", Detail: why + "; cleared it: no session is current (ctx stage list, then --session or ctx stage start)"}, nil
}

func (w *Writer) recoverSession(ctx context.Context, id string) (Recovered, error) {
	rec := Recovered{Session: id}
	j, err := staging.ReadJournal(w.Root, id)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			rec.Action, rec.Detail = "intact", "gone meanwhile"
			return rec, nil
		}
		return rec, err
	}
	var problems []string
	if j.Torn {
		problems = append(problems, "a torn last line (a step that was never reported written)")
	}
	if j.Damaged > 0 {
		problems = append(problems, fmt.Sprintf("%d damaged line(s)", j.Damaged))
	}
	var s *Session
	found := -1
	var lastErr error
	for i := len(j.States) - 1; i >= 0; i-- {
		cand, err := w.loadSession(id, j.States[i])
		if err == nil {
			_, err = w.SessionSteps(cand)
		}
		if err != nil {
			if lastErr == nil {
				lastErr = err
			}
			continue
		}
		s, found = cand, i
		break
	}
	if s == nil {
		why := "its journal names no state"
		if lastErr != nil {
			why = "no state of its journal is readable: " + lastErr.Error()
		}
		if err := w.endSession(id); err != nil {
			return rec, err
		}
		rec.Action, rec.Detail = "reset", why+"; removed the session: main is as it was"
		return rec, nil
	}
	newer := len(j.States) - 1 - found
	switch {
	case newer > 0:
		problems = append(problems, fmt.Sprintf("%d newer state(s) not readable (%v)", newer, lastErr))
		fallthrough
	case len(problems) > 0:
		// The journal keeps the readable states up to the one resumed
		// from, rewritten atomically: gc must not root what is lost.
		if err := staging.Rewrite(w.Root, id, j.States[:found+1]); err != nil {
			return rec, err
		}
		rec.Action = "repaired"
		if newer > 0 {
			rec.Action = "resumed"
		}
		rec.Detail = fmt.Sprintf("%s; the session is at state %s, %d step(s) since its base", strings.Join(problems, "; "), s.StateID.Short(), s.State.Steps)
	default:
		rec.Action, rec.Detail = "intact", fmt.Sprintf("%s, %d step(s) since its base", s.State.Mode, s.State.Steps)
	}
	sid := s.StateID
	rec.State = &sid
	if s.State.Mode != staging.ModeCompacting {
		return rec, nil
	}
	return w.recoverCompaction(ctx, s, rec)
}

// recoverCompaction finishes a compaction that moved main, and undoes one
// that did not.
func (w *Writer) recoverCompaction(ctx context.Context, s *Session, rec Recovered) (Recovered, error) {
	st := s.State
	target, err := w.Refs.Target()
	if err != nil {
		return rec, err
	}
	heads, err := w.Heads(target)
	if err != nil && !errors.Is(err, refs.ErrNotFound) {
		return rec, err
	}
	anc, err := w.ancestors(heads)
	if err != nil {
		return rec, err
	}
	if anc[*st.Target] != nil {
		if err := w.finishCompaction(s.ID, st, st.Head); err != nil {
			return rec, err
		}
		rec.Action, rec.State = "finished", nil
		rec.Detail = fmt.Sprintf("a compaction had moved %s to %s; the session ended", target, st.Target.Short())
		if st.Continue {
			rec.Detail = fmt.Sprintf("a compaction had moved %s to %s; the session goes on from there", target, st.Target.Short())
			if ns, err := w.OpenSession(s.ID); err == nil {
				sid := ns.StateID
				rec.State = &sid
			}
		}
		return rec, nil
	}
	if len(s.Work.Parents) == 0 {
		return rec, fmt.Errorf("%w: session %s: its compaction step has no parent step", ErrSessionDamaged, s.ID)
	}
	back := *st
	back.Head, back.Mode, back.Target, back.Continue, back.UpdatedAt = s.Work.Parents[0], staging.ModeRunning, nil, false, w.Clock.Now().Unix()
	b := w.Objects.NewBatch()
	defer b.Abort()
	sid, err := w.appendState(b, &back)
	if err != nil {
		return rec, err
	}
	rec.Action, rec.State = "undone", &sid
	rec.Detail = fmt.Sprintf("a compaction stopped before moving %s; the session is back at its last step (today's log may hold its summary lines already); run ctx stage compact again", target)
	return rec, nil
}

// SessionRoots returns what gc must keep for the sessions: every state
// their journals name that is in the store. Aborted sessions are listed in
// aborted. A session whose newest state does not read makes it fail: gc
// cannot tell what that session still needs (run ctx stage recover).
func (r *Repo) SessionRoots() (roots []object.ID, aborted []string, err error) {
	ids, err := staging.List(r.Root)
	if err != nil {
		return nil, nil, err
	}
	for _, id := range ids {
		s, err := r.OpenSession(id)
		if err != nil {
			return nil, nil, err
		}
		if s.State.Mode == staging.ModeAborted {
			aborted = append(aborted, id)
		}
		j, err := staging.ReadJournal(r.Root, id)
		if err != nil {
			return nil, nil, err
		}
		// Every state of the journal whose state and head step are in
		// the store (recover drops the others).
		for _, st := range j.States {
			if r.hasState(st) {
				roots = append(roots, st)
			}
		}
	}
	return roots, aborted, nil
}

func (r *Repo) hasState(id object.ID) bool {
	st, err := r.ReadState(id)
	if err != nil {
		return false
	}
	ok, err := r.Objects.Has(st.Head)
	return err == nil && ok
}

// DropSession removes the journal of an aborted session (gc --aggressive):
// its objects become unreachable.
func (w *Writer) DropSession(id string) error {
	s, err := w.OpenSession(id)
	if err != nil {
		return err
	}
	if s.State.Mode != staging.ModeAborted {
		return fmt.Errorf("%w: session %s is %s; only aborted sessions are dropped", ErrSessionState, id, s.State.Mode)
	}
	return w.endSession(id)
}

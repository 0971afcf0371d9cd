package repo

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/graph/diag"
	"github.com/ctx-dev/ctx/graph/extract"
	"github.com/ctx-dev/ctx/internal/fault"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
	"github.com/ctx-dev/ctx/staging"
)

// StartOptions configure StartSession.
type StartOptions struct {
	// Task is what the session is for; required.
	Task string
	// ID names the session; empty makes one from the task.
	ID string
	// Detach leaves STAGE alone: the session is used through --session or
	// CTX_SESSION only, and the current session is not switched away from.
	Detach bool
	// Author signs the commit a context switch compacts.
	Author string
}

// StartResult is what StartSession did.
type StartResult struct {
	Session  string    `json:"session"`
	Task     string    `json:"task"`
	TaskNode string    `json:"task_node,omitempty"`
	Base     object.ID `json:"base"`
	Step     object.ID `json:"step"`
	State    object.ID `json:"state"`
	Current  bool      `json:"current"` // STAGE names it
	// Switched is the compaction of the session this one replaced as the
	// current one (the context-switch trigger), if any.
	Switched *CompactResult `json:"switched,omitempty"`
}

// StartSession starts a staging session on main's head: its first step
// (session_start), its first state and its journal; then, unless
// Detach, STAGE names it. A current session it replaces is compacted
// first when [stage] compact_on_switch is set.
func (w *Writer) StartSession(ctx context.Context, opts StartOptions) (*StartResult, error) {
	task := strings.TrimSpace(opts.Task)
	if task == "" {
		return nil, fmt.Errorf("%w: a session needs a task: ctx stage start \"TASK\"", ErrInvalidArgument)
	}
	id := opts.ID
	if id == "" {
		var err error
		if id, err = staging.NewID(task, w.Clock.Now(), nil); err != nil {
			return nil, err
		}
	} else if err := staging.ValidID(id); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	if _, err := staging.ReadJournal(w.Root, id); err == nil {
		return nil, fmt.Errorf("%w: session %s exists already (ctx stage list); pick another --id", ErrSessionState, id)
	}
	res := &StartResult{Session: id, Task: task}
	if !opts.Detach {
		// STAGE's session is the one replaced (--session selects a
		// session for one process; it is not "current").
		prev, err := w.StageSession()
		if err != nil {
			return nil, err
		}
		if prev != "" && w.Config.Stage.CompactOnSwitch {
			if s, err := w.OpenSession(prev); err == nil && s.State.Mode == staging.ModeRunning {
				cr, err := w.CompactSession(ctx, prev, CompactOptions{Author: opts.Author, Trigger: "context switch",
					Message: fmt.Sprintf("%s (session %s; switched to: %s)", staging.Title(s.State.Task, 60), prev, staging.Title(task, 60))})
				if err != nil {
					return nil, fmt.Errorf("compacting session %s before switching: %w", prev, err)
				}
				res.Switched = cr
			}
		}
	}
	t, err := w.mainTip(ctx)
	if err != nil {
		return nil, err
	}
	now := w.Clock.Now().Unix()
	cat, err := w.Narrative().Load()
	if err != nil {
		return nil, err
	}
	res.TaskNode = taskNodeOf(cat, task)
	b := w.Objects.NewBatch()
	defer b.Abort()
	work := &object.WorkCommit{Base: t.head, SessionID: id, CreatedAt: now, StepKind: object.StepSessionStart,
		Payload: []object.ID{t.head}, NarrativeRefs: []object.NarrativeRef{}}
	wid, err := object.PutTyped(b, work)
	if err != nil {
		return nil, err
	}
	st := &staging.State{
		SessionID: id, Task: task, TaskNode: res.TaskNode, Base: t.head, Head: wid,
		CreatedAt: now, SegmentAt: now, UpdatedAt: now, Mode: staging.ModeRunning,
		Budgets: staging.Budgets{MaxFilesPerStep: w.Config.Ingestion.MaxFilesPerStep, MaxBytesPerStep: w.Config.Ingestion.MaxBytesPerStep, MaxEdgesPerStep: w.Config.Stage.MaxEdgesPerStep},
	}
	sid, err := w.appendState(b, st)
	if err != nil {
		return nil, err
	}
	res.Base, res.Step, res.State = t.head, wid, sid
	fault.Hit("stage.started")
	if !opts.Detach {
		if err := w.UpdateRef(refs.STAGE, wid, refs.Any()); err != nil {
			return nil, err
		}
		res.Current = true
	}
	return res, nil
}

// taskNodeOf returns the task node a session's task names: a task whose
// ID, or whose title (ignoring case), is the task text.
func taskNodeOf(cat *narrative.Catalog, task string) string {
	if n, ok := cat.Nodes[narrative.ID(task)]; ok && n.Type == narrative.Task {
		return string(n.ID)
	}
	for _, id := range cat.IDs() {
		n := cat.Nodes[id]
		if n.Type == narrative.Task && n.Active() && strings.EqualFold(strings.TrimSpace(n.Title), task) {
			return string(n.ID)
		}
	}
	return ""
}

// taskDone reports whether a task node is done: tagged done, with status
// done, completed or closed, superseded or deleted.
func taskDone(n *narrative.Node) bool {
	if n == nil {
		return false
	}
	switch strings.ToLower(n.Meta["status"]) {
	case "done", "completed", "closed":
		return true
	}
	return !n.Active() || n.HasTag("done")
}

// afterStep runs the compaction triggers of [stage] after a step of t's
// session was recorded. A compaction that fails leaves the step and the
// session as they are, and says so in a notice.
func (w *Writer) afterStep(t *tip) {
	s, cfg := t.sess, w.Config.Stage
	var why string
	cont := true
	now := w.Clock.Now().Unix()
	switch {
	case cfg.CompactOnTaskDone && s.State.TaskNode != "" && w.sessionTaskDone(s):
		why, cont = "task done", false
	case cfg.CompactAtTokens > 0 && s.State.Tokens >= cfg.CompactAtTokens:
		why = fmt.Sprintf("token budget: about %d tokens staged, compact_at_tokens %d", s.State.Tokens, cfg.CompactAtTokens)
	case cfg.After() > 0 && now-s.State.SegmentAt >= int64(cfg.After().Seconds()):
		why = "age: the session's steps began more than " + cfg.CompactAfter + " ago"
	}
	if why == "" {
		return
	}
	ctx := t.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := w.CompactSession(ctx, s.ID, CompactOptions{Trigger: why, Continue: cont})
	if err != nil {
		w.notice("session %s: automatic compaction (%s) failed: %v; the step is recorded, and `ctx stage compact` can retry", s.ID, why, err)
		return
	}
	verb := "ended"
	if cont {
		verb = "goes on"
	}
	w.notice("session %s compacted (%s) into %s on main; the session %s", s.ID, why, res.Commit.Short(), verb)
	if cont {
		if ns, err := w.OpenSession(s.ID); err == nil {
			*s = *ns
		}
	}
}

func (w *Writer) sessionTaskDone(s *Session) bool {
	cat, err := w.Narrative().Load()
	if err != nil {
		return false
	}
	return taskDone(cat.Nodes[narrative.ID(s.State.TaskNode)])
}

// Step is one step of a session, for status and summaries.
type Step struct {
	ID      object.ID          `json:"id"`
	Kind    object.StepKind    `json:"kind"`
	Time    int64              `json:"time"`
	Commit  object.ID          `json:"commit"`
	Message string             `json:"message"`
	work    *object.WorkCommit `json:"-"`
}

// SessionSteps returns the steps since the session's base, oldest first:
// the chain from the head step back to the step that began the segment
// (session_start, or the compaction the session went on from), which is
// not listed.
func (r *Repo) SessionSteps(s *Session) ([]Step, error) {
	var out []Step
	id, w := s.State.Head, s.Work
	for {
		if w.StepKind == object.StepSessionStart || w.StepKind == object.StepCompact {
			break
		}
		c, err := r.ReadCommit(w.Payload[0])
		if err != nil {
			return nil, fmt.Errorf("session %s step %s: %w", s.ID, id.Short(), err)
		}
		out = append(out, Step{ID: id, Kind: w.StepKind, Time: w.CreatedAt, Commit: w.Payload[0], Message: c.Message, work: w})
		if len(w.Parents) == 0 {
			break
		}
		id = w.Parents[0]
		w = new(object.WorkCommit)
		if err := object.GetTyped(r.Objects, id, w); err != nil {
			return nil, fmt.Errorf("session %s step %s: %w", s.ID, id.Short(), err)
		}
	}
	slices.Reverse(out)
	return out, nil
}

// SessionStatus is what `ctx stage status` shows.
type SessionStatus struct {
	Session    string              `json:"session"`
	Task       string              `json:"task"`
	TaskNode   string              `json:"task_node,omitempty"`
	Mode       staging.Mode        `json:"mode"`
	Current    bool                `json:"current"` // STAGE names it
	Base       object.ID           `json:"base"`
	Head       object.ID           `json:"head"`
	Commit     object.ID           `json:"commit"`
	MainMoved  bool                `json:"main_moved"` // main's head is not the base: compaction will merge
	Steps      int                 `json:"steps"`
	Kinds      []staging.KindCount `json:"kinds"`
	Artifacts  int                 `json:"artifacts"`
	Tokens     int64               `json:"tokens"`
	CreatedAt  int64               `json:"created_at"`
	SegmentAt  int64               `json:"segment_at"`
	UpdatedAt  int64               `json:"updated_at"`
	AgeSeconds int64               `json:"age_seconds"`
	Budgets    staging.Budgets     `json:"budgets"`
	Triggers   []Trigger           `json:"triggers"`
	Reason     string              `json:"reason,omitempty"`
	Log        []Step              `json:"log"`
}

// Trigger is one automatic compaction trigger and how near it is.
type Trigger struct {
	Name    string  `json:"name"`
	Enabled bool    `json:"enabled"`
	Used    float64 `json:"used"` // fraction of the threshold reached; 1 or more fires at the next step
	Detail  string  `json:"detail"`
}

// StatusOf describes session id.
func (r *Repo) StatusOf(id string) (*SessionStatus, error) {
	s, err := r.OpenSession(id)
	if err != nil {
		return nil, err
	}
	steps, err := r.SessionSteps(s)
	if err != nil {
		return nil, err
	}
	now := r.Clock.Now().Unix()
	st := s.State
	cur, _ := r.StageSession()
	out := &SessionStatus{
		Session: s.ID, Task: st.Task, TaskNode: st.TaskNode, Mode: st.Mode, Current: cur == s.ID,
		Base: st.Base, Head: st.Head, Commit: s.Commit, Steps: len(steps), Kinds: kindCounts(steps),
		Tokens: st.Tokens, CreatedAt: st.CreatedAt, SegmentAt: st.SegmentAt, UpdatedAt: st.UpdatedAt,
		AgeSeconds: now - st.CreatedAt, Budgets: st.Budgets, Reason: st.Reason, Log: steps,
	}
	for _, step := range steps {
		out.Artifacts += len(step.work.Payload)
	}
	if main, err := r.Heads(refs.HEAD); err == nil {
		out.MainMoved = !slices.Equal(main, []object.ID{st.Base})
	}
	cfg := r.Config.Stage
	tok := Trigger{Name: "token budget", Enabled: cfg.CompactAtTokens > 0, Detail: "compact_at_tokens = 0"}
	if tok.Enabled {
		tok.Used = float64(st.Tokens) / float64(cfg.CompactAtTokens)
		tok.Detail = fmt.Sprintf("about %d of %d tokens staged", st.Tokens, cfg.CompactAtTokens)
	}
	age := Trigger{Name: "age", Enabled: cfg.After() > 0, Detail: "compact_after = \"0\""}
	if age.Enabled {
		age.Used = float64(now-st.SegmentAt) / cfg.After().Seconds()
		age.Detail = fmt.Sprintf("steps began %s ago, compact_after %s", humanDuration(now-st.SegmentAt), cfg.CompactAfter)
	}
	task := Trigger{Name: "task done", Enabled: cfg.CompactOnTaskDone && st.TaskNode != "", Detail: "the task names no task node"}
	if st.TaskNode != "" {
		task.Detail = "task " + st.TaskNode + " is open"
		if cat, err := r.Narrative().Load(); err == nil && taskDone(cat.Nodes[narrative.ID(st.TaskNode)]) {
			task.Used, task.Detail = 1, "task "+st.TaskNode+" is done"
		}
	}
	sw := Trigger{Name: "context switch", Enabled: cfg.CompactOnSwitch, Detail: "when ctx stage start replaces the current session"}
	out.Triggers = []Trigger{tok, age, task, sw}
	if out.Log == nil {
		out.Log = []Step{}
	}
	return out, nil
}

func kindCounts(steps []Step) []staging.KindCount {
	var out []staging.KindCount
	for _, s := range steps {
		i := slices.IndexFunc(out, func(k staging.KindCount) bool { return k.Kind == string(s.Kind) })
		if i < 0 {
			out = append(out, staging.KindCount{Kind: string(s.Kind)})
			i = len(out) - 1
		}
		out[i].Count++
	}
	if out == nil {
		out = []staging.KindCount{}
	}
	return out
}

func humanDuration(sec int64) string {
	switch {
	case sec < 120:
		return fmt.Sprintf("%ds", sec)
	case sec < 2*3600:
		return fmt.Sprintf("%dm", sec/60)
	case sec < 2*86400:
		return fmt.Sprintf("%dh%02dm", sec/3600, sec%3600/60)
	}
	return fmt.Sprintf("%dd", sec/86400)
}

// SessionInfo is one line of `ctx stage list`.
type SessionInfo struct {
	Session   string       `json:"session"`
	Task      string       `json:"task"`
	Mode      staging.Mode `json:"mode"`
	Current   bool         `json:"current"`
	Steps     int          `json:"steps"`
	CreatedAt int64        `json:"created_at"`
	UpdatedAt int64        `json:"updated_at"`
	Problem   string       `json:"problem,omitempty"` // a damaged session: what `ctx stage recover` would fix
}

// ListSessions lists every session with a journal.
func (r *Repo) ListSessions() ([]SessionInfo, error) {
	ids, err := staging.List(r.Root)
	if err != nil {
		return nil, err
	}
	cur, _ := r.StageSession()
	out := []SessionInfo{}
	for _, id := range ids {
		info := SessionInfo{Session: id, Current: id == cur}
		s, err := r.OpenSession(id)
		if err != nil {
			info.Problem = message(err)
			out = append(out, info)
			continue
		}
		st := s.State
		info.Task, info.Mode, info.Steps, info.CreatedAt, info.UpdatedAt = st.Task, st.Mode, st.Steps, st.CreatedAt, st.UpdatedAt
		out = append(out, info)
	}
	return out, nil
}

// message is err's text without the package prefix.
func message(err error) string {
	return strings.TrimPrefix(err.Error(), "repo: ")
}

// CompactOptions configure CompactSession.
type CompactOptions struct {
	// Message is the canonical commit's message; empty makes one from
	// the task.
	Message string
	Author  string
	// Continue keeps the session going on the new commit instead of
	// ending it.
	Continue bool
	// Trigger says what asked for the compaction ("manual" when empty).
	Trigger string
}

// CompactResult is what CompactSession did.
type CompactResult struct {
	Session string `json:"session"`
	Trigger string `json:"trigger"`
	// Commit is the canonical commit: the session's work, parent = base.
	Commit object.ID `json:"commit"`
	// Merge is the merge commit of main's head and Commit, when main had
	// moved since the base; main then names Merge.
	Merge     *object.ID `json:"merge,omitempty"`
	Conflicts []string   `json:"conflicts,omitempty"`
	// Main is main's new head.
	Main     object.ID             `json:"main"`
	Previous object.ID             `json:"previous"`
	Steps    int                   `json:"steps"`
	Edges    int                   `json:"edges"`   // edges and tombstones in the curated batch
	Dropped  int                   `json:"dropped"` // low-confidence edges left out
	Summary  *staging.Summary      `json:"summary"`
	Lines    []string              `json:"log_lines"`
	Ended    bool                  `json:"ended"` // the session is over (else it goes on from Main)
	Empty    bool                  `json:"empty"` // no step to compact: main did not move
	Changes  []Change              `json:"changes"`
	Refs     []object.NarrativeRef `json:"-"`
}

// CompactSession squashes the steps of session id since its base into one
// canonical commit (design §15.1): the code snapshots of the last step,
// one curated edge batch, the narrative as it stands with a summary of
// the session appended to today's log. Its parent is the base; if main
// moved meanwhile, main gets the merge of its head and that commit, so
// nothing of either side is lost. Then the session ends, or with
// Continue goes on from main's new head.
//
// Crash safety: a compacting state naming the target is journaled before
// main moves; `ctx stage recover` finishes the compaction if main moved,
// and undoes it otherwise.
func (w *Writer) CompactSession(ctx context.Context, id string, opts CompactOptions) (*CompactResult, error) {
	s, err := w.OpenSession(id)
	if err != nil {
		return nil, err
	}
	if s.State.Mode != staging.ModeRunning {
		return nil, fmt.Errorf("%w: session %s is %s, not running", ErrSessionState, id, s.State.Mode)
	}
	trigger := opts.Trigger
	if trigger == "" {
		trigger = "manual"
	}
	steps, err := w.SessionSteps(s)
	if err != nil {
		return nil, err
	}
	res := &CompactResult{Session: id, Trigger: trigger, Steps: len(steps), Changes: []Change{}, Lines: []string{}}
	if len(steps) == 0 {
		res.Empty, res.Previous, res.Main = true, s.State.Base, s.State.Base
		if opts.Continue {
			return res, nil
		}
		if err := w.endSession(id); err != nil {
			return nil, err
		}
		res.Ended = true
		return res, nil
	}
	base, err := w.ReadCommit(s.State.Base)
	if err != nil {
		return nil, err
	}
	final, err := w.ReadCommit(s.Commit)
	if err != nil {
		return nil, err
	}
	msg := strings.TrimSpace(opts.Message)
	if msg == "" {
		msg = fmt.Sprintf("%s (session %s)", staging.Title(s.State.Task, 72), id)
	}
	sum, err := w.summarize(ctx, s, steps, base, final, msg)
	if err != nil {
		return nil, err
	}
	res.Summary = sum
	batches, err := w.sessionBatches(s, final)
	if err != nil {
		return nil, err
	}
	curated, dropped := curate(batches, s.State.TaskNode)
	res.Dropped = dropped

	// Main first: a compaction that cannot land must not leave summary
	// lines in the shared log.
	mt, err := w.mainTip(ctx)
	if err != nil {
		return nil, err
	}
	res.Previous = mt.head
	if mt.head != s.State.Base {
		anc, err := w.ancestors([]object.ID{mt.head})
		if err != nil {
			return nil, err
		}
		if anc[s.State.Base] == nil {
			return nil, fmt.Errorf("%w: main (%s) no longer contains the session's base %s", ErrSessionDamaged, mt.head.Short(), s.State.Base.Short())
		}
	}
	// The summary goes into today's log before the commit, which records
	// it. A retry (after an undone compaction) does not repeat lines.
	if res.Lines, err = w.journalOnce(sum.Lines()); err != nil {
		return nil, err
	}
	fault.Hit("stage.summary-written")
	b := w.Objects.NewBatch()
	defer b.Abort()
	// The commit carries the time of the session's last step: a merge
	// with main keeps, of two changes to one path, the later one.
	c := &object.Commit{
		Parents: []object.ID{s.State.Base}, TimestampUnix: final.TimestampUnix, Author: opts.Author, Message: msg,
		RootTree: final.RootTree, SemanticSnapshot: final.SemanticSnapshot, BuildSnapshot: final.BuildSnapshot,
		DiagnosticsSnapshot: final.DiagnosticsSnapshot, EdgeBatches: []object.ID{}, NarrativeRefs: []object.NarrativeRef{},
	}
	if curated != nil {
		res.Edges = len(curated.Edges) + len(curated.Tombstones)
		eb, err := object.PutTyped(b, curated)
		if err != nil {
			return nil, err
		}
		c.EdgeBatches = append(c.EdgeBatches, eb)
	}
	if res.Changes, err = w.NarrativeChanges(ctx, b, s.State.Base); err != nil {
		return nil, err
	}
	refsByPath := map[string]object.NarrativeRef{}
	for _, ch := range res.Changes {
		refsByPath[ch.Path] = object.NarrativeRef{Path: ch.Path, Stream: ch.Stream, Role: ch.Role, BlobID: ch.Blob, Deleted: ch.Status == "removed"}
	}
	w.addAlways(b, w.todaysLogs(), refsByPath)
	for _, nr := range refsByPath {
		c.NarrativeRefs = append(c.NarrativeRefs, nr)
	}
	sort.Slice(c.NarrativeRefs, func(i, j int) bool { return c.NarrativeRefs[i].Path < c.NarrativeRefs[j].Path })
	cid, err := object.PutTyped(b, c)
	if err != nil {
		return nil, err
	}
	res.Commit, res.Main = cid, cid
	// The merge below reads the commit from the store: make it durable
	// first (unreferenced until the journal names it; gc's margin keeps
	// it meanwhile).
	if err := b.Commit(); err != nil {
		return nil, err
	}
	b = w.Objects.NewBatch()
	defer b.Abort()
	if mt.head != s.State.Base {
		m, err := w.Merge(b, []object.ID{mt.head, cid}, "main and session "+id)
		if err != nil {
			return nil, err
		}
		res.Merge, res.Conflicts, res.Main = &m.ID, m.Conflicts, m.ID
	}
	now := w.Clock.Now().Unix()
	// The compacting state, then main.
	cw := &object.WorkCommit{Parents: []object.ID{s.State.Head}, Base: s.State.Base, SessionID: id, CreatedAt: now,
		StepKind: object.StepCompact, Payload: []object.ID{res.Main}, NarrativeRefs: c.NarrativeRefs}
	if res.Main != cid {
		cw.Payload = append(cw.Payload, cid)
	}
	cwid, err := object.PutTyped(b, cw)
	if err != nil {
		return nil, err
	}
	st := *s.State
	target := res.Main
	st.Head, st.Mode, st.Target, st.Continue, st.UpdatedAt = cwid, staging.ModeCompacting, &target, opts.Continue, now
	if _, err := w.appendState(b, &st); err != nil {
		return nil, err
	}
	fault.Hit("stage.compacting")
	if err := w.UpdateRef(mt.ref, res.Main, refs.Among(mt.head)); err != nil {
		return nil, err
	}
	fault.Hit("stage.main-moved")
	if err := w.finishCompaction(id, &st, cwid); err != nil {
		return nil, err
	}
	res.Ended = !opts.Continue
	return res, nil
}

// journalOnce appends the lines to today's log, leaving out those it
// holds already, and returns the lines it holds now.
func (w *Writer) journalOnce(lines []string) ([]string, error) {
	day := w.Clock.Now().UTC().Format("2006-01-02")
	have, _ := os.ReadFile(filepath.Join(w.Root, "narrative", "log", day+".md"))
	for _, l := range lines {
		if strings.Contains(string(have), " "+l+"\n") {
			continue
		}
		if err := w.Narrative().Journal(l); err != nil {
			return nil, err
		}
	}
	return lines, nil
}

// finishCompaction ends a session whose compaction moved main, or lets
// it go on from the compaction's target.
func (w *Writer) finishCompaction(id string, st *staging.State, compactStep object.ID) error {
	if !st.Continue {
		return w.endSession(id)
	}
	now := w.Clock.Now().Unix()
	next := *st
	next.Base, next.Head = *st.Target, compactStep
	next.Mode, next.Target, next.Continue = staging.ModeRunning, nil, false
	next.Steps, next.Tokens, next.SegmentAt, next.UpdatedAt = 0, 0, now, now
	b := w.Objects.NewBatch()
	defer b.Abort()
	_, err := w.appendState(b, &next)
	return err
}

// endSession removes a session's journal and STAGE if it names it.
func (w *Writer) endSession(id string) error {
	if err := w.clearStage(id); err != nil {
		return err
	}
	return staging.Remove(w.Root, id)
}

// sessionBatches returns the edge batches of the commits the session's
// steps built, oldest first: the commits from final back to the base.
func (w *Writer) sessionBatches(s *Session, final *object.Commit) ([]*graph.EdgeBatch, error) {
	var ids []object.ID
	c, at := final, s.Commit
	for at != s.State.Base {
		for i := len(c.EdgeBatches) - 1; i >= 0; i-- {
			ids = append(ids, c.EdgeBatches[i])
		}
		if len(c.Parents) == 0 {
			return nil, fmt.Errorf("%w: session %s: commit %s does not lead back to the base %s", ErrSessionDamaged, s.ID, at.Short(), s.State.Base.Short())
		}
		at = c.Parents[0]
		var err error
		if c, err = w.ReadCommit(at); err != nil {
			return nil, err
		}
	}
	slices.Reverse(ids)
	out := make([]*graph.EdgeBatch, len(ids))
	for i, id := range ids {
		b, err := w.ReadEdgeBatch(id)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// curate merges a session's edge batches into one with the same effect
// on the graph (design §15.1): for each edge key the last operation wins;
// a tombstone followed by adds in the session keeps both, the batch
// replacing the edge. Low-confidence edges are left out unless a
// decision or the session's task is one of their ends (§16.4 gate 3).
// It returns nil when nothing is left.
func curate(batches []*graph.EdgeBatch, taskNode string) (*graph.EdgeBatch, int) {
	type state struct {
		tomb *graph.Tombstone
		adds []graph.Edge
	}
	var order []graph.EdgeKey
	keys := map[graph.EdgeKey]*state{}
	get := func(k graph.EdgeKey) *state {
		st := keys[k]
		if st == nil {
			st = &state{}
			keys[k] = st
			order = append(order, k)
		}
		return st
	}
	var created int64
	for _, b := range batches {
		created = max(created, b.CreatedAt)
		for i := range b.Tombstones {
			st := get(b.Tombstones[i].Key())
			t := b.Tombstones[i]
			st.tomb, st.adds = &t, nil
		}
		for _, e := range b.Edges {
			st := get(e.Key())
			if !slices.ContainsFunc(st.adds, func(o graph.Edge) bool { return sameEdge(o, e) }) {
				st.adds = append(st.adds, e)
			}
		}
	}
	var task object.ID
	if taskNode != "" {
		task = graph.NarrativeNode("task", taskNode).ID
	}
	keep := func(e graph.Edge) bool {
		if e.Evidence.Confidence != graph.Low {
			return true
		}
		for _, n := range []graph.NodeID{e.From, e.To} {
			if n.Kind == graph.NodeKind("decision") || !task.IsZero() && n.ID == task {
				return true
			}
		}
		return false
	}
	out := &graph.EdgeBatch{CreatedAt: created, Edges: []graph.Edge{}}
	dropped := 0
	for _, k := range order {
		st := keys[k]
		if st.tomb != nil {
			out.Tombstones = append(out.Tombstones, *st.tomb)
		}
		for _, e := range st.adds {
			// After a tombstone of its key, the add replaces the edge:
			// dropping it would turn the replacement into a removal.
			if keep(e) || st.tomb != nil {
				out.Edges = append(out.Edges, e)
			} else {
				dropped++
			}
		}
	}
	if len(out.Edges) == 0 && len(out.Tombstones) == 0 {
		return nil, dropped
	}
	return out, dropped
}

func sameEdge(a, b graph.Edge) bool {
	if a.Key() != b.Key() || a.Evidence.Tool != b.Evidence.Tool || a.Evidence.Confidence != b.Evidence.Confidence {
		return false
	}
	return fmt.Sprint(a.Weight, a.Evidence.Span, a.Evidence.BlobID) == fmt.Sprint(b.Weight, b.Evidence.Span, b.Evidence.BlobID)
}

// summarize builds the session's summary from its steps: files changed
// between the base and the last step, decisions that are new since the
// base, and the command runs in order.
func (w *Writer) summarize(ctx context.Context, s *Session, steps []Step, base, final *object.Commit, msg string) (*staging.Summary, error) {
	sum := &staging.Summary{Session: s.ID, Message: msg, Steps: kindCounts(steps)}
	if base.RootTree != final.RootTree {
		before, err := object.ListTree(w.Objects, base.RootTree, "")
		if err != nil {
			return nil, err
		}
		after, err := object.ListTree(w.Objects, final.RootTree, "")
		if err != nil {
			return nil, err
		}
		var sem map[string]object.TreeEntry
		if final.SemanticSnapshot != nil {
			if sem, err = object.ListTree(w.Objects, *final.SemanticSnapshot, ""); err != nil {
				sem = nil
			}
		}
		for _, p := range sortedKeys(after) {
			old, ok := before[p]
			switch {
			case !ok:
				sum.Created = append(sum.Created, staging.FileChange{Path: p, Names: w.topNames(sem[p])})
			case old.ID != after[p].ID:
				sum.Modified = append(sum.Modified, staging.FileChange{Path: p})
			}
		}
		for _, p := range sortedKeys(before) {
			if _, ok := after[p]; !ok {
				sum.Removed = append(sum.Removed, staging.FileChange{Path: p})
			}
		}
	}
	then, err := w.CatalogAt(ctx, s.State.Base)
	if err != nil {
		return nil, err
	}
	now, err := w.Narrative().Load()
	if err != nil {
		return nil, err
	}
	for _, id := range now.IDs() {
		n := now.Nodes[id]
		if n.Type == narrative.Decision && n.Active() && then.Nodes[id] == nil && n.Created.Unix() >= s.State.SegmentAt {
			sum.Decisions = append(sum.Decisions, staging.NodeRef{ID: string(n.ID), Title: n.Title})
		}
	}
	for _, step := range steps {
		if step.Kind != object.StepCommandRun {
			continue
		}
		if out, ok := w.runOf(step); ok {
			sum.Runs = append(sum.Runs, out)
		}
	}
	return sum, nil
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// topNames returns the first top-level names a file version declares.
func (w *Writer) topNames(e object.TreeEntry) []string {
	if e.ID.IsZero() {
		return nil
	}
	fv := new(extract.FileVersion)
	if err := object.GetTypedLax(w.Objects, e.ID, fv); err != nil {
		return nil
	}
	var out []string
	for _, it := range fv.Items {
		if it.Parent == "" && it.Name != "" && !slices.Contains(out, it.Name) {
			out = append(out, it.Name)
			if len(out) == 4 {
				break
			}
		}
	}
	return out
}

// runOf returns the command run a command_run step recorded: the run in
// its diagnostics snapshot that the previous commit's did not have.
func (w *Writer) runOf(step Step) (staging.RunOutcome, bool) {
	c, err := w.ReadCommit(step.Commit)
	if err != nil || c.DiagnosticsSnapshot == nil {
		return staging.RunOutcome{}, false
	}
	snap := new(DiagnosticsSnapshot)
	if object.GetTyped(w.Objects, *c.DiagnosticsSnapshot, snap) != nil {
		return staging.RunOutcome{}, false
	}
	prev := map[object.ID]bool{}
	if len(c.Parents) > 0 {
		if pc, err := w.ReadCommit(c.Parents[0]); err == nil && pc.DiagnosticsSnapshot != nil {
			ps := new(DiagnosticsSnapshot)
			if object.GetTyped(w.Objects, *pc.DiagnosticsSnapshot, ps) == nil {
				for _, r := range ps.Runs {
					prev[r.Run] = true
				}
			}
		}
	}
	for _, r := range snap.Runs {
		if prev[r.Run] {
			continue
		}
		run := new(diag.CommandRun)
		if err := object.GetTyped(w.Objects, r.Run, run); err != nil {
			return staging.RunOutcome{}, false
		}
		out := staging.RunOutcome{Name: run.Name, ExitCode: run.ExitCode, Summary: run.Summary.Text}
		for _, d := range run.Diagnostics {
			if d.Severity == diag.SeverityError {
				out.FirstError = strings.TrimSpace(d.Code + " " + d.Message)
				break
			}
		}
		return out, true
	}
	return staging.RunOutcome{}, false
}

// AbortOptions configure AbortSession.
type AbortOptions struct {
	Reason string
	Author string
}

// AbortResult is what AbortSession did.
type AbortResult struct {
	Session  string    `json:"session"`
	Reason   string    `json:"reason"`
	Steps    int       `json:"steps"`
	Commit   object.ID `json:"commit"` // the abort commit on main
	Previous object.ID `json:"previous"`
	Line     string    `json:"log_line"`
	Changes  []Change  `json:"changes"`
}

// AbortSession ends session id without compacting it: its state becomes
// aborted (kept, so gc keeps its objects until `gc --aggressive`), a line
// saying why goes into today's log, and an abort commit on main records
// that line with the rest of the narrative as it stands. The session's
// code snapshots, command runs and edges never reach main; the narrative
// entries it wrote stay, being files of narrative/.
func (w *Writer) AbortSession(ctx context.Context, id string, opts AbortOptions) (*AbortResult, error) {
	s, err := w.OpenSession(id)
	if err != nil {
		return nil, err
	}
	if s.State.Mode == staging.ModeAborted {
		return nil, fmt.Errorf("%w: session %s was aborted already", ErrSessionState, id)
	}
	if s.State.Mode == staging.ModeCompacting {
		return nil, fmt.Errorf("%w: session %s was being compacted when a process stopped; run `ctx stage recover` first", ErrSessionDamaged, id)
	}
	steps, err := w.SessionSteps(s)
	if err != nil {
		return nil, err
	}
	reason := strings.TrimSpace(opts.Reason)
	res := &AbortResult{Session: id, Reason: reason, Steps: len(steps), Changes: []Change{}}
	now := w.Clock.Now().Unix()
	b := w.Objects.NewBatch()
	defer b.Abort()
	st := *s.State
	st.Mode, st.Reason, st.UpdatedAt = staging.ModeAborted, reason, now
	if st.Reason == "" {
		st.Reason = "no reason given"
	}
	if _, err := w.appendState(b, &st); err != nil {
		return nil, err
	}
	fault.Hit("stage.aborted")
	if err := w.clearStage(id); err != nil {
		return nil, err
	}
	sum := &staging.Summary{Session: id, Message: st.Reason, Aborted: true, Steps: kindCounts(steps)}
	res.Line = sum.Lines()[0]
	if err := w.Narrative().Journal(res.Line); err != nil {
		return nil, err
	}
	cr, err := w.commitMain(ctx, CommitOptions{Message: fmt.Sprintf("Abort session %s: %s", id, st.Reason), Author: opts.Author, AllowEmpty: true})
	if err != nil {
		return nil, err
	}
	res.Commit, res.Previous, res.Changes = cr.ID, cr.Previous, cr.Changes
	return res, nil
}

package repo

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
	"github.com/ctx-dev/ctx/staging"
)

// sessionRepo is a store with one code snapshot on main, locked.
func sessionRepo(t *testing.T) *Writer {
	t.Helper()
	r := NewTestRepo(t)
	writeProject(t, r, map[string]string{"go.mod": "module ex\n\ngo 1.22\n", "pkg/a.go": "package pkg\n\nfunc A() int { return 1 }\n"})
	w, err := r.Lock(t.Context(), LockOptions{Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Unlock() })
	if _, err := w.Ingest(t.Context(), IngestOptions{Semantics: true}); err != nil {
		t.Fatal(err)
	}
	return w
}

func mainHead(t *testing.T, r *Repo) object.ID {
	t.Helper()
	hs, err := r.Heads(refs.HEAD)
	if err != nil || len(hs) != 1 {
		t.Fatalf("main heads %v: %v", hs, err)
	}
	return hs[0]
}

func addNote(t *testing.T, w *Writer, title string) {
	t.Helper()
	if _, err := w.Narrative().Add(narrative.NewNode{Type: narrative.Observation, Content: title}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(t.Context(), CommitOptions{Message: "note " + title}); err != nil {
		t.Fatal(err)
	}
}

func TestSessionLifecycle(t *testing.T) {
	w := sessionRepo(t)
	base := mainHead(t, w.Repo)
	res, err := w.StartSession(t.Context(), StartOptions{Task: "Add retry", ID: "retry"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Current || res.Base != base {
		t.Fatalf("start = %+v", res)
	}
	if _, err := w.StartSession(t.Context(), StartOptions{Task: "again", ID: "retry", Detach: true}); !errors.Is(err, ErrSessionState) {
		t.Errorf("starting a session that exists: %v, want ErrSessionState", err)
	}
	addNote(t, w, "Retry uses backoff")
	writeProject(t, w.Repo, map[string]string{"pkg/b.go": "package pkg\n\nfunc Backoff() int { return A() }\n"})
	if _, err := w.Ingest(t.Context(), IngestOptions{Semantics: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.RecordCommand(t.Context(), CommandOptions{Name: "go test", Output: []byte("ok\n"), ExitCode: 0}); err != nil {
		t.Fatal(err)
	}
	// Main has not moved; readers see the session.
	if got := mainHead(t, w.Repo); got != base {
		t.Fatalf("main moved to %s during the session", got.Short())
	}
	name, heads, err := w.WorkingHeads()
	if err != nil || name != "session/retry" || heads[0] == base {
		t.Fatalf("WorkingHeads = %s %v %v", name, heads, err)
	}
	st, err := w.StatusOf("retry")
	if err != nil {
		t.Fatal(err)
	}
	want := []staging.KindCount{{Kind: "note", Count: 1}, {Kind: "file_write", Count: 1}, {Kind: "command_run", Count: 1}}
	if st.Steps != 3 || !slices.Equal(st.Kinds, want) || st.MainMoved || !st.Current {
		t.Errorf("status = %+v", st)
	}
	if stage, err := w.Resolve("STAGE"); err != nil || stage != st.Head {
		t.Errorf("Resolve(STAGE) = %s, %v; want the head step %s", stage.Short(), err, st.Head.Short())
	}

	cr, err := w.CompactSession(t.Context(), "retry", CompactOptions{Message: "feat: retry"})
	if err != nil {
		t.Fatal(err)
	}
	if cr.Merge != nil || !cr.Ended || cr.Steps != 3 {
		t.Errorf("compact = %+v", cr)
	}
	head := mainHead(t, w.Repo)
	c, err := w.ReadCommit(head)
	if err != nil {
		t.Fatal(err)
	}
	if head != cr.Commit || !slices.Equal(c.Parents, []object.ID{base}) || c.Message != "feat: retry" {
		t.Errorf("main = %s %+v, want the compaction with parent %s", head.Short(), c, base.Short())
	}
	files := TreeFiles(t, w.Repo, head)
	if _, ok := files["pkg/b.go"]; !ok {
		t.Errorf("main's tree lacks the session's file: %v", files)
	}
	if c.DiagnosticsSnapshot == nil || c.SemanticSnapshot == nil {
		t.Errorf("the compaction lost snapshots: %+v", c)
	}
	log := readLog(t, w.Repo)
	for _, l := range []string{"session retry compacted: feat: retry (3 steps: 1 note, 1 file write, 1 command run)",
		"session retry changed: created pkg/b.go (Backoff)", "session retry tested: `go test` passed"} {
		if !strings.Contains(log, l) {
			t.Errorf("today's log lacks %q:\n%s", l, log)
		}
	}
	if _, err := staging.ReadJournal(w.Root, "retry"); err == nil {
		t.Error("the journal is still there after the compaction ended the session")
	}
	if _, err := w.Refs.Heads(refs.STAGE); !errors.Is(err, refs.ErrNotFound) {
		t.Errorf("STAGE after compaction: %v, want not found", err)
	}
	rep, err := w.Verify(t.Context(), VerifyOptions{})
	if err != nil || !rep.OK() {
		t.Fatalf("verify: %v %v", err, rep.Problems)
	}
}

func readLog(t *testing.T, r *Repo) string {
	t.Helper()
	day := r.Clock.Now().UTC().Format("2006-01-02")
	b, err := os.ReadFile(filepath.Join(r.Root, "narrative", "log", day+".md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Two sessions at once, interleaved step by step, both compacted: main
// holds both, the second through a merge.
func TestConcurrentSessions(t *testing.T) {
	w := sessionRepo(t)
	base := mainHead(t, w.Repo)
	for _, id := range []string{"one", "two"} {
		if _, err := w.StartSession(t.Context(), StartOptions{Task: "task " + id, ID: id, Detach: true}); err != nil {
			t.Fatal(err)
		}
	}
	in := func(id string) {
		w.Session = id
	}
	for i, id := range []string{"one", "two", "one", "two"} {
		in(id)
		writeProject(t, w.Repo, map[string]string{"pkg/" + id + ".go": "package pkg\n\nfunc F" + id + strings.Repeat("x", i) + "() {}\n"})
		if _, err := w.Ingest(t.Context(), IngestOptions{Semantics: true, Paths: []string{"pkg/" + id + ".go"}}); err != nil {
			t.Fatal(err)
		}
	}
	in("")
	if got := mainHead(t, w.Repo); got != base {
		t.Fatal("main moved")
	}
	c1, err := w.CompactSession(t.Context(), "one", CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c2, err := w.CompactSession(t.Context(), "two", CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c1.Merge != nil || c2.Merge == nil || len(c2.Conflicts) != 0 {
		t.Errorf("compactions: %+v / %+v", c1, c2)
	}
	files := TreeFiles(t, w.Repo, mainHead(t, w.Repo))
	for _, p := range []string{"pkg/a.go", "pkg/one.go", "pkg/two.go"} {
		if _, ok := files[p]; !ok {
			t.Errorf("main lacks %s: %v", p, slices.Sorted(func(yield func(string) bool) {
				for k := range files {
					if !yield(k) {
						return
					}
				}
			}))
		}
	}
	if !strings.Contains(files["pkg/one.go"], "Fonexx") || !strings.Contains(files["pkg/two.go"], "Ftwoxxx") {
		t.Errorf("main has older versions: %q %q", files["pkg/one.go"], files["pkg/two.go"])
	}
	log := readLog(t, w.Repo)
	if !strings.Contains(log, "session one compacted") || !strings.Contains(log, "session two compacted") {
		t.Errorf("log:\n%s", log)
	}
}

func TestAbortSession(t *testing.T) {
	w := sessionRepo(t)
	base := mainHead(t, w.Repo)
	if _, err := w.StartSession(t.Context(), StartOptions{Task: "try", ID: "try"}); err != nil {
		t.Fatal(err)
	}
	writeProject(t, w.Repo, map[string]string{"pkg/bad.go": "package pkg\n"})
	if _, err := w.Ingest(t.Context(), IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := w.AbortSession(t.Context(), "try", AbortOptions{Reason: "wrong approach"})
	if err != nil {
		t.Fatal(err)
	}
	head := mainHead(t, w.Repo)
	c, _ := w.ReadCommit(head)
	if res.Commit != head || !slices.Equal(c.Parents, []object.ID{base}) || !strings.Contains(c.Message, "wrong approach") {
		t.Errorf("abort commit %s: %+v", head.Short(), c)
	}
	if _, ok := TreeFiles(t, w.Repo, head)["pkg/bad.go"]; ok {
		t.Error("the aborted session's snapshot reached main")
	}
	if !strings.Contains(readLog(t, w.Repo), "session try aborted: wrong approach (discarded 1 step: 1 file write)") {
		t.Errorf("log:\n%s", readLog(t, w.Repo))
	}
	s, err := w.OpenSession("try")
	if err != nil || s.State.Mode != staging.ModeAborted {
		t.Fatalf("aborted session: %v %v", s, err)
	}
	if a, err := w.ActiveSession(); a != nil || err != nil {
		t.Errorf("an aborted session is still active: %v %v", a, err)
	}
	w.Session = "try"
	if _, err := w.ActiveSession(); !errors.Is(err, ErrSessionState) {
		t.Errorf("selecting an aborted session: %v, want ErrSessionState", err)
	}
	w.Session = ""
	roots, aborted, err := w.SessionRoots()
	if err != nil || !slices.Equal(aborted, []string{"try"}) || len(roots) == 0 {
		t.Errorf("SessionRoots = %v %v %v", roots, aborted, err)
	}
	if err := w.DropSession("try"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.OpenSession("try"); !errors.Is(err, ErrNoSession) {
		t.Errorf("after drop: %v", err)
	}
}

func TestRecoverSessions(t *testing.T) {
	w := sessionRepo(t)
	if _, err := w.StartSession(t.Context(), StartOptions{Task: "t", ID: "s"}); err != nil {
		t.Fatal(err)
	}
	addNote(t, w, "first")
	good, _ := w.OpenSession("s")
	addNote(t, w, "second")
	newest, _ := w.OpenSession("s")
	journal := staging.Path(w.Root, "s")

	// Intact: nothing to do.
	recs, err := w.RecoverSessions(t.Context())
	if err != nil || len(recs) != 1 || recs[0].Action != "intact" {
		t.Fatalf("recover of an intact session: %+v %v", recs, err)
	}
	// A torn tail and a damaged line are cut off.
	f, _ := os.OpenFile(journal, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("not an id\n0123")
	f.Close()
	if s, err := w.ActiveSession(); err != nil || s.StateID != newest.StateID {
		t.Errorf("a torn tail must not hide the newest whole state: %v %v", s, err)
	}
	recs, _ = w.RecoverSessions(t.Context())
	if recs[0].Action != "repaired" {
		t.Errorf("recover = %+v, want repaired", recs)
	}
	// The newest state's step is lost (damage): back to the one before.
	if err := os.Remove(filepath.Join(w.Root, object.RelPath(newest.State.Head))); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ActiveSession(); !errors.Is(err, ErrSessionDamaged) {
		t.Errorf("a session whose head step is missing: %v, want ErrSessionDamaged", err)
	}
	recs, _ = w.RecoverSessions(t.Context())
	if recs[0].Action != "resumed" || *recs[0].State != good.StateID {
		t.Errorf("recover = %+v, want resumed at %s", recs, good.StateID.Short())
	}
	if s, err := w.ActiveSession(); err != nil || s.StateID != good.StateID {
		t.Errorf("after recover: %v %v", s, err)
	}
	// The journal no longer names the lost state: gc can root it all.
	if j, _ := staging.ReadJournal(w.Root, "s"); len(j.States) == 0 || j.States[len(j.States)-1] != good.StateID || slices.Contains(j.States, newest.StateID) {
		t.Errorf("journal after resume = %v", j.States)
	}
	if _, _, err := w.SessionRoots(); err != nil {
		t.Errorf("SessionRoots after resume: %v", err)
	}
	// Nothing readable: the session goes, and STAGE with it.
	os.WriteFile(journal, []byte(strings.Repeat("ab", 32)+"\n"), 0o644)
	recs, _ = w.RecoverSessions(t.Context())
	if len(recs) != 1 || recs[0].Action != "reset" {
		t.Errorf("recover = %+v, want reset", recs)
	}
	if _, err := w.Refs.Heads(refs.STAGE); !errors.Is(err, refs.ErrNotFound) {
		t.Errorf("STAGE after reset: %v", err)
	}
}

// A compaction interrupted after its compacting state: undone when main
// did not move, finished when it did.
func TestRecoverCompaction(t *testing.T) {
	for _, moved := range []bool{false, true} {
		w := sessionRepo(t)
		base := mainHead(t, w.Repo)
		if _, err := w.StartSession(t.Context(), StartOptions{Task: "t", ID: "s"}); err != nil {
			t.Fatal(err)
		}
		addNote(t, w, "n")
		s, _ := w.OpenSession("s")
		// Write what CompactSession writes before moving main.
		cw := &object.WorkCommit{Parents: []object.ID{s.State.Head}, Base: base, SessionID: "s", CreatedAt: 1,
			StepKind: object.StepCompact, Payload: []object.ID{s.Commit}, NarrativeRefs: []object.NarrativeRef{}}
		b := w.Objects.NewBatch()
		cwid, _ := object.PutTyped(b, cw)
		st := *s.State
		target := s.Commit
		st.Head, st.Mode, st.Target = cwid, staging.ModeCompacting, &target
		if _, err := w.appendState(b, &st); err != nil {
			t.Fatal(err)
		}
		if _, err := w.ActiveSession(); !errors.Is(err, ErrSessionDamaged) {
			t.Errorf("an interrupted compaction: %v, want ErrSessionDamaged", err)
		}
		// Readers go on: the last step before the compaction...
		if _, heads, err := w.WorkingHeads(); err != nil || heads[0] != s.Commit {
			t.Errorf("readers during a compaction: %v %v, want %s", heads, err, s.Commit.Short())
		}
		if moved {
			if err := w.UpdateRef("main", target, refs.Among(base)); err != nil {
				t.Fatal(err)
			}
			// ... or what main holds once it moved.
			if _, heads, err := w.WorkingHeads(); err != nil || heads[0] != target {
				t.Errorf("readers after main moved: %v %v", heads, err)
			}
		}
		recs, err := w.RecoverSessions(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		want := map[bool]string{false: "undone", true: "finished"}[moved]
		if recs[0].Action != want {
			t.Errorf("moved=%v: recover = %+v, want %s", moved, recs, want)
		}
		after, err := w.OpenSession("s")
		switch {
		case moved && !errors.Is(err, ErrNoSession):
			t.Errorf("a finished compaction leaves the session: %v", err)
		case !moved && (err != nil || after.State.Mode != staging.ModeRunning || after.State.Head != s.State.Head):
			t.Errorf("an undone compaction: %+v %v", after, err)
		}
	}
}

func TestCurate(t *testing.T) {
	n := func(kind graph.NodeKind, key string) graph.NodeID {
		return graph.NodeID{Kind: kind, ID: object.Sum(object.KindBlob, []byte(key)), Key: key}
	}
	a, b, dec := n(graph.NodeFile, "a"), n(graph.NodeFile, "b"), graph.NarrativeNode("decision", "d1")
	edge := func(from, to graph.NodeID, c graph.Confidence) graph.Edge {
		return graph.Edge{From: from, To: to, Label: graph.Mentions, Evidence: graph.Evidence{Tool: graph.ToolHuman, Confidence: c}}
	}
	tomb := func(from, to graph.NodeID) graph.Tombstone {
		return graph.Tombstone{From: from, To: to, Label: graph.Mentions, Evidence: graph.Evidence{Tool: graph.ToolHuman, Confidence: graph.High}}
	}
	batches := []*graph.EdgeBatch{
		{Edges: []graph.Edge{edge(a, b, graph.High), edge(b, a, graph.Low), edge(dec, a, graph.Low)}, CreatedAt: 1},
		{Tombstones: []graph.Tombstone{tomb(a, b)}, CreatedAt: 2},
		{Edges: []graph.Edge{edge(a, b, graph.Medium), edge(a, b, graph.Medium)}, CreatedAt: 3},
	}
	got, dropped := curate(batches, "")
	if dropped != 1 {
		t.Errorf("dropped %d, want 1 (b→a, low)", dropped)
	}
	if len(got.Tombstones) != 1 || len(got.Edges) != 2 || got.Edges[0].Evidence.Confidence != graph.Medium || got.Edges[1].From != dec || got.CreatedAt != 3 {
		t.Errorf("curated = %+v", got)
	}
	if got, _ := curate([]*graph.EdgeBatch{{Edges: []graph.Edge{edge(a, b, graph.Low)}}}, ""); got != nil {
		t.Errorf("only low-confidence edges: %+v, want nil", got)
	}
}

// The automatic triggers of [stage]: token budget and age compact and go
// on; task done compacts and ends; a new current session compacts the
// one it replaces.
func TestCompactionTriggers(t *testing.T) {
	t.Run("tokens", func(t *testing.T) {
		w := sessionRepo(t)
		w.Config.Stage.CompactAtTokens = 500
		if _, err := w.StartSession(t.Context(), StartOptions{Task: "t", ID: "s"}); err != nil {
			t.Fatal(err)
		}
		base := mainHead(t, w.Repo)
		writeProject(t, w.Repo, map[string]string{"pkg/big.go": "package pkg\n\n// " + strings.Repeat("long comment ", 300) + "\n"})
		if _, err := w.Ingest(t.Context(), IngestOptions{}); err != nil {
			t.Fatal(err)
		}
		if mainHead(t, w.Repo) == base {
			t.Fatal("the token budget did not compact")
		}
		s, err := w.OpenSession("s")
		if err != nil || s.State.Steps != 0 || s.State.Base != mainHead(t, w.Repo) || s.State.Tokens != 0 {
			t.Fatalf("after an automatic compaction the session goes on from main: %+v %v", s, err)
		}
		if len(w.Notices) != 1 || !strings.Contains(w.Notices[0], "token budget") {
			t.Errorf("notices = %q", w.Notices)
		}
		// It goes on: the next step is a step of the new segment.
		addNote(t, w, "after")
		if s, _ := w.OpenSession("s"); s.State.Steps != 1 {
			t.Errorf("steps after = %d", s.State.Steps)
		}
	})
	t.Run("age", func(t *testing.T) {
		w := sessionRepo(t)
		if _, err := w.StartSession(t.Context(), StartOptions{Task: "t", ID: "s"}); err != nil {
			t.Fatal(err)
		}
		w.Clock = clockAt(TestTime.Add(5 * 60 * 60 * 1e9))
		addNote(t, w, "late")
		if len(w.Notices) != 1 || !strings.Contains(w.Notices[0], "age") {
			t.Errorf("notices = %q", w.Notices)
		}
		if st, err := w.StatusOf("s"); err != nil || st.Steps != 0 {
			t.Errorf("status after the age trigger: %+v %v", st, err)
		}
	})
	t.Run("task done", func(t *testing.T) {
		w := sessionRepo(t)
		task, err := w.Narrative().Add(narrative.NewNode{Type: narrative.Task, Content: "Ship it"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := w.StartSession(t.Context(), StartOptions{Task: "ship it", ID: "s"})
		if err != nil || res.TaskNode != string(task.ID) {
			t.Fatalf("start = %+v %v, want the task node %s", res, err, task.ID)
		}
		if _, err := w.Narrative().Change(task, narrative.OpTag, "done"); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Commit(t.Context(), CommitOptions{Message: "done"}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.OpenSession("s"); !errors.Is(err, ErrNoSession) {
			t.Errorf("the task is done but the session goes on: %v", err)
		}
		if c, _ := w.ReadCommit(mainHead(t, w.Repo)); !strings.Contains(c.Message, "ship it") {
			t.Errorf("main = %q", c.Message)
		}
	})
	t.Run("context switch", func(t *testing.T) {
		w := sessionRepo(t)
		if _, err := w.StartSession(t.Context(), StartOptions{Task: "first", ID: "a"}); err != nil {
			t.Fatal(err)
		}
		addNote(t, w, "in a")
		res, err := w.StartSession(t.Context(), StartOptions{Task: "second", ID: "b"})
		if err != nil || res.Switched == nil || !res.Switched.Ended || res.Base != res.Switched.Main {
			t.Fatalf("switch = %+v %v", res, err)
		}
		if cur, _ := w.StageSession(); cur != "b" {
			t.Errorf("STAGE names %q, want b", cur)
		}
		// Detached sessions never switch.
		if r, err := w.StartSession(t.Context(), StartOptions{Task: "third", ID: "c", Detach: true}); err != nil || r.Switched != nil {
			t.Errorf("detached start = %+v %v", r, err)
		}
		// A process working in c (--session) that starts a session
		// replaces STAGE's b, not c.
		w.Session = "c"
		res, err = w.StartSession(t.Context(), StartOptions{Task: "fourth", ID: "d"})
		w.Session = ""
		if err != nil || res.Switched == nil || res.Switched.Session != "b" {
			t.Fatalf("switch from --session c = %+v %v", res, err)
		}
		if s, err := w.OpenSession("c"); err != nil || s.State.Mode != staging.ModeRunning {
			t.Errorf("c after the switch: %v %v", s, err)
		}
	})
}

type clockAt time.Time

func (c clockAt) Now() time.Time { return time.Time(c) }

// Amending in a session amends its last step; with no step since the
// base there is nothing of the session's to amend.
func TestAmendInSession(t *testing.T) {
	w := sessionRepo(t)
	if _, err := w.StartSession(t.Context(), StartOptions{Task: "t", ID: "s"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(t.Context(), CommitOptions{Message: "amend", Amend: true}); !errors.Is(err, ErrSessionState) {
		t.Errorf("amend at the base: %v, want ErrSessionState", err)
	}
	addNote(t, w, "n")
	if _, err := w.Commit(t.Context(), CommitOptions{Message: "amended", Amend: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.CompactSession(t.Context(), "s", CompactOptions{}); err != nil {
		t.Errorf("compaction after an amend: %v", err)
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// StageCmd is `ctx stage`.
type StageCmd struct {
	Start   StageStartCmd   `cmd:"" help:"Start a staging session for a task: every write becomes a step of it until it is compacted."`
	Status  StageStatusCmd  `cmd:"" help:"Show a session: steps, artifacts, token estimate, age, and how near each compaction trigger is."`
	List    StageListCmd    `cmd:"" help:"List the sessions of this store."`
	Flush   StageFlushCmd   `cmd:"" help:"Record the narrative's unrecorded changes (hand edits) as a step."`
	Compact StageCompactCmd `cmd:"" help:"Squash a session's steps into one commit on main, with a summary in today's log."`
	Abort   StageAbortCmd   `cmd:"" help:"End a session without compacting it; an abort commit on main records why."`
	Recover StageRecoverCmd `cmd:"" help:"After a crash or damage: bring every session and STAGE back to a usable state, and say what was done."`
}

// StageStartCmd is `ctx stage start`.
type StageStartCmd struct {
	Task   string `arg:"" help:"What the session is for. A task node's ID or exact title ties the session to that task (its completion compacts the session)."`
	ID     string `name:"id" placeholder:"ID" help:"The session's ID (a-z 0-9 . _ -, at most 64); default: made from the task, the date and random digits."`
	Detach bool   `help:"Leave STAGE alone: use the session through --session ID or CTX_SESSION=ID (one session per agent)."`
	Quiet  bool   `short:"q" help:"Print only the session's ID."`
	Author string `placeholder:"NAME" help:"Author of a commit the context switch compacts."`
}

// Run starts the session.
func (c *StageStartCmd) Run(app *App, w *repo.Writer) error {
	res, err := w.StartSession(app.Ctx, repo.StartOptions{Task: c.Task, ID: c.ID, Detach: c.Detach, Author: c.Author})
	if err != nil {
		return err
	}
	if app.Globals.JSON {
		return app.emit(res)
	}
	if c.Quiet {
		app.printf("%s\n", res.Session)
		return nil
	}
	if sw := res.Switched; sw != nil {
		printCompact(app, sw)
	}
	app.printf("started session %s on main %s\n", res.Session, res.Base.Short())
	if res.TaskNode != "" {
		app.printf("task: %s (node %s: marking it done compacts the session)\n", res.Task, res.TaskNode)
	} else {
		app.printf("task: %s\n", res.Task)
	}
	if res.Current {
		app.printf("STAGE names it: ctx add, relate, run, commit and the other writing commands now record steps of it; ctx stage compact puts them on main\n")
	} else {
		app.printf("detached: select it with --session %s or CTX_SESSION=%s\n", res.Session, res.Session)
	}
	return nil
}

// selectedSession returns the session a stage command works on: the
// argument, else --session / CTX_SESSION, else STAGE's.
func selectedSession(r *repo.Repo, arg string) (string, error) {
	if arg != "" {
		return arg, nil
	}
	id, err := r.SelectedSession()
	if err != nil {
		return "", err
	}
	if id == "" {
		return "", fmt.Errorf("%w: no session is active: start one with ctx stage start \"TASK\", or name one (ctx stage list)", repo.ErrSessionState)
	}
	return id, nil
}

// StageStatusCmd is `ctx stage status`.
type StageStatusCmd struct {
	ID string `arg:"" optional:"" help:"The session (default: --session, CTX_SESSION, or the one STAGE names)."`
}

// Run shows the session.
func (c *StageStatusCmd) Run(app *App, r *repo.Repo) error {
	id, err := selectedSession(r, c.ID)
	if err != nil {
		return err
	}
	st, err := r.StatusOf(id)
	if err != nil {
		return err
	}
	if app.Globals.JSON {
		return app.emit(st)
	}
	cur := ""
	if st.Current {
		cur = " (current: STAGE names it)"
	}
	app.printf("session %s%s: %s\n", st.Session, cur, st.Mode)
	if st.TaskNode != "" {
		app.printf("task:     %s (node %s)\n", st.Task, st.TaskNode)
	} else {
		app.printf("task:     %s\n", st.Task)
	}
	moved := ""
	if st.MainMoved {
		moved = " (main has moved since: compaction merges both)"
	}
	app.printf("base:     %s%s\n", st.Base.Short(), moved)
	kinds := make([]string, len(st.Kinds))
	for i, k := range st.Kinds {
		kinds[i] = fmt.Sprintf("%d %s", k.Count, k.Kind)
	}
	detail := ""
	if len(kinds) > 0 {
		detail = " (" + strings.Join(kinds, ", ") + ")"
	}
	app.printf("steps:    %d%s; %d artifacts; about %d tokens staged\n", st.Steps, detail, st.Artifacts, st.Tokens)
	app.printf("age:      %s (last step %s ago)\n", shortDuration(st.AgeSeconds), shortDuration(max(st.AgeSeconds-(st.UpdatedAt-st.CreatedAt), 0)))
	b := st.Budgets
	app.printf("budgets:  %d files, %s, %d edges per step\n", b.MaxFilesPerStep, humanBytes(b.MaxBytesPerStep), b.MaxEdgesPerStep)
	if st.Reason != "" {
		app.printf("aborted:  %s\n", st.Reason)
	}
	app.printf("triggers:\n")
	for _, t := range st.Triggers {
		level := "off"
		switch {
		case t.Enabled && t.Name == "context switch":
			level = "on"
		case t.Enabled:
			level = fmt.Sprintf("%d%%", int(t.Used*100))
			if t.Used >= 0.8 {
				level += " near"
			}
		}
		app.printf("  %-15s %-9s %s\n", t.Name, level, t.Detail)
	}
	if len(st.Log) > 0 {
		app.printf("steps since the base:\n")
		for _, s := range st.Log {
			subject, _, _ := strings.Cut(s.Message, "\n")
			app.printf("  %s %s %-12s %s\n", s.ID.Short(), time.Unix(s.Time, 0).UTC().Format("15:04"), s.Kind, subject)
		}
	}
	return nil
}

func shortDuration(sec int64) string {
	d := time.Duration(sec) * time.Second
	switch {
	case d < 2*time.Minute:
		return fmt.Sprintf("%ds", sec)
	case d < 2*time.Hour:
		return fmt.Sprintf("%dm", sec/60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", sec/3600, sec%3600/60)
	}
	return fmt.Sprintf("%dd", sec/86400)
}

// StageListCmd is `ctx stage list`.
type StageListCmd struct{}

// Run lists the sessions.
func (c *StageListCmd) Run(app *App, r *repo.Repo) error {
	list, err := r.ListSessions()
	if err != nil {
		return err
	}
	if app.Globals.JSON {
		return app.emit(list)
	}
	if len(list) == 0 {
		app.printf("no sessions (ctx stage start \"TASK\" starts one)\n")
		return nil
	}
	for _, s := range list {
		mark := " "
		if s.Current {
			mark = "*"
		}
		if s.Problem != "" {
			app.printf("%s %s  damaged: %s\n", mark, s.Session, s.Problem)
			continue
		}
		app.printf("%s %-44s %-10s %3d step(s)  %s\n", mark, s.Session, s.Mode, s.Steps, shortTask(s.Task))
	}
	return nil
}

func shortTask(t string) string {
	t = strings.Join(strings.Fields(t), " ")
	if r := []rune(t); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return t
}

// StageFlushCmd is `ctx stage flush`.
type StageFlushCmd struct {
	Message string `short:"m" placeholder:"MSG" help:"The step's message (default: \"Flush narrative changes\")."`
	Author  string `placeholder:"NAME" help:"The step's author."`
}

// Run records the narrative's changes as a step.
func (c *StageFlushCmd) Run(app *App, w *repo.Writer) error {
	res, err := w.FlushStep(app.Ctx, c.Message, c.Author)
	if err != nil {
		return err
	}
	if app.Globals.JSON {
		return app.emit(res.CommitResult)
	}
	if !res.Committed {
		app.printf("nothing to flush: each step is durable when its command returns, and the narrative has no unrecorded change\n")
		return nil
	}
	app.printf("session %s: step of %d narrative file(s)\n", res.Session, len(res.Changes))
	return nil
}

// StageCompactCmd is `ctx stage compact`.
type StageCompactCmd struct {
	ID       string `arg:"" optional:"" help:"The session (default: --session, CTX_SESSION, or the one STAGE names)."`
	Message  string `short:"m" name:"message" placeholder:"MSG" help:"The commit's message (default: the task and the session's ID)."`
	Continue bool   `help:"Keep the session going on the new commit instead of ending it."`
	Author   string `placeholder:"NAME" help:"The commit's author."`
}

// Run compacts the session.
func (c *StageCompactCmd) Run(app *App, w *repo.Writer) error {
	id, err := selectedSession(w.Repo, c.ID)
	if err != nil {
		return err
	}
	res, err := w.CompactSession(app.Ctx, id, repo.CompactOptions{Message: c.Message, Continue: c.Continue, Author: c.Author})
	if err != nil {
		return err
	}
	if app.Globals.JSON {
		return app.emit(res)
	}
	printCompact(app, res)
	return nil
}

func printCompact(app *App, res *repo.CompactResult) {
	if res.Empty {
		if res.Ended {
			app.printf("session %s had no step to compact: ended it; main is unchanged\n", res.Session)
		} else {
			app.printf("session %s has no step to compact\n", res.Session)
		}
		return
	}
	app.printf("compacted session %s (%s): %d step(s) into commit %s", res.Session, res.Trigger, res.Steps, res.Commit.Short())
	if res.Merge != nil {
		app.printf(", merged with main's %s as %s", res.Previous.Short(), res.Merge.Short())
	}
	app.printf("\n")
	if len(res.Conflicts) > 0 {
		app.printf("both sides changed %d path(s); the newer side was kept: %s\n", len(res.Conflicts), strings.Join(res.Conflicts, ", "))
	}
	if res.Edges > 0 || res.Dropped > 0 {
		app.printf("edges: %d in one curated batch, %d low-confidence left out\n", res.Edges, res.Dropped)
	}
	for _, l := range res.Lines {
		app.printf("  log: %s\n", l)
	}
	if res.Ended {
		app.printf("the session is over; main is %s\n", res.Main.Short())
	} else {
		app.printf("the session goes on from main %s\n", res.Main.Short())
	}
}

// StageAbortCmd is `ctx stage abort`.
type StageAbortCmd struct {
	ID     string `arg:"" optional:"" help:"The session (default: --session, CTX_SESSION, or the one STAGE names)."`
	Reason string `placeholder:"REASON" help:"Why: recorded in today's log and the abort commit."`
	Author string `placeholder:"NAME" help:"The abort commit's author."`
}

// Run aborts the session.
func (c *StageAbortCmd) Run(app *App, w *repo.Writer) error {
	id, err := selectedSession(w.Repo, c.ID)
	if err != nil {
		return err
	}
	res, err := w.AbortSession(app.Ctx, id, repo.AbortOptions{Reason: c.Reason, Author: c.Author})
	if err != nil {
		return err
	}
	if app.Globals.JSON {
		return app.emit(res)
	}
	app.printf("aborted session %s: %d step(s) discarded (kept until ctx gc --aggressive)\n", res.Session, res.Steps)
	app.printf("  log: %s\n", res.Line)
	app.printf("abort commit %s on main\n", res.Commit.Short())
	return nil
}

// StageRecoverCmd is `ctx stage recover`.
type StageRecoverCmd struct{}

// Run recovers the sessions.
func (c *StageRecoverCmd) Run(app *App, w *repo.Writer) error {
	recs, err := w.RecoverSessions(app.Ctx)
	if err != nil {
		return err
	}
	if app.Globals.JSON {
		return app.emit(recs)
	}
	if len(recs) == 0 {
		app.printf("no sessions: nothing to recover\n")
		return nil
	}
	for _, r := range recs {
		who := "session " + r.Session
		if r.Session == "" {
			who = "STAGE"
		}
		app.printf("%s: %s: %s\n", who, r.Action, r.Detail)
	}
	return nil
}

// narrativeCommands are the commands that change only narrative files;
// in a staging session each one that changed something is a step.
var narrativeCommands = map[string]object.StepKind{
	"add task": object.StepPlan, "update": object.StepNote, "delete": object.StepNote, "restore": object.StepNote,
	"tag": object.StepNote, "untag": object.StepNote, "supersede": object.StepNote, "summarize": object.StepNote,
}

// notice tells the user something on stderr besides the command's own
// output: as a JSON line with --json (stdout holds the command's JSON
// document), else as text.
func (a *App) notice(v any, format string, args ...any) {
	if a.Globals != nil && a.Globals.JSON {
		b, _ := json.Marshal(v)
		fmt.Fprintf(a.Stderr, "%s\n", b)
		return
	}
	fmt.Fprintf(a.Stderr, format, args...)
}

// narrativeStepKind returns the step kind of a command that changes only
// narrative files; false for any other command.
func narrativeStepKind(cmd string) (object.StepKind, bool) {
	if kind, ok := narrativeCommands[cmd]; ok {
		return kind, true
	}
	verb, rest, _ := strings.Cut(cmd, " ")
	if verb != "add" || rest == "" || strings.Contains(rest, " ") {
		return "", false
	}
	switch rest {
	case "code", "file", "go", "cargo", "command":
		return "", false
	}
	return object.StepNote, true
}

// narrativeStep records the narrative changes of a command that just
// succeeded as a step of the active session, if there is one. Outside a
// session the narrative waits for ctx commit, as always.
func (a *App) narrativeStep(cmd string) error {
	w := a.writer
	if w == nil {
		return nil
	}
	kind, ok := narrativeStepKind(cmd)
	if !ok {
		return nil
	}
	s, err := w.ActiveSession()
	if err != nil || s == nil {
		return nil // outside a session, or a damaged one the command already reported
	}
	res, err := w.NarrativeStep(a.Ctx, s, "ctx "+cmd, "", kind)
	if err != nil {
		return err
	}
	if res != nil && res.Committed {
		a.notice(map[string]any{"session": res.Session, "step": res.Step}, "ctx: session %s: step %s\n", res.Session, res.Step.Short())
	}
	return nil
}

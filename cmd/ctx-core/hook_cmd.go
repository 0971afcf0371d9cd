package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/hook"
	"github.com/ctx-dev/ctx/narrative/view"
	"github.com/ctx-dev/ctx/repo"
)

// HookCmd is `ctx hook EVENT`: the Claude Code hooks (docs/CLAUDE_CODE.md).
type HookCmd struct {
	SessionStart HookSessionStartCmd `cmd:"" name:"session-start" help:"SessionStart: inject the default view and pending results."`
	PromptSubmit HookPromptSubmitCmd `cmd:"" name:"prompt-submit" help:"UserPromptSubmit: inject the results of the last <ctx:*> commands, once."`
	Stop         HookStopCmd         `cmd:"" name:"stop" help:"Stop: run the <ctx:*> commands of the assistant's last turn (from transcript_path, or --response)."`
	PreCompact   HookPreCompactCmd   `cmd:"" name:"pre-compact" help:"PreCompact: run the <ctx:*> commands not run yet, before compaction drops them."`
	SessionEnd   HookSessionEndCmd   `cmd:"" name:"session-end" help:"SessionEnd: quick clean-up of idle sessions' state."`
	PostToolUse  HookPostToolUseCmd  `cmd:"" name:"post-tool-use" help:"PostToolUse: feed the session's working set (ctx context) with the file a tool read or wrote, or the paths its output names."`
}

// HookPostToolUseCmd is `ctx hook post-tool-use`.
type HookPostToolUseCmd struct{}

// Run answers PostToolUse.
func (c *HookPostToolUseCmd) Run(app *App) error { return runHook(app, hook.PostToolUse, nil) }

// HookSessionStartCmd is `ctx hook session-start`.
type HookSessionStartCmd struct{}

// HookPromptSubmitCmd is `ctx hook prompt-submit`.
type HookPromptSubmitCmd struct{}

// HookSessionEndCmd is `ctx hook session-end`.
type HookSessionEndCmd struct{}

// HookStopCmd is `ctx hook stop`.
type HookStopCmd struct {
	Response *string `placeholder:"TEXT" help:"The assistant's response, instead of the last turn of the transcript (for tests and other agents)."`
}

// HookPreCompactCmd is `ctx hook pre-compact`.
type HookPreCompactCmd struct {
	Response *string `placeholder:"TEXT" help:"The assistant's text, instead of the transcript's."`
}

// Run answers SessionStart.
func (c *HookSessionStartCmd) Run(app *App) error { return runHook(app, hook.SessionStart, nil) }

// Run answers UserPromptSubmit.
func (c *HookPromptSubmitCmd) Run(app *App) error { return runHook(app, hook.PromptSubmit, nil) }

// Run answers Stop.
func (c *HookStopCmd) Run(app *App) error { return runHook(app, hook.Stop, c.Response) }

// Run answers PreCompact.
func (c *HookPreCompactCmd) Run(app *App) error { return runHook(app, hook.PreCompact, c.Response) }

// Run answers SessionEnd.
func (c *HookSessionEndCmd) Run(app *App) error { return runHook(app, hook.SessionEnd, nil) }

// runHook reads the hook's input, runs it and prints its JSON answer.
// Hooks never break the agent (hooks design §5): every outcome prints
// valid JSON and exits 0, except a damaged store; warnings go to stderr.
func runHook(app *App, ev hook.Event, response *string) error {
	warn := func(s string) { fmt.Fprintf(app.Stderr, "ctx: warning: %s\n", s) }
	answer := func(out *hook.Output) { _, _ = app.Stdout.Write(out.JSON()) }
	in, err := hook.ReadInput(app.Stdin) // always the whole input
	if err != nil {
		warn(err.Error())
		out := &hook.Output{SystemMessage: "ctx: " + message(err)}
		answer(out)
		return nil
	}
	r, err := hookRepo(app, in)
	switch {
	case errors.Is(err, repo.ErrNotAStore):
		answer(&hook.Output{}) // no store here: nothing to add
		return nil
	case err != nil:
		warn(err.Error())
		answer(&hook.Output{SystemMessage: "ctx: " + message(err)})
		if hook.IsCorrupt(err) {
			return err
		}
		return nil
	}
	opts := hook.Options{Event: ev, Input: in, Response: response, LockTimeout: app.Globals.LockTimeout, Warn: warn}
	if s := strings.TrimSpace(app.Getenv("CTX_DEFAULT_BUDGET")); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= view.MaxBudget {
			opts.DefaultBudget = n
		}
	}
	out, err := hook.Run(app.Ctx, r, opts)
	answer(out)
	return err
}

// hookRepo opens the store of the hook: --dir's, else the one above the
// input's cwd (where Claude Code's session is), else above the working
// directory.
func hookRepo(app *App, in hook.Input) (*repo.Repo, error) {
	var root string
	var err error
	switch {
	case app.Globals.Dir != "":
		root, err = repo.Locate(app.Globals.Dir, false)
	case in.Cwd != "":
		root, err = repo.Locate(in.Cwd, true)
	default:
		root, err = app.storeRoot()
	}
	if err != nil {
		return nil, err
	}
	return repo.Open(root, repo.Options{Clock: app.Clock, Session: app.Globals.Session})
}

package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/workset"
)

// ContextCmd is `ctx context`: the working set of an agent session
// (docs/CLI.md, package workset).
type ContextCmd struct {
	Show       ContextShowCmd       `cmd:"" help:"List the session's objects: level (active, metadata, indexed), pin, path or tool."`
	Render     ContextRenderCmd     `cmd:"" help:"Assemble the session's context: system prompt, metadata pool, chat, active content, within --budget tokens."`
	Activate   ContextActivateCmd   `cmd:"" help:"Load objects' content into the context (an [unread] file is read first)."`
	Deactivate ContextDeactivateCmd `cmd:"" help:"Take objects' content out of the context; they stay in the metadata pool."`
	Pin        ContextPinCmd        `cmd:"" help:"Exempt objects from auto-collapse."`
	Unpin      ContextUnpinCmd      `cmd:"" help:"Remove pins."`
	Observe    ContextObserveCmd    `cmd:"" help:"Feed the working set: read, write, delete, tool, prompt, reply, system (for agent hosts and hooks)."`
	Sync       ContextSyncCmd       `cmd:"" help:"Re-read the session's files from disk: new versions for changed files, deleted versions for gone ones."`
	Mount      ContextMountCmd      `cmd:"" help:"Mount mappings of a sandboxed agent: add, rm, list (/workspace ↔ a host path)."`
	Window     ContextWindowCmd     `cmd:"" help:"Show or set the auto-collapse window of tool outputs (default 5 per turn, 3 turns)."`
}

// contextFlags select the agent session; every ctx context command has them.
type contextFlags struct {
	Agent string `name:"agent" env:"CTX_AGENT_SESSION" placeholder:"ID" help:"The agent session (e.g. Claude Code's session_id); default \"default\". Not --session, which names a staging session."`
	Cwd   string `name:"cwd" placeholder:"DIR" help:"The agent's working directory, for relative paths (agent-visible; default: the working directory)."`
}

// workset opens the working set of the store.
func (f *contextFlags) workset(app *App) (*workset.Store, string, error) {
	root, err := app.storeRoot()
	if err != nil {
		return nil, "", err
	}
	ws, err := workset.Open(root, workset.Options{Clock: app.Clock, FilesystemID: app.Getenv("CTX_FILESYSTEM_ID"), LockTimeout: app.Globals.LockTimeout})
	if err != nil {
		return nil, "", err
	}
	agent := f.Agent
	if agent == "" {
		agent = "default"
	}
	return ws, agent, nil
}

// cwd returns the agent's working directory.
func (f *contextFlags) cwd(app *App) (string, error) {
	if f.Cwd != "" {
		if !strings.HasPrefix(f.Cwd, "/") {
			return "", &usageError{err: fmt.Errorf("context: --cwd %q is not absolute", f.Cwd), cmd: "context"}
		}
		return filepath.ToSlash(filepath.Clean(f.Cwd)), nil
	}
	wd, err := app.wd()
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(wd), nil
}

// abs makes an agent path absolute against the agent's working directory.
func (f *contextFlags) abs(app *App, p string) (string, error) {
	if strings.HasPrefix(p, "/") {
		return p, nil
	}
	wd, err := f.cwd(app)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(filepath.Join(wd, p)), nil
}

// update runs fn on the session under the working set's lock.
func (f *contextFlags) update(app *App, fn func(*workset.Session) error) error {
	ws, agent, err := f.workset(app)
	if err != nil {
		return err
	}
	app.interruptible()
	return ws.Update(app.Ctx, agent, fn)
}

// ContextShowCmd is `ctx context show`.
type ContextShowCmd struct {
	contextFlags
}

// Run lists the session's objects.
func (c *ContextShowCmd) Run(app *App) error {
	ws, agent, err := c.workset(app)
	if err != nil {
		return err
	}
	s, err := ws.Load(agent)
	if err != nil {
		return err
	}
	items, err := s.Items()
	if err != nil {
		return err
	}
	if app.Globals.JSON {
		return app.emit(map[string]any{"session": s.Session, "turns": len(s.Turns), "mounts": s.Mounts, "objects": items})
	}
	app.printf("session %s: %d objects, %d active, %d pinned, %d turns\n", s.Session, len(items), len(s.Active), len(s.Pinned), len(s.Turns))
	for _, it := range items {
		pin := ""
		if it.Pinned {
			pin = " pinned"
		}
		if it.Type == "toolcall" {
			app.printf("%s %-8s toolcall %s %s turn %d%s\n", it.ID.Short(), it.Level, it.Tool, it.Status, it.Turn, pin)
		} else {
			app.printf("%s %-8s file %s (%s, %d chars, %d versions)%s\n", it.ID.Short(), it.Level, it.Path, it.State, it.CharCount, it.Versions, pin)
		}
	}
	for _, m := range s.Mounts {
		app.printf("mount %s -> %s (fs %s)\n", m.Agent, m.Canonical, m.FilesystemID)
	}
	return nil
}

// ContextRenderCmd is `ctx context render`.
type ContextRenderCmd struct {
	contextFlags
	Budget int `default:"32000" placeholder:"TOKENS" help:"The most tokens (characters/4) the context may take; 0: no limit."`
}

// Run prints the assembled context.
func (c *ContextRenderCmd) Run(app *App) error {
	ws, agent, err := c.workset(app)
	if err != nil {
		return err
	}
	s, err := ws.Load(agent)
	if err != nil {
		return err
	}
	r, err := s.Render(workset.RenderOptions{Budget: c.Budget})
	if err != nil {
		return err
	}
	if app.Globals.JSON {
		return app.emit(r)
	}
	app.printf("%s", r.Text)
	return nil
}

// contextRefs is the argument of activate, deactivate, pin and unpin.
type contextRefs struct {
	contextFlags
	Refs []string `arg:"" name:"id" help:"Objects: an id prefix (4+ hex digits), a tool call's id, or a file's path."`
}

func (c *contextRefs) each(app *App, verb string, op func(*workset.Session, string) (workset.Change, error)) error {
	wd, err := c.cwd(app)
	if err != nil {
		return err
	}
	var done []workset.Change
	err = c.update(app, func(s *workset.Session) error {
		var err error
		done, err = s.Apply(c.Refs, wd, op)
		return err
	})
	if err != nil {
		return err
	}
	return printChanges(app, verb, done)
}

func printChanges(app *App, verb string, done []workset.Change) error {
	if done == nil {
		done = []workset.Change{}
	}
	if app.Globals.JSON {
		return app.emit(map[string]any{verb: done})
	}
	for _, ch := range done {
		app.printf("%s %s %s %s", verb, ch.ID.Short(), ch.Type, ch.Path)
		if ch.Outcome != 0 {
			app.printf(" (%s)", ch.Outcome)
		}
		if ch.Note != "" {
			app.printf(" [%s]", ch.Note)
		}
		app.printf("\n")
	}
	return nil
}

// ContextActivateCmd is `ctx context activate`.
type ContextActivateCmd struct{ contextRefs }

// Run activates the objects.
func (c *ContextActivateCmd) Run(app *App) error {
	return c.each(app, "activated", (*workset.Session).Activate)
}

// ContextDeactivateCmd is `ctx context deactivate`.
type ContextDeactivateCmd struct{ contextRefs }

// Run deactivates the objects.
func (c *ContextDeactivateCmd) Run(app *App) error {
	return c.each(app, "deactivated", (*workset.Session).Deactivate)
}

// ContextPinCmd is `ctx context pin`.
type ContextPinCmd struct{ contextRefs }

// Run pins the objects.
func (c *ContextPinCmd) Run(app *App) error { return c.each(app, "pinned", (*workset.Session).Pin) }

// ContextUnpinCmd is `ctx context unpin`.
type ContextUnpinCmd struct{ contextRefs }

// Run unpins the objects.
func (c *ContextUnpinCmd) Run(app *App) error {
	return c.each(app, "unpinned", (*workset.Session).Unpin)
}

// ContextSyncCmd is `ctx context sync`.
type ContextSyncCmd struct {
	contextFlags
	Paths []string `arg:"" optional:"" name:"path" help:"Only these files (default: every file of the session)."`
}

// Run re-reads the session's files.
func (c *ContextSyncCmd) Run(app *App) error {
	var done []workset.Change
	err := c.update(app, func(s *workset.Session) error {
		var paths []string
		for _, p := range c.Paths {
			a, err := c.abs(app, p)
			if err != nil {
				return err
			}
			paths = append(paths, a)
		}
		var err error
		done, err = s.Sync(paths)
		return err
	})
	if err != nil {
		return err
	}
	return printChanges(app, "synced", done)
}

// ContextObserveCmd is `ctx context observe`.
type ContextObserveCmd struct {
	Read   ContextObserveReadCmd   `cmd:"" help:"The agent read a file: index it (created, updated, unchanged) and make it active."`
	Write  ContextObserveWriteCmd  `cmd:"" help:"The agent wrote or edited a file: index its new content; it joins the pool."`
	Delete ContextObserveDeleteCmd `cmd:"" help:"A file is gone: record a version with no content."`
	Tool   ContextObserveToolCmd   `cmd:"" help:"A tool call and its output (stdin): a toolcall object; paths in ls/grep/find/rg output become [unread] stubs."`
	Prompt ContextObservePromptCmd `cmd:"" help:"The user's prompt (TEXT or stdin): starts a turn."`
	Reply  ContextObserveReplyCmd  `cmd:"" help:"The assistant's text (TEXT or stdin), in the current turn."`
	System ContextObserveSystemCmd `cmd:"" help:"The session's system prompt (TEXT or stdin)."`
}

// ContextObserveReadCmd is `ctx context observe read`.
type ContextObserveReadCmd struct {
	contextFlags
	Path  string `arg:"" help:"The file, as the agent named it."`
	Stdin bool   `help:"Take the content from standard input (what the read returned) instead of the file."`
}

// Run indexes the file as read.
func (c *ContextObserveReadCmd) Run(app *App) error {
	return observeFile(app, &c.contextFlags, c.Path, c.Stdin, "read", (*workset.Session).ReadFile)
}

// ContextObserveWriteCmd is `ctx context observe write`.
type ContextObserveWriteCmd struct {
	contextFlags
	Path  string `arg:"" help:"The file, as the agent named it."`
	Stdin bool   `help:"Take the content from standard input instead of the file."`
}

// Run indexes the file as written.
func (c *ContextObserveWriteCmd) Run(app *App) error {
	return observeFile(app, &c.contextFlags, c.Path, c.Stdin, "wrote", (*workset.Session).WriteFile)
}

func observeFile(app *App, f *contextFlags, p string, stdin bool, verb string, op func(*workset.Session, string, []byte) (workset.Change, error)) error {
	var content []byte
	if stdin {
		var err error
		if content, err = readAllLimit(app.Stdin, workset.MaxFileSize); err != nil {
			return err
		}
		if content == nil {
			content = []byte{}
		}
	}
	a, err := f.abs(app, p)
	if err != nil {
		return err
	}
	var ch workset.Change
	err = f.update(app, func(s *workset.Session) error {
		var err error
		ch, err = op(s, a, content)
		return err
	})
	if err != nil {
		return err
	}
	return printChanges(app, verb, []workset.Change{ch})
}

// ContextObserveDeleteCmd is `ctx context observe delete`.
type ContextObserveDeleteCmd struct {
	contextFlags
	Path string `arg:"" help:"The file, as the agent named it."`
}

// Run records the deletion.
func (c *ContextObserveDeleteCmd) Run(app *App) error {
	return observeFile(app, &c.contextFlags, c.Path, false, "deleted", func(s *workset.Session, p string, _ []byte) (workset.Change, error) {
		return s.DeleteFile(p)
	})
}

// ContextObserveToolCmd is `ctx context observe tool`.
type ContextObserveToolCmd struct {
	contextFlags
	Tool   string `arg:"" name:"tool" help:"The tool's name: bash, Read, Grep, Glob, ls, grep, find, rg, …"`
	ID     string `name:"id" placeholder:"CALL" help:"The harness's id of the call (Claude Code's tool_use_id); default <session>/t<turn>.<n>."`
	Args   string `placeholder:"TEXT" help:"The command line or arguments (for bash: the command, which decides how the output is read)."`
	Status string `default:"ok" enum:"ok,fail" help:"ok or fail."`
}

// Run records the call; its output is standard input.
func (c *ContextObserveToolCmd) Run(app *App) error {
	out, err := readAllLimit(app.Stdin, workset.MaxFileSize)
	if err != nil {
		return err
	}
	cwd, err := c.cwd(app)
	if err != nil {
		return err
	}
	var res *workset.ToolResult
	err = c.update(app, func(s *workset.Session) error {
		var err error
		res, err = s.Tool(workset.ToolInput{Tool: c.Tool, CallID: c.ID, Args: c.Args, Status: c.Status, Output: out, Cwd: cwd})
		return err
	})
	if err != nil {
		return err
	}
	if res.Discovered == nil {
		res.Discovered = []workset.Change{}
	}
	if res.Collapsed == nil {
		res.Collapsed = []workset.Change{}
	}
	if app.Globals.JSON {
		return app.emit(res)
	}
	app.printf("toolcall %s (%s)\n", res.Call.ID.Short(), c.Tool)
	_ = printChanges(app, "discovered", res.Discovered)
	return printChanges(app, "collapsed", res.Collapsed)
}

// contextText is the argument of observe prompt, reply and system.
type contextText struct {
	contextFlags
	Text *string `arg:"" optional:"" help:"The text; standard input when omitted."`
}

// ContextObservePromptCmd is `ctx context observe prompt`.
type ContextObservePromptCmd struct{ contextText }

// Run starts a turn.
func (c *ContextObservePromptCmd) Run(app *App) error { return c.run(app, "prompt") }

// ContextObserveReplyCmd is `ctx context observe reply`.
type ContextObserveReplyCmd struct{ contextText }

// Run records the assistant's text.
func (c *ContextObserveReplyCmd) Run(app *App) error { return c.run(app, "reply") }

// ContextObserveSystemCmd is `ctx context observe system`.
type ContextObserveSystemCmd struct{ contextText }

// Run sets the system prompt.
func (c *ContextObserveSystemCmd) Run(app *App) error { return c.run(app, "system") }

func (c *contextText) run(app *App, kind string) error {
	text := ""
	if c.Text != nil {
		text = *c.Text
	} else {
		b, err := readAllLimit(app.Stdin, workset.MaxFileSize)
		if err != nil {
			return err
		}
		text = string(b)
	}
	var collapsed []workset.Change
	err := c.update(app, func(s *workset.Session) error {
		switch kind {
		case "prompt":
			collapsed = s.Prompt(text)
		case "reply":
			s.Reply(text)
		default:
			return s.SetSystem(text)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return printChanges(app, "collapsed", collapsed)
}

// ContextMountCmd is `ctx context mount`.
type ContextMountCmd struct {
	Add  ContextMountAddCmd  `cmd:"" help:"Map an agent-visible prefix (/workspace) to a host path."`
	Rm   ContextMountRmCmd   `cmd:"" help:"Remove the mapping of an agent prefix."`
	List ContextMountListCmd `cmd:"" help:"List the session's mappings."`
}

// ContextMountAddCmd is `ctx context mount add`.
type ContextMountAddCmd struct {
	contextFlags
	Agent     string `arg:"" name:"agent-prefix" help:"The path the agent sees, e.g. /workspace."`
	Canonical string `arg:"" name:"host-prefix" help:"The host path it is, e.g. /home/me/project."`
	FS        string `name:"fs" placeholder:"ID" help:"The file system id of the host path (default: this machine's)."`
}

// Run adds the mapping.
func (c *ContextMountAddCmd) Run(app *App) error {
	err := c.update(app, func(s *workset.Session) error {
		return s.AddMount(workset.Mount{Agent: c.Agent, Canonical: c.Canonical, FilesystemID: c.FS})
	})
	if err != nil {
		return err
	}
	return listMounts(app, &c.contextFlags)
}

// ContextMountRmCmd is `ctx context mount rm`.
type ContextMountRmCmd struct {
	contextFlags
	Agent string `arg:"" name:"agent-prefix" help:"The agent prefix of the mapping."`
}

// Run removes the mapping.
func (c *ContextMountRmCmd) Run(app *App) error {
	err := c.update(app, func(s *workset.Session) error { return s.RemoveMount(c.Agent) })
	if err != nil {
		return err
	}
	return listMounts(app, &c.contextFlags)
}

// ContextMountListCmd is `ctx context mount list`.
type ContextMountListCmd struct {
	contextFlags
}

// Run lists the mappings.
func (c *ContextMountListCmd) Run(app *App) error { return listMounts(app, &c.contextFlags) }

func listMounts(app *App, f *contextFlags) error {
	ws, agent, err := f.workset(app)
	if err != nil {
		return err
	}
	s, err := ws.Load(agent)
	if err != nil {
		return err
	}
	ms := s.Mounts
	if ms == nil {
		ms = workset.Mounts{}
	}
	if app.Globals.JSON {
		return app.emit(map[string]any{"mounts": ms, "host_filesystem_id": ws.HostID()})
	}
	for _, m := range ms {
		app.printf("%s -> %s (fs %s)\n", m.Agent, m.Canonical, m.FilesystemID)
	}
	return nil
}

// ContextWindowCmd is `ctx context window`.
type ContextWindowCmd struct {
	contextFlags
	PerTurn int `name:"per-turn" placeholder:"N" help:"Keep the last N outputs of a turn active (0: unchanged)."`
	Turns   int `placeholder:"N" help:"Keep outputs of the last N turns active (0: unchanged)."`
}

// Run shows or sets the window.
func (c *ContextWindowCmd) Run(app *App) error {
	if c.PerTurn < 0 || c.Turns < 0 {
		return &usageError{err: fmt.Errorf("context window: negative value"), cmd: "context window"}
	}
	var w workset.Window
	var collapsed []workset.Change
	err := c.update(app, func(s *workset.Session) error {
		w = s.Window
		if c.PerTurn > 0 {
			w.PerTurn = c.PerTurn
		}
		if c.Turns > 0 {
			w.Turns = c.Turns
		}
		var err error
		collapsed, err = s.SetWindow(w)
		return err
	})
	if err != nil {
		return err
	}
	if collapsed == nil {
		collapsed = []workset.Change{}
	}
	if app.Globals.JSON {
		return app.emit(map[string]any{"window": w, "collapsed": collapsed})
	}
	app.printf("window: %d per turn, %d turns\n", w.PerTurn, w.Turns)
	return printChanges(app, "collapsed", collapsed)
}

// readAllLimit reads r whole, failing beyond max bytes.
func readAllLimit(r io.Reader, max int64) ([]byte, error) {
	if r == nil {
		return nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, &usageError{err: fmt.Errorf("context: standard input is larger than %d bytes", max), cmd: "context"}
	}
	return b, nil
}

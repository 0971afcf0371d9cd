package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/ctx-dev/ctx/internal/clock"
	"github.com/ctx-dev/ctx/repo"
)

// Env is what the command line tool takes from its process: the standard
// streams and the environment. Tests pass their own.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// Wd is the working directory; "" means the process's.
	Wd string
	// Interruptible, if set, makes SIGINT and SIGTERM cancel the context
	// Main was given from then on; commands call it (App.interruptible)
	// before they write, build the index or run something. Until then a
	// signal ends the process at once, which is safe: every write is
	// crash-safe.
	Interruptible func()
	// Serving, if set, is called by a command that serves until its
	// client leaves (ctx mcp): it undoes what suits a process that runs
	// one command and exits (the garbage collector's floor, main.go).
	Serving func()
}

// Globals are the flags every command accepts.
type Globals struct {
	Dir         string        `name:"dir" env:"CTX_DIR" placeholder:"PATH" help:"Use the store of PATH (a project directory or its .ctx directory) instead of searching upward from the working directory."`
	JSON        bool          `name:"json" help:"Print machine-readable JSON on stdout, and errors as JSON on stderr."`
	LockTimeout time.Duration `name:"lock-timeout" env:"CTX_LOCK_TIMEOUT" default:"10s" placeholder:"DURATION" help:"How long a writer waits for another writer's lock before failing with E006."`
	Session     string        `name:"session" env:"CTX_SESSION" placeholder:"ID" help:"Work in this staging session instead of the one STAGE names (ctx stage list)."`
}

// CLI is the command tree: one field per top-level command, under the
// global flags. Main gives kong only the command that the arguments name
// (see parse), registering each as a dynamic command: the fields' tags may
// therefore use only cmd, name, group and help (TestCommandTags).
type CLI struct {
	Init      InitCmd      `cmd:"" group:"porcelain" help:"Create a ctx store (.ctx/) in a project directory."`
	Add       AddCmd       `cmd:"" group:"porcelain" help:"Add knowledge: note, decision, task, fact, pattern, hypothesis, question, summary, source."`
	Show      ShowCmd      `cmd:"" group:"porcelain" help:"Show a node (ID, or ID@REV as a commit recorded it)."`
	List      ListCmd      `cmd:"" group:"porcelain" help:"List nodes, most recently changed first."`
	Update    UpdateCmd    `cmd:"" group:"porcelain" help:"Change a node's content, type or metadata."`
	Delete    DeleteCmd    `cmd:"" group:"porcelain" help:"Delete a node (it stays in history; ctx restore undoes it)."`
	Restore   RestoreCmd   `cmd:"" group:"porcelain" help:"Undo the deletion of a node."`
	Tag       TagCmd       `cmd:"" group:"porcelain" help:"Add tags to a node."`
	Untag     UntagCmd     `cmd:"" group:"porcelain" help:"Remove tags from a node."`
	Tags      TagsCmd      `cmd:"" group:"porcelain" help:"List tags with their node counts."`
	Supersede SupersedeCmd `cmd:"" group:"porcelain" help:"Mark a node replaced by another."`
	Summarize SummarizeCmd `cmd:"" group:"porcelain" help:"Add a summary derived from nodes; --archive-sources moves them off-context."`
	View      ViewCmd      `cmd:"" group:"porcelain" help:"Saved views (a query and a token budget): create, list, render, update, delete."`
	Compose   ComposeCmd   `cmd:"" group:"porcelain" help:"Compose context from a query (default: the default view) within a token budget, in Markdown or JSON."`
	Export    ExportCmd    `cmd:"" group:"porcelain" help:"Write the narrative nodes (--query selects) and their edges as JSON on stdout (docs/EXPORT.md)."`
	Import    ImportCmd    `cmd:"" group:"porcelain" help:"Import what ctx export wrote (FILE or stdin), ids and times kept; --merge into a store that has some of it."`
	Ingest    IngestCmd    `cmd:"" group:"porcelain" help:"Make a Markdown or text document a source node (prints its id)."`
	Relate    RelateCmd    `cmd:"" group:"porcelain" help:"Assert an edge: FROM LABEL TO (files, symbols, nodes, commits), committed at once."`
	Link      LinkCmd      `cmd:"" group:"porcelain" help:"Assert an edge FROM TO --type LABEL (= relate); idempotent."`
	Unlink    UnlinkCmd    `cmd:"" group:"porcelain" help:"Remove edges from FROM to TO (a tombstone: history keeps them)."`
	Edges     EdgesCmd     `cmd:"" group:"porcelain" help:"List a node's edges with their evidence."`
	Trace     TraceCmd     `cmd:"" group:"porcelain" help:"Show what a node derives from or depends on, recursively (--reverse: what depends on it)."`
	Related   RelatedCmd   `cmd:"" group:"porcelain" help:"Show the nodes within --depth edges of a node."`
	Status    StatusCmd    `cmd:"" group:"porcelain" help:"Show nodes per type and tier, uncommitted narrative, store size."`
	Commit    CommitCmd    `cmd:"" group:"porcelain" help:"Record the changed narrative in a commit on main."`
	Log       LogCmd       `cmd:"" group:"porcelain" help:"Show the commit history (or a node's: ctx log ID)."`
	Verify    VerifyCmd    `cmd:"" group:"porcelain" help:"Check every object, reference and ref of the store."`
	Gc        GcCmd        `cmd:"" group:"porcelain" help:"Remove unreachable objects older than --keep-days; --pack moves the reachable loose ones into a pack file."`
	Search    SearchCmd    `cmd:"" group:"porcelain" help:"Full-text search of code, paths, narrative and diagnostics: ranked hits with snippets."`
	Query     QueryCmd     `cmd:"" group:"porcelain" help:"Build a prompt pack for a question or task: the code and narrative that answer it, fitted to a token budget."`
	LLM       LLMCmd       `cmd:"" name:"llm" group:"porcelain" help:"Send a prompt pack to a model server (llama.cpp or OpenAI-compatible), stream the response; --commit records it with its mentions."`
	Rebuild   RebuildCmd   `cmd:"" group:"porcelain" help:"Rebuild the index (.ctx/index/, never tracked; reading commands keep it fresh on their own)."`
	Run       RunCmd       `cmd:"" group:"porcelain" help:"Run a command (ctx run -- CMD ARGS...), pass its output through, record its diagnostics, exit with its status."`
	Reconcile ReconcileCmd `cmd:"" group:"porcelain" help:"Merge the heads a git merge left on a ref into one commit."`
	Stage     StageCmd     `cmd:"" group:"porcelain" help:"Staging sessions: start, status, list, flush, compact, abort, recover."`
	Hook      HookCmd      `cmd:"" group:"porcelain" help:"Claude Code hooks: session-start, prompt-submit, stop, pre-compact, session-end (JSON on stdin and stdout)."`
	Mcp       McpCmd       `cmd:"" group:"porcelain" help:"Serve the store to an MCP client over stdio: query, search, remember, recall, relate, show, status, stage tools; narrative files as resources."`
	Install   InstallCmd   `cmd:"" group:"porcelain" help:"Install the ctx skill and hooks for Claude Code (--user or --project; --write-settings merges settings.json)."`
	Uninstall UninstallCmd `cmd:"" group:"porcelain" help:"Remove the ctx skill and, with --write-settings, ctx's hooks from settings.json."`
	Context   ContextCmd   `cmd:"" group:"porcelain" help:"An agent session's working set: show, render, activate, deactivate, pin, unpin, observe, sync, mount, window."`
	Demo      DemoCmd      `cmd:"" group:"porcelain" help:"Run ctx on an embedded demo project and narrate what happens."`
	Version   VersionCmd   `cmd:"" group:"porcelain" help:"Print the version of ctx and of its formats."`

	HashObject HashObjectCmd `cmd:"" name:"hash-object" group:"plumbing" help:"Compute object ids, and with -w store the objects."`
	CatObject  CatObjectCmd  `cmd:"" name:"cat-object" group:"plumbing" help:"Print an object's kind, size or content."`
	RevParse   RevParseCmd   `cmd:"" name:"rev-parse" group:"plumbing" help:"Resolve revisions (refs, id prefixes, ^ and ~N) to object ids."`
	UpdateRef  UpdateRefCmd  `cmd:"" name:"update-ref" group:"plumbing" help:"Set or delete a ref, optionally only if it still has an expected value."`
	ShowRef    ShowRefCmd    `cmd:"" name:"show-ref" group:"plumbing" help:"List refs and their heads."`
	CommitTree CommitTreeCmd `cmd:"" name:"commit-tree" group:"plumbing" help:"Write a commit object for a tree."`
	LsTree     LsTreeCmd     `cmd:"" name:"ls-tree" group:"plumbing" help:"List the entries of a tree."`

	Debug DebugCmd `cmd:"" group:"debug" help:"Inspection commands: refs, cat, history, verify, graph."`
}

const description = `ctx gives coding agents and their teams a durable, queryable,
git-mergeable memory of a code base, kept in .ctx/.

Every command accepts --json for machine-readable output. On failure ctx
prints "ctx: EXXX Name: message" and a hint on stderr, nothing on stdout,
and exits with:

  0    success
  1    error without a code (I/O failure, internal error)
  2    E015 invalid argument or usage
  21   E001 ObjectNotFound         27  E007 IndexCorrupt
  22   E002 HashMismatch           28  E008 StagingConflict
  23   E003 InvalidEnvelope        29  E009 CommitOrphan
  24   E004 DeserializationFailed  30  E010 BudgetExceeded
  25   E005 RefNotFound            31  E011 StoreNotFound
  26   E006 LockConflict           32  E012 StoreExists
  33   E013 RefConflict            34  E014 RefDiverged
  36   E016 ConfigInvalid          37  E017 AmbiguousID
  38   E018 RefCorrupt             39  E019 NodeNotFound
  40   E020 LLMRequestFailed (ctx llm: server down, timeout, error status, bad response)
  130  interrupted

See docs/CLI.md for every command.`

// App carries what a command needs besides its flags: the streams, the
// environment and the global flags. Commands receive it from kong.
type App struct {
	Env
	Globals *Globals
	Ctx     context.Context
	Clock   clock.Clock

	cleanup []func()
	// writer is the locked store of the command, if it took the lock.
	writer *repo.Writer
	// configWarned: the unknown keys of config.toml were reported.
	configWarned bool
	// args are the command line's arguments, as Main got them.
	args []string
}

// exitRequest unwinds a kong-initiated exit (after --help) to Main.
type exitRequest struct{ code int }

// Main runs ctx with args and returns the exit status.
func Main(ctx context.Context, args []string, env Env) (status int) {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	var cli CLI
	app := &App{Env: env, Ctx: ctx, args: args}
	defer func() {
		for i := len(app.cleanup) - 1; i >= 0; i-- {
			app.cleanup[i]()
		}
		if r := recover(); r != nil {
			req, ok := r.(exitRequest)
			if !ok {
				panic(r)
			}
			status = req.code
		}
	}()
	kctx, err := parse(app, &cli, args, true)
	if err != nil {
		// A pruned model fails where the whole one may not (a global
		// flag's value that names a command); the whole model also gives
		// the complete message (what commands there are).
		cli = CLI{}
		kctx, err = parse(app, &cli, args, false)
	}
	if err != nil {
		var pe *kong.ParseError
		if errors.As(err, &pe) {
			return app.fail(&usageError{err: pe, cmd: commandPath(pe.Context)})
		}
		return app.fail(err)
	}
	app.Clock, err = clockFromEnv(env.Getenv)
	if err != nil {
		return app.fail(err)
	}
	if err := kctx.Run(); err != nil {
		return app.fail(err)
	}
	if err := app.narrativeStep(commandPath(kctx)); err != nil {
		return app.fail(err)
	}
	return 0
}

// parse builds kong's model of the command line and parses args with it.
// With prune, the model holds only the top-level command that args name,
// when they name one: building the whole tree (reflection over every
// command's flags, help interpolation) costs several milliseconds, more
// than a search takes.
func parse(app *App, cli *CLI, args []string, prune bool) (*kong.Context, error) {
	want := ""
	if prune {
		want = commandArg(args)
		if want == "" {
			return nil, errors.New("no command named")
		}
	}
	parser, err := newParser(app, cli, want)
	if err != nil {
		return nil, err
	}
	return parser.Parse(args)
}

// newParser returns kong's model of the command line: the global flags,
// and the commands of cli (only want, if it is not "").
func newParser(app *App, cli *CLI, want string) (*kong.Kong, error) {
	root := &struct{ Globals }{}
	app.Globals = &root.Globals
	opts := append(commandOptions(cli, want),
		kong.Name("ctx"),
		kong.Description(description),
		kong.Writers(app.Stdout, app.Stderr),
		kong.Exit(func(code int) { panic(exitRequest{code}) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.ExplicitGroups([]kong.Group{
			{Key: "porcelain", Title: "Porcelain commands:"},
			{Key: "plumbing", Title: "Plumbing commands (stable input, output, flags and exit codes):"},
			{Key: "debug", Title: "Debugging commands:"},
		}),
		kong.Resolvers(envResolver(app.Getenv)),
		kong.Vars{"node_help": nodeHelp},
		kong.Bind(app),
		kong.BindToProvider(app.openRepo),
		kong.BindToProvider(app.lockRepo),
	)
	parser, err := kong.New(root, opts...)
	if err != nil {
		return nil, fmt.Errorf("internal: %w", err)
	}
	return parser, nil
}

// commandOptions registers the fields of cli as kong commands, in their
// order: all of them, or only the one named want.
func commandOptions(cli *CLI, want string) []kong.Option {
	v := reflect.ValueOf(cli).Elem()
	t := v.Type()
	var opts []kong.Option
	for i := range t.NumField() {
		f := t.Field(i)
		if _, ok := f.Tag.Lookup("cmd"); !ok {
			continue
		}
		name := commandName(f)
		if want != "" && name != want {
			continue
		}
		opts = append(opts, kong.DynamicCommand(name, f.Tag.Get("help"), f.Tag.Get("group"), v.Field(i).Addr().Interface()))
	}
	return opts
}

// commandName is the command word of a CLI field: its name tag, or its
// field name in lower case.
func commandName(f reflect.StructField) string {
	if name := f.Tag.Get("name"); name != "" {
		return name
	}
	return strings.ToLower(f.Name)
}

// commandArg returns the first argument that is not a global flag or a
// global flag's value: the top-level command word, if args have one.
func commandArg(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return args[i+1]
			}
			return ""
		case a == "--dir" || a == "--lock-timeout" || a == "--session":
			i++ // the flag's value
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
}

// envResolver makes kong's env tags read env.Getenv rather than the
// process environment, so that tests can run in-process.
func envResolver(getenv func(string) string) kong.Resolver {
	return kong.ResolverFunc(func(_ *kong.Context, _ *kong.Path, flag *kong.Flag) (any, error) {
		for _, name := range flag.Envs {
			if v := getenv(name); v != "" {
				return v, nil
			}
		}
		return nil, nil
	})
}

// commandPath returns the command's words, e.g. "debug cat", without its
// argument placeholders.
func commandPath(k *kong.Context) string {
	if k == nil {
		return ""
	}
	var words []string
	for _, w := range strings.Fields(k.Command()) {
		if !strings.HasPrefix(w, "<") {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

// clockFromEnv returns the wall clock, or the fixed time of CTX_DATE
// (Unix seconds or RFC 3339) for reproducible commits.
func clockFromEnv(getenv func(string) string) (clock.Clock, error) {
	v := getenv("CTX_DATE")
	if v == "" {
		return clock.Real{}, nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return clock.Fixed(time.Unix(n, 0).UTC()), nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return nil, &usageError{err: fmt.Errorf("CTX_DATE=%q is neither Unix seconds nor RFC 3339", v)}
	}
	return clock.Fixed(t), nil
}

// wd returns the working directory.
func (a *App) wd() (string, error) {
	if a.Wd != "" {
		return a.Wd, nil
	}
	return os.Getwd()
}

// storeRoot locates the .ctx directory from --dir or the working directory.
func (a *App) storeRoot() (string, error) {
	if a.Globals.Dir != "" {
		return repo.Locate(a.Globals.Dir, false)
	}
	wd, err := a.wd()
	if err != nil {
		return "", err
	}
	return repo.Locate(wd, true)
}

// openRepo opens the store for reading; kong calls it for a command whose
// Run takes a *repo.Repo.
func (a *App) openRepo() (*repo.Repo, error) {
	root, err := a.storeRoot()
	if err != nil {
		return nil, err
	}
	r, err := repo.Open(root, repo.Options{Clock: a.Clock, Session: a.Globals.Session})
	if err != nil {
		return nil, err
	}
	if w := r.Config.UnknownKeysWarning(); w != "" && !a.configWarned {
		a.configWarned = true
		a.notice(map[string]string{"warning": w}, "ctx: warning: %s\n", w)
	}
	return r, nil
}

// lockRepo opens the store and takes its writer lock, released when the
// command returns; kong calls it for a command whose Run takes a
// *repo.Writer.
func (a *App) lockRepo(k *kong.Context) (*repo.Writer, error) {
	return a.lockForCommand(commandPath(k))
}

// interruptible makes SIGINT and SIGTERM ask the command to stop from
// now on (Env.Interruptible), rather than end the process.
func (a *App) interruptible() {
	if a.Interruptible != nil {
		a.Interruptible()
	}
}

// serving tells the process that this command serves a client until it
// leaves (Env.Serving).
func (a *App) serving() {
	if a.Serving != nil {
		a.Serving()
	}
}

// printf writes text output; it is silent in --json mode.
func (a *App) printf(format string, args ...any) {
	if !a.Globals.JSON {
		fmt.Fprintf(a.Stdout, format, args...)
	}
}

// emit writes v as JSON in --json mode.
func (a *App) emit(v any) error {
	if !a.Globals.JSON {
		return nil
	}
	enc := json.NewEncoder(a.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

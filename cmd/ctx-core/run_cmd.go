package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ctx-dev/ctx/graph/diag"
	"github.com/ctx-dev/ctx/internal/clock"
	"github.com/ctx-dev/ctx/repo"
)

// maxCapture bounds the output of a command held in memory for parsing:
// the first half of it and the last half are kept, with a line in
// between saying how much was left out. Test summaries and the errors
// that stop a build are at the end; the first errors at the start.
const maxCapture = 32 << 20

// capture collects a command's output within maxCapture bytes; it is
// safe for concurrent writers (a command's stdout and stderr).
type capture struct {
	mu      sync.Mutex
	head    []byte
	tail    []byte // a ring of at most maxCapture/2 bytes once head is full
	tailPos int
	omitted int64
	full    bool
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	if room := maxCapture/2 - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		if len(c.tail) < maxCapture/2 {
			k := min(maxCapture/2-len(c.tail), len(p))
			c.tail = append(c.tail, p[:k]...)
			p = p[k:]
			continue
		}
		// The ring is full: overwrite its oldest bytes.
		k := min(len(c.tail)-c.tailPos, len(p))
		copy(c.tail[c.tailPos:], p[:k])
		c.tailPos = (c.tailPos + k) % len(c.tail)
		c.omitted += int64(k)
		c.full = true
		p = p[k:]
	}
	return n, nil
}

// bytes returns what was captured, in order.
func (c *capture) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := append([]byte{}, c.head...)
	if !c.full {
		return append(out, c.tail...)
	}
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	out = fmt.Appendf(out, "… %d bytes of output left out …\n", c.omitted)
	tail := append(append([]byte{}, c.tail[c.tailPos:]...), c.tail[:c.tailPos]...)
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 {
		tail = tail[i+1:] // start on a whole line
	}
	return append(out, tail...)
}

// commandFlags are the flags of ctx add command and ctx run.
type commandFlags struct {
	AllowSecrets bool   `name:"allow-secrets" help:"Store the output as it is, secrets included (they go into a store teams commit to git)."`
	Message      string `short:"m" placeholder:"MSG" help:"Commit message (default: the command and its summary)."`
	Author       string `env:"CTX_AUTHOR" help:"Author recorded in the commit."`
}

// addCommand is `ctx add command`.
type addCommand struct {
	Name     string `required:"" placeholder:"NAME" help:"The command whose output this is, as you ran it (\"go test ./...\"): it tells ctx how to read the output, and a later run of the same name replaces this one."`
	Stdin    bool   `required:"" help:"Read the output from standard input (cargo test 2>&1 | ctx add command --stdin --name \"cargo test\")."`
	ExitCode *int   `name:"exit-code" placeholder:"N" help:"The command's exit status (default: 1 when the output shows errors or failed tests, else 0)."`
	Tee      bool   `help:"Copy standard input to standard output as it arrives."`
	commandFlags
}

// Run reads the output, then records it. The store is locked only once
// the output has been read, so a long command piped into ctx does not
// hold other writers off.
func (c *addCommand) Run(app *App) error {
	if err := app.checkSession(); err != nil {
		return err
	}
	var cp capture
	var in io.Reader = app.Stdin
	if c.Tee {
		out := app.Stdout
		if app.Globals.JSON {
			out = app.Stderr
		}
		in = io.TeeReader(in, out)
	}
	if _, err := io.Copy(&cp, in); err != nil {
		return fmt.Errorf("reading the output of %q from standard input: %w", c.Name, err)
	}
	out := cp.bytes()
	w, err := app.lockForCommand("add command")
	if err != nil {
		return err
	}
	code := 0
	switch {
	case c.ExitCode != nil:
		code = *c.ExitCode
	case failed(diag.Parse(c.Name, out, w.ProjectRoot())):
		code = 1 // the output shows errors or failed tests
	}
	return recordCommand(app, w, repo.CommandOptions{Name: c.Name, Output: out, ExitCode: code}, &c.commandFlags)
}

// failed reports whether parsed output shows errors or failed tests.
func failed(r *diag.Result) bool { return r.HasErrors() || r.Summary.Failed > 0 }

// RunCmd is `ctx run`.
type RunCmd struct {
	Name    string   `placeholder:"NAME" help:"The name to record the run under (default: the command line)."`
	Command []string `arg:"" passthrough:"" name:"command" help:"The command and its arguments, after --."`
	commandFlags
}

// commandExit makes ctx exit with a command's status without a message.
type commandExit struct{ code int }

func (e *commandExit) Error() string { return fmt.Sprintf("the command exited with status %d", e.code) }

// Run runs the command with the terminal's input, passes its output
// through as it comes, records the run, and exits with the command's
// status. The store is locked only after the command has finished, so
// the command itself may use ctx.
func (c *RunCmd) Run(app *App) error {
	app.interruptible()
	argv := c.Command
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		return &usageError{err: errors.New("missing command: ctx run -- CMD ARGS..."), cmd: "run"}
	}
	name := c.Name
	if name == "" {
		name = shellJoin(argv)
	}
	// A run is recorded after it ends: refuse before running it if the
	// session it would be a step of cannot take one.
	if err := app.checkSession(); err != nil {
		return err
	}
	wd, err := app.wd()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(app.Ctx, argv[0], argv[1:]...)
	cmd.Dir = wd
	// On interruption the command gets SIGINT, as from a terminal, and
	// some time to stop.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 2 * time.Second
	var cp capture
	stdout := app.Stdout
	if app.Globals.JSON {
		stdout = app.Stderr // stdout carries ctx's JSON
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = app.Stdin, io.MultiWriter(stdout, &cp), io.MultiWriter(app.Stderr, &cp)
	start := clock.Real{}.Now()
	runErr := cmd.Run()
	elapsed := clock.Real{}.Now().Sub(start)
	code := 0
	if runErr != nil {
		var ee *exec.ExitError
		switch {
		case app.Ctx.Err() != nil:
			return app.Ctx.Err() // interrupted: record nothing
		case errors.As(runErr, &ee):
			code = ee.ExitCode()
			if code < 0 { // ended by a signal, as a shell reports it
				code = 128
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					code += int(ws.Signal())
				}
				fmt.Fprintf(app.Stderr, "ctx: %s ended: %s\n", argv[0], ee.ProcessState)
			}
		case errors.Is(runErr, exec.ErrNotFound) || errors.Is(runErr, os.ErrNotExist) || errors.Is(runErr, os.ErrPermission):
			return &usageError{err: fmt.Errorf("cannot run %s: %w", argv[0], runErr), cmd: "run"}
		default:
			return fmt.Errorf("running %s: %w", argv[0], runErr)
		}
	}
	w, err := app.lockForCommand("run")
	if err != nil {
		return err
	}
	err = recordCommand(app, w, repo.CommandOptions{
		Name: name, Argv: argv, Dir: wd, Output: cp.bytes(), ExitCode: code, Started: start, Duration: elapsed,
	}, &c.commandFlags)
	if err != nil {
		return err
	}
	if code != 0 {
		return &commandExit{code: code}
	}
	return nil
}

// checkSession fails when the selected staging session cannot take a
// step (damaged, aborted, interrupted while compacting).
func (a *App) checkSession() error {
	r, err := a.openRepo()
	if err != nil {
		return err
	}
	_, err = r.ActiveSession()
	return err
}

// lockForCommand opens the store and takes the writer lock for the
// command name (recorded as its holder), released when the command
// returns. Commands whose Run takes a *repo.Writer get it through
// lockRepo; ctx run and ctx add command call it once their input is in.
func (a *App) lockForCommand(name string) (*repo.Writer, error) {
	a.interruptible()
	r, err := a.openRepo()
	if err != nil {
		return nil, err
	}
	w, err := r.Lock(a.Ctx, repo.LockOptions{Timeout: a.Globals.LockTimeout, Command: "ctx " + name})
	if err != nil {
		return nil, err
	}
	a.writer = w
	if _, ok := narrativeStepKind(name); ok {
		// A narrative command in a session records a step after it ran:
		// refuse before it writes if the session cannot take one.
		if _, err := w.ActiveSession(); err != nil {
			_ = w.Unlock()
			return nil, err
		}
	}
	a.cleanup = append(a.cleanup, func() {
		for _, n := range w.Notices {
			a.notice(map[string]any{"notice": n}, "ctx: %s\n", n)
		}
		_ = w.Unlock()
	})
	return w, nil
}

// recordCommand records the run and reports it.
func recordCommand(app *App, w *repo.Writer, opts repo.CommandOptions, f *commandFlags) error {
	opts.AllowSecrets, opts.Message, opts.Author = f.AllowSecrets, f.Message, f.Author
	res, err := w.RecordCommand(app.Ctx, opts)
	if err != nil {
		return err
	}
	for _, r := range res.Redacted {
		fmt.Fprintf(app.Stderr, "ctx: redacted a secret in the recorded output (%s): %s; --allow-secrets keeps it\n", r.Path, r.Reason)
	}
	if app.Globals.JSON {
		return app.emit(res)
	}
	run := res.Run
	summary := run.Summary.Text
	if summary == "" {
		summary = fmt.Sprintf("%d diagnostics", len(run.Diagnostics))
	}
	app.printf("recorded %q: exit %d; %s; kept %d lines of output\n", run.Name, run.ExitCode, summary, res.KeptLines)
	const most = 10
	for i, d := range run.Diagnostics {
		if i == most {
			app.printf("  … and %d more (ctx --json lists them all)\n", len(run.Diagnostics)-most)
			break
		}
		loc := d.Path
		if d.Line > 0 {
			loc = fmt.Sprintf("%s:%d", d.Path, d.Line)
		}
		if loc == "" {
			loc = "-"
		}
		app.printf("  %s %s %s\n", d.Severity, loc, firstLine(d.Message))
	}
	app.printf("[%s %s] %s\n", strings.TrimPrefix(res.Ref, "refs/"), res.ID.Short(), firstLine(res.Message))
	return nil
}

// shellJoin writes argv as a shell would read it back, quoting words
// that need it.
func shellJoin(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) < 0 {
			words[i] = a
			continue
		}
		words[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(words, " ")
}

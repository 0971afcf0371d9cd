package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctx-dev/ctx/internal/clock"
	"github.com/ctx-dev/ctx/repo"
)

// ingestFlags are the flags of every ingesting command.
type ingestFlags struct {
	Force             bool   `help:"Store even when the step exceeds the budget of config.toml [ingestion] (max_files_per_step, max_bytes_per_step)."`
	AllowSecrets      bool   `name:"allow-secrets" help:"Store files in which secrets were found (private keys, tokens, passwords). They go into a store teams commit to git."`
	KeepLowConfidence bool   `name:"keep-low-confidence" help:"Keep guessed edges of low confidence (a call on a value matching several methods), dropped by default."`
	Reparse           bool   `help:"With semantics: read every code file in the paths again, changed or not (after changing --keep-low-confidence, or upgrading ctx)."`
	Message           string `short:"m" placeholder:"MSG" help:"Commit message (default: a summary of the snapshot)."`
	Author            string `env:"CTX_AUTHOR" help:"Author recorded in the commit."`
	Quiet             bool   `short:"q" help:"No progress bar."`
}

// addFile is `ctx add file`.
type addFile struct {
	Paths            []string `arg:"" name:"path" help:"Files and directories (recursively) of the project."`
	ExtractSemantics bool     `name:"extract-semantics" help:"Also read the code: items, imports, calls and their edges (Go, Rust, Python, TypeScript, JavaScript)."`
	ingestFlags
}

// Run snapshots the paths, within the step budget.
func (c *addFile) Run(app *App, w *repo.Writer) error {
	return ingest(app, w, repo.IngestOptions{Paths: c.Paths, Semantics: c.ExtractSemantics, Budget: true}, &c.ingestFlags)
}

// addCode is `ctx add code`.
type addCode struct {
	Paths []string `arg:"" optional:"" name:"path" help:"Files and directories to ingest (default: the whole project)."`
	ingestFlags
}

// Run ingests the project (or the paths) with semantics. A whole-project
// import is what the step budget is not for: it is not applied.
func (c *addCode) Run(app *App, w *repo.Writer) error {
	return ingest(app, w, repo.IngestOptions{Paths: c.Paths, Semantics: true}, &c.ingestFlags)
}

func ingest(app *App, w *repo.Writer, opts repo.IngestOptions, f *ingestFlags) error {
	wd, err := app.wd()
	if err != nil {
		return err
	}
	opts.Wd, opts.Force, opts.AllowSecrets, opts.KeepLow, opts.Reparse = wd, f.Force, f.AllowSecrets, f.KeepLowConfidence, f.Reparse
	opts.Message, opts.Author = f.Message, f.Author
	// CTX_PACK_ABOVE lowers the pack threshold for the crash tests.
	// Undocumented on purpose.
	if n, err := strconv.Atoi(app.Getenv("CTX_PACK_ABOVE")); err == nil {
		opts.PackAbove = n
	}
	bar := newProgress(app.Stderr, !f.Quiet && !app.Globals.JSON)
	opts.Progress = bar.update
	res, err := w.Ingest(app.Ctx, opts)
	bar.done()
	if err != nil {
		return err
	}
	// Withheld files are always named (secrets are worth a look), skipped
	// ones too, both up to a screenful; --json lists them all.
	report := func(what string, list []repo.Skipped, most int) {
		for i, s := range list {
			if i == most {
				fmt.Fprintf(app.Stderr, "ctx: … and %d more %s (--json lists them all)\n", len(list)-most, what)
				break
			}
			fmt.Fprintf(app.Stderr, "ctx: %s %s: %s\n", what, s.Path, s.Reason)
		}
	}
	report("withheld", res.Withheld, 10)
	report("not read", res.Unread, 10)
	if !app.Globals.JSON {
		report("skipped", res.Skipped, 5)
	}
	if app.Globals.JSON {
		return app.emit(res)
	}
	app.printf("%s\n", ingestSummary(res))
	if res.Committed {
		app.printf("[%s %s] %s\n", strings.TrimPrefix(res.Ref, "refs/"), res.ID.Short(), firstLine(res.Message))
	} else {
		app.printf("nothing changed: the snapshot is as %s recorded it\n", res.Previous.Short())
	}
	return nil
}

// ingestSummary is the one-line summary of an ingestion.
func ingestSummary(r *repo.IngestResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d files: %d added, %d modified, %d removed", r.Files, r.Added, r.Modified, r.Removed)
	fmt.Fprintf(&b, "; %d new objects (%s)", r.NewObjects, humanSize(r.NewBytes))
	if r.Parsed > 0 {
		langs := make([]string, 0, len(r.Languages))
		for l, n := range r.Languages {
			langs = append(langs, fmt.Sprintf("%s %d", l, n))
		}
		sort.Strings(langs)
		fmt.Fprintf(&b, "; read %d (%s): %d items, %d edges", r.Parsed, strings.Join(langs, ", "), r.Items, r.Edges)
		if r.SyntaxErrors > 0 {
			fmt.Fprintf(&b, ", %d syntax errors", r.SyntaxErrors)
		}
	}
	if n := len(r.Skipped) + len(r.Withheld); n > 0 {
		fmt.Fprintf(&b, "; %d skipped", n)
	}
	fmt.Fprintf(&b, "; %.2fs", r.Seconds)
	return b.String()
}

func humanSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// progress draws a progress bar on a terminal, at most ten times a
// second; elsewhere it is silent.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	on    bool
	last  time.Time
	drawn bool
	unit  string // what is counted; default "files"
}

func newProgress(w io.Writer, want bool) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok && want {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.on = true
		}
	}
	return p
}

func (p *progress) update(done, total int) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if now := (clock.Real{}).Now(); now.Sub(p.last) > 100*time.Millisecond || done == total {
		p.last = now
		const width = 30
		fill := 0
		if total > 0 {
			fill = done * width / total
		}
		unit := p.unit
		if unit == "" {
			unit = "files"
		}
		fmt.Fprintf(p.w, "\r[%s%s] %d/%d %s", strings.Repeat("=", fill), strings.Repeat(" ", width-fill), done, total, unit)
		p.drawn = true
	}
}

func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// addGo is `ctx add go`.
type addGo struct {
	Dir     string `arg:"" optional:"" placeholder:"DIR" help:"Directory of the Go module or workspace (default: the project root)."`
	Message string `short:"m" placeholder:"MSG" help:"Commit message."`
	Author  string `env:"CTX_AUTHOR" help:"Author recorded in the commit."`
}

// Run records the Go build graph.
func (c *addGo) Run(app *App, w *repo.Writer) error {
	return addBuild(app, w, repo.BuildOptions{Ecosystem: "go", Dir: c.Dir, Message: c.Message, Author: c.Author})
}

// addCargo is `ctx add cargo`.
type addCargo struct {
	Dir     string `arg:"" optional:"" placeholder:"DIR" help:"Directory of the Cargo workspace (default: the project root)."`
	Message string `short:"m" placeholder:"MSG" help:"Commit message."`
	Author  string `env:"CTX_AUTHOR" help:"Author recorded in the commit."`
}

// Run records the Cargo workspace graph.
func (c *addCargo) Run(app *App, w *repo.Writer) error {
	return addBuild(app, w, repo.BuildOptions{Ecosystem: "cargo", Dir: c.Dir, Message: c.Message, Author: c.Author})
}

func addBuild(app *App, w *repo.Writer, opts repo.BuildOptions) error {
	wd, err := app.wd()
	if err != nil {
		return err
	}
	opts.Wd = wd
	res, err := w.AddBuild(app.Ctx, opts)
	if err != nil {
		return err
	}
	if app.Globals.JSON {
		return app.emit(res)
	}
	app.printf("%s build graph of %s: %d packages (%d with errors), %d external, %d edges\n", opts.Ecosystem, res.Root, res.Packages, res.Broken, res.External, res.Edges)
	if res.Committed {
		app.printf("[%s %s] %s\n", strings.TrimPrefix(res.Ref, "refs/"), res.ID.Short(), firstLine(res.Message))
	} else {
		app.printf("nothing changed: the build graph is as recorded\n")
	}
	return nil
}

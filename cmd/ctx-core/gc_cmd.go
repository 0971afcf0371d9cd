package main

import (
	"fmt"
	"strings"

	"github.com/ctx-dev/ctx/gc"
	"github.com/ctx-dev/ctx/internal/clock"
	"github.com/ctx-dev/ctx/repo"
)

// GcCmd is `ctx gc`.
type GcCmd struct {
	KeepDays   int  `name:"keep-days" default:"7" placeholder:"N" help:"Keep unreachable loose objects younger than N days (a teammate's push not yet referenced, an interrupted command's objects)."`
	DryRun     bool `name:"dry-run" help:"Report what would be removed and packed; change nothing."`
	Aggressive bool `help:"Also remove unreachable objects younger than --keep-days (the store is locked: no other ctx process is writing), and drop aborted staging sessions with their objects."`
	Pack       bool `help:"Move the reachable loose objects into a new pack file (objects/pack/, FORMAT.md §3.4)."`
}

// Validate checks the flags.
func (c *GcCmd) Validate() error {
	if c.KeepDays < 0 {
		return fmt.Errorf("--keep-days %d: want 0 or more", c.KeepDays)
	}
	return nil
}

// Run collects the garbage under the store's lock.
func (c *GcCmd) Run(app *App, w *repo.Writer) error {
	// Ages are file times: the wall clock, not CTX_DATE.
	opts := gc.Options{KeepDays: c.KeepDays, DryRun: c.DryRun, Pack: c.Pack, Now: clock.Real{}.Now(), DropAborted: c.Aggressive}
	if c.KeepDays == 0 || c.Aggressive {
		opts.KeepDays = -1 // no age margin
	}
	rep, err := gc.Run(app.Ctx, w, opts)
	if err != nil {
		return err
	}
	verb := "removed"
	if c.DryRun {
		verb = "would remove"
	}
	app.printf("%d objects (%d reachable from %d roots): %s %d unreachable loose object(s), %s; kept %d younger than %d days\n",
		rep.Scanned, rep.Reachable, rep.Roots, verb, rep.Deleted, humanBytes(rep.Reclaimed), rep.Young, c.KeepDays)
	if len(rep.Dropped) > 0 {
		what := "dropped"
		if c.DryRun {
			what = "would drop"
		}
		app.printf("%s %d aborted session(s): %s\n", what, len(rep.Dropped), strings.Join(rep.Dropped, ", "))
	}
	if p := rep.Packed; p != nil {
		switch {
		case c.DryRun:
			app.printf("would pack %d loose object(s)\n", p.Objects)
		case p.Objects == 0:
			app.printf("nothing to pack: every reachable object is packed already\n")
		default:
			app.printf("packed %d object(s) into pack-%s (%s; the loose files took %s)", p.Objects, p.Name[:12], humanBytes(p.Bytes), humanBytes(p.Loose))
			if p.Skipped > 0 {
				app.printf("; %d larger object(s) stay loose", p.Skipped)
			}
			app.printf("\n")
		}
	}
	return app.emit(rep)
}

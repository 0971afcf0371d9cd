package main

import (
	"strings"

	"github.com/ctx-dev/ctx/repo"
)

// ReconcileCmd is `ctx reconcile`.
type ReconcileCmd struct{}

// Run merges every ref's heads under the writer lock.
func (c *ReconcileCmd) Run(app *App, w *repo.Writer) error {
	recs, err := w.Reconcile(app.Ctx)
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		app.printf("nothing to reconcile: every ref has one head\n")
	}
	for _, rec := range recs {
		if rec.Skipped != "" {
			app.printf("%s: left alone: %s\n", rec.Ref, rec.Skipped)
			continue
		}
		if rec.Merged {
			app.printf("%s: merged %d heads into %s\n", rec.Ref, len(rec.Heads), rec.Result)
			if len(rec.Conflicts) > 0 {
				app.printf("  both sides changed (kept the newer): %s\n", strings.Join(rec.Conflicts, ", "))
			}
		} else {
			app.printf("%s: dropped %d stale head(s); head is %s\n", rec.Ref, len(rec.Heads)-1, rec.Result)
		}
	}
	if recs == nil {
		recs = []repo.Reconciled{}
	}
	return app.emit(recs)
}

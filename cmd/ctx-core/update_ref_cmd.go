package main

import (
	"fmt"

	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
	"github.com/ctx-dev/ctx/repo"
)

// UpdateRefCmd is `ctx update-ref`.
type UpdateRefCmd struct {
	Delete bool   `short:"d" help:"Delete the ref (REF [OLD])."`
	Ref    string `arg:"" help:"Ref to set: main, refs/<name>, HEAD (sets the ref HEAD names) or STAGE."`
	New    string `arg:"" optional:"" help:"Revision to set the ref to."`
	Old    string `arg:"" optional:"" help:"Only update if OLD is a current head of the ref (64 zeros: only if the ref does not exist). Without it, every head is replaced."`
}

// Validate checks the arguments before the store is locked.
func (c *UpdateRefCmd) Validate() error {
	if _, err := refs.ParseName(c.Ref); err != nil {
		return err
	}
	if c.Delete && c.Old != "" {
		return fmt.Errorf("-d takes REF [OLD], not three arguments")
	}
	if !c.Delete && c.New == "" {
		return fmt.Errorf("missing NEW: ctx update-ref REF NEW [OLD]")
	}
	return nil
}

// Run updates the ref under the writer lock.
func (c *UpdateRefCmd) Run(app *App, w *repo.Writer) error {
	name, err := refs.ParseName(c.Ref)
	if err != nil {
		return err
	}
	oldArg := c.Old
	if c.Delete {
		oldArg = c.New
	}
	exp := refs.Any()
	var old *object.ID
	if oldArg != "" {
		if oldArg == object.Zero.String() {
			exp = refs.Absent()
		} else {
			// A full id is taken as it is, even if its object is missing:
			// compare-and-swap away a head whose object is gone is exactly
			// how such a ref is repaired.
			id, err := object.ParseID(oldArg)
			if err != nil {
				if id, err = w.Resolve(oldArg); err != nil {
					return fmt.Errorf("OLD: %w", err)
				}
			}
			exp, old = refs.Among(id), &id
		}
	}
	before, _ := w.Refs.Heads(name)
	out := map[string]any{"ref": name.String(), "old": before}
	if c.Delete {
		if err := w.DeleteRef(name, exp); err != nil {
			return err
		}
		out["deleted"] = true
		if old != nil {
			out["deleted_head"] = *old
		}
		return app.emit(out)
	}
	id, err := w.Resolve(c.New)
	if err != nil {
		return fmt.Errorf("NEW: %w", err)
	}
	if err := w.UpdateRef(name, id, exp); err != nil {
		return err
	}
	out["new"] = id
	return app.emit(out)
}

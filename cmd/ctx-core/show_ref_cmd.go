package main

import (
	"fmt"
	"path"

	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
	"github.com/ctx-dev/ctx/repo"
)

// ShowRefCmd is `ctx show-ref`.
type ShowRefCmd struct {
	Head     bool     `help:"Also show HEAD (and the ref it names)."`
	Patterns []string `arg:"" optional:"" name:"pattern" help:"Show only refs whose name matches a glob (e.g. main, 'feature/*')."`
}

type refRow struct {
	Name   string      `json:"name"`
	Target string      `json:"target,omitempty"` // for HEAD
	Heads  []object.ID `json:"heads"`
	Error  string      `json:"error,omitempty"` // a damaged HEAD
}

// Run lists the refs, one line per head.
func (c *ShowRefCmd) Run(app *App, r *repo.Repo) error {
	rows, err := listRefs(r, c.Head, c.Patterns)
	if err != nil {
		return err
	}
	for _, row := range rows {
		if row.Error != "" && !app.Globals.JSON {
			fmt.Fprintf(app.Stderr, "ctx: warning: %s: %s\n", row.Name, row.Error)
		}
		for _, h := range row.Heads {
			app.printf("%s %s\n", h, row.Name)
		}
	}
	return app.emit(rows)
}

func listRefs(r *repo.Repo, withHead bool, patterns []string) ([]refRow, error) {
	all, err := r.Refs.List()
	if err != nil {
		return nil, err
	}
	rows := []refRow{}
	if withHead {
		// A damaged HEAD is reported in its row, not as a failure: this
		// is what one looks at to repair a store.
		row := refRow{Name: "HEAD", Heads: []object.ID{}}
		if target, err := r.Refs.Target(); err != nil {
			row.Error = message(err)
		} else {
			row.Target = target.String()
			if heads, err := r.Refs.Heads(target); err == nil {
				row.Heads = heads
			}
		}
		rows = append(rows, row)
	}
	for _, ref := range all {
		if !matchRef(ref.Name, patterns) {
			continue
		}
		rows = append(rows, refRow{Name: ref.Name.String(), Heads: ref.Heads})
	}
	return rows, nil
}

func matchRef(n refs.Name, patterns []string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		for _, cand := range []string{string(n), n.String()} {
			if ok, _ := path.Match(p, cand); ok {
				return true
			}
		}
	}
	return false
}

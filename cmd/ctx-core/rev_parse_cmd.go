package main

import (
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// RevParseCmd is `ctx rev-parse`.
type RevParseCmd struct {
	Short bool     `help:"Print abbreviated ids (12 hex digits)."`
	Revs  []string `arg:"" name:"rev" help:"Revisions: HEAD, STAGE, main, refs/<name>, an id or id prefix (at least 4 hex digits), each optionally followed by ^, ^N or ~N, or by :PATH."`
}

// Run resolves each revision.
func (c *RevParseCmd) Run(app *App, r *repo.Repo) error {
	type row struct {
		Rev string    `json:"rev"`
		ID  object.ID `json:"id"`
	}
	rows := make([]row, len(c.Revs))
	for i, rev := range c.Revs {
		id, err := r.Resolve(rev)
		if err != nil {
			return err
		}
		rows[i] = row{rev, id}
	}
	for _, row := range rows {
		if c.Short {
			app.printf("%s\n", row.ID.Short())
		} else {
			app.printf("%s\n", row.ID)
		}
	}
	return app.emit(rows)
}

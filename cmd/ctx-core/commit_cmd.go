package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ctx-dev/ctx/repo"
)

// CommitCmd is `ctx commit`.
type CommitCmd struct {
	Message     string `short:"m" placeholder:"MSG" help:"Commit message."`
	File        string `short:"F" placeholder:"FILE" help:"Read the message from FILE ('-': standard input)."`
	Amend       bool   `help:"Replace the last commit (same parents), adding what changed since."`
	NoNarrative bool   `name:"no-narrative" help:"Record no narrative files."`
	AllowEmpty  bool   `name:"allow-empty" help:"Commit even when nothing changed."`
	Author      string `env:"CTX_AUTHOR" help:"Author recorded in the commit."`
}

// Validate checks the flags before the store is locked.
func (c *CommitCmd) Validate() error {
	switch {
	case c.Message != "" && c.File != "":
		return fmt.Errorf("give -m or -F, not both")
	case c.Message == "" && c.File == "":
		return fmt.Errorf("missing commit message: give -m MSG or -F FILE")
	}
	return nil
}

// Run snapshots the changed narrative and moves the current ref.
func (c *CommitCmd) Run(app *App, w *repo.Writer) error {
	msg := c.Message
	if c.File != "" {
		var b []byte
		var err error
		if c.File == "-" {
			b, err = io.ReadAll(io.LimitReader(app.Stdin, 1<<20))
		} else {
			b, err = os.ReadFile(c.File)
		}
		if err != nil {
			return err
		}
		msg = string(b)
	}
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return &usageError{err: fmt.Errorf("empty commit message"), cmd: "commit"}
	}
	res, err := w.Commit(app.Ctx, repo.CommitOptions{
		Message: msg, Author: c.Author, Amend: c.Amend, NoNarrative: c.NoNarrative, AllowEmpty: c.AllowEmpty,
	})
	if err != nil {
		return err
	}
	for _, rec := range res.Reconciled {
		if rec.Merged {
			app.printf("merged %d heads of %s first (%s)\n", len(rec.Heads), rec.Ref, rec.Result.Short())
		}
	}
	if !res.Committed {
		app.printf("nothing to commit: the narrative is as %s recorded it (--allow-empty commits anyway)\n", res.Previous.Short())
		return app.emit(res)
	}
	subject, _, _ := strings.Cut(msg, "\n")
	app.printf("[%s %s] %s\n", strings.TrimPrefix(res.Ref, "refs/"), res.ID.Short(), subject)
	for _, nr := range res.Commit.NarrativeRefs {
		status := "unchanged"
		for _, ch := range res.Changes {
			if ch.Path == nr.Path {
				status = ch.Status
			}
		}
		app.printf("  %-9s narrative/%s\n", status, nr.Path)
	}
	return app.emit(res)
}

package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// CommitTreeCmd is `ctx commit-tree`.
type CommitTreeCmd struct {
	Tree    string   `arg:"" help:"Tree (or a commit, whose tree is used)."`
	Parents []string `short:"p" name:"parent" placeholder:"REV" help:"Parent commit; repeat for a merge."`
	Message string   `short:"m" placeholder:"MSG" help:"Commit message."`
	File    string   `short:"F" placeholder:"FILE" help:"Read the message from FILE ('-': standard input)."`
	Author  string   `env:"CTX_AUTHOR" help:"Author recorded in the commit."`
}

// Validate checks the flags before the store is opened.
func (c *CommitTreeCmd) Validate() error {
	switch {
	case c.Message != "" && c.File != "":
		return fmt.Errorf("give -m or -F, not both")
	case c.Message == "" && c.File == "":
		return fmt.Errorf("empty commit message: give -m MSG or -F FILE")
	}
	return nil
}

// Run writes the commit and prints its id. No ref moves.
func (c *CommitTreeCmd) Run(app *App, r *repo.Repo) error {
	msg := c.Message
	switch {
	case c.File == "-":
		b, err := io.ReadAll(app.Stdin)
		if err != nil {
			return err
		}
		msg = string(b)
	case c.File != "":
		b, err := os.ReadFile(c.File)
		if err != nil {
			return err
		}
		msg = string(b)
	}
	msg = strings.TrimRight(msg, "\n")
	if strings.TrimSpace(msg) == "" {
		return &usageError{err: fmt.Errorf("empty commit message: give -m MSG or -F FILE"), cmd: "commit-tree"}
	}
	tree, err := treeOf(r, c.Tree)
	if err != nil {
		return err
	}
	parents := make([]object.ID, len(c.Parents))
	for i, p := range c.Parents {
		if parents[i], err = r.Resolve(p); err != nil {
			return err
		}
	}
	id, err := r.CommitTree(tree, parents, msg, c.Author)
	if err != nil {
		return err
	}
	app.printf("%s\n", id)
	return app.emit(map[string]any{"id": id, "tree": tree, "parents": parents})
}

// treeOf resolves a tree-ish: a tree, or a commit's root tree.
func treeOf(r *repo.Repo, rev string) (object.ID, error) {
	id, err := r.Resolve(rev)
	if err != nil {
		return object.Zero, err
	}
	return r.TreeOf(id)
}

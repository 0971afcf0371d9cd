package main

import (
	"bufio"
	"fmt"

	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// LsTreeCmd is `ctx ls-tree`.
type LsTreeCmd struct {
	Recursive bool   `short:"r" help:"Recurse into subtrees, printing full paths of files."`
	NameOnly  bool   `name:"name-only" help:"Print only the paths."`
	Tree      string `arg:"" help:"Tree (or a commit, whose tree is listed)."`
}

type treeRow struct {
	Path string           `json:"path"`
	Kind object.EntryKind `json:"kind"`
	ID   object.ID        `json:"id"`
}

// Run lists the tree.
func (c *LsTreeCmd) Run(app *App, r *repo.Repo) error {
	tree, err := treeOf(r, c.Tree)
	if err != nil {
		return err
	}
	rows := []treeRow{}
	var walk func(id object.ID, prefix string) error
	walk = func(id object.ID, prefix string) error {
		t := new(object.Tree)
		if err := object.GetTyped(r.Objects, id, t); err != nil {
			return err
		}
		for _, e := range t.Entries {
			if c.Recursive && e.Kind == object.EntryTree {
				if err := walk(e.ID, prefix+e.Name+"/"); err != nil {
					return err
				}
				continue
			}
			rows = append(rows, treeRow{prefix + e.Name, e.Kind, e.ID})
		}
		return nil
	}
	if err := walk(tree, ""); err != nil {
		return err
	}
	if app.Globals.JSON {
		return app.emit(rows)
	}
	out := bufio.NewWriter(app.Stdout)
	for _, row := range rows {
		if c.NameOnly {
			fmt.Fprintln(out, row.Path)
		} else {
			fmt.Fprintf(out, "%s %s\t%s\n", row.Kind, row.ID, row.Path)
		}
	}
	return out.Flush()
}

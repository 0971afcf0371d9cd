package main

import "github.com/ctx-dev/ctx/repo"

// DebugCmd groups the inspection commands of design §13.2.10.
type DebugCmd struct {
	Refs    DebugRefsCmd  `cmd:"" help:"Show HEAD, every ref and its heads (= show-ref --head)."`
	Cat     DebugCatCmd   `cmd:"" help:"Print an object (= cat-object -p)."`
	History LogCmd        `cmd:"" help:"Show the commit history (= log)."`
	Verify  VerifyCmd     `cmd:"" help:"Verify the store (= verify)."`
	Graph   DebugGraphCmd `cmd:"" help:"Export the relationship graph (text, dot, json) or report its cycles (--scc)."`
	Index   DebugIndexCmd `cmd:"" help:"Look a key up in one index: path, key, name, node, kind or term."`
	Pack    DebugPackCmd  `cmd:"" help:"Build a prompt pack and explain it (= query --explain --format text)."`
}

// DebugRefsCmd is `ctx debug refs`.
type DebugRefsCmd struct{}

// Run lists HEAD and every ref.
func (c *DebugRefsCmd) Run(app *App, r *repo.Repo) error {
	return (&ShowRefCmd{Head: true}).Run(app, r)
}

// DebugCatCmd is `ctx debug cat`.
type DebugCatCmd struct {
	Object string `arg:"" help:"Object id, id prefix or revision."`
}

// Run prints the object.
func (c *DebugCatCmd) Run(app *App, r *repo.Repo) error {
	return (&CatObjectCmd{Pretty: true, Object: c.Object}).Run(app, r)
}

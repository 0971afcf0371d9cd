package main

import (
	"github.com/ctx-dev/ctx/mcp"
	"github.com/ctx-dev/ctx/repo"
)

// McpCmd is `ctx mcp`: the Model Context Protocol server over stdio
// (docs/MCP.md).
type McpCmd struct{}

// Run serves one MCP client on stdin and stdout until it disconnects.
// Each tool call opens the store afresh and a writing one holds the
// writer lock for that call only.
func (c *McpCmd) Run(app *App, r *repo.Repo) error {
	app.interruptible()
	app.serving()
	wd, err := app.wd()
	if err != nil {
		return err
	}
	s, err := mcp.New(mcp.Options{
		Root: r.Root, Session: app.Globals.Session, Clock: app.Clock,
		LockTimeout: app.Globals.LockTimeout, Wd: wd, Log: app.Stderr,
	})
	if err != nil {
		return err
	}
	return s.Serve(app.Ctx, app.Stdin, app.Stdout)
}

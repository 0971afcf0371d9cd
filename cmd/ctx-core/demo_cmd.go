package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/ctx-dev/ctx/internal/demo"
)

// DemoCmd is `ctx demo`.
type DemoCmd struct {
	Keep string `name:"keep" placeholder:"DIR" help:"Create the demo project in DIR (which must not exist) and keep it; by default it goes to a temporary directory that is removed afterwards."`
}

// Run runs the demo and narrates it.
func (c *DemoCmd) Run(app *App) error {
	dir := c.Keep
	if dir == "" {
		tmp, err := os.MkdirTemp("", "ctx-demo-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else {
		if _, err := os.Stat(dir); err == nil {
			return &usageError{err: fmt.Errorf("%s already exists; --keep needs a new directory", dir), cmd: "demo"}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	var out io.Writer = app.Stdout
	if app.Globals.JSON {
		out = io.Discard
	}
	app.interruptible()
	sum, err := demo.Run(app.Ctx, demo.Options{Dir: dir, Out: out, Clock: app.Clock})
	if err != nil {
		return err
	}
	if c.Keep == "" {
		app.printf("\n(the demo project was in a temporary directory; keep it with `ctx demo --keep DIR`)\n")
	}
	return app.emit(sum)
}

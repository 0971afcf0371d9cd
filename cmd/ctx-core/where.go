package main

import (
	"errors"
	"strings"

	"github.com/ctx-dev/ctx/index"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/narrative/where"
	"github.com/ctx-dev/ctx/repo"
)

// parseWhere parses a --where expression; a syntax error is a usage
// error.
func parseWhere(app *App, cmd, expr string) (*where.Expr, error) {
	e, err := where.Parse(expr, app.Clock.Now())
	if err != nil {
		return nil, &usageError{err: whereErr(app, err), cmd: cmd}
	}
	return e, nil
}

// resolveWhere resolves the node ids of a --where expression in cat; an
// unknown or ambiguous id keeps its own code (E019, E017).
func resolveWhere(app *App, e *where.Expr, cat *narrative.Catalog) error {
	err := e.Resolve(func(prefix string) (narrative.ID, error) {
		n, err := cat.Resolve(prefix)
		if err != nil {
			return "", err
		}
		return n.ID, nil
	})
	return whereErr(app, err)
}

// whereErr wraps an error of package where for printing: with the
// expression and a caret under the column, except in JSON, whose message
// stays one line.
func whereErr(app *App, err error) error {
	var we *where.Error
	if !errors.As(err, &we) {
		return err
	}
	return &whereError{err: we, caret: !app.Globals.JSON}
}

// whereError is a --where error as the CLI prints it:
//
//	--where: column 15: expected a value after "tag:"
//	  type:decision tag:
//	                ^
type whereError struct {
	err   *where.Error
	caret bool
}

func (e *whereError) Error() string {
	s := "--where: " + e.err.Error()
	if e.caret {
		s += "\n  " + strings.ReplaceAll(e.err.Caret(), "\n", "\n  ")
	}
	return s
}

func (e *whereError) Unwrap() error { return e.err }

// newWhereGraph is index.NewWhereGraph for a command.
func newWhereGraph(app *App, r *repo.Repo, cat *narrative.Catalog, e *where.Expr) (*index.WhereGraph, error) {
	return index.NewWhereGraph(app.Ctx, r, cat, e)
}

package main

import (
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// VersionCmd is `ctx version`.
type VersionCmd struct{}

// Run prints the versions.
func (c *VersionCmd) Run(app *App) error {
	app.printf("ctx %s (object envelope %s)\n", repo.Version, object.Magic)
	return app.emit(map[string]string{"version": repo.Version, "object_envelope": object.Magic})
}

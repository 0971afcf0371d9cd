package main

import (
	"path/filepath"

	"github.com/ctx-dev/ctx/repo"
)

// InitCmd is `ctx init`.
type InitCmd struct {
	Force bool   `help:"Replace an existing store; everything in it is lost."`
	NoGit bool   `name:"no-git" help:"Keep the store out of git: its .gitignore excludes everything."`
	ID    string `name:"id" placeholder:"NAME" help:"Repository identity recorded in config.toml (default: the directory's name)."`
	Path  string `arg:"" optional:"" placeholder:"DIR" help:"Project directory (default: --dir, else the working directory)."`
}

// Run creates the store.
func (c *InitCmd) Run(app *App) error {
	dir := c.Path
	if dir == "" {
		dir = app.Globals.Dir
	}
	if dir == "" {
		wd, err := app.wd()
		if err != nil {
			return err
		}
		dir = wd
	}
	if filepath.Base(filepath.Clean(dir)) == repo.DirName {
		dir = filepath.Dir(filepath.Clean(dir)) // --dir named the store itself
	}
	r, err := repo.Init(dir, repo.InitOptions{Options: repo.Options{Clock: app.Clock}, Force: c.Force, NoGit: c.NoGit, RepoID: c.ID})
	if err != nil {
		return err
	}
	head, err := r.Resolve("main")
	if err != nil {
		return err
	}
	app.printf("Initialized empty ctx store in %s\n", r.Root)
	app.printf("refs/main -> %s\n", head)
	if !c.NoGit {
		app.printf("To share it with your team: git add .ctx && git commit -m 'Add ctx store'\n")
	}
	return app.emit(map[string]any{"root": r.Root, "repo_id": r.Config.Repo.ID, "head": head, "git": !c.NoGit})
}

package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ctx-dev/ctx/hook/install"
	"github.com/ctx-dev/ctx/repo"
)

// installFlags are the flags of install and uninstall.
type installFlags struct {
	User          bool   `help:"Install for every project of this user: ~/.claude/ (hooks in a project without a store answer {})."`
	Project       bool   `help:"Install for this project: <project>/.claude/ (the default)."`
	WriteSettings bool   `name:"write-settings" help:"Write the hooks into settings.json (merged: nothing else there changes); without it the snippet to add is printed."`
	Program       string `placeholder:"PATH" help:"The program the hooks run (default: ctx-core, found on PATH, installed beside ctx)."`
}

func (f *installFlags) validate() error {
	if f.User && f.Project {
		return fmt.Errorf("give --user or --project, not both")
	}
	return nil
}

// options turns the flags into install.Options: the project is the one
// whose store --dir or the working directory names, else the working
// directory itself.
func (f *installFlags) options(app *App) (install.Options, error) {
	o := install.Options{Scope: install.Project, WriteSettings: f.WriteSettings, Program: f.Program, HomeDir: app.Getenv("HOME")}
	if f.User {
		o.Scope = install.User
		return o, nil
	}
	root, err := app.storeRoot()
	switch {
	case err == nil:
		r, err := repo.Open(root, repo.Options{Clock: app.Clock})
		if err != nil {
			return o, err
		}
		o.ProjectDir = r.ProjectRoot()
	case errors.Is(err, repo.ErrNotAStore):
		if app.Globals.Dir != "" {
			o.ProjectDir = app.Globals.Dir
		} else if o.ProjectDir, err = app.wd(); err != nil {
			return o, err
		}
	default:
		return o, err
	}
	return o, nil
}

// InstallCmd is `ctx install`.
type InstallCmd struct{ installFlags }

// Validate checks the flags.
func (c *InstallCmd) Validate() error { return c.validate() }

// Run writes the skill and merges the hooks.
func (c *InstallCmd) Run(app *App) error {
	o, err := c.options(app)
	if err != nil {
		return err
	}
	res, err := install.Install(o)
	if err != nil {
		return err
	}
	if app.Globals.JSON {
		return app.emit(res)
	}
	verb := "up to date"
	if res.SkillChanged {
		verb = "written"
	}
	app.printf("Skill: %s (%s)\n", res.Skill, verb)
	switch {
	case len(res.Added) == 0:
		app.printf("Hooks: %s has them all\n", res.Settings)
	case res.SettingsWritten:
		app.printf("Hooks: added %s to %s\n", strings.Join(res.Added, ", "), res.Settings)
	default:
		app.printf("Hooks: %s lacks %s. Add this to it (or run ctx install --write-settings, which merges it):\n\n%s\n",
			res.Settings, strings.Join(res.Added, ", "), res.Snippet)
	}
	if o.Scope == install.Project {
		if _, err := app.storeRoot(); errors.Is(err, repo.ErrNotAStore) {
			app.printf("No .ctx store here yet: run ctx init (the hooks answer {} until then).\n")
		}
	}
	app.printf("Restart Claude Code (or run /hooks) to load the hooks.\n")
	return nil
}

// UninstallCmd is `ctx uninstall`.
type UninstallCmd struct{ installFlags }

// Validate checks the flags.
func (c *UninstallCmd) Validate() error { return c.validate() }

// Run removes the skill and, with --write-settings, the hooks.
func (c *UninstallCmd) Run(app *App) error {
	o, err := c.options(app)
	if err != nil {
		return err
	}
	res, err := install.Uninstall(o)
	if err != nil {
		return err
	}
	if app.Globals.JSON {
		return app.emit(res)
	}
	if res.SkillChanged {
		app.printf("Skill: removed %s\n", res.Skill)
	} else {
		app.printf("Skill: %s was not there\n", res.Skill)
	}
	switch {
	case len(res.Removed) == 0:
		app.printf("Hooks: none of ctx's in %s\n", res.Settings)
	case res.SettingsWritten:
		app.printf("Hooks: removed ctx's from %s (%s)\n", res.Settings, strings.Join(res.Removed, ", "))
	default:
		app.printf("Hooks: %s still runs ctx on %s: run ctx uninstall --write-settings to remove them (nothing else changes)\n", res.Settings, strings.Join(res.Removed, ", "))
	}
	return nil
}

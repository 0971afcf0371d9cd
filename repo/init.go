package repo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/fault"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
)

// InitOptions configure Init.
type InitOptions struct {
	Options
	// Force replaces an existing store. Its objects, refs and narrative
	// are lost.
	Force bool
	// NoGit makes the store local: its .gitignore excludes everything, so
	// git never tracks it.
	NoGit bool
	// RepoID is the repository identity; default: the project directory's
	// name.
	RepoID string
}

// GitIgnore is .ctx/.gitignore for a store shared through git: the derived
// and per-machine parts stay out of git.
const GitIgnore = `# Local state of ctx: derived or per-machine, never shared through git.
# See docs/COLLABORATION.md.
/index/
/DERIVED/
/LOCK
/STAGE
/sessions/
/local/
*.tmp
`

// GitIgnoreLocal is .ctx/.gitignore for a store made with --no-git.
const GitIgnoreLocal = `# This ctx store is local (ctx init --no-git): git ignores all of it.
*
`

// GitAttributes is .ctx/.gitattributes: objects are compressed files named
// by their content, never to be diffed, merged or converted; ref and HEAD
// files are never converted either.
const GitAttributes = `# ctx objects are written once and named by their content: git must never
# convert, diff or merge them. Ref files are never converted.
objects/** binary
refs/** -text
HEAD -text
# Narrative files grow by appended lines that each carry a unique id, and
# one file per node: git's union driver merges them without conflicts.
narrative/** merge=union
`

// NarrativeReadme is the narrative overview a new store starts with. It is
// the same in every store, so independently created stores merge cleanly.
const NarrativeReadme = `# Narrative

The human-readable memory of this project, kept by ctx and by you. Read
it with any editor and edit it freely: ctx re-reads it on every command.

- decisions.md: one line per decision, linking to its file in decisions/.
- log/YYYY-MM-DD.md: the daily journal (UTC days), one line per event.
- decisions/, tasks/, facts/, patterns/, observations/, hypotheses/,
  questions/, summaries/, sources/: one file per node. The comment at the
  top of each holds its id, type, creation time and tags; lines appended
  at its end record later changes.

Add knowledge with ctx add note|decision|task|fact|pattern|hypothesis|
question "text", list it with ctx list, and record it in history with
ctx commit -m "message". docs/FORMAT.md in the ctx repository describes
every file.
`

// InitialMessage is the message of the root commit of every store.
const InitialMessage = "Initialize ctx store"

// Init creates a store in dir/.ctx: the layout of design §5.1, config.toml
// with the defaults, .gitignore and .gitattributes, and a root commit with
// the empty tree that refs/main names. The root commit is the same in every
// store (it has time 0), so stores created independently for the same
// project share their root and merge cleanly.
//
// The store is built in a temporary directory beside .ctx and renamed into
// place, so a crash leaves either no store or a complete one.
func Init(dir string, opts InitOptions) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("repo: init: %w", err)
	}
	if st, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
		// Like git init, create the project directory.
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return nil, fmt.Errorf("repo: init: %w", err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("repo: init: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%w: %s is not a directory", ErrNotDirectory, abs)
	}
	root := filepath.Join(abs, DirName)
	_, statErr := os.Lstat(root)
	exists := statErr == nil
	if exists && !opts.Force {
		return nil, fmt.Errorf("%w: %s (use --force to replace it)", ErrExists, root)
	}
	if statErr != nil && !errors.Is(statErr, fs.ErrNotExist) {
		return nil, fmt.Errorf("repo: init: %w", statErr)
	}
	id := opts.RepoID
	if id == "" {
		id = filepath.Base(abs)
	}
	cfg := DefaultConfig(id)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}

	tmp, err := os.MkdirTemp(abs, DirName+".init-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("repo: init: %w", err)
	}
	defer os.RemoveAll(tmp) // after a successful rename there is nothing left
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("repo: init: %w", err)
	}
	if err := populate(tmp, &cfg, opts.NoGit); err != nil {
		return nil, err
	}
	fault.Hit("repo.init-populated")
	if exists {
		// Keep writers of the old store out while it is swapped away.
		// (A store too damaged to lock is replaced all the same.)
		if old, err := Open(root, opts.Options); err == nil {
			w, err := old.Lock(context.Background(), LockOptions{Timeout: DefaultLockTimeout, Command: "ctx init --force"})
			if err != nil {
				return nil, err
			}
			defer w.Unlock()
		}
	}
	if err := install(tmp, root, exists); err != nil {
		return nil, err
	}
	return Open(root, opts.Options)
}

// install moves the new store tmp to root. An existing store is swapped out
// in one atomic exchange where the file system allows, so that a crash
// leaves the old store or the new one; elsewhere the old store is moved
// aside first, and a crash between the two renames leaves it in
// .ctx.old.tmp.
func install(tmp, root string, exists bool) error {
	parent := filepath.Dir(root)
	if exists {
		err := atomicfile.Exchange(tmp, root)
		if err == nil {
			fault.Hit("repo.init-exchanged")
			if err := atomicfile.SyncDir(parent); err != nil {
				return fmt.Errorf("repo: init: %w", err)
			}
			return os.RemoveAll(tmp) // the old store
		}
		if !errors.Is(err, errors.ErrUnsupported) {
			return fmt.Errorf("repo: init: %w", err)
		}
		old := filepath.Join(parent, DirName+".old.tmp")
		_ = os.RemoveAll(old)
		if err := os.Rename(root, old); err != nil {
			return fmt.Errorf("repo: init: move old store aside: %w", err)
		}
		fault.Hit("repo.init-moved-old")
		defer os.RemoveAll(old)
	}
	if err := os.Rename(tmp, root); err != nil {
		return fmt.Errorf("repo: init: %w", err)
	}
	fault.Hit("repo.init-renamed")
	if err := atomicfile.SyncDir(parent); err != nil {
		return fmt.Errorf("repo: init: %w", err)
	}
	return nil
}

// populate writes a complete store into the empty directory root.
func populate(root string, cfg *Config, noGit bool) error {
	for _, d := range []string{"objects", "refs", "narrative"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			return fmt.Errorf("repo: init: %w", err)
		}
	}
	ignore := GitIgnore
	if noGit {
		ignore = GitIgnoreLocal
	}
	files := []struct {
		name string
		data string
	}{
		{"config.toml", string(cfg.Text())},
		{".gitignore", ignore},
		{"HEAD", "ref: refs/main\n"},
		{"narrative/README.md", NarrativeReadme},
	}
	if !noGit {
		files = append(files, struct{ name, data string }{".gitattributes", GitAttributes})
	}
	for _, f := range files {
		if err := atomicfile.Write(filepath.Join(root, f.name), []byte(f.data), 0o644); err != nil {
			return fmt.Errorf("repo: init: %w", err)
		}
	}
	objs, err := object.NewStore(filepath.Join(root, "objects"), object.StoreOptions{CompressionLevel: cfg.Storage.CompressionLevel})
	if err != nil {
		return err
	}
	tree, err := object.PutTyped(objs, &object.Tree{})
	if err != nil {
		return fmt.Errorf("repo: init: %w", err)
	}
	commit, err := object.PutTyped(objs, &object.Commit{RootTree: tree, Message: InitialMessage})
	if err != nil {
		return fmt.Errorf("repo: init: %w", err)
	}
	if err := refs.NewStore(root).Update(refs.Main, commit, refs.Absent()); err != nil {
		return fmt.Errorf("repo: init: %w", err)
	}
	return atomicfile.SyncDir(root)
}

package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/graph/build"
	"github.com/ctx-dev/ctx/graph/diag"
	"github.com/ctx-dev/ctx/graph/extract"
	"github.com/ctx-dev/ctx/internal/clock"
	"github.com/ctx-dev/ctx/internal/storeloc"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
	"github.com/ctx-dev/ctx/staging"
)

// DirName is the name of the store directory inside a project.
const DirName = storeloc.DirName

// Repo is an open ctx store.
type Repo struct {
	// Root is the .ctx directory.
	Root string
	// Config is the parsed config.toml.
	Config Config
	// Objects is the object store.
	Objects *object.Store
	// Refs reads refs. Moving refs takes the writer lock: see Writer.
	Refs refs.Reader
	// refStore is Refs with its write methods, for Writer.
	refStore *refs.Store
	// Types knows every typed object type of this version of ctx.
	Types *object.Registry
	// Clock tells the time for new commits.
	Clock clock.Clock
	// Session selects the staging session this process works in; empty
	// means the one STAGE names, if any (see ActiveSession).
	Session string
}

// Options configure Open and Init.
type Options struct {
	// Clock is the time source; nil means the wall clock.
	Clock clock.Clock
	// Session is Repo.Session (--session, CTX_SESSION).
	Session string
}

// Registry returns a registry of every typed object type ctx defines.
func Registry() (*object.Registry, error) {
	types := append(object.CoreTypes(), graph.Types()...)
	types = append(types, extract.Types()...)
	types = append(types, build.Types()...)
	types = append(types, diag.Types()...)
	types = append(types, func() object.Typed { return new(DiagnosticsSnapshot) })
	types = append(types, staging.Types()...)
	return object.NewRegistry(types...)
}

// Locate finds the store for dir. If dir is itself a store (a directory
// holding objects/ and HEAD), that is it; if dir has a .ctx store, that is
// it; otherwise, with walkUp, the parents of dir are searched like git
// does. It returns the absolute path of the .ctx directory.
func Locate(dir string, walkUp bool) (string, error) { return storeloc.Locate(dir, walkUp) }

func isStore(dir string) bool { return storeloc.IsStore(dir) }

// Open opens the store whose .ctx directory is root.
func Open(root string, opts Options) (*Repo, error) {
	if !isStore(root) {
		return nil, fmt.Errorf("%w: %s has no objects/ or HEAD", ErrNotAStore, root)
	}
	cfg, err := LoadConfig(filepath.Join(root, "config.toml"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s/config.toml is missing", ErrConfig, root)
		}
		return nil, err
	}
	objs, err := object.NewStore(filepath.Join(root, "objects"), object.StoreOptions{CompressionLevel: cfg.Storage.CompressionLevel})
	if err != nil {
		return nil, err
	}
	types, err := Registry()
	if err != nil {
		return nil, err
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	rs := refs.NewStore(root)
	return &Repo{Root: root, Config: cfg, Objects: objs, Refs: rs, refStore: rs, Types: types, Clock: clk, Session: opts.Session}, nil
}

// Rel returns path relative to the .ctx directory, for messages.
func (r *Repo) Rel(path string) string {
	rel, err := filepath.Rel(r.Root, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(rel)
}

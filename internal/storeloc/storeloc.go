// Package storeloc finds a ctx store (a .ctx directory) the way every ctx
// command does: repo.Locate is this package's Locate. It imports only the
// standard library, for ctx's lean front end (cmd/ctx).
package storeloc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// DirName is the name of the store directory inside a project.
const DirName = ".ctx"

// ErrNotAStore means no .ctx directory was found.
var ErrNotAStore = errors.New("repo: not a ctx store")

// Locate finds the store for dir. If dir is itself a store (a directory
// holding objects/ and HEAD), that is it; if dir has a .ctx store, that is
// it; otherwise, with walkUp, the parents of dir are searched like git
// does. It returns the absolute path of the .ctx directory.
func Locate(dir string, walkUp bool) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("repo: %w", err)
	}
	if IsStore(abs) {
		return abs, nil
	}
	for d := abs; ; d = filepath.Dir(d) {
		if c := filepath.Join(d, DirName); IsStore(c) {
			return c, nil
		}
		if !walkUp || filepath.Dir(d) == d {
			break
		}
	}
	if walkUp {
		return "", fmt.Errorf("%w: no %s directory in %s or any parent", ErrNotAStore, DirName, abs)
	}
	return "", fmt.Errorf("%w: %s holds no %s store", ErrNotAStore, abs, DirName)
}

// IsStore reports whether dir is a store: a directory with objects/ and
// a regular file HEAD.
func IsStore(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "objects"))
	if err != nil || !st.IsDir() {
		return false
	}
	st, err = os.Stat(filepath.Join(dir, "HEAD"))
	return err == nil && st.Mode().IsRegular()
}

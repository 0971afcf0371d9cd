package view

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/regfile"
)

// Ext ends the name of every view file.
const Ext = ".toml"

// Store is the views directory of a ctx store (.ctx/views/): one file
// NAME.toml per view, so that teammates who create or change different
// views change different files, which git merges without a conflict. A
// missing directory holds no view. Files whose names are not a valid view
// name followed by ".toml" (temporary files, a README) are not views.
//
// Its write methods must be called with the store's writer lock held
// (repo.Writer); readers take no lock, and see each file whole, old or
// new, because every write replaces a file atomically.
type Store struct {
	// Dir is the views directory.
	Dir string
}

// Path returns the file of the view name (a valid name).
func (s *Store) Path(name string) string { return filepath.Join(s.Dir, name+Ext) }

// Get returns the view name: its file, or for "default" without a file
// the built-in view. A missing view is ErrNotFound; a file that cannot be
// read or decoded, a *FileError.
func (s *Store) Get(name string) (*View, error) {
	n, err := ParseName(name)
	if err != nil {
		return nil, err
	}
	v, err := s.read(n)
	if errors.Is(err, ErrNotFound) && n == DefaultName {
		return Default(), nil
	}
	return v, err
}

// read reads the file of the view n.
func (s *Store) read(n string) (*View, error) {
	path := s.Path(n)
	data, err := regfile.Read(path, maxFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: %s", ErrNotFound, n)
	case errors.Is(err, regfile.ErrNotRegular):
		return nil, &FileError{Path: path, Msg: "not a regular file", Err: err}
	case errors.Is(err, regfile.ErrTooLarge):
		return nil, &FileError{Path: path, Msg: fmt.Sprintf("larger than the %d bytes a view file may have", maxFile), Err: err}
	case err != nil:
		return nil, &FileError{Path: path, Msg: err.Error(), Err: err}
	}
	v, err := Decode(n, data)
	if err != nil {
		var fe *FileError
		if errors.As(err, &fe) {
			fe.Path = path
		}
		return nil, err
	}
	return v, nil
}

// List returns every view, sorted by name, the built-in default among
// them unless a file replaces it; and, apart, the files that look like
// views but cannot be read or decoded (each a *FileError), so that one
// bad file does not hide the others.
func (s *Store) List() ([]*View, []error, error) {
	entries, err := os.ReadDir(s.Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("view: list %s: %w", s.Dir, err)
	}
	var views []*View
	var bad []error
	seen := false
	for _, e := range entries {
		stem, ok := strings.CutSuffix(e.Name(), Ext)
		if !ok || strings.HasPrefix(e.Name(), ".") {
			continue // not a view file: a temporary file, a README, …
		}
		n, err := ParseName(stem)
		if err != nil || n != stem {
			bad = append(bad, &FileError{Path: filepath.Join(s.Dir, e.Name()), Msg: "not a view: " + nameRule + ", then " + Ext})
			continue
		}
		v, err := s.read(n)
		switch {
		case errors.Is(err, ErrNotFound):
			continue // removed while we listed
		case err != nil:
			bad = append(bad, err)
			continue
		}
		seen = seen || n == DefaultName
		views = append(views, v)
	}
	if !seen {
		views = append(views, Default())
	}
	sort.Slice(views, func(i, j int) bool { return views[i].Name < views[j].Name })
	return views, bad, nil
}

// Create writes the view v, whose Created and Updated become now. A view
// of the same name, the built-in default included, is ErrExists unless
// replace is true. v is validated first; on any error nothing is written.
func (s *Store) Create(v *View, now time.Time, replace bool) error {
	n, err := ParseName(v.Name)
	if err != nil {
		return err
	}
	v.Name = n
	if err := v.Validate(); err != nil {
		return err
	}
	if !replace {
		switch _, err := s.Get(n); {
		case err == nil:
			return fmt.Errorf("%w: %s", ErrExists, n)
		case !errors.Is(err, ErrNotFound):
			// A damaged file is a view too: replacing it takes --force.
			var fe *FileError
			if errors.As(err, &fe) {
				return fmt.Errorf("%w: %s (its file is damaged: %s)", ErrExists, n, fe.Msg)
			}
			return err
		}
	}
	v.Created, v.Updated, v.Builtin = now.UTC().Truncate(time.Second), now.UTC().Truncate(time.Second), false
	return s.write(v)
}

// Change is what Update changes; nil fields are left as they are.
type Change struct {
	Query       *string
	Budget      *int // 0: the default budget
	Description *string
	Format      *Format // 0: Markdown unless the caller asks for JSON
}

// Update changes the view name and writes it, Updated set to now. The
// built-in default view gets a file (which replaces it from then on). A
// missing view is ErrNotFound; an invalid result changes nothing.
func (s *Store) Update(name string, c Change, now time.Time) (*View, error) {
	v, err := s.Get(name)
	if err != nil {
		return nil, err
	}
	if c.Query != nil {
		v.Query = *c.Query
	}
	if c.Budget != nil {
		v.Budget = *c.Budget
	}
	if c.Description != nil {
		v.Description = *c.Description
	}
	if c.Format != nil {
		v.Format = *c.Format
	}
	if err := v.Validate(); err != nil {
		return nil, err
	}
	now = now.UTC().Truncate(time.Second)
	if v.Builtin {
		v.Created, v.Builtin = now, false
	}
	v.Updated = now
	if err := s.write(v); err != nil {
		return nil, err
	}
	return v, nil
}

// Delete removes the file of the view name. For the default view the
// built-in one applies again; the built-in view itself cannot be deleted
// (ErrBuiltin). A missing view is ErrNotFound.
func (s *Store) Delete(name string) error {
	n, err := ParseName(name)
	if err != nil {
		return err
	}
	path := s.Path(n)
	if _, err := os.Lstat(path); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("view: delete %s: %w", n, err)
		}
		if n == DefaultName {
			return fmt.Errorf("%w: default has no file to delete (a file named default.toml would replace it)", ErrBuiltin)
		}
		return fmt.Errorf("%w: %s", ErrNotFound, n)
	}
	if err := atomicfile.Remove(path); err != nil {
		return fmt.Errorf("view: delete %s: %w", n, err)
	}
	return nil
}

// write replaces the file of v atomically and durably (docs/FORMAT.md
// §10): a crash leaves the old file or the new one.
func (s *Store) write(v *View) error {
	if err := atomicfile.MkdirAll(s.Dir); err != nil {
		return fmt.Errorf("view: %w", err)
	}
	if err := atomicfile.Write(s.Path(v.Name), Encode(v), 0o644); err != nil {
		return fmt.Errorf("view: write %s: %w", v.Name, err)
	}
	return nil
}

package ignore

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Walk walks the tree at dir, a slash-separated directory relative to the
// root ("" or "." for the root), like fs.WalkDir but for what git does not
// ignore: it calls fn for dir itself and for every path below it that is
// not ignored, and never enters an ignored directory. Entries come in
// lexical order, parents before children; rel is root-relative ("." for
// the root). fn runs on the calling goroutine.
//
// Walk does not follow symbolic links: fn gets a link's own DirEntry
// (d.Type() has fs.ModeSymlink) and decides. Returning fs.SkipDir from fn
// skips a directory, or the rest of the directory holding a file;
// fs.SkipAll stops the walk; any other error stops it and Walk returns
// that error. If dir itself is ignored, fn is never called. If dir is a
// file, fn is called for it alone.
//
// Walk fails when a directory cannot be listed, or an ignore file in it
// or above it cannot be read, since either would make it skip or take
// the wrong files.
func (m *Matcher) Walk(dir string, fn func(rel string, d fs.DirEntry) error) error {
	rel, ok := clean(dir)
	if !ok {
		return fmt.Errorf("ignore: walk %q: %w", dir, fs.ErrInvalid)
	}
	fi, err := os.Lstat(m.abs(rel))
	if err != nil {
		return err
	}
	name := rel
	if rel == "" {
		name = "."
	} else if m.Ignored(rel, fi.IsDir()) {
		return nil
	}
	d := fs.FileInfoToDirEntry(fi)
	var at *dirState
	if d.IsDir() {
		at = m.lookup(rel)
	} else {
		parent, _ := split(rel)
		at = m.lookup(parent)
	}
	// The ignore files above count too.
	for s := at; s != nil; s = s.parent {
		if s.err != nil {
			return s.err
		}
	}
	if d.IsDir() {
		err = m.walk(at, name, d, fn)
	} else {
		err = fn(name, d)
	}
	if err == fs.SkipDir || err == fs.SkipAll {
		return nil
	}
	return err
}

// walk calls fn for the directory at (which is not excluded), named rel
// for fn, and walks what is below it, as fs.WalkDir's walkDir does.
func (m *Matcher) walk(at *dirState, rel string, d fs.DirEntry, fn func(string, fs.DirEntry) error) error {
	if err := fn(rel, d); err != nil {
		if err == fs.SkipDir {
			return nil
		}
		return err
	}
	if at.err != nil {
		return at.err
	}
	entries, err := os.ReadDir(m.abs(at.rel))
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		childRel := name
		if at.rel != "" {
			childRel = at.rel + "/" + name
		}
		if e.IsDir() {
			child := m.child(at, childRel)
			if child.excludedBy != nil {
				continue
			}
			err = m.walk(child, childRel, e, fn)
		} else {
			if p := m.match(at, childRel, name, false); p != nil && !p.negative {
				continue
			}
			err = fn(childRel, e)
		}
		if err != nil {
			if err == fs.SkipDir {
				break
			}
			return err
		}
	}
	return nil
}

// abs returns the file path of the root-relative path rel.
func (m *Matcher) abs(rel string) string {
	return filepath.Join(m.root, filepath.FromSlash(rel))
}

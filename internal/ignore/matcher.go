package ignore

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/ctx-dev/ctx/internal/regfile"
)

// A Matcher answers whether git would ignore a path of one project. It
// reads each directory's .gitignore once, the first time a path below
// that directory is asked about, and keeps it. A Matcher is safe for
// concurrent use; it does not notice ignore files that change after it
// read them.
type Matcher struct {
	root  string
	extra []*pattern

	dirs sync.Map // root-relative directory ("" for the root) → *dirState

	// info holds .git/info/exclude. It is read with the root's .gitignore,
	// which every lookup loads first, so it is set before it is used.
	info []*pattern
}

// A dirState is what a Matcher knows about one directory.
type dirState struct {
	once   sync.Once
	rel    string    // "" for the root
	parent *dirState // nil for the root

	// excludedBy is the pattern that excludes the directory, or one of
	// its ancestors, or nil. Git reads no ignore file in an excluded
	// directory and excludes everything below it: a negation cannot
	// re-include a path whose parent directory is excluded.
	excludedBy *pattern
	patterns   []*pattern // the directory's .gitignore
	err        error      // reading its .gitignore (or, for the root, .git/info/exclude) failed
}

// New returns a Matcher for the project whose top directory is root.
//
// The extra patterns are in gitignore syntax, one per string, anchored at
// the root like the root's .gitignore, and take precedence over every
// ignore file, as `git ls-files --exclude` patterns do: "!vendor/"
// re-includes a vendor directory that a .gitignore excludes.
//
// Besides the .gitignore files and the extra patterns, a Matcher reads
// .git/info/exclude (following a .git file to its repository, as in a
// worktree or submodule), but never the user's core.excludesFile: the
// answers must not depend on the machine. Directories named .git or .ctx
// are always ignored, as is a file named .git (a worktree's or
// submodule's link, which git never lists either).
func New(root string, extra []string) *Matcher {
	m := &Matcher{root: root}
	for i, s := range extra {
		if p := parseLine(s); p != nil {
			p.line = i + 1
			m.extra = append(m.extra, p)
		}
	}
	return m
}

// Ignored reports whether git would ignore the path rel, a slash-separated
// path relative to the root, which names a directory if isDir. Symbolic
// links are not directories, whatever they point to.
//
// A path is ignored when its last matching pattern is not a negation,
// where the extra patterns are looked at first, then the .gitignore files
// from rel's directory up to the root, then .git/info/exclude, and in
// each the last line first; or when one of its parent directories is
// ignored. The root itself is never ignored, nor is a path outside it
// (one that is absolute or climbs out with "..").
//
// An ignore file that cannot be read counts as empty, as git (which
// warns) counts it; Walk reports the error instead.
func (m *Matcher) Ignored(rel string, isDir bool) bool {
	rel, ok := clean(rel)
	if !ok || rel == "" {
		return false
	}
	if isDir {
		return m.lookup(rel).excludedBy != nil
	}
	p := m.explain(rel, false)
	return p != nil && !p.negative
}

// explain returns the pattern that decides rel: the last one that matches
// it (which may be a negation), or the one that excludes a parent
// directory, or nil. rel is clean and not the root.
func (m *Matcher) explain(rel string, isDir bool) *pattern {
	parentRel, name := split(rel)
	parent := m.lookup(parentRel)
	if parent.excludedBy != nil {
		return parent.excludedBy
	}
	return m.match(parent, rel, name, isDir)
}

// match returns the pattern that decides the path rel, named name, in
// directory parent, which is not excluded; nil when no pattern matches.
// The order is git's last_matching_pattern_from_lists: command-line
// patterns (here the extra ones), then per-directory files from the
// deepest up, then the exclude files.
func (m *Matcher) match(parent *dirState, rel, name string, isDir bool) *pattern {
	switch {
	case name == ".git":
		return builtinGit
	case name == ".ctx" && isDir:
		return builtinCtx
	}
	if p := lastMatch(m.extra, rel, name, isDir, ""); p != nil {
		return p
	}
	for d := parent; d != nil; d = d.parent {
		if p := lastMatch(d.patterns, rel, name, isDir, d.rel); p != nil {
			return p
		}
	}
	return lastMatch(m.info, rel, name, isDir, "")
}

// lastMatch returns the last of the patterns, read from the ignore file
// of directory base, that matches rel.
func lastMatch(patterns []*pattern, rel, name string, isDir bool, base string) *pattern {
	for i := len(patterns) - 1; i >= 0; i-- {
		if p := patterns[i]; p.match(rel, name, isDir, base) {
			return p
		}
	}
	return nil
}

// lookup returns the directory rel (clean; "" for the root), set up.
func (m *Matcher) lookup(rel string) *dirState {
	if v, ok := m.dirs.Load(rel); ok {
		d := v.(*dirState)
		d.once.Do(func() { m.setUp(d, nil) })
		return d
	}
	var parent *dirState
	if rel != "" {
		parentRel, _ := split(rel)
		parent = m.lookup(parentRel)
	}
	return m.child(parent, rel)
}

// child returns the directory rel, whose parent directory is parent (nil
// for the root), set up.
func (m *Matcher) child(parent *dirState, rel string) *dirState {
	v, ok := m.dirs.Load(rel)
	if !ok {
		v, _ = m.dirs.LoadOrStore(rel, &dirState{rel: rel})
	}
	d := v.(*dirState)
	d.once.Do(func() { m.setUp(d, parent) })
	return d
}

// setUp decides whether d is excluded and, if it is not, reads its
// .gitignore, as git's prep_exclude does for each directory on the way
// down: the directory is matched against its ancestors' patterns before
// its own file is read.
func (m *Matcher) setUp(d *dirState, parent *dirState) {
	if d.rel == "" {
		var errInfo, errIgnore error
		m.info, errInfo = m.readInfoExclude()
		d.patterns, errIgnore = m.readIgnoreFile("")
		d.err = errors.Join(errInfo, errIgnore)
		return
	}
	parentRel, name := split(d.rel)
	if parent == nil {
		parent = m.lookup(parentRel)
	}
	d.parent = parent
	if parent.excludedBy != nil {
		d.excludedBy = parent.excludedBy
		return
	}
	if p := m.match(parent, d.rel, name, true); p != nil && !p.negative {
		d.excludedBy = p
		return
	}
	d.patterns, d.err = m.readIgnoreFile(d.rel)
}

// readIgnoreFile reads the .gitignore of directory rel. A missing one, or
// one that is not a regular file, holds no patterns: since 2.32 git does
// not follow a symbolic link named .gitignore inside the work tree, and
// it cannot read a directory (nor should it block on a FIFO).
func (m *Matcher) readIgnoreFile(rel string) ([]*pattern, error) {
	name := filepath.Join(m.root, filepath.FromSlash(rel), ".gitignore")
	fi, err := os.Lstat(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, nil
		}
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil
	}
	data, err := regfile.Read(name, -1)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, regfile.ErrNotRegular) {
			return nil, nil // replaced since the Lstat
		}
		return nil, err
	}
	return parseFile(data, path.Join(rel, ".gitignore")), nil
}

// readInfoExclude reads info/exclude in the project's git directory, if
// there is one.
func (m *Matcher) readInfoExclude() ([]*pattern, error) {
	gitDir := gitDir(m.root)
	if gitDir == "" {
		return nil, nil
	}
	name := filepath.Join(gitDir, "info", "exclude")
	data, err := regfile.Read(name, -1)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, regfile.ErrNotRegular) {
			return nil, nil
		}
		return nil, err
	}
	source := filepath.ToSlash(name)
	if rel, err := filepath.Rel(m.root, name); err == nil && filepath.IsLocal(rel) {
		source = filepath.ToSlash(rel)
	}
	return parseFile(data, source), nil
}

// gitDir returns the directory that holds the info/ directory of the
// repository whose work tree is root, or "" when there is none. It is
// root/.git, unless that is a file: then a worktree or a submodule's
// checkout, whose "gitdir: <path>" line names the git directory, which
// in a worktree names the common directory (where info/ lives) in its
// commondir file.
func gitDir(root string) string {
	dotGit := filepath.Join(root, ".git")
	fi, err := os.Stat(dotGit)
	switch {
	case err != nil:
		return ""
	case fi.IsDir():
		return dotGit
	}
	data, err := regfile.Read(dotGit, 4096)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(data), "\n")
	target, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "gitdir: ")
	if !ok || target == "" {
		return ""
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(root, target)
	}
	if data, err := regfile.Read(filepath.Join(target, "commondir"), 4096); err == nil {
		common := strings.TrimRight(string(data), "\r\n")
		if !filepath.IsAbs(common) {
			common = filepath.Join(target, common)
		}
		return common
	}
	return target
}

// clean returns rel as a clean root-relative path ("" for the root), or
// false if it leaves the root.
func clean(rel string) (string, bool) {
	if rel == "" || rel == "." {
		return "", true
	}
	if !validRel(rel) {
		rel = path.Clean(rel)
		if rel == "." {
			return "", true
		}
		if rel == ".." || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "/") {
			return "", false
		}
	}
	return rel, true
}

// validRel reports whether rel is clean: no empty, "." or ".." element,
// no leading or trailing slash. Unlike fs.ValidPath it accepts names that
// are not UTF-8, which git accepts too.
func validRel(rel string) bool {
	for {
		elem, rest, more := strings.Cut(rel, "/")
		if elem == "" || elem == "." || elem == ".." {
			return false
		}
		if !more {
			return true
		}
		rel = rest
	}
}

// split splits a clean path into its directory ("" for the root) and its
// last component.
func split(rel string) (dir, name string) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return "", rel
	}
	return rel[:i], rel[i+1:]
}

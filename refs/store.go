package refs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/fault"
	"github.com/ctx-dev/ctx/internal/regfile"
	"github.com/ctx-dev/ctx/object"
)

// maxRefFile bounds what is read of HEAD, STAGE and head files: each
// holds one short line.
const maxRefFile = 4096

// Ref is a ref and its heads.
type Ref struct {
	Name  Name
	Heads []object.ID // sorted; more than one only for a shared ref
}

// Reader reads refs; *Store implements it. Holders of a Reader cannot
// move refs: only a holder of the store lock may (see repo.Writer).
type Reader interface {
	// Heads returns the sorted heads of a ref (HEAD is followed), or
	// ErrNotFound.
	Heads(n Name) ([]object.ID, error)
	// Target returns the ref HEAD names.
	Target() (Name, error)
	// List returns every ref that exists, and STAGE if set.
	List() ([]Ref, error)
	// Check reports damaged ref files.
	Check() []error
}

var _ Reader = (*Store)(nil)

// Store reads and writes the refs of one .ctx directory. Reads need no
// lock. Writers (Update, Delete, SetTarget) must hold the store's lock,
// which makes their compare-and-swap atomic with respect to each other.
type Store struct {
	root string // the .ctx directory
}

// NewStore returns the ref store of the .ctx directory root.
func NewStore(root string) *Store { return &Store{root: root} }

func (s *Store) dir(n Name) string {
	return filepath.Join(s.root, "refs", filepath.FromSlash(string(n)))
}

func (s *Store) stagePath() string { return filepath.Join(s.root, string(STAGE)) }

// Target returns the ref that HEAD names.
func (s *Store) Target() (Name, error) {
	b, err := regfile.Read(filepath.Join(s.root, string(HEAD)), maxRefFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%w: HEAD", ErrNotFound)
		}
		if errors.Is(err, regfile.ErrNotRegular) || errors.Is(err, regfile.ErrTooLarge) {
			return "", fmt.Errorf("%w: HEAD: %w", ErrCorrupt, err)
		}
		return "", fmt.Errorf("refs: read HEAD: %w", err)
	}
	line := strings.TrimSuffix(string(b), "\n")
	target, ok := strings.CutPrefix(line, "ref: refs/")
	if !ok || strings.ContainsAny(target, "\n\r") || strings.HasPrefix(target, "refs/") {
		return "", fmt.Errorf("%w: HEAD holds %q, want \"ref: refs/<name>\"", ErrCorrupt, line)
	}
	n, err := ParseName(target)
	if err != nil || !n.Shared() {
		return "", fmt.Errorf("%w: HEAD names %q", ErrCorrupt, target)
	}
	return n, nil
}

// SetTarget points HEAD at the shared ref n.
func (s *Store) SetTarget(n Name) error {
	if !n.Shared() {
		return fmt.Errorf("%w: HEAD can only name a ref under refs/, not %s", ErrInvalidName, n)
	}
	return atomicfile.Write(filepath.Join(s.root, string(HEAD)), []byte("ref: "+n.String()+"\n"), 0o644)
}

// deref replaces HEAD by the ref it names.
func (s *Store) deref(n Name) (Name, error) {
	if n != HEAD {
		return n, nil
	}
	return s.Target()
}

// Heads returns the sorted heads of a ref; HEAD is followed. A ref with no
// head fails with ErrNotFound.
func (s *Store) Heads(n Name) ([]object.ID, error) {
	n, err := s.deref(n)
	if err != nil {
		return nil, err
	}
	if n == STAGE {
		id, err := s.readStage()
		if err != nil {
			return nil, err
		}
		return []object.ID{id}, nil
	}
	heads, err := readHeads(s.dir(n))
	if err != nil {
		return nil, fmt.Errorf("refs: read %s: %w", n, err)
	}
	if len(heads) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, n)
	}
	return heads, nil
}

func (s *Store) readStage() (object.ID, error) {
	b, err := regfile.Read(s.stagePath(), maxRefFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return object.Zero, fmt.Errorf("%w: STAGE", ErrNotFound)
		}
		if errors.Is(err, regfile.ErrNotRegular) || errors.Is(err, regfile.ErrTooLarge) {
			return object.Zero, fmt.Errorf("%w: STAGE: %w", ErrCorrupt, err)
		}
		return object.Zero, fmt.Errorf("refs: read STAGE: %w", err)
	}
	id, err := object.ParseID(strings.TrimSuffix(string(b), "\n"))
	if err != nil {
		return object.Zero, fmt.Errorf("%w: STAGE: %w", ErrCorrupt, err)
	}
	return id, nil
}

// readHeads lists the head files of a ref directory: entries whose names
// are object IDs. A missing directory has no heads.
func readHeads(dir string) ([]object.ID, error) {
	f, err := os.Open(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, nil // no such ref (Check reports a refs that is a file)
		}
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	var heads []object.ID
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue // heads are regular files; Check reports anything else
		}
		if id, err := object.ParseID(e.Name()); err == nil {
			heads = append(heads, id)
		}
	}
	sort.Slice(heads, func(i, j int) bool { return heads[i].Compare(heads[j]) < 0 })
	return heads, nil
}

// Expect is the condition of a compare-and-swap update.
type Expect struct {
	absent bool
	among  []object.ID // nil: any state
}

// Any accepts the ref in any state; an update replaces all its heads.
func Any() Expect { return Expect{} }

// Absent requires that the ref does not exist.
func Absent() Expect { return Expect{absent: true} }

// Among requires each of ids to be a current head of the ref; an update
// replaces exactly those heads and keeps any others. With no ids it accepts
// any state and keeps every head: an update adds a head.
func Among(ids ...object.ID) Expect {
	// A nil among means Any, which replaces every head; copy into a non-nil
	// slice so that Among() keeps them, and so that the caller's slice can
	// change afterwards.
	return Expect{among: append(make([]object.ID, 0, len(ids)), ids...)}
}

func (e Expect) String() string {
	switch {
	case e.absent:
		return "no ref"
	case e.among == nil:
		return "any value"
	case len(e.among) == 0:
		return "any heads (adding one)"
	}
	hs := make([]string, len(e.among))
	for i, h := range e.among {
		hs[i] = h.String()
	}
	return "head " + strings.Join(hs, ", ")
}

// check returns the heads that an update replaces, or a *ChangedError.
func (e Expect) check(n Name, cur []object.ID) ([]object.ID, error) {
	switch {
	case e.absent:
		if len(cur) > 0 {
			return nil, &ChangedError{Name: n, Expected: e.String(), Actual: cur}
		}
		return nil, nil
	case e.among == nil:
		return cur, nil
	}
	for _, want := range e.among {
		if !slices.Contains(cur, want) {
			return nil, &ChangedError{Name: n, Expected: e.String(), Actual: cur}
		}
	}
	return e.among, nil
}

// Update sets the ref n to id if its current state meets exp; HEAD is
// followed. For a shared ref, the new head's file is written (atomically,
// durably) before the replaced heads' files are removed, so a concurrent
// reader sees the old head, both, or the new head, and never no ref. The
// caller must hold the store's lock.
func (s *Store) Update(n Name, id object.ID, exp Expect) error {
	if id.IsZero() {
		return fmt.Errorf("%w: cannot set %s to the zero id", ErrInvalidName, n)
	}
	n, err := s.deref(n)
	if err != nil {
		return err
	}
	if n == STAGE {
		return s.updateStage(&id, exp)
	}
	dir := s.dir(n)
	cur, err := readHeads(dir)
	if err != nil {
		return fmt.Errorf("refs: read %s: %w", n, err)
	}
	replaced, err := exp.check(n, cur)
	if err != nil {
		return err
	}
	if !slices.Contains(cur, id) {
		if err := atomicfile.MkdirAll(dir); err != nil {
			return fmt.Errorf("refs: %w", err)
		}
		h := id.String()
		if err := atomicfile.Write(filepath.Join(dir, h), []byte(h+"\n"), 0o644); err != nil {
			return fmt.Errorf("refs: update %s: %w", n, err)
		}
		fault.Hit("refs.head-written")
	}
	return s.removeHeads(n, dir, replaced, id)
}

// Delete removes the ref n if its current state meets exp. With Among it
// removes only those heads. The caller must hold the store's lock.
func (s *Store) Delete(n Name, exp Expect) error {
	n, err := s.deref(n)
	if err != nil {
		return err
	}
	if n == STAGE {
		return s.updateStage(nil, exp)
	}
	dir := s.dir(n)
	cur, err := readHeads(dir)
	if err != nil {
		return fmt.Errorf("refs: read %s: %w", n, err)
	}
	if len(cur) == 0 && !exp.absent {
		return fmt.Errorf("%w: %s", ErrNotFound, n)
	}
	replaced, err := exp.check(n, cur)
	if err != nil {
		return err
	}
	if err := s.removeHeads(n, dir, replaced, object.Zero); err != nil {
		return err
	}
	s.pruneDirs(dir)
	return nil
}

func (s *Store) removeHeads(n Name, dir string, heads []object.ID, keep object.ID) error {
	removed := false
	for _, h := range heads {
		if h == keep {
			continue
		}
		if err := os.Remove(filepath.Join(dir, h.String())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("refs: update %s: %w", n, err)
		}
		removed = true
		fault.Hit("refs.head-removed")
	}
	if !removed {
		return nil
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		return fmt.Errorf("refs: update %s: %w", n, err)
	}
	return nil
}

// pruneDirs removes a ref directory and its parents under refs/ while they
// are empty, so that deleted refs leave nothing behind.
func (s *Store) pruneDirs(dir string) {
	top := filepath.Join(s.root, "refs")
	for d := dir; d != top && strings.HasPrefix(d, top); d = filepath.Dir(d) {
		if os.Remove(d) != nil {
			return
		}
	}
}

func (s *Store) updateStage(id *object.ID, exp Expect) error {
	var cur []object.ID
	old, err := s.readStage()
	switch {
	case err == nil:
		cur = []object.ID{old}
	case !errors.Is(err, ErrNotFound):
		return err
	}
	if id == nil && len(cur) == 0 && !exp.absent {
		return fmt.Errorf("%w: STAGE", ErrNotFound)
	}
	if _, err := exp.check(STAGE, cur); err != nil {
		return err
	}
	if id == nil {
		if err := atomicfile.Remove(s.stagePath()); err != nil {
			return fmt.Errorf("refs: delete STAGE: %w", err)
		}
		return nil
	}
	if err := atomicfile.Write(s.stagePath(), []byte(id.String()+"\n"), 0o644); err != nil {
		return fmt.Errorf("refs: update STAGE: %w", err)
	}
	return nil
}

// List returns every ref that exists: the shared refs sorted by name, then
// STAGE if set. HEAD is not listed; see Target.
func (s *Store) List() ([]Ref, error) {
	var out []Ref
	top := filepath.Join(s.root, "refs")
	err := filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path == top {
				return fs.SkipDir
			}
			return err
		}
		if !d.IsDir() || path == top {
			return nil
		}
		rel, _ := filepath.Rel(top, path)
		name, err := parseShared(filepath.ToSlash(rel))
		if err != nil {
			return nil // not a ref; Check reports it
		}
		heads, err := readHeads(path)
		if err != nil {
			return err
		}
		if len(heads) > 0 {
			out = append(out, Ref{Name: name, Heads: heads})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("refs: list: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	// A damaged STAGE is left out; Check reports it.
	if id, err := s.readStage(); err == nil {
		out = append(out, Ref{Name: STAGE, Heads: []object.ID{id}})
	}
	return out, nil
}

// Check reads every file under refs/ and reports head files whose content
// is not their name, files that are neither head files nor directories
// (temporary files, ending in ".tmp", are skipped), directories whose names
// are not valid ref names, and an unreadable HEAD or STAGE. The paths are
// relative to the .ctx directory.
func (s *Store) Check() []error {
	var problems []error
	if _, err := s.Target(); err != nil {
		problems = append(problems, err)
	}
	if _, err := s.readStage(); err != nil && !errors.Is(err, ErrNotFound) {
		problems = append(problems, err)
	}
	top := filepath.Join(s.root, "refs")
	if st, err := os.Lstat(top); err == nil && !st.IsDir() {
		return append(problems, fmt.Errorf("%w: refs is not a directory", ErrCorrupt))
	}
	_ = filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(s.root, path)
		rel = filepath.ToSlash(rel)
		if err != nil {
			if !(errors.Is(err, fs.ErrNotExist) && path == top) {
				problems = append(problems, fmt.Errorf("refs: %s: %w", rel, err))
			}
			return nil
		}
		if path == top {
			return nil
		}
		if !d.IsDir() && filepath.Dir(path) == top && !strings.HasSuffix(d.Name(), ".tmp") {
			problems = append(problems, fmt.Errorf("%w: stray file %s directly under refs/ (heads live in refs/<name>/)", ErrCorrupt, rel))
			return nil
		}
		if d.IsDir() {
			if _, err := parseShared(strings.TrimPrefix(rel, "refs/")); err != nil {
				problems = append(problems, fmt.Errorf("%w: directory %s is not a valid ref name", ErrCorrupt, rel))
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), ".tmp") {
			return nil // a crash's leftover; the caller reports temporary files
		}
		if !d.Type().IsRegular() {
			problems = append(problems, fmt.Errorf("%w: %s is not a regular file (a link, FIFO, …), so it is not a head", ErrCorrupt, rel))
			return nil
		}
		id, err := object.ParseID(d.Name())
		if err != nil {
			problems = append(problems, fmt.Errorf("%w: stray file %s (not a head file)", ErrCorrupt, rel))
			return nil
		}
		b, err := regfile.Read(path, maxRefFile)
		if err != nil {
			problems = append(problems, fmt.Errorf("%w: %s: %w", ErrCorrupt, rel, err))
		} else if string(b) != id.String()+"\n" {
			problems = append(problems, fmt.Errorf("%w: head file %s does not hold its own id", ErrCorrupt, rel))
		}
		return nil
	})
	return problems
}

package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/ctx-dev/ctx/index/reader"
	"github.com/ctx-dev/ctx/index/stamp"
	"github.com/ctx-dev/ctx/repo"
)

// stampTaker collects what a stamp (index/stamp) records, before Open
// reads the store: the stat data of the store directory, HEAD,
// config.toml, STAGE, CURRENT, the refs and the sessions (directories and
// files) and the narrative's directories. The narrative's files are the
// manifest's (taken after, as the freshness check compares them).
type stampTaker struct {
	entries []stamp.Entry
	narr    string // the narrative's root, relative to the store, slash-separated
	err     error
}

// takeStamp starts a stamp of r.
func takeStamp(r *repo.Repo) *stampTaker {
	t := &stampTaker{}
	for _, p := range []string{".", "HEAD", "config.toml", "STAGE", dirName + "/" + currentFile} {
		t.add(r.Root, p)
	}
	t.walk(r.Root, "refs", true)
	t.walk(r.Root, "sessions", true)
	rel, err := filepath.Rel(r.Root, r.Narrative().Root)
	if err != nil {
		t.err = err
		return t
	}
	t.narr = filepath.ToSlash(rel)
	t.walk(r.Root, t.narr, false)
	return t
}

// add records the stat data of rel, under root. A symbolic link (or
// anything but a file or directory) gets no stamp: ctx reads through a
// link, and the stamp's lstat would not see its target change.
func (t *stampTaker) add(root, rel string) stamp.Stat {
	st, err := stamp.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.err = errors.Join(t.err, err)
	}
	if st.Kind == stamp.Other {
		t.err = errors.Join(t.err, fmt.Errorf("index: no stamp: %s is not a regular file or a directory", rel))
	}
	t.entries = append(t.entries, stamp.Entry{Path: rel, Stat: st})
	return st
}

// walk records rel and, when it is a directory, its subdirectories and,
// with files, the entries in them. Each directory is recorded before it
// is listed: an entry added after changes its stat data.
func (t *stampTaker) walk(root, rel string, files bool) {
	if t.add(root, rel).Kind != stamp.Dir {
		return
	}
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			t.err = errors.Join(t.err, err)
		}
		return
	}
	for _, e := range entries {
		p := path.Join(rel, e.Name())
		switch {
		case e.IsDir():
			t.walk(root, p, files)
		case files:
			t.add(root, p)
		}
	}
}

// saveStamp writes the stamp of an index Open found fresh for the store
// as m describes it, unless the stamp on disk says the same already
// (stamp.Write declines when something changed since, or too recently).
func saveStamp(r *repo.Repo, t *stampTaker, ix *Index, m *Manifest) {
	if t.err != nil || r.Config.UnknownKeysWarning() != "" {
		return // a command that warns runs the full way every time
	}
	s := &stamp.Stamp{Format: reader.Format, Session: r.Session, Entries: t.entries}
	for i, d := range [stamp.NSegs]int{partCode, partDelta, partNarrative, partNarrDelta} {
		if ix.dirs[d] != "" {
			s.Segs[i] = filepath.Base(ix.dirs[d])
		}
	}
	s.Entries = slices.Grow(s.Entries, len(m.Narrative))
	for _, f := range m.Narrative {
		s.Entries = append(s.Entries, stamp.Entry{Path: path.Join(t.narr, f.Path),
			Stat: stamp.Stat{Kind: stamp.File, Size: f.Size, ModNano: f.ModNano, ChangeNano: f.ChangeNano, Ino: f.Ino}})
	}
	// The time changes with every stamp: compare what else it says.
	if o, err := stamp.ReadFile(r.Root); err == nil && sameStamp(o, s) {
		return
	}
	// The store was opened, and config.toml read, before the entries
	// were taken: it must say now what it said then, or the stamp would
	// record a file the check did not read. (Parsed again only for a new
	// stamp: most reading commands find theirs on disk.)
	if cfg, err := repo.LoadConfig(filepath.Join(r.Root, "config.toml")); err != nil || !reflect.DeepEqual(cfg, r.Config) {
		return
	}
	_, _ = stamp.Write(r.Root, s) // best effort: a store this user cannot write has none
}

// sameStamp reports whether two stamps say the same but for their time.
func sameStamp(a, b *stamp.Stamp) bool {
	return a.Format == b.Format && a.Session == b.Session && a.Segs == b.Segs && slices.Equal(a.Entries, b.Entries)
}

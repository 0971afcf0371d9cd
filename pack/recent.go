package pack

import (
	"context"
	"strings"

	"github.com/ctx-dev/ctx/object"
)

// Recently touched files: those the last commits changed, the newest
// counting most. A commit that changes many files (a reformatting) says
// nothing about what is being worked on and is left out, as is the first
// snapshot of a project (everything is new) and a commit without a parent.
const (
	recentCommits  = 5   // commits looked at, newest first
	maxTouched     = 100 // files a commit may change and still count
	recentStrength = 0.5 // a file changed by the newest commit; older ones less
)

// seedRecent credits the files the last commits changed: recentStrength
// divided by 1 + the commit's age in commits.
func (b *builder) seedRecent(ctx context.Context) error {
	if b.src.Head.IsZero() {
		return nil
	}
	entries, err := b.src.Repo.Log(ctx, []object.ID{b.src.Head}, recentCommits)
	if err != nil {
		return err
	}
	age := 0
	for _, e := range entries {
		c := e.Commit
		if c == nil || len(c.Parents) == 0 {
			continue
		}
		p, err := b.src.Repo.ReadCommit(c.Parents[0])
		if err != nil {
			return err
		}
		if p.RootTree == c.RootTree {
			continue // a commit of narrative or edges: no file changed
		}
		pt, err := b.tree(p.RootTree)
		if err != nil {
			return err
		}
		if len(pt.Entries) == 0 {
			continue // the first snapshot: an import, not work on files
		}
		changed := map[string]bool{}
		if err := b.diffTrees(p.RootTree, c.RootTree, "", changed); err != nil {
			return err
		}
		if len(changed) == 0 || len(changed) > maxTouched {
			continue
		}
		for path := range changed {
			docs, err := b.src.Index.Lookup("path", path)
			if err != nil {
				return err
			}
			if len(docs) == 0 {
				continue // not in the snapshot any more
			}
			f := b.file(path)
			f.recentScore = max(f.recentScore, recentStrength/float64(1+age))
		}
		age++
	}
	return nil
}

// diffTrees adds to changed the paths of the files added or modified
// from tree a to tree b (removed files are gone: not listed), descending
// only into subtrees that differ. It stops past maxTouched files.
func (b *builder) diffTrees(a, bt object.ID, prefix string, changed map[string]bool) error {
	if a == bt || len(changed) > maxTouched {
		return nil
	}
	ta := new(object.Tree)
	if !a.IsZero() {
		t, err := b.tree(a)
		if err != nil {
			return err
		}
		ta = t
	}
	tb, err := b.tree(bt)
	if err != nil {
		return err
	}
	for _, e := range tb.Entries {
		old, ok := ta.Lookup(e.Name)
		if ok && old.ID == e.ID && old.Kind == e.Kind {
			continue
		}
		p := prefix + e.Name
		switch e.Kind {
		case object.EntryTree:
			from := object.Zero
			if ok && old.Kind == object.EntryTree {
				from = old.ID
			}
			if err := b.diffTrees(from, e.ID, p+"/", changed); err != nil {
				return err
			}
		case object.EntryBlob:
			changed[strings.TrimPrefix(p, "/")] = true
		}
		if len(changed) > maxTouched {
			return nil
		}
	}
	return nil
}

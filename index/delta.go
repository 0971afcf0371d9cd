package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"

	"github.com/ctx-dev/ctx/index/reader"
	"github.com/ctx-dev/ctx/index/table"
	"github.com/ctx-dev/ctx/index/text"
	"github.com/ctx-dev/ctx/internal/parallel"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// Delta segments are read by package reader (reader.Delta, docs/INDEX.md,
// "Delta segments"); this file builds them.

// deltaFile and its keys (reader.DeltaFile).
const (
	deltaFile   = reader.DeltaFile
	deltaDead   = reader.DeltaDead
	deltaIns    = reader.DeltaIns
	deltaTokens = reader.DeltaTokens
	deltaTerm   = reader.DeltaTerm
)

// errNoDelta means the change cannot be a delta segment: the base's
// segment is rebuilt instead.
var errNoDelta = errors.New("index: change too large for a delta segment")

// A delta may hold, added and dead together, up to its base's documents
// divided by deltaShare, plus deltaSlack. A variable for tests.
var deltaShare, deltaSlack = 8, 256

// The numbering of a base's live entries beside a delta's (reader).
type (
	baseRun = reader.BaseRun
	runList = reader.RunList
)

var (
	baseRuns   = reader.BaseRuns
	deadAndIns = reader.DeadAndIns
	deltaValue = reader.DeltaValue
	ranks      = reader.Ranks
)

// openTextPart opens the text segment in dir and, unless deltaDir is "",
// the delta segment there that extends it.
func openTextPart(dir, deltaDir string) (reader.Part, error) { return reader.OpenPart(dir, deltaDir) }

// deltaStatus says what a delta segment holds.
func deltaStatus(d *reader.Delta) *DeltaStatus {
	return &DeltaStatus{Docs: d.Docs(), Replaced: d.Replaced()}
}

// buildDelta writes into dir, which must not exist, the delta segment
// that brings the code segment in baseDir up to the store as m describes
// it; errNoDelta when the change is too large for one.
func buildDelta(ctx context.Context, r *repo.Repo, m *Manifest, baseDir, dir string, opts BuildOptions) (*BuildStats, error) {
	base, err := openSegment(baseDir)
	if err != nil {
		return nil, err
	}
	defer base.close()
	bm := base.manifest
	// A new repository id changes every document's node: no delta.
	if bm.Tokenizer != m.Tokenizer || bm.Code.IsZero() || bm.Base != "" || bm.Repo != m.Repo {
		return nil, errNoDelta
	}
	was, err := readCommits(r, bm.Heads)
	if err != nil {
		return nil, err
	}
	now, err := readCommits(r, m.Heads)
	if err != nil {
		return nil, err
	}
	budget := int(base.stats.Docs)/deltaShare + deltaSlack
	var changes map[string]*fileChange
	if len(was) == 1 && len(now) == 1 {
		changes, err = changedOneHead(ctx, r, was[0], now[0], budget)
	} else {
		changes, err = changedAcrossHeads(r, was, now, budget)
	}
	if err != nil {
		return nil, err
	}
	paths := slices.Sorted(maps.Keys(changes))

	var dead []uint32
	for _, p := range paths {
		docs, err := base.lookup(nsFile, p)
		if err != nil {
			return nil, err
		}
		dead = append(dead, docs...)
	}
	repoID := r.Config.Repo.ID
	var present []pathFile // the others were removed
	for _, p := range paths {
		if c := changes[p]; c.present {
			present = append(present, pathFile{path: p, version: c.version})
		}
	}
	docs, err := appendPathDocs(ctx, nil, r, repoID, present, newVersions(r, false).get)
	if err != nil {
		return nil, err
	}
	// Diagnostics: all of them, again, when any head's changed; in head
	// order, each run once, as collectCode takes them.
	if !slices.EqualFunc(was, now, func(a, b *object.Commit) bool {
		return object.OrZero(a.DiagnosticsSnapshot) == object.OrZero(b.DiagnosticsSnapshot)
	}) {
		old, err := base.lookup(nsKind, string(DocDiagnostic))
		if err != nil {
			return nil, err
		}
		dead = append(dead, old...)
		seen := map[object.ID]bool{}
		for _, c := range now {
			if c.DiagnosticsSnapshot != nil {
				ds, err := diagnosticDocs(r, repoID, *c.DiagnosticsSnapshot, seen)
				if err != nil {
					return nil, err
				}
				docs = append(docs, ds...)
			}
		}
	}
	pm := &Manifest{Tokenizer: m.Tokenizer, Ref: m.Ref, Heads: m.Heads, Repo: m.Repo, Code: m.Code, CodeGraph: m.CodeGraph, Base: filepath.Base(baseDir)}
	return writeDelta(ctx, base, dir, docs, dead, budget, pm, opts)
}

// writeDelta writes into dir the delta segment of base whose documents
// are docs (in any order) and whose dead base documents are dead (with
// repeats); errNoDelta when they number more than budget.
func writeDelta(ctx context.Context, base *segment, dir string, docs []Doc, dead []uint32, budget int, pm *Manifest, opts BuildOptions) (*BuildStats, error) {
	slices.Sort(dead)
	dead = slices.Compact(dead)
	if len(dead)+len(docs) > budget {
		return nil, errNoDelta
	}
	sortDocs(docs)
	ins, err := insertionPoints(base, docs)
	if err != nil {
		return nil, err
	}

	// What the dead documents counted in the base's statistics.
	var deadTokens uint64
	deadDF := map[string]uint64{}
	seen := map[string]bool{}
	var tk text.Tokenizer
	for _, b := range dead {
		d, err := base.doc(b)
		if err != nil {
			return nil, err
		}
		clear(seen)
		tk.Tokenize(d.Text, 0, func(term string, _ uint32) {
			if !seen[term] {
				seen[term] = true
				deadDF[term]++
			}
		})
		deadTokens += uint64(base.docLen(b))
	}

	st, err := writeSegment(ctx, dir, docs, pm, opts)
	if err != nil {
		return nil, err
	}
	out, err := newTableFile(filepath.Join(dir, deltaFile), "delta")
	if err != nil {
		return nil, err
	}
	defer out.abort()
	terms := slices.Sorted(maps.Keys(deadDF))
	if err := out.w.Add([]byte(deltaDead), table.AppendUvarintDeltas(nil, dead)); err != nil {
		return nil, err
	}
	if err := out.w.Add([]byte(deltaIns), table.AppendUvarintDeltas(nil, ins)); err != nil {
		return nil, err
	}
	if err := out.w.Add([]byte(deltaTokens), binary.AppendUvarint(nil, deadTokens)); err != nil {
		return nil, err
	}
	var key []byte
	for _, t := range terms {
		key = append(append(key[:0], deltaTerm...), t...)
		if err := out.w.Add(key, binary.AppendUvarint(nil, deadDF[t])); err != nil {
			return nil, err
		}
	}
	if err := out.close(); err != nil {
		return nil, err
	}
	st.Bytes = filesBytes(dir, docsFile, termsFile, keysFile, metaFile, manifest, deltaFile)
	st.Delta = &DeltaStatus{Docs: len(docs), Replaced: len(dead)}
	return st, nil
}

// fileChange is a file whose documents may have changed, as it is now.
type fileChange struct {
	present bool      // in the heads' root trees
	version object.ID // its entry in their semantic snapshots (Zero: none)
}

// readCommits reads the commits of heads, in order.
func readCommits(r *repo.Repo, heads []object.ID) ([]*object.Commit, error) {
	out := make([]*object.Commit, len(heads))
	for i, h := range heads {
		c, err := r.ReadCommit(h)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// changedOneHead returns the files whose documents may differ between the
// commits was and now (one head each): added or removed, or with another
// file version (a file's documents derive from its path and version
// alone). The trees are walked side by side, past every subtree the two
// share; errNoDelta when more than budget files changed.
func changedOneHead(ctx context.Context, r *repo.Repo, was, now *object.Commit, budget int) (map[string]*fileChange, error) {
	type change struct {
		root, sem           *object.TreeEntry // in the new trees
		rootKnown, semKnown bool
	}
	changes := map[string]*change{}
	at := func(p string) (*change, error) {
		c := changes[p]
		if c == nil {
			if len(changes) >= budget {
				return nil, errNoDelta
			}
			c = &change{}
			changes[p] = c
		}
		return c, nil
	}
	edited := map[string]*object.TreeEntry{} // in both root trees, with other content
	if err := object.DiffTrees(r.Objects, was.RootTree, now.RootTree, func(p string, old, new *object.TreeEntry) error {
		if old != nil && new != nil {
			edited[p] = new // its file version tells whether its documents changed
			return nil
		}
		c, err := at(p)
		if err == nil {
			c.root, c.rootKnown = new, true
		}
		return err
	}); err != nil {
		return nil, deltaErr(err, "root trees")
	}
	nowSem := object.OrZero(now.SemanticSnapshot)
	if err := object.DiffTrees(r.Objects, object.OrZero(was.SemanticSnapshot), nowSem, func(p string, old, new *object.TreeEntry) error {
		c, err := at(p)
		if err == nil {
			c.sem, c.semKnown = new, true
			if e, ok := edited[p]; ok {
				c.root, c.rootKnown = e, true
			}
		}
		return err
	}); err != nil {
		return nil, deltaErr(err, "semantic snapshots")
	}
	// What a walk did not tell is looked up.
	paths := slices.Sorted(maps.Keys(changes))
	out := make([]*fileChange, len(paths))
	if err := parallel.Do(ctx, len(paths), func(i int) error {
		p, c := paths[i], changes[paths[i]]
		if !c.rootKnown {
			e, err := entryAt(r, now.RootTree, p)
			if err != nil {
				return err
			}
			c.root = e
		}
		out[i] = &fileChange{present: c.root != nil}
		if !out[i].present {
			return nil
		}
		if !c.semKnown {
			e, err := entryAt(r, nowSem, p)
			if err != nil {
				return err
			}
			c.sem = e
		}
		if c.sem != nil { // as collectCode: whatever the snapshot holds at p
			out[i].version = c.sem.ID
		}
		return nil
	}); err != nil {
		return nil, err
	}
	m := make(map[string]*fileChange, len(paths))
	for i, p := range paths {
		m[p] = out[i]
	}
	return m, nil
}

// changedAcrossHeads is changedOneHead for any number of heads on either side
// (after a git merge left several): each side's files are those of its
// heads, in order, a path taken from the first head that has it, as
// collectCode takes them. It lists the trees whole, each tree once.
func changedAcrossHeads(r *repo.Repo, was, now []*object.Commit, budget int) (map[string]*fileChange, error) {
	listed := map[object.ID]map[string]object.TreeEntry{}
	list := func(tree object.ID) (map[string]object.TreeEntry, error) {
		if l, ok := listed[tree]; ok {
			return l, nil
		}
		l, err := object.ListTree(r.Objects, tree, "")
		if err != nil {
			return nil, fmt.Errorf("index: tree %s: %w", tree.Short(), err)
		}
		listed[tree] = l
		return l, nil
	}
	files := func(heads []*object.Commit) (map[string]object.ID, error) {
		out := map[string]object.ID{}
		for _, c := range heads {
			root, err := list(c.RootTree)
			if err != nil {
				return nil, err
			}
			sem, err := list(object.OrZero(c.SemanticSnapshot))
			if err != nil {
				return nil, err
			}
			for p := range root {
				if _, seen := out[p]; !seen {
					out[p] = sem[p].ID
				}
			}
		}
		return out, nil
	}
	before, err := files(was)
	if err != nil {
		return nil, err
	}
	after, err := files(now)
	if err != nil {
		return nil, err
	}
	changes := map[string]*fileChange{}
	for p, v := range after {
		if w, ok := before[p]; !ok || w != v {
			changes[p] = &fileChange{present: true, version: v}
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			changes[p] = &fileChange{}
		}
	}
	if len(changes) > budget {
		return nil, errNoDelta
	}
	return changes, nil
}

// insertionPoints returns, for each of docs (in docOrder), how many of
// base's documents sort before it.
func insertionPoints(base *segment, docs []Doc) ([]uint32, error) {
	return sortedBefore(base.stats.Docs, len(docs), func(b uint32, j int) (bool, error) {
		v, err := base.record(b)
		if err != nil {
			return false, err
		}
		bd, _, err := decodeRecordOpts(v, false)
		if err != nil {
			return false, err
		}
		return docOrder(&bd, &docs[j]) >= 0, nil
	})
}

// sortedBefore returns, for each of n new entries in order, how many of
// a base's nb entries sort before it, given atOrAfter(b, j): whether base
// entry b sorts at or after new entry j. A binary search each, from where
// the previous one stopped; the first error stops it.
func sortedBefore(nb uint32, n int, atOrAfter func(b uint32, j int) (bool, error)) ([]uint32, error) {
	ins := make([]uint32, n)
	lo := uint32(0)
	var ferr error
	for j := range n {
		k := lo + uint32(sort.Search(int(nb-lo), func(i int) bool {
			if ferr != nil {
				return true
			}
			ok, err := atOrAfter(lo+uint32(i), j)
			ferr = err
			return ok || err != nil
		}))
		if ferr != nil {
			return nil, ferr
		}
		ins[j], lo = k, k
	}
	return ins, nil
}

// entryAt returns the non-tree entry at p under the tree root; nil when
// there is none.
func entryAt(r *repo.Repo, root object.ID, p string) (*object.TreeEntry, error) {
	list, err := object.ListTree(r.Objects, root, p)
	if err != nil {
		return nil, fmt.Errorf("index: %s: %w", p, err)
	}
	if e, ok := list[p]; ok {
		return &e, nil
	}
	return nil, nil
}

// deltaErr names what a tree walk of buildDelta failed on.
func deltaErr(err error, what string) error {
	if errors.Is(err, errNoDelta) {
		return err
	}
	return fmt.Errorf("index: %s: %w", what, err)
}

package index

import (
	"context"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/repo"
)

// buildNarrDelta writes into dir, which must not exist, the delta segment
// that brings the narrative segment in baseDir up to the narrative files
// as m describes them; errNoDelta when the change is too large for one,
// or touches a node id whose document may depend on an unchanged file.
//
// A narrative node's document derives from its own file alone, with one
// exception: of two files holding one id, the catalog keeps the first by
// path. So the delta parses only the files added, removed or changed
// since the base (by their stat data, as the index notices them), and is
// built only when each id those files held or hold belongs to them alone:
// no changed file holds a hidden id in the base (Manifest.Hidden: a
// deleted node's, or one in several files), no id they hold now is
// hidden, and none is another file's document in the base.
func buildNarrDelta(ctx context.Context, r *repo.Repo, m *Manifest, baseDir, dir string, opts BuildOptions) (*BuildStats, error) {
	base, err := openSegment(baseDir)
	if err != nil {
		return nil, err
	}
	defer base.close()
	bm := base.manifest
	if bm.Tokenizer != m.Tokenizer || bm.Base != "" || !bm.Code.IsZero() || len(bm.Heads) > 0 {
		return nil, errNoDelta
	}
	budget := int(base.stats.Docs)/deltaShare + deltaSlack
	changed := bm.ChangedNarrative(m)
	if len(changed) > budget {
		return nil, errNoDelta
	}
	// The files holding hidden ids: a change of one (a deleted node's
	// file removed, a copy edited) may show a node of another file.
	hiddenIDs, hiddenFiles := map[string]bool{}, map[string]bool{}
	for _, h := range bm.Hidden {
		hiddenIDs[h.ID], hiddenFiles[h.Path] = true, true
	}
	inChange := make(map[string]bool, len(changed))
	var dead []uint32
	var ids []string // the node ids the changed files held or hold
	for _, p := range changed {
		if hiddenFiles[p] {
			return nil, errNoDelta
		}
		file := narrativePath(p)
		inChange[file] = true
		docs, heads, err := docsUnder(base, nsFile, file)
		if err != nil {
			return nil, err
		}
		for _, h := range heads {
			ids = append(ids, h.NodeKey)
		}
		dead = append(dead, docs...)
	}
	// The changed files still there (a regular file, as the stats list
	// them: not one replaced by a symbolic link) are parsed. Of two with
	// one id, LoadFiles keeps the first by path, as a full load does: no
	// other file holds the id (checked below).
	var present []string
	for _, p := range changed {
		if _, ok := findFile(m.Narrative, p); ok {
			present = append(present, p)
		}
	}
	rr := newRacyRead(m)
	rr.only = map[string]bool{}
	for _, p := range present {
		rr.only[p] = true
	}
	cat := rr.space(r.Narrative()).LoadFiles(present)
	for _, id := range cat.IDs() {
		ids = append(ids, string(id))
	}
	slices.Sort(ids)
	for _, id := range slices.Compact(ids) {
		if hiddenIDs[id] {
			return nil, errNoDelta
		}
		_, heads, err := docsUnder(base, nsNode, graph.NarrativeNode("", id).ID.String())
		if err != nil {
			return nil, err
		}
		for _, h := range heads {
			if !inChange[h.Path] {
				return nil, errNoDelta // another file's node
			}
		}
	}
	docs, _ := narrativeDocs(cat)
	pm := &Manifest{Tokenizer: m.Tokenizer, Ref: m.Ref, Base: filepath.Base(baseDir), Narrative: deltaStats(bm.Narrative, rr.stats(m.Narrative), inChange)}
	st, err := writeDelta(ctx, base, dir, docs, dead, budget, pm, opts)
	if err != nil {
		return nil, err
	}
	st.NarrativeDelta, st.Delta = st.Delta, nil
	return st, nil
}

// docsUnder returns the documents of seg under a key, and their heads.
func docsUnder(seg *segment, ns byte, key string) ([]uint32, []recordHead, error) {
	docs, err := seg.lookup(ns, key)
	if err != nil {
		return nil, nil, err
	}
	heads := make([]recordHead, len(docs))
	for i, d := range docs {
		if heads[i], err = seg.docHead(d); err != nil {
			return nil, nil, err
		}
	}
	return docs, heads, nil
}

// narrativePath is the path a narrative document records for the file at
// p (relative to narrative/).
func narrativePath(p string) string { return path.Join(repo.DirName, "narrative", p) }

// deltaStats returns the file stats of a narrative delta: those of now,
// where the files parsed for the delta carry the hashes of their racy
// reads, and the files not parsed (unchanged, racy in the base and
// found with the same content) the base's hashes.
func deltaStats(base, now []FileStat, parsed map[string]bool) []FileStat {
	for i := range now {
		if parsed[narrativePath(now[i].Path)] {
			continue
		}
		if j, ok := findFile(base, now[i].Path); ok {
			now[i].Sum = base[j].Sum
		}
	}
	return now
}

// findFile returns the index of the file at path p in files, sorted by
// path, and whether it is there.
func findFile(files []FileStat, p string) (int, bool) {
	return slices.BinarySearchFunc(files, p, func(f FileStat, p string) int { return strings.Compare(f.Path, p) })
}

package index

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ctx-dev/ctx/index/reader"
	"github.com/ctx-dev/ctx/index/stamp"
	"github.com/ctx-dev/ctx/index/table"
	"github.com/ctx-dev/ctx/index/text"
	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/fault"
	"github.com/ctx-dev/ctx/internal/lockfile"
	"github.com/ctx-dev/ctx/internal/parallel"
	"github.com/ctx-dev/ctx/repo"
)

// Layout of .ctx/index/ (docs/INDEX.md, "Layout and segments"): CURRENT
// names the two segment directories readers use; a rebuild writes new
// ones beside them under temporary names, renames them, then replaces
// CURRENT.
const (
	dirName     = "index"
	currentFile = "CURRENT"
	lockName    = "LOCK"
	segPrefix   = "seg-"
	tmpPrefix   = "tmp-"
)

// Dir returns the index directory of a store.
func Dir(r *repo.Repo) string { return filepath.Join(r.Root, dirName) }

// Index is the open index: two segments, the code's (documents of the
// current ref's heads) and the narrative's, each a complete set of
// tables with its own document numbers, read by package reader (which
// numbers the narrative's documents after the code's and sums the
// statistics, so that searching it gives exactly what one index over all
// documents would), with what it was built from. Either segment can be
// rebuilt alone when only its part of the store changed, and a delta
// segment may extend either.
type Index struct {
	*reader.Index
	Manifest *Manifest
	dirs     [nDirs]string // the segments CURRENT named, when opened from it
}

// The parts of the index: the two text segments, in document order, and
// the graph's adjacency in two segments, built when first asked for: the
// code graph (the heads' snapshots: code, build graphs, diagnostics),
// which changes only with the code, and the graph segment, which extends
// it with the edge batches' and the narrative's edges and holds the
// history's commits.
const (
	partCode = iota
	partNarrative
	partGraph
	partCodeGraph
	nParts
)

// partDelta is the code's delta segment, which CURRENT names beside the
// code segment it extends, partGraphDelta the code graph's beside the
// code graph segment, and partNarrDelta the narrative's beside the
// narrative segment (not parts of their own: built in their place).
const (
	partDelta = nParts + iota
	partGraphDelta
	partNarrDelta
	nDirs // the segments CURRENT can name
)

var partNames = [nDirs]string{"code", "narrative", "graph", "codegraph", "delta", "graphdelta", "narrdelta"}

// newIndex joins the open parts, the code's and the narrative's, and
// reads what they were built from.
func newIndex(code, narr reader.Part) (*Index, error) {
	var cm, nm Manifest
	for _, p := range []struct {
		part *reader.Part
		m    *Manifest
	}{{&code, &cm}, {&narr, &nm}} {
		data, err := p.part.Manifest()
		if err != nil {
			return nil, err
		}
		if err := p.m.UnmarshalText(data); err != nil {
			return nil, err
		}
	}
	return &Index{
		Index:    reader.New(code, narr),
		Manifest: &Manifest{Tokenizer: cm.Tokenizer, Ref: cm.Ref, Heads: cm.Heads, Repo: cm.Repo, Code: cm.Code, CodeGraph: cm.CodeGraph, Narrative: nm.Narrative},
	}, nil
}

// Doc returns document n.
func (ix *Index) Doc(n uint32) (Doc, error) {
	d, err := ix.Index.Doc(n)
	return docOf(d), err
}

// DocMeta returns document n without its text (Text is empty): what a
// caller that ranks many documents needs, without copying their chunks.
func (ix *Index) DocMeta(n uint32) (Doc, error) {
	d, err := ix.Index.DocMeta(n)
	return docOf(d), err
}

// ErrInvalidQuery is a query the index cannot run.
var ErrInvalidQuery = reader.ErrInvalidQuery

// Hit is a search result.
type Hit struct {
	Doc     Doc          `json:"-"`
	Score   float64      `json:"score"`
	Snippet text.Snippet `json:"-"`
}

// SearchOptions configure Search.
type SearchOptions = reader.SearchOptions

// RetrieveOptions configure Retrieve.
type RetrieveOptions = reader.RetrieveOptions

// Search runs a full-text query: ranked hits with snippets (reader's
// Index.Search).
func (ix *Index) Search(q string, opts SearchOptions) ([]Hit, int, error) {
	rh, matched, err := ix.Index.Search(q, opts)
	if err != nil {
		return nil, 0, err
	}
	hits := make([]Hit, len(rh))
	for i, h := range rh {
		hits[i] = Hit{Doc: docOf(h.Doc), Score: h.Score, Snippet: h.Snippet}
	}
	return hits, matched, nil
}

// Status says whether the index matches the store.
type Status struct {
	Present bool   `json:"present"`
	Fresh   bool   `json:"fresh"`
	Dir     string `json:"dir,omitempty"`
	Docs    int    `json:"docs"`
	Reason  string `json:"reason,omitempty"`
	// Delta describes the code's delta segment, if there is one,
	// NarrativeDelta the narrative's, and GraphDelta the code graph's.
	Delta          *DeltaStatus      `json:"delta,omitempty"`
	NarrativeDelta *DeltaStatus      `json:"narrative_delta,omitempty"`
	GraphDelta     *GraphDeltaStatus `json:"graph_delta,omitempty"`
	// Graph says whether the graph segments (built when first asked for)
	// are present and fresh.
	Graph GraphStatus `json:"graph"`
	// Stamp says whether the index's stamp holds (index/stamp): ctx's
	// front end then answers searches without ctx-core.
	Stamp StampStatus `json:"stamp"`
}

// StampStatus is whether the stamp holds, and why not.
type StampStatus struct {
	Holds  bool   `json:"holds"`
	Reason string `json:"reason,omitempty"`
}

// stampStatus reads and checks the stamp of r for its session.
func stampStatus(r *repo.Repo) StampStatus {
	if s, why := stamp.Read(r.Root, reader.Format, r.Session); s == nil {
		return StampStatus{Reason: why}
	}
	return StampStatus{Holds: true}
}

// GraphStatus is the state of the graph's segments: present (built),
// fresh, the code graph's nodes, and why not fresh.
type GraphStatus struct {
	Present bool   `json:"present"`
	Fresh   bool   `json:"fresh"`
	Nodes   uint32 `json:"nodes,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// DeltaStatus is what a delta segment holds: documents added, and the
// documents of the segment it extends that it replaces or removes. ctx
// rebuild (full) folds it into a new segment.
type DeltaStatus struct {
	Docs     int `json:"docs"`
	Replaced int `json:"replaced"`
}

// current returns the segment directories CURRENT names, by part; ""
// for a part it does not name.
func current(r *repo.Repo) [nDirs]string {
	var dirs [nDirs]string
	data, err := os.ReadFile(filepath.Join(Dir(r), currentFile))
	if err != nil {
		return dirs
	}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		part, name, ok := strings.Cut(l, " ")
		i := slices.Index(partNames[:], part)
		if !ok || i < 0 || !strings.HasPrefix(name, segPrefix) || strings.ContainsAny(name, "/\\") {
			return [nDirs]string{}
		}
		dirs[i] = filepath.Join(Dir(r), name)
	}
	return dirs
}

// openCurrent opens the text segments CURRENT names.
func openCurrent(r *repo.Repo) (*Index, error) {
	dirs := current(r)
	if dirs[partCode] == "" || dirs[partNarrative] == "" {
		return nil, fs.ErrNotExist
	}
	code, err := openTextPart(dirs[partCode], dirs[partDelta])
	if err != nil {
		return nil, err
	}
	narr, err := openTextPart(dirs[partNarrative], dirs[partNarrDelta])
	if err != nil {
		code.Close()
		return nil, err
	}
	ix, err := joinParts(code, narr)
	if err == nil {
		ix.dirs = dirs
	}
	return ix, err
}

// joinParts is newIndex, closing the parts when their manifests do not
// read.
func joinParts(code, narr reader.Part) (*Index, error) {
	ix, err := newIndex(code, narr)
	if err != nil {
		code.Close()
		narr.Close()
	}
	return ix, err
}

// partFresh reports whether a segment built from built matches the store
// as m describes it.
func partFresh(part int, built, m *Manifest) bool {
	if built == nil || built.Tokenizer != m.Tokenizer {
		return false
	}
	narr := narrativeEqual(built, m)
	heads := built.Ref == m.Ref && slices.Equal(built.Heads, m.Heads)
	switch part {
	case partNarrative:
		return narr
	case partGraph:
		// Every commit's edge batches, the narrative's edges and the
		// history's commits, numbered after the code graph's nodes (the
		// same for the same key: its build is deterministic).
		return narr && heads && built.CodeGraph == m.CodeGraph
	case partCodeGraph:
		return !built.CodeGraph.IsZero() && built.CodeGraph == m.CodeGraph
	}
	// The code's documents derive from the heads' code snapshots alone.
	return !built.Code.IsZero() && built.Code == m.Code
}

// deltaOf is the delta segment that may extend a part's segment; 0 (the
// code's own number, never a delta) for none.
var deltaOf = [nParts]int{partCode: partDelta, partNarrative: partNarrDelta, partCodeGraph: partGraphDelta}

// builtAs returns the manifest of a part as the segments of dirs hold
// it: its delta's when there is one (it records what the part's segment
// would), else the part's segment's; nil if it cannot be read.
func builtAs(dirs [nDirs]string, part int) *Manifest {
	if d := deltaOf[part]; d != 0 && dirs[d] != "" {
		return readManifest(dirs[d])
	}
	return readManifest(dirs[part])
}

// readManifest reads a segment's manifest; nil if it cannot.
func readManifest(dir string) *Manifest {
	data, err := os.ReadFile(filepath.Join(dir, manifest))
	if err != nil {
		return nil
	}
	m := new(Manifest)
	if m.UnmarshalText(data) != nil {
		return nil
	}
	return m
}

// Check reports whether the index is present and fresh, without
// changing anything.
func Check(r *repo.Repo) (*Status, error) {
	st := &Status{Stamp: stampStatus(r)}
	ix, err := openCurrent(r)
	if err != nil {
		st.Reason = "no index yet"
		if !errors.Is(err, fs.ErrNotExist) {
			st.Reason = "damaged: " + err.Error()
		}
		// The graph's segments stand apart from the text's.
		m, err := CurrentManifest(r)
		if err != nil {
			return nil, err
		}
		st.Graph = graphStatus(current(r), m)
		return st, nil
	}
	defer ix.Close()
	st.Present, st.Dir, st.Docs = true, Dir(r), ix.Docs()
	if d := ix.Code().Delta(); d != nil {
		st.Delta = deltaStatus(d)
	}
	if d := ix.Narrative().Delta(); d != nil {
		st.NarrativeDelta = deltaStatus(d)
	}
	cur := current(r)
	if cur[partGraphDelta] != "" && cur[partCodeGraph] != "" {
		if c, err := openCodeGraph(cur[partCodeGraph], cur[partGraphDelta]); err == nil {
			st.GraphDelta, err = c.status()
			c.close()
			if err != nil {
				return nil, err
			}
		}
	}
	m, err := currentManifest(r, ix.Manifest)
	if err != nil {
		return nil, err
	}
	st.Fresh = m.textEqual(ix.Manifest)
	if !st.Fresh {
		st.Reason = staleReason(ix.Manifest, m)
	}
	st.Graph = graphStatus(cur, m)
	return st, nil
}

// graphStatus tells whether the graph segments of dirs match the store
// as m describes it.
func graphStatus(dirs [nDirs]string, m *Manifest) GraphStatus {
	if dirs[partGraph] == "" || dirs[partCodeGraph] == "" {
		return GraphStatus{Reason: "not built yet"}
	}
	code, rest := builtAs(dirs, partCodeGraph), readManifest(dirs[partGraph])
	gs := GraphStatus{Present: true}
	if code != nil {
		gs.Nodes = code.Nodes
	}
	switch {
	case code == nil || rest == nil || code.Tokenizer != m.Tokenizer || rest.Tokenizer != m.Tokenizer:
		gs.Reason = "built by another version of ctx, or damaged"
	case code.Repo != m.Repo:
		gs.Reason = fmt.Sprintf("the repository id changed (%q, built for %q)", m.Repo, code.Repo)
	case !partFresh(partCodeGraph, code, m):
		gs.Reason = "the code changed"
	case !partFresh(partGraph, rest, m):
		gs.Reason = "new commits or narrative files changed"
	default:
		gs.Fresh = true
	}
	return gs
}

func staleReason(old, now *Manifest) string {
	switch {
	case old.Tokenizer != now.Tokenizer:
		return "built by another version of ctx"
	case old.Repo != now.Repo:
		return fmt.Sprintf("the repository id changed (%q, built for %q)", now.Repo, old.Repo)
	case old.Code != now.Code:
		return "the code snapshot changed"
	default:
		return fmt.Sprintf("%d narrative file(s) changed", len(old.ChangedNarrative(now)))
	}
}

// Open returns the index, fresh: when it is missing, damaged or does not
// match the store (a new commit, pulled heads, a narrative file edited),
// the stale segments are rebuilt first. rebuilt reports that some were.
func Open(ctx context.Context, r *repo.Repo, opts BuildOptions) (ix *Index, rebuilt bool, err error) {
	// What the stamp records is taken before the store is read: a change
	// after it shows as one (index/stamp).
	st := takeStamp(r)
	cur, err := openCurrent(r)
	var built *Manifest
	if err == nil {
		built = cur.Manifest
	}
	// A damaged table does not show in a manifest: the text segments are
	// then rebuilt whole.
	damaged := err != nil && !errors.Is(err, fs.ErrNotExist)
	m, err := currentManifest(r, built)
	if err != nil {
		if cur != nil {
			cur.Close()
		}
		return nil, false, err
	}
	if cur != nil {
		if cur.Manifest.textEqual(m) {
			saveStamp(r, st, cur, m)
			return cur, false, nil
		}
		cur.Close()
	}
	opts.IfStale = !damaged
	ix, rebuilt, err = rebuildOrPrivate(ctx, r, m, opts)
	if err == nil && rebuilt {
		restamp(r)
	}
	return ix, rebuilt, err
}

// restamp writes the stamp of the index a rebuild left, when a reading
// command would find it fresh: the search after a change then answers
// without ctx-core (index/stamp).
func restamp(r *repo.Repo) {
	st := takeStamp(r)
	cur, err := openCurrent(r)
	if err != nil {
		return
	}
	defer cur.Close()
	if m, err := currentManifest(r, cur.Manifest); err == nil && cur.Manifest.textEqual(m) {
		saveStamp(r, st, cur, m)
	}
}

// rebuildOrPrivate is Rebuild, for a store as m describes it; in a store
// this user cannot write (another user's checkout, a read-only mount), it
// answers from an index built for this process. rebuilt reports that
// some segment was built.
func rebuildOrPrivate(ctx context.Context, r *repo.Repo, m *Manifest, opts BuildOptions) (ix *Index, rebuilt bool, err error) {
	ix, st, err := Rebuild(ctx, r, opts)
	if err != nil && (errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)) {
		ix, err := buildPrivate(ctx, r, m, opts)
		return ix, err == nil, err
	}
	return ix, err == nil && st != nil, err
}

// Damaged reports whether err comes from a damaged index file: a table
// or record that does not decode (which opening the index need not
// notice: it reads only each table's header and footer), or a table of
// another format version.
func Damaged(err error) bool {
	return errors.Is(err, ErrCorrupt) || errors.Is(err, table.ErrCorrupt) || errors.Is(err, table.ErrVersion)
}

// Use opens the index, fresh, and calls fn with it. When the index, or
// fn's reading of it, turns out damaged (Damaged), the text segments are
// rebuilt whole and fn is called once more: the index is derived data,
// and a damaged one never stops a reading command. fn may be called
// twice, so it should return its results rather than print them.
func Use(ctx context.Context, r *repo.Repo, opts BuildOptions, fn func(*Index) error) error {
	ix, _, err := Open(ctx, r, opts)
	if err == nil {
		err = fn(ix)
		ix.Close()
	}
	if !Damaged(err) {
		return err
	}
	m, err := CurrentManifest(r)
	if err != nil {
		return err
	}
	opts.IfStale = false
	if ix, _, err = rebuildOrPrivate(ctx, r, m, opts); err != nil {
		return err
	}
	defer ix.Close()
	return fn(ix)
}

// buildPart writes the segment of one part of the store as m describes
// it into dir, which must not exist. The graph segment extends the code
// graph segment in base.
func buildPart(ctx context.Context, r *repo.Repo, m *Manifest, part int, dir string, base [2]string, vs *versions, opts BuildOptions) (*BuildStats, error) {
	var docs []Doc
	var err error
	pm := &Manifest{Tokenizer: m.Tokenizer, Ref: m.Ref}
	switch part {
	case partCodeGraph:
		pm.Heads, pm.Repo, pm.CodeGraph = m.Heads, m.Repo, m.CodeGraph
		adj, err := collectCodeGraph(ctx, r, m.Heads, vs)
		if err != nil {
			return nil, err
		}
		vs.release()
		pm.Nodes = uint32(len(adj.nodes))
		return writeGraphSegment(dir, adj, pm)
	case partGraph:
		pm.Heads, pm.Repo, pm.CodeGraph = m.Heads, m.Repo, m.CodeGraph
		bg, err := openCodeGraph(base[0], base[1])
		if err != nil {
			return nil, err
		}
		defer bg.close()
		// The history, walked once for the edge batches and the commits.
		history, err := r.Log(ctx, m.Heads, 0)
		if err != nil {
			return nil, fmt.Errorf("index: history: %w", err)
		}
		rr := newRacyRead(m)
		adj, err := collectGraph(ctx, r, rr.space(r.Narrative()), m.Heads, history, bg)
		if err != nil {
			return nil, err
		}
		pm.Narrative = rr.stats(m.Narrative)
		pm.Nodes = adj.first
		st, err := writeGraphSegment(dir, adj, pm)
		if err != nil {
			return nil, err
		}
		return st, writeCommits(history, dir)
	case partCode:
		pm.Heads, pm.Repo, pm.Code, pm.CodeGraph = m.Heads, m.Repo, m.Code, m.CodeGraph
		docs, err = collectCode(ctx, r, m.Heads, vs.get)
		vs.release()
	default:
		rr := newRacyRead(m)
		docs, pm.Hidden, err = collectNarrative(rr.space(r.Narrative()))
		pm.Narrative = rr.stats(m.Narrative)
	}
	if err != nil {
		return nil, err
	}
	return writeSegment(ctx, dir, docs, pm, opts)
}

// buildPrivate builds both segments in a temporary directory outside the
// store and opens them; the files are removed at once (their mappings
// stay valid until Close).
func buildPrivate(ctx context.Context, r *repo.Repo, m *Manifest, opts BuildOptions) (*Index, error) {
	tmp, err := os.MkdirTemp("", "ctx-index-")
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	defer os.RemoveAll(tmp)
	return buildIn(ctx, r, m, tmp, opts)
}

// buildIn builds both text segments in subdirectories of tmp and opens
// them.
func buildIn(ctx context.Context, r *repo.Repo, m *Manifest, tmp string, opts BuildOptions) (*Index, error) {
	var parts [2]reader.Part
	for part := range []int{partCode, partNarrative} {
		dir := filepath.Join(tmp, partNames[part])
		_, err := buildPart(ctx, r, m, part, dir, [2]string{}, newVersions(r, false), opts)
		if err == nil {
			parts[part], err = openTextPart(dir, "")
		}
		if err != nil {
			parts[partCode].Close()
			return nil, err
		}
	}
	return joinParts(parts[partCode], parts[partNarrative])
}

// Rebuild writes new text segments (and with opts.Graph the graph's) and
// makes them current, under the index lock. With opts.IfStale it
// rebuilds only the segments that no longer match the store (none, when
// another process rebuilt them while this one waited for the lock; then
// BuildStats is nil). A crash at any point leaves the old segments
// current, or the new ones complete.
func Rebuild(ctx context.Context, r *repo.Repo, opts BuildOptions) (*Index, *BuildStats, error) {
	st, err := rebuild(ctx, r, opts, [nParts]bool{true, true, opts.Graph, opts.Graph})
	if err != nil {
		return nil, nil, err
	}
	ix, err := openCurrent(r)
	if err != nil {
		return nil, nil, err
	}
	if st != nil {
		st.Docs = ix.Docs()
	}
	return ix, st, nil
}

// rebuild writes the segments of the parts wanted and makes them
// current; the other parts keep theirs.
func rebuild(ctx context.Context, r *repo.Repo, opts BuildOptions, want [nParts]bool) (*BuildStats, error) {
	dir := Dir(r)
	if err := atomicfile.MkdirAll(dir); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	lk, err := lockfile.Acquire(ctx, filepath.Join(dir, lockName), lockfile.Options{
		Timeout: 10 * time.Minute, Holder: lockfile.Holder{PID: os.Getpid(), Command: "ctx: index rebuild"},
	})
	if err != nil {
		return nil, fmt.Errorf("index: lock: %w", err)
	}
	defer lk.Release()
	m, err := CurrentManifest(r)
	if err != nil {
		return nil, err
	}
	// The lock was written as it was taken: its time is the file
	// system's clock before any narrative file was stat or read.
	if m.since, err = fsNow(filepath.Join(dir, lockName)); err != nil {
		return nil, fmt.Errorf("index: lock: %w", err)
	}
	cur := current(r)
	build := want
	for part := range nParts {
		if cur[part] == "" {
			continue
		}
		built := builtAs(cur, part)
		if !want[part] || opts.IfStale && partFresh(part, built, m) {
			build[part] = false
		}
	}
	if build[partCodeGraph] {
		build[partGraph] = want[partGraph] // numbered after the code graph's nodes
	}
	var names, tmps [nDirs]string
	removeTmps := func() {
		for _, t := range tmps {
			if t != "" {
				os.RemoveAll(t)
			}
		}
	}
	newName := func(part int) error {
		var suffix [8]byte
		if _, err := rand.Read(suffix[:]); err != nil {
			return err
		}
		names[part] = segPrefix + hex.EncodeToString(suffix[:])
		tmps[part] = filepath.Join(dir, tmpPrefix+names[part])
		return nil
	}
	// A stale code or narrative segment is brought up to date by a delta
	// segment, and a stale code graph segment by a code graph delta, when
	// the change allows; else it is rebuilt.
	var stats [nDirs]*BuildStats
	var parts []int
	for _, d := range []struct {
		part, delta int
		build       func(dir string) (*BuildStats, error)
	}{
		{partCode, partDelta, func(dir string) (*BuildStats, error) { return buildDelta(ctx, r, m, cur[partCode], dir, opts) }},
		{partNarrative, partNarrDelta, func(dir string) (*BuildStats, error) { return buildNarrDelta(ctx, r, m, cur[partNarrative], dir, opts) }},
		{partCodeGraph, partGraphDelta, func(dir string) (*BuildStats, error) { return buildGraphDelta(ctx, r, m, cur[partCodeGraph], dir) }},
	} {
		if !build[d.part] {
			if cur[d.delta] != "" {
				names[d.delta] = filepath.Base(cur[d.delta])
			}
			continue
		}
		if !opts.IfStale || cur[d.part] == "" {
			continue
		}
		if err := newName(d.delta); err != nil {
			removeTmps()
			return nil, err
		}
		stats[d.delta], err = d.build(tmps[d.delta])
		switch {
		case err == nil:
			build[d.part] = false
			parts = append(parts, d.delta)
		case ctx.Err() != nil:
			removeTmps()
			return nil, ctx.Err()
		default:
			// Too large a change, a base that cannot be read (damaged
			// inside a table, of an older format), or for the code graph
			// a change of the build graphs: the segment is rebuilt,
			// which needs nothing of the base.
			os.RemoveAll(tmps[d.delta])
			names[d.delta], tmps[d.delta] = "", ""
		}
	}
	for _, part := range []int{partCode, partCodeGraph, partGraph, partNarrative} { // the large ones first
		if !build[part] {
			if cur[part] != "" {
				names[part] = filepath.Base(cur[part])
			}
			continue
		}
		if err := newName(part); err != nil {
			removeTmps()
			return nil, err
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return nil, nil // every wanted segment is fresh
	}
	// The code's text and the graph read the same file versions: when
	// both are built, they are decoded once, first, on every core. The
	// parts are then built side by side, so that the one-core phases of
	// each (sorting, writing) overlap.
	vs := newVersions(r, build[partCode] && build[partCodeGraph])
	if vs.keep {
		if err := vs.prefetch(ctx, m.Heads); err != nil {
			return nil, err
		}
	}
	// A job builds its parts in order: the graph segment after the code
	// graph it extends, when both are built.
	var jobs [][]int
	for _, part := range parts {
		if part >= nParts {
			continue // a delta: built
		}
		if part == partGraph && build[partCodeGraph] {
			i := slices.IndexFunc(jobs, func(j []int) bool { return j[0] == partCodeGraph })
			jobs[i] = append(jobs[i], part)
			continue
		}
		jobs = append(jobs, []int{part})
	}
	// The code graph the graph segment extends: as current, or as built.
	base := [2]string{cur[partCodeGraph], cur[partGraphDelta]}
	switch {
	case build[partCodeGraph]:
		base = [2]string{tmps[partCodeGraph], ""}
	case tmps[partGraphDelta] != "":
		base[1] = tmps[partGraphDelta]
	}
	if err := parallel.Do(ctx, len(jobs), func(i int) error {
		for _, part := range jobs[i] {
			o := opts
			if part == partNarrative && build[partCode] {
				o.Progress = nil // the code's bar, not two
			}
			var err error
			if stats[part], err = buildPart(ctx, r, m, part, tmps[part], base, vs, o); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		removeTmps()
		return nil, err
	}
	st := &BuildStats{}
	for part := range nDirs {
		if slices.Contains(parts, part) {
			st.Segments = append(st.Segments, partNames[part])
		}
	}
	for _, part := range parts {
		st.add(stats[part])
		fault.Hit("index.built")
		if err := os.Rename(tmps[part], filepath.Join(dir, names[part])); err != nil {
			removeTmps()
			return nil, fmt.Errorf("index: %w", err)
		}
		tmps[part] = ""
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		return nil, err
	}
	fault.Hit("index.renamed")
	var b strings.Builder
	for part, name := range names {
		if name != "" {
			fmt.Fprintf(&b, "%s %s\n", partNames[part], name)
		}
	}
	if err := atomicfile.Write(filepath.Join(dir, currentFile), []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	fault.Hit("index.current")
	removeOld(dir, names[:])
	return st, nil
}

// removeOld deletes segments other than keep and temporary directories
// left by interrupted rebuilds. A reader that still has an old segment
// open keeps its mapped files. The files go on every core: freeing the
// page cache of 200 MB of tables takes tens of milliseconds, most of it
// the largest file's.
func removeOld(dir string, keep []string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	var dirs, files []string
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() || !(strings.HasPrefix(n, segPrefix) || strings.HasPrefix(n, tmpPrefix) || strings.HasPrefix(n, "gen-")) {
			continue
		}
		if slices.Contains(keep, n) {
			continue
		}
		d := filepath.Join(dir, n)
		dirs = append(dirs, d)
		if fs, err := os.ReadDir(d); err == nil {
			for _, f := range fs {
				if !f.IsDir() {
					files = append(files, filepath.Join(d, f.Name()))
				}
			}
		}
	}
	_ = parallel.Do(context.Background(), len(files), func(i int) error {
		_ = os.Remove(files[i])
		return nil
	})
	for _, d := range dirs {
		_ = os.RemoveAll(d) // what is left: subdirectories, files made since
	}
}

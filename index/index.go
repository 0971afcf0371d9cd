package index

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/index/table"
	"github.com/ctx-dev/ctx/index/text"
	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/fault"
	"github.com/ctx-dev/ctx/internal/lockfile"
	"github.com/ctx-dev/ctx/repo"
)

// Layout of .ctx/index/ (docs/INDEX.md, "Generations"): CURRENT names
// the generation directory readers use; a rebuild writes a new one
// beside it under a temporary name, renames it, then replaces CURRENT.
const (
	dirName     = "index"
	currentFile = "CURRENT"
	lockName    = "LOCK"
	genPrefix   = "gen-"
	tmpPrefix   = "tmp-"
)

// Dir returns the index directory of a store.
func Dir(r *repo.Repo) string { return filepath.Join(r.Root, dirName) }

// Index is an open generation of the index.
type Index struct {
	Dir      string
	Manifest *Manifest
	docs     *table.Table
	terms    *table.Table
	keys     *table.Table
	stats    text.Stats
	lens     []byte // u32 little-endian per doc
}

// Close unmaps the tables; values read from them are invalid after.
func (ix *Index) Close() error {
	var errs []error
	for _, t := range []*table.Table{ix.docs, ix.terms, ix.keys} {
		if t != nil {
			errs = append(errs, t.Close())
		}
	}
	return errors.Join(errs...)
}

// open opens the generation in dir.
func open(dir string) (ix *Index, err error) {
	ix = &Index{Dir: dir}
	defer func() {
		if err != nil {
			ix.Close()
			ix = nil
		}
	}()
	data, err := os.ReadFile(filepath.Join(dir, manifest))
	if err != nil {
		return nil, err
	}
	ix.Manifest = new(Manifest)
	if err := ix.Manifest.UnmarshalText(data); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name, kind string
		t          **table.Table
	}{{docsFile, "docs", &ix.docs}, {termsFile, "terms", &ix.terms}, {keysFile, "keys", &ix.keys}} {
		t, err := table.Open(filepath.Join(dir, f.name))
		if err != nil {
			return nil, err
		}
		*f.t = t
		if t.Kind() != f.kind {
			return nil, fmt.Errorf("%w: %s is a %q table", ErrCorrupt, f.name, t.Kind())
		}
	}
	meta, err := table.Open(filepath.Join(dir, metaFile))
	if err != nil {
		return nil, err
	}
	defer meta.Close()
	stats, ok := meta.Get([]byte("stats"))
	if !ok {
		return nil, fmt.Errorf("%w: no stats", ErrCorrupt)
	}
	n, k := binary.Uvarint(stats)
	tokens, k2 := binary.Uvarint(stats[max(k, 0):])
	if k <= 0 || k2 <= 0 || n > 1<<32-1 || uint64(ix.docs.Len()) != n {
		return nil, fmt.Errorf("%w: bad stats", ErrCorrupt)
	}
	ix.stats = text.Stats{Docs: uint32(n), Tokens: tokens}
	lens, ok := meta.Get([]byte("doclens"))
	if !ok || uint64(len(lens)) != 4*n {
		return nil, fmt.Errorf("%w: document lengths", ErrCorrupt)
	}
	ix.lens = append([]byte(nil), lens...) // meta is closed on return
	return ix, nil
}

// Docs returns the number of documents.
func (ix *Index) Docs() int { return int(ix.stats.Docs) }

// Doc returns document n.
func (ix *Index) Doc(n uint32) (Doc, error) {
	var k [4]byte
	binary.BigEndian.PutUint32(k[:], n)
	v, ok := ix.docs.Get(k[:])
	if !ok {
		if err := ix.docs.Err(); err != nil {
			return Doc{}, err
		}
		return Doc{}, fmt.Errorf("%w: no document %d", ErrCorrupt, n)
	}
	d, _, err := decodeRecord(v)
	return d, err
}

// Lookup returns the documents a key of the keys table lists: ns is one
// of "path", "key", "name", "node", "kind".
func (ix *Index) Lookup(ns, key string) ([]uint32, error) {
	b, ok := namespaces[ns]
	if !ok {
		return nil, fmt.Errorf("%w: namespace %q (want path, key, name, node or kind)", ErrInvalidQuery, ns)
	}
	v, ok := ix.keys.Get(append([]byte{b}, key...))
	if !ok {
		return nil, ix.keys.Err()
	}
	docs, err := table.DecodeUvarintDeltas(nil, v)
	if err != nil {
		return nil, fmt.Errorf("%w: keys %s %q: %v", ErrCorrupt, ns, key, err)
	}
	return docs, nil
}

var namespaces = map[string]byte{"path": nsPath, "key": nsKey, "name": nsName, "node": nsNode, "kind": nsKind}

// ErrInvalidQuery is a query the index cannot run.
var ErrInvalidQuery = errors.New("index: invalid query")

// Stats implements text.Reader.
func (ix *Index) Stats() text.Stats { return ix.stats }

// DocLen implements text.Reader.
func (ix *Index) DocLen(doc uint32) uint32 {
	if uint64(doc)*4+4 > uint64(len(ix.lens)) {
		return 0
	}
	return binary.LittleEndian.Uint32(ix.lens[doc*4:])
}

// Postings implements text.Reader.
func (ix *Index) Postings(term string) (text.Postings, int) {
	v, ok := ix.terms.Get([]byte(term))
	if !ok {
		return nil, 0
	}
	df, n := binary.Uvarint(v)
	if n <= 0 || df == 0 || df > uint64(ix.stats.Docs) {
		return &postings{err: fmt.Errorf("%w: term %q", ErrCorrupt, term)}, 1
	}
	return &postings{it: table.NewPositionIter(v[n:])}, int(df)
}

// postings adapts the table's positional postings to text.Postings.
// Positions are decoded only when asked for (phrases): a term alone needs
// only its frequency, which the encoding stores first.
type postings struct {
	it      table.PositionIter
	pos     []uint32
	decoded bool
	err     error
}

func (p *postings) Next() bool {
	if p.err != nil || !p.it.Next() {
		return false
	}
	p.decoded = false
	return true
}
func (p *postings) Doc() uint32 { return p.it.Doc() }
func (p *postings) Freq() int   { return p.it.Freq() }
func (p *postings) Positions() []uint32 {
	if !p.decoded {
		p.pos = p.it.AppendPositions(p.pos[:0])
		p.decoded = true
	}
	return p.pos
}
func (p *postings) Err() error {
	if p.err != nil {
		return p.err
	}
	return p.it.Err()
}

// Hit is a search result.
type Hit struct {
	Doc     Doc          `json:"-"`
	Score   float64      `json:"score"`
	Snippet text.Snippet `json:"-"`
}

// SearchOptions configure Search.
type SearchOptions struct {
	Limit int
	// Kinds keeps only documents of these kinds (a node type, "item",
	// "file", "diagnostic"); none keeps all.
	Kinds []string
}

// Search runs a full-text query: ranked hits with snippets.
func (ix *Index) Search(q string, opts SearchOptions) ([]Hit, int, error) {
	query := text.ParseQuery(q)
	kinds := map[string]bool{}
	for _, k := range opts.Kinds {
		kinds[k] = true
	}
	for _, f := range query.Filters {
		if f.Field == "type" || f.Field == "kind" {
			kinds[strings.ToLower(f.Value)] = true
		}
	}
	so := text.SearchOptions{K: opts.Limit}
	if len(kinds) > 0 {
		// The documents of the kinds, from the kind keys: no record is
		// decoded to filter.
		allowed := make([]bool, ix.Docs())
		for k := range kinds {
			docs, err := ix.Lookup("kind", k)
			if err != nil {
				return nil, 0, err
			}
			for _, d := range docs {
				if int(d) < len(allowed) {
					allowed[d] = true
				}
			}
		}
		so.Accept = func(doc uint32) bool { return int(doc) < len(allowed) && allowed[doc] }
	}
	res, err := text.Search(ix, query, so)
	if err != nil {
		return nil, 0, err
	}
	hits := make([]Hit, 0, len(res.Hits))
	for _, h := range res.Hits {
		d, err := ix.Doc(h.Doc)
		if err != nil {
			return nil, 0, err
		}
		hits = append(hits, Hit{Doc: d, Score: h.Score, Snippet: text.BestSnippet(d.Text, query, 0)})
	}
	return hits, res.Matched, nil
}

// Status says whether the index matches the store.
type Status struct {
	Present bool   `json:"present"`
	Fresh   bool   `json:"fresh"`
	Dir     string `json:"dir,omitempty"`
	Docs    int    `json:"docs"`
	Reason  string `json:"reason,omitempty"`
}

// current returns the directory CURRENT names, "" if none.
func current(r *repo.Repo) string {
	data, err := os.ReadFile(filepath.Join(Dir(r), currentFile))
	if err != nil {
		return ""
	}
	name := strings.TrimSpace(string(data))
	if !strings.HasPrefix(name, genPrefix) || strings.ContainsAny(name, "/\\") {
		return ""
	}
	return filepath.Join(Dir(r), name)
}

// Check reports whether the index is present and fresh, without
// changing anything.
func Check(r *repo.Repo) (*Status, error) {
	st := &Status{}
	dir := current(r)
	if dir == "" {
		st.Reason = "no index yet"
		return st, nil
	}
	ix, err := open(dir)
	if err != nil {
		st.Reason = "damaged: " + err.Error()
		return st, nil
	}
	defer ix.Close()
	st.Present, st.Dir, st.Docs = true, dir, ix.Docs()
	m, err := CurrentManifest(r)
	if err != nil {
		return nil, err
	}
	st.Fresh = m.Equal(ix.Manifest)
	if !st.Fresh {
		st.Reason = staleReason(ix.Manifest, m)
	}
	return st, nil
}

func staleReason(old, now *Manifest) string {
	switch {
	case old.Ref != now.Ref:
		return "the current ref changed"
	case !equalIDs(old.Heads, now.Heads):
		return "new commits"
	default:
		return fmt.Sprintf("%d narrative file(s) changed", len(old.ChangedNarrative(now)))
	}
}

// Open returns the index, fresh: when it is missing, damaged or does not
// match the store (a new commit, pulled heads, a narrative file edited),
// it is rebuilt first. rebuilt reports that it was.
func Open(ctx context.Context, r *repo.Repo, opts BuildOptions) (ix *Index, rebuilt bool, err error) {
	m, err := CurrentManifest(r)
	if err != nil {
		return nil, false, err
	}
	if dir := current(r); dir != "" {
		if ix, err := open(dir); err == nil {
			if ix.Manifest.Equal(m) {
				return ix, false, nil
			}
			ix.Close()
		}
	}
	opts.IfStale = true
	ix, st, err := Rebuild(ctx, r, opts)
	return ix, err == nil && st != nil, err
}

// Rebuild writes a new generation of the whole index and makes it
// current, under the index lock (a second process waiting for it uses
// the generation the first wrote, if it is fresh). A crash at any point
// leaves the old generation current, or the new one complete.
func Rebuild(ctx context.Context, r *repo.Repo, opts BuildOptions) (*Index, *BuildStats, error) {
	dir := Dir(r)
	if err := atomicfile.MkdirAll(dir); err != nil {
		return nil, nil, fmt.Errorf("index: %w", err)
	}
	lk, err := lockfile.Acquire(ctx, filepath.Join(dir, lockName), lockfile.Options{
		Timeout: 10 * time.Minute, Holder: lockfile.Holder{PID: os.Getpid(), Command: "ctx: index rebuild"},
	})
	if err != nil {
		return nil, nil, fmt.Errorf("index: lock: %w", err)
	}
	defer lk.Release()
	m, err := CurrentManifest(r)
	if err != nil {
		return nil, nil, err
	}
	if opts.IfStale {
		// Another process may have rebuilt it while this one waited.
		if cur := current(r); cur != "" {
			if ix, err := open(cur); err == nil {
				if ix.Manifest.Equal(m) {
					return ix, nil, nil
				}
				ix.Close()
			}
		}
	}
	var suffix [8]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return nil, nil, err
	}
	name := hex.EncodeToString(suffix[:])
	tmp := filepath.Join(dir, tmpPrefix+name)
	st, err := build(ctx, r, tmp, m, opts)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	fault.Hit("index.built")
	gen := filepath.Join(dir, genPrefix+name)
	if err := os.Rename(tmp, gen); err != nil {
		os.RemoveAll(tmp)
		return nil, nil, fmt.Errorf("index: %w", err)
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		return nil, nil, err
	}
	fault.Hit("index.renamed")
	if err := atomicfile.Write(filepath.Join(dir, currentFile), []byte(genPrefix+name+"\n"), 0o644); err != nil {
		return nil, nil, err
	}
	fault.Hit("index.current")
	removeOld(dir, genPrefix+name)
	ix, err := open(gen)
	if err != nil {
		return nil, nil, err
	}
	return ix, st, nil
}

// removeOld deletes generations other than keep and temporary
// directories left by interrupted rebuilds. A reader that still has an
// old generation open keeps its mapped files.
func removeOld(dir, keep string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() && n != keep && (strings.HasPrefix(n, genPrefix) || strings.HasPrefix(n, tmpPrefix)) {
			_ = os.RemoveAll(filepath.Join(dir, n))
		}
	}
}

// equalIDs compares head lists.
func equalIDs[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

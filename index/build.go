package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/index/reader"
	"github.com/ctx-dev/ctx/index/table"
	"github.com/ctx-dev/ctx/index/text"
	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/parallel"
	"github.com/ctx-dev/ctx/object"
)

// BuildOptions configure Build.
type BuildOptions struct {
	// Graph makes Rebuild also rebuild the graph's adjacency, which is
	// otherwise built when first asked for (OpenGraph).
	Graph bool
	// IfStale makes Rebuild keep the current segments that match the
	// store (the narrative's after a commit; both when another process
	// rebuilt them while this one waited).
	IfStale bool
	// Progress, if set, is called with the documents done and the total.
	Progress func(done, total int)
}

// BuildStats is what Build did: the documents of the index, and the
// terms, keys and bytes of the segments it wrote.
type BuildStats struct {
	Docs  int   `json:"docs"`
	Terms int   `json:"terms"`
	Keys  int   `json:"keys"`
	Bytes int64 `json:"bytes"`
	// Delta is set when the code was brought up to date by a delta
	// segment rather than rebuilt, NarrativeDelta when the narrative was,
	// GraphDelta when the code graph was.
	Delta          *DeltaStatus      `json:"delta,omitempty"`
	NarrativeDelta *DeltaStatus      `json:"narrative_delta,omitempty"`
	GraphDelta     *GraphDeltaStatus `json:"graph_delta,omitempty"`
	// Segments names the segments written, as CURRENT names them
	// ("code", "narrative", "graph", "codegraph", "delta", "narrdelta",
	// "graphdelta"), in that order.
	Segments []string `json:"segments"`
}

// add counts what another segment's build did.
func (st *BuildStats) add(o *BuildStats) {
	st.Docs += o.Docs
	st.Terms += o.Terms
	st.Keys += o.Keys
	st.Bytes += o.Bytes
	if o.Delta != nil {
		st.Delta = o.Delta
	}
	if o.NarrativeDelta != nil {
		st.NarrativeDelta = o.NarrativeDelta
	}
	if o.GraphDelta != nil {
		st.GraphDelta = o.GraphDelta
	}
}

// writeSegment writes the files of a segment of docs, numbered in
// the order given, into dir, which must not exist.
func writeSegment(ctx context.Context, dir string, docs []Doc, m *Manifest, opts BuildOptions) (*BuildStats, error) {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	st := &BuildStats{Docs: len(docs)}
	// The keys table needs nothing but the documents: it is written while
	// they are tokenized, on a core of its own or between the
	// tokenizer's, so that it does not wait with the terms and docs
	// tables, which need the tokens, for one core at the end.
	keys := make(chan error, 1)
	go func() { keys <- writeDocKeys(dir, docs, &st.Keys) }()
	docLens, err := writeTokens(ctx, dir, docs, opts, &st.Terms)
	if kerr := <-keys; err == nil {
		err = kerr
	}
	if err != nil {
		return nil, err
	}
	lens := make([]byte, 0, 4*len(docs))
	var total uint64
	for _, n := range docLens {
		total += uint64(n)
		lens = binary.LittleEndian.AppendUint32(lens, n)
	}

	// Statistics and document lengths.
	metaOut, err := newTableFile(filepath.Join(dir, metaFile), "meta")
	if err != nil {
		return nil, err
	}
	defer metaOut.abort()
	if err := metaOut.w.Add([]byte("doclens"), lens); err != nil {
		return nil, err
	}
	stats := binary.AppendUvarint(binary.AppendUvarint(nil, uint64(len(docs))), total)
	if err := metaOut.w.Add([]byte("stats"), stats); err != nil {
		return nil, err
	}
	if err := metaOut.close(); err != nil {
		return nil, err
	}

	if err := writeManifest(dir, m); err != nil {
		return nil, err
	}
	st.Bytes = filesBytes(dir, docsFile, termsFile, keysFile, metaFile, manifest)
	return st, nil
}

// writeTokens tokenizes docs, writes the terms and docs tables, counting
// terms, and returns the documents' lengths in positions.
func writeTokens(ctx context.Context, dir string, docs []Doc, opts BuildOptions, terms *int) ([]uint32, error) {
	// Tokenize on every core: each worker takes a contiguous range of
	// documents and gathers its own postings, in document order; the
	// ranges are then joined in order, so the result does not depend on
	// the number of workers.
	workers := min(runtime.GOMAXPROCS(0), max(1, len(docs)/256))
	invs := make([]*inverter, workers)
	docLens := make([]uint32, len(docs))
	var done atomic.Int64
	if err := parallel.Do(ctx, workers, func(w int) error {
		from, to := w*len(docs)/workers, (w+1)*len(docs)/workers
		var size int
		for i := from; i < to; i++ {
			size += len(docs[i].Text)
		}
		inv := newInverterFor(textTerms(size))
		var tk text.Tokenizer
		for i := from; i < to; i++ {
			if i%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
				if opts.Progress != nil {
					opts.Progress(int(done.Load()), len(docs))
				}
			}
			docLens[i] = tk.TokenizeBytes(docs[i].Text, 0, inv.add)
			inv.endDoc(uint32(i))
			done.Add(1)
		}
		invs[w] = inv
		return nil
	}); err != nil {
		return nil, err
	}
	if opts.Progress != nil {
		opts.Progress(len(docs), len(docs))
	}
	// The two tables are independent: they are written side by side, the
	// terms' on every core (writeTerms).
	wrote := make(chan error, 1)
	go func() { wrote <- writeDocs(dir, docs, docLens) }()
	err := writeTerms(ctx, dir, invs, terms)
	if derr := <-wrote; err == nil {
		err = derr
	}
	return docLens, err
}

// writeTerms writes the terms table from the inverters, counting terms.
//
// Merging the inverters' lists and adding their skip tables is most of
// the work, and needs nothing but the terms of a range: the terms are
// cut into ranges (merger.split), merged into buffers on every core, and
// the buffers written to the table in order as they are done, by this
// goroutine. A range is merged into the buffer of the range termWindow
// before it, once that is written: the buffers are few, reused, and
// handed on in the ranges' order, so that no range waits for a buffer
// that only a later range holds.
func writeTerms(ctx context.Context, dir string, invs []*inverter, terms *int) error {
	m, err := newMerger(ctx, invs)
	if err != nil {
		return err
	}
	out, err := newTableFile(filepath.Join(dir, termsFile), "terms")
	if err != nil {
		return err
	}
	defer out.abort()
	bounds := m.split(termRangesPer * runtime.GOMAXPROCS(0))
	chunks := make([]termChunk, len(bounds)-1)
	for k := range chunks {
		chunks[k].done, chunks[k].written = make(chan struct{}), make(chan struct{})
	}
	// A buffer holds about a range's records.
	var size int
	for _, v := range invs {
		for i := range v.terms {
			size += int(v.terms[i].list.n) + 16
		}
	}
	size /= len(chunks)
	var scratch sync.Pool // of *termScratch
	mctx, cancel := context.WithCancel(ctx)
	defer cancel()
	merged := make(chan error, 1)
	go func() {
		merged <- parallel.Do(mctx, len(chunks), func(k int) error {
			c := &chunks[k]
			defer close(c.done)
			var buf []byte
			if k < termWindow {
				buf = make([]byte, 0, size+size/4)
			} else {
				select {
				case <-chunks[k-termWindow].written:
					buf = chunks[k-termWindow].buf[:0]
				case <-mctx.Done():
					c.err = mctx.Err()
					return c.err
				}
			}
			sc, _ := scratch.Get().(*termScratch)
			if sc == nil {
				sc = new(termScratch)
			}
			c.err = m.merge(&sc.mb, bounds[k], bounds[k+1], func(name, val []byte) error {
				v, err := sc.sk.add(val)
				if err != nil {
					return err
				}
				c.n++
				buf = binary.AppendUvarint(buf, uint64(len(name)))
				buf = append(buf, name...)
				buf = binary.AppendUvarint(buf, uint64(len(v)))
				buf = append(buf, v...)
				return nil
			})
			scratch.Put(sc)
			c.buf = buf
			return c.err
		})
	}()
	// stop stops the merging, waits for it to end, and returns err, or
	// else the merging's error.
	stop := func(err error) error {
		cancel()
		if merr := <-merged; err == nil {
			err = merr
		}
		return err
	}
	for k := range chunks {
		c := &chunks[k]
		select {
		case <-c.done:
		case err := <-merged:
			// The merging ended; ranges it did not start are never done.
			merged <- err
			select {
			case <-c.done:
			default:
				return stop(nil)
			}
		}
		if c.err != nil {
			return stop(c.err)
		}
		for b := c.buf; len(b) > 0; {
			name, rest := nextBytes(b)
			val, rest := nextBytes(rest)
			if err := out.w.Add(name, val); err != nil {
				return stop(err)
			}
			b = rest
		}
		*terms += c.n
		close(c.written) // c.buf goes to range k+termWindow
	}
	if err := stop(nil); err != nil {
		return err
	}
	return out.close()
}

const (
	termRangesPer = 32 // ranges of the terms table per core
	termWindow    = 4  // ranges merged or being merged ahead of the writer
)

// termScratch is the scratch of a range's merging.
type termScratch struct {
	mb mergeBuf
	sk skipper
}

// termChunk is a range of the terms table, merged: its records, each a
// uvarint length and the name, then a uvarint length and the value.
type termChunk struct {
	buf     []byte
	n       int // records
	err     error
	done    chan struct{} // closed when merged, or failed (err)
	written chan struct{} // closed when written: buf is free
}

// nextBytes returns the uvarint-length-prefixed bytes at the start of b,
// which termChunk's writer made, and the rest.
func nextBytes(b []byte) (v, rest []byte) {
	n, k := binary.Uvarint(b)
	return b[k : k+int(n)], b[k+int(n):]
}

// skipper adds skip tables to terms values, reusing its buffers from
// value to value.
type skipper struct{ out, skips []byte }

// add returns the terms value val (uv document frequency, then the
// positional postings) with the skip table a list of more than
// table.SkipEvery documents has after its frequency; val itself when it
// needs none. The result is valid until the next call.
func (sk *skipper) add(val []byte) ([]byte, error) {
	df, n := binary.Uvarint(val)
	if n <= 0 {
		return nil, fmt.Errorf("index: postings without a document frequency")
	}
	if df <= table.SkipEvery {
		return val, nil
	}
	list := val[n:]
	skips, docs, err := table.AppendSkips(sk.skips[:0], list)
	if err != nil {
		return nil, fmt.Errorf("index: postings: %w", err)
	}
	if uint64(docs) != df {
		return nil, fmt.Errorf("index: postings of %d documents, counted %d", docs, df)
	}
	out := append(sk.out[:0], val[:n]...)
	out = binary.AppendUvarint(out, uint64(len(skips)))
	out = append(out, skips...)
	out = append(out, list...)
	sk.out, sk.skips = out, skips
	return out, nil
}

// writeDocs writes the docs table: each document's record under its
// number.
func writeDocs(dir string, docs []Doc, docLens []uint32) error {
	out, err := newTableFile(filepath.Join(dir, docsFile), "docs")
	if err != nil {
		return err
	}
	defer out.abort()
	var rec []byte
	var key [4]byte
	for i := range docs {
		binary.BigEndian.PutUint32(key[:], uint32(i))
		rec = appendRecord(rec[:0], &docs[i], docLens[i])
		if err := out.w.Add(key[:], rec); err != nil {
			return err
		}
	}
	return out.close()
}

// writeDocKeys writes the keys table of the documents' lookups (path,
// file, stable key, name, node, kind, tag, superseded), counting keys.
func writeDocKeys(dir string, docs []Doc, n *int) error {
	// On Go's tree: 1.2 keys a document besides the items' stable keys
	// (in byKey), of 32 bytes.
	keys := newKeyTableFor(len(docs)*5/4, 32)
	byKey := newKeyRun(keys, len(docs), 40) // nearly every document an item
	for i := range docs {
		d, doc := &docs[i], uint32(i)
		switch d.Kind {
		case DocFile:
			keys.add(nsPath, d.Path, doc)
			keys.add(nsFile, d.Path, doc)
		case DocItem:
			byKey.add(nsKey, d.Node.Key, doc)
			keys.addLower(nsName, LastName(d.Node.Key), doc)
			keys.add(nsFile, d.Path, doc)
		default: // a diagnostic or a narrative node
			keys.addLower(nsName, d.Title, doc)
			if d.Kind != DocDiagnostic {
				keys.add(nsFile, d.Path, doc) // the node's file, for its delta
			}
		}
		keys.addID(nsNode, d.Node.ID, doc)
		keys.add(nsKind, string(d.Kind), doc)
		for _, t := range d.Tags {
			keys.add(nsTag, t, doc)
		}
		if d.Superseded {
			keys.add(nsSup, "superseded", doc)
		}
	}
	*n = keys.len() + byKey.len()
	return keys.writeWith(dir, byKey)
}

// LastName returns the last part of a stable key: "Connect" of
// "net.Client.Connect", "connect" of "core::net::Client::connect".
func LastName(key string) string { return reader.LastName(key) }

// tableFile is a table being written to a file.
type tableFile struct {
	f    *os.File
	w    *table.Writer
	done bool
}

func newTableFile(path, kind string) (*tableFile, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	// The Writer's own buffer, large: writes of a megabyte, and no
	// second buffer to copy every byte into.
	w, err := table.NewWriterOptions(f, table.WriterOptions{Kind: kind, BufferSize: 1 << 20})
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("index: %w", err)
	}
	return &tableFile{f: f, w: w}, nil
}

// close finishes the table and makes it durable.
func (t *tableFile) close() error {
	t.done = true
	err := t.w.Close()
	if err == nil {
		err = t.f.Sync()
	}
	if cerr := t.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("index: write %s: %w", filepath.Base(t.f.Name()), err)
	}
	return nil
}

func (t *tableFile) abort() {
	if !t.done {
		t.done = true
		_ = t.f.Close()
	}
}

// keyTable gathers the lookups of a keys table (keys.tbl): for each name,
// a namespace byte and a key, the numbers it leads to (documents, graph
// nodes), in increasing order. The names are kept in a vocab, and each
// name's numbers, already encoded as in the table (uvarint deltas), in a
// listPool: a segment's million lookups cost no string and no slice each
// (objects the garbage collector would have to mark).
type keyTable struct {
	names *vocab
	lists []keyList // by name number
	pool  listPool
	buf   []byte
	enc   [binary.MaxVarintLen32]byte
}

// keyList is a name's numbers, encoded, and the last of them.
type keyList struct {
	l    list
	last uint32
}

func newKeyTable() *keyTable { return newKeyTableFor(0, 0) }

// newKeyTableFor returns a keyTable sized for about n names of about
// size bytes.
func newKeyTableFor(n, size int) *keyTable {
	return &keyTable{names: newVocabFor(n, size), lists: make([]keyList, 0, n)}
}

// add adds n to the numbers of ns and key, unless they end with it. An
// empty key is no lookup.
func (t *keyTable) add(ns byte, key string, n uint32) {
	if key == "" {
		return
	}
	t.buf = append(append(t.buf[:0], ns), key...)
	t.addName(n)
}

// addLower is add with key lower-cased, as strings.ToLower does.
func (t *keyTable) addLower(ns byte, key string, n uint32) {
	if key == "" {
		return
	}
	t.buf = append(t.buf[:0], ns)
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c >= utf8.RuneSelf {
			t.buf = append(t.buf[:1], strings.ToLower(key)...)
			break
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		t.buf = append(t.buf, c)
	}
	t.addName(n)
}

// addID is add with the key id, its bytes.
func (t *keyTable) addID(ns byte, id object.ID, n uint32) {
	t.buf = append(append(t.buf[:0], ns), id[:]...)
	t.addName(n)
}

// addName adds n to the numbers of the name in buf. Numbers must be added
// in increasing order (table.AppendUvarintDeltas's).
func (t *keyTable) addName(n uint32) {
	id, isNew := t.names.id(t.buf)
	if isNew {
		t.lists = append(t.lists, keyList{})
	} else if t.lists[id].last == n {
		return
	}
	k := &t.lists[id]
	t.pool.append(&k.l, binary.AppendUvarint(t.enc[:0], uint64(n-k.last)))
	k.last = n
}

// len returns the number of names.
func (t *keyTable) len() int { return len(t.lists) }

// write writes keys.tbl into dir: the names in byte order, each with its
// numbers.
func (t *keyTable) write(dir string) error { return t.writeWith(dir, nil) }

// writeWith is write with the names of run (nil: none; none either once
// it spilled into t) among t's, which must have none of them.
func (t *keyTable) writeWith(dir string, run *keyRun) error {
	out, err := newTableFile(filepath.Join(dir, keysFile), "keys")
	if err != nil {
		return err
	}
	defer out.abort()
	var r int // run's next name
	for _, id := range t.names.sorted() {
		name := t.names.term(id)
		for ; run != nil && r < run.len() && bytes.Compare(run.name(r), name) < 0; r++ {
			if err := out.w.Add(run.name(r), run.list(r)); err != nil {
				return err
			}
		}
		if err := out.w.Add(name, t.pool.bytes(&t.lists[id].l)); err != nil {
			return err
		}
	}
	for ; run != nil && r < run.len(); r++ {
		if err := out.w.Add(run.name(r), run.list(r)); err != nil {
			return err
		}
	}
	return out.close()
}

// keyRun gathers lookups that come in order of name, as the items' stable
// keys do in a segment's documents (sorted by kind, then key): each name
// after the one before or equal to it, with its numbers increasing. Such
// names need no hash table and no sort; each name's numbers are
// consecutive, and so is its list. The first name out of order spills the
// run into the keyTable, which then takes the rest.
type keyRun struct {
	t        *keyTable // where the run spills
	spilled  bool
	names    []byte   // the names, one after another
	nameEnds []uint32 // where each name ends in names
	lists    []byte   // the names' numbers, encoded, one list after another
	listEnds []uint32 // where each name's list ends in lists
	last     uint32   // the last number of the last name
	buf      []byte
}

// newKeyRun returns a keyRun spilling into t, sized for about n names of
// about size bytes, one number each: growing its slices from nothing
// copies them over and over, into fresh memory.
func newKeyRun(t *keyTable, n, size int) *keyRun {
	return &keyRun{
		t:        t,
		names:    make([]byte, 0, n*size),
		nameEnds: make([]uint32, 0, n),
		lists:    make([]byte, 0, 3*n),
		listEnds: make([]uint32, 0, n),
	}
}

// add adds n to the numbers of ns and key, as keyTable.add does.
func (r *keyRun) add(ns byte, key string, n uint32) {
	if key == "" {
		return
	}
	r.addName(append(append(r.buf[:0], ns), key...), n)
}

// addName adds n to the numbers of name, a namespace byte and a key,
// which may be in r.buf.
func (r *keyRun) addName(name []byte, n uint32) {
	r.buf = name // its memory, for the next add
	c := 1
	if k := r.len(); !r.spilled && k > 0 {
		c = bytes.Compare(name, r.name(k-1))
	}
	if c < 0 && !r.spilled {
		r.spill()
	}
	switch {
	case r.spilled:
		r.t.buf = append(r.t.buf[:0], name...)
		r.t.addName(n)
		return
	case c > 0:
		r.names = append(r.names, name...)
		r.nameEnds = append(r.nameEnds, uint32(len(r.names)))
		r.lists = binary.AppendUvarint(r.lists, uint64(n))
		r.listEnds = append(r.listEnds, uint32(len(r.lists)))
	case n != r.last:
		r.lists = binary.AppendUvarint(r.lists, uint64(n-r.last))
		r.listEnds[len(r.listEnds)-1] = uint32(len(r.lists))
	}
	r.last = n
}

// spill adds the run's lookups to the keyTable and empties the run.
func (r *keyRun) spill() {
	r.spilled = true
	for k := range r.len() {
		r.t.buf = append(r.t.buf[:0], r.name(k)...)
		var n uint32
		for l := r.list(k); len(l) > 0; {
			d, w := binary.Uvarint(l)
			n += uint32(d)
			l = l[w:]
			r.t.addName(n)
		}
	}
	r.names, r.nameEnds, r.lists, r.listEnds = nil, nil, nil, nil
}

// len returns the number of names in the run: 0 once it spilled.
func (r *keyRun) len() int { return len(r.nameEnds) }

// name returns the bytes of name k.
func (r *keyRun) name(k int) []byte {
	var from uint32
	if k > 0 {
		from = r.nameEnds[k-1]
	}
	return r.names[from:r.nameEnds[k]]
}

// list returns name k's numbers, encoded as in the keys table.
func (r *keyRun) list(k int) []byte {
	var from uint32
	if k > 0 {
		from = r.listEnds[k-1]
	}
	return r.lists[from:r.listEnds[k]]
}

// writeManifest writes a segment's manifest, crash-safely.
func writeManifest(dir string, m *Manifest) error {
	text, err := m.MarshalText()
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, manifest), text, 0o644)
}

// filesBytes returns the total size of the named files of dir that exist.
func filesBytes(dir string, names ...string) int64 {
	var n int64
	for _, f := range names {
		if info, err := os.Stat(filepath.Join(dir, f)); err == nil {
			n += info.Size()
		}
	}
	return n
}

package reader

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/ctx-dev/ctx/index/table"
	"github.com/ctx-dev/ctx/index/text"
)

// Segment is one directory of tables: the documents of one part of the
// store (docs/INDEX.md, "Layout and segments").
type Segment struct {
	dir      string
	manifest []byte // the text of its manifest (what it was built from), once read
	maniErr  error
	maniRead bool
	docs     *table.Table // when lazyDocs, set by docsOnce
	lazyDocs bool
	docsOnce sync.Once
	docsErr  error
	terms    *table.Table
	keys     *table.Table
	meta     *table.Table
	stats    text.Stats
	lens     []byte // u32 little-endian per document, in meta's mapping
}

// Close unmaps the segment's tables.
func (s *Segment) Close() error {
	var errs []error
	for _, t := range []*table.Table{s.docs, s.terms, s.keys, s.meta} {
		if t != nil {
			errs = append(errs, t.Close())
		}
	}
	return errors.Join(errs...)
}

// OpenSegment opens the segment in dir. It reads each table's header and
// footer, nothing else.
func OpenSegment(dir string) (*Segment, error) { return openSegment(dir, false) }

// openSegment is OpenSegment; with lazyDocs, the documents table is
// opened when a document is first read (a search whose hits are all in
// the other segment never opens it), and a failure to open it then is
// ErrCorrupt.
func openSegment(dir string, lazyDocs bool) (_ *Segment, err error) {
	s := &Segment{dir: dir, lazyDocs: lazyDocs}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	specs := []TableSpec{{DocsFile, "docs", &s.docs}, {TermsFile, "terms", &s.terms}, {KeysFile, "keys", &s.keys}}
	if lazyDocs {
		specs = specs[1:]
	}
	if err := OpenTables(dir, specs); err != nil {
		return nil, err
	}
	meta, err := table.Open(filepath.Join(dir, MetaFile))
	if err != nil {
		return nil, err
	}
	s.meta = meta

	stats, ok := meta.Get([]byte("stats"))
	if !ok {
		return nil, fmt.Errorf("%w: no stats", ErrCorrupt)
	}
	n, k := binary.Uvarint(stats)
	tokens, k2 := binary.Uvarint(stats[max(k, 0):])
	if k <= 0 || k2 <= 0 || n > 1<<31 || s.docs != nil && uint64(s.docs.Len()) != n {
		return nil, fmt.Errorf("%w: bad stats", ErrCorrupt)
	}
	s.stats = text.Stats{Docs: uint32(n), Tokens: tokens}
	lens, ok := meta.Get([]byte("doclens"))
	if !ok || uint64(len(lens)) != 4*n {
		return nil, fmt.Errorf("%w: document lengths", ErrCorrupt)
	}
	s.lens = lens // read in place: a search touches only its documents' pages
	return s, nil
}

// docsTable returns the documents table, opening it on first use when the
// segment was opened with lazy documents.
func (s *Segment) docsTable() (*table.Table, error) {
	if !s.lazyDocs {
		return s.docs, nil
	}
	s.docsOnce.Do(func() {
		var t *table.Table
		if err := OpenTables(s.dir, []TableSpec{{DocsFile, "docs", &t}}); err != nil {
			s.docsErr = fmt.Errorf("%w: %v", ErrCorrupt, err)
			return
		}
		if uint64(t.Len()) != uint64(s.stats.Docs) {
			t.Close()
			s.docsErr = fmt.Errorf("%w: %s holds %d documents, the stats say %d", ErrCorrupt, DocsFile, t.Len(), s.stats.Docs)
			return
		}
		s.docs = t
	})
	return s.docs, s.docsErr
}

// Dir is the segment's directory.
func (s *Segment) Dir() string { return s.dir }

// Manifest returns the text of the segment's manifest, which package
// index parses; it is read when first asked for (a search needs none).
func (s *Segment) Manifest() ([]byte, error) {
	if !s.maniRead {
		s.manifest, s.maniErr = os.ReadFile(filepath.Join(s.dir, ManifestFile))
		s.maniRead = true
	}
	return s.manifest, s.maniErr
}

// Terms is the segment's terms table, Keys its keys table: for tests
// and tools that list them.
func (s *Segment) Terms() *table.Table { return s.terms }

// Keys is the segment's keys table.
func (s *Segment) Keys() *table.Table { return s.keys }

// Stats are the segment's documents and their total length.
func (s *Segment) Stats() text.Stats { return s.stats }

// Doc returns the segment's document n.
func (s *Segment) Doc(n uint32) (Doc, error) {
	v, err := s.Record(n)
	if err != nil {
		return Doc{}, err
	}
	d, _, err := DecodeRecord(v)
	return d, err
}

// DocHead returns the start of document n's record.
func (s *Segment) DocHead(n uint32) (RecordHead, error) {
	v, err := s.Record(n)
	if err != nil {
		return RecordHead{}, err
	}
	return DecodeRecordHead(v)
}

// Record returns document n's record, in the mapping: valid until Close.
func (s *Segment) Record(n uint32) ([]byte, error) {
	var k [4]byte
	binary.BigEndian.PutUint32(k[:], n)
	docs, err := s.docsTable()
	if err != nil {
		return nil, err
	}
	v, ok := docs.Get(k[:])
	if !ok {
		if err := docs.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: no document %d", ErrCorrupt, n)
	}
	return v, nil
}

// Lookup returns the segment's documents under a key of namespace ns.
func (s *Segment) Lookup(ns byte, key string) ([]uint32, error) {
	k := append([]byte{ns}, key...)
	if ns == NsNode {
		// Node ids are keys of their bytes, looked up in hex.
		id, err := hex.DecodeString(key)
		if err != nil || len(id) != IDSize {
			return nil, nil // no node has that id
		}
		k = append(k[:1], id...)
	}
	v, ok := s.keys.Get(k)
	if !ok {
		return nil, s.keys.Err()
	}
	docs, err := table.DecodeUvarintDeltas(nil, v)
	if err != nil {
		return nil, fmt.Errorf("%w: keys %c %q: %v", ErrCorrupt, ns, key, err)
	}
	return docs, nil
}

// DocLen is document doc's length in positions.
func (s *Segment) DocLen(doc uint32) uint32 {
	if uint64(doc)*4+4 > uint64(len(s.lens)) {
		return 0
	}
	return binary.LittleEndian.Uint32(s.lens[doc*4:])
}

// postings returns the segment's postings of term and its document
// frequency there; nil, 0 when no document has it.
func (s *Segment) postings(term string) (*postings, int) {
	v, ok := s.terms.Get([]byte(term))
	if !ok {
		return nil, 0
	}
	df, n := binary.Uvarint(v)
	if n <= 0 || df == 0 || df > uint64(s.stats.Docs) {
		return &postings{err: fmt.Errorf("%w: term %q", ErrCorrupt, term)}, 1
	}
	v = v[n:]
	if df <= table.SkipEvery {
		return &postings{it: table.NewPositionIter(v)}, int(df)
	}
	// A longer list starts with its skip table.
	k, n := binary.Uvarint(v)
	if n <= 0 || k > uint64(len(v)-n) {
		return &postings{err: fmt.Errorf("%w: term %q: skip table", ErrCorrupt, term)}, 1
	}
	skips := v[n : n+int(k)]
	return &postings{it: table.NewPositionIterSkips(v[n+int(k):], skips)}, int(df)
}

// TableSpec names a table file of a segment, its kind and where the open
// table goes.
type TableSpec struct {
	Name, Kind string
	T          **table.Table
}

// OpenTables opens the tables of specs in dir and checks their kinds.
// On error the tables opened before the failing one stay in place, for
// the caller to close; one of the wrong kind is closed.
func OpenTables(dir string, specs []TableSpec) error {
	for _, f := range specs {
		t, err := table.Open(filepath.Join(dir, f.Name))
		if err != nil {
			return err
		}
		if t.Kind() != f.Kind {
			t.Close()
			return fmt.Errorf("%w: %s is a %q table", ErrCorrupt, f.Name, t.Kind())
		}
		*f.T = t
	}
	return nil
}

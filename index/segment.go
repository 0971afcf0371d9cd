package index

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ctx-dev/ctx/index/table"
	"github.com/ctx-dev/ctx/index/text"
	"github.com/ctx-dev/ctx/object"
)

// segment is one directory of tables: the documents of one part of the
// store (docs/INDEX.md, "Layout and segments").
type segment struct {
	dir      string
	manifest *Manifest // the part of the store it was built from
	docs     *table.Table
	terms    *table.Table
	keys     *table.Table
	meta     *table.Table
	commits  *table.Table // the code segment's history: nil in the narrative's
	stats    text.Stats
	lens     []byte // u32 little-endian per document, in meta's mapping
}

func (s *segment) close() error {
	var errs []error
	for _, t := range []*table.Table{s.docs, s.terms, s.keys, s.meta, s.commits} {
		if t != nil {
			errs = append(errs, t.Close())
		}
	}
	return errors.Join(errs...)
}

// openSegment opens the segment in dir.
func openSegment(dir string) (_ *segment, err error) {
	s := &segment{dir: dir}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	data, err := os.ReadFile(filepath.Join(dir, manifest))
	if err != nil {
		return nil, err
	}
	s.manifest = new(Manifest)
	if err := s.manifest.UnmarshalText(data); err != nil {
		return nil, err
	}
	if err := openTables(dir, []tableSpec{{docsFile, "docs", &s.docs}, {termsFile, "terms", &s.terms}, {keysFile, "keys", &s.keys}}); err != nil {
		return nil, err
	}
	meta, err := table.Open(filepath.Join(dir, metaFile))
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
	if k <= 0 || k2 <= 0 || n > 1<<31 || uint64(s.docs.Len()) != n {
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

// doc returns the segment's document n.
func (s *segment) doc(n uint32) (Doc, error) {
	v, err := s.record(n)
	if err != nil {
		return Doc{}, err
	}
	d, _, err := decodeRecord(v)
	return d, err
}

// docHead returns the start of document n's record.
func (s *segment) docHead(n uint32) (recordHead, error) {
	v, err := s.record(n)
	if err != nil {
		return recordHead{}, err
	}
	return decodeRecordHead(v)
}

// record returns document n's record, in the mapping.
func (s *segment) record(n uint32) ([]byte, error) {
	var k [4]byte
	binary.BigEndian.PutUint32(k[:], n)
	v, ok := s.docs.Get(k[:])
	if !ok {
		if err := s.docs.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: no document %d", ErrCorrupt, n)
	}
	return v, nil
}

// lookup returns the segment's documents under a key of namespace ns.
func (s *segment) lookup(ns byte, key string) ([]uint32, error) {
	k := append([]byte{ns}, key...)
	if ns == nsNode {
		// Node ids are keys of their bytes, looked up in hex.
		id, err := hex.DecodeString(key)
		if err != nil || len(id) != object.IDSize {
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

func (s *segment) docLen(doc uint32) uint32 {
	if uint64(doc)*4+4 > uint64(len(s.lens)) {
		return 0
	}
	return binary.LittleEndian.Uint32(s.lens[doc*4:])
}

// postings returns the segment's postings of term and its document
// frequency there; nil, 0 when no document has it.
func (s *segment) postings(term string) (*postings, int) {
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

// tableSpec names a table file of a segment, its kind and where the open
// table goes.
type tableSpec struct {
	name, kind string
	t          **table.Table
}

// openTables opens the tables of specs in dir and checks their kinds.
// On error the tables opened before the failing one stay in place, for
// the caller to close; one of the wrong kind is closed.
func openTables(dir string, specs []tableSpec) error {
	for _, f := range specs {
		t, err := table.Open(filepath.Join(dir, f.name))
		if err != nil {
			return err
		}
		if t.Kind() != f.kind {
			t.Close()
			return fmt.Errorf("%w: %s is a %q table", ErrCorrupt, f.name, t.Kind())
		}
		*f.t = t
	}
	return nil
}

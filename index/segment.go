package index

import (
	"github.com/ctx-dev/ctx/index/reader"
	"github.com/ctx-dev/ctx/index/text"
)

// The files of a segment (reader.DocsFile, …).
const (
	docsFile  = reader.DocsFile
	termsFile = reader.TermsFile
	keysFile  = reader.KeysFile
	metaFile  = reader.MetaFile
	manifest  = reader.ManifestFile
)

// The namespaces of the keys table (reader.NsPath, …).
const (
	nsPath = reader.NsPath
	nsFile = reader.NsFile
	nsKey  = reader.NsKey
	nsName = reader.NsName
	nsNode = reader.NsNode
	nsKind = reader.NsKind
	nsTag  = reader.NsTag
	nsSup  = reader.NsSup
)

// segment is a text segment open for a build that extends it: package
// reader's, with its manifest parsed.
type segment struct {
	*reader.Segment
	dir      string
	manifest *Manifest // the part of the store it was built from
	stats    text.Stats
}

// openSegment opens the segment in dir.
func openSegment(dir string) (*segment, error) {
	rs, err := reader.OpenSegment(dir)
	if err != nil {
		return nil, err
	}
	s := &segment{Segment: rs, dir: dir, manifest: new(Manifest), stats: rs.Stats()}
	data, err := rs.Manifest()
	if err == nil {
		err = s.manifest.UnmarshalText(data)
	}
	if err != nil {
		rs.Close()
		return nil, err
	}
	return s, nil
}

func (s *segment) close() error { return s.Close() }

// doc returns the segment's document n.
func (s *segment) doc(n uint32) (Doc, error) {
	d, err := s.Doc(n)
	return docOf(d), err
}

func (s *segment) docHead(n uint32) (recordHead, error)         { return s.DocHead(n) }
func (s *segment) record(n uint32) ([]byte, error)              { return s.Record(n) }
func (s *segment) lookup(ns byte, key string) ([]uint32, error) { return s.Lookup(ns, key) }
func (s *segment) docLen(doc uint32) uint32                     { return s.DocLen(doc) }

// tableSpec names a table file of a segment, its kind and where the open
// table goes (reader.TableSpec).
type tableSpec = reader.TableSpec

// openTables opens the tables of specs in dir and checks their kinds
// (reader.OpenTables).
func openTables(dir string, specs []tableSpec) error { return reader.OpenTables(dir, specs) }

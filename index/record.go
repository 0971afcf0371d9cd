package index

import (
	"encoding/binary"
	"fmt"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/object"
)

// A document record, the value of the docs table (docs/INDEX.md):
//
//	uv version (1) | str kind | str node kind | 32 bytes node id | str node key |
//	str title | str path | uv start line | uv end line | v updated |
//	uv tokens | u8 superseded | uv tag count | str tag... | uv length |
//	str text
//
// where str is a uvarint length and the bytes, v a zig-zag varint, and
// length the document's length in positions (for BM25).
const recordVersion = 1

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendRecord encodes d, whose tokenized length is n.
func appendRecord(b []byte, d *Doc, n uint32) []byte {
	b = binary.AppendUvarint(b, recordVersion)
	b = appendString(b, string(d.Kind))
	b = appendString(b, string(d.Node.Kind))
	b = append(b, d.Node.ID[:]...)
	b = appendString(b, d.Node.Key)
	b = appendString(b, d.Title)
	b = appendString(b, d.Path)
	b = binary.AppendUvarint(b, uint64(d.StartLine))
	b = binary.AppendUvarint(b, uint64(d.EndLine))
	b = binary.AppendVarint(b, d.Updated)
	b = binary.AppendUvarint(b, uint64(max(d.Tokens, 0)))
	sup := byte(0)
	if d.Superseded {
		sup = 1
	}
	b = append(b, sup)
	b = binary.AppendUvarint(b, uint64(len(d.Tags)))
	for _, t := range d.Tags {
		b = appendString(b, t)
	}
	b = binary.AppendUvarint(b, uint64(n))
	return appendString(b, d.Text)
}

// recordReader decodes a record; the first error sticks.
type recordReader struct {
	b   []byte
	err error
}

func (r *recordReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = fmt.Errorf("%w: document record: bad varint", ErrCorrupt)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recordReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = fmt.Errorf("%w: document record: bad varint", ErrCorrupt)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recordReader) bytes(n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = fmt.Errorf("%w: document record: field runs past the end", ErrCorrupt)
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *recordReader) string() string { return string(r.bytes(r.uvarint())) }

// recordHead is the start of a document record: what lookups and filters
// need, without the title, tags and text that decodeRecord copies.
type recordHead struct {
	Kind    DocKind
	NodeKey string
	Path    string
}

// decodeRecordHead decodes the start of a document record.
func decodeRecordHead(b []byte) (recordHead, error) {
	r := &recordReader{b: b}
	var h recordHead
	if v := r.uvarint(); r.err == nil && v != recordVersion {
		return h, fmt.Errorf("%w: document record version %d", ErrCorrupt, v)
	}
	h.Kind = DocKind(r.string())
	r.bytes(r.uvarint()) // node kind
	r.bytes(object.IDSize)
	h.NodeKey = r.string()
	r.bytes(r.uvarint()) // title
	h.Path = r.string()
	return h, r.err
}

// decodeRecord decodes a document record and its length in positions.
func decodeRecord(b []byte) (Doc, uint32, error) { return decodeRecordOpts(b, true) }

// decodeRecordOpts decodes a document record, with its text or not.
func decodeRecordOpts(b []byte, withText bool) (Doc, uint32, error) {
	r := &recordReader{b: b}
	var d Doc
	if v := r.uvarint(); r.err == nil && v != recordVersion {
		return d, 0, fmt.Errorf("%w: document record version %d", ErrCorrupt, v)
	}
	d.Kind = DocKind(r.string())
	d.Node.Kind = graph.NodeKind(r.string())
	copy(d.Node.ID[:], r.bytes(object.IDSize))
	d.Node.Key = r.string()
	d.Title = r.string()
	d.Path = r.string()
	d.StartLine = uint32(r.uvarint())
	d.EndLine = uint32(r.uvarint())
	d.Updated = r.varint()
	d.Tokens = int(r.uvarint())
	sup := r.bytes(1)
	d.Superseded = len(sup) == 1 && sup[0] == 1
	tags := r.uvarint()
	if tags > uint64(len(r.b)) {
		return d, 0, fmt.Errorf("%w: document record: %d tags", ErrCorrupt, tags)
	}
	for i := uint64(0); i < tags && r.err == nil; i++ {
		d.Tags = append(d.Tags, r.string())
	}
	n := r.uvarint()
	if text := r.bytes(r.uvarint()); withText {
		d.Text = string(text)
	}
	if r.err == nil && (len(r.b) != 0 || n > 1<<32-1) {
		r.err = fmt.Errorf("%w: document record: trailing bytes", ErrCorrupt)
	}
	return d, uint32(n), r.err
}

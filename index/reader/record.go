package reader

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unsafe"
)

// A document record, the value of the docs table (docs/INDEX.md):
//
//	uv version (2) | u8 flags | str kind | str node kind | 32 bytes node id |
//	str node key | str title | str path | uv start line | uv end line |
//	v updated | uv tokens | u8 superseded | uv tag count | str tag... |
//	uv length | str text
//
// where str is a uvarint length and the bytes, v a zig-zag varint, and
// length the document's length in positions (for BM25). What a
// document repeats of its node key is left out, as the flags say: the
// node kind is the kind (RecNodeKind), the title is the stored title, a
// space and the node key (RecTitleKey: an item's "method a.B.C"), the
// path is the node key (RecPathKey: a file's), and the text is the node
// key, a newline and the stored text (RecTextKey: an item's, a file's).
const recordVersion = 2

// The flags of a record.
const (
	RecNodeKind = 1 << iota
	RecTitleKey
	RecPathKey
	RecTextKey
	recFlags = RecNodeKind | RecTitleKey | RecPathKey | RecTextKey
)

// AppendString appends s as a record stores a string: its length as a
// uvarint, then its bytes.
func AppendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// AppendRecord encodes d, whose tokenized length is n.
func AppendRecord(b []byte, d *Doc, n uint32) []byte {
	key := d.Node.Key
	var flags byte
	nodeKind, title, path, text := string(d.Node.Kind), d.Title, d.Path, d.Text
	if nodeKind == string(d.Kind) {
		flags, nodeKind = flags|RecNodeKind, ""
	}
	if key != "" {
		if t, ok := strings.CutSuffix(title, " "+key); ok {
			flags, title = flags|RecTitleKey, t
		}
		if path == key {
			flags, path = flags|RecPathKey, ""
		}
		if len(text) > len(key) && text[len(key)] == '\n' && strings.HasPrefix(text, key) {
			flags, text = flags|RecTextKey, text[len(key)+1:]
		}
	}
	b = binary.AppendUvarint(b, recordVersion)
	b = append(b, flags)
	b = AppendString(b, string(d.Kind))
	b = AppendString(b, nodeKind)
	b = append(b, d.Node.ID[:]...)
	b = AppendString(b, key)
	b = AppendString(b, title)
	b = AppendString(b, path)
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
		b = AppendString(b, t)
	}
	b = binary.AppendUvarint(b, uint64(n))
	return AppendString(b, text)
}

// recordReader decodes a record; the first error sticks.
type recordReader struct {
	b   []byte
	err error
}

// fail records a corruption, unless an error came first.
func (r *recordReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
	}
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

// ReadString reads a string as AppendString appended it, and returns the
// bytes after it.
func ReadString(b []byte) (string, []byte, error) {
	r := &recordReader{b: b}
	s := r.string()
	return s, r.b, r.err
}

// RecordHead is the start of a document record: what lookups and filters
// need, without the title, tags and text that decodeRecord copies.
type RecordHead struct {
	Kind    DocKind
	NodeKey string
	Path    string
}

// start decodes a record's version and flags.
func (r *recordReader) start() byte {
	if v := r.uvarint(); r.err == nil && v != recordVersion {
		r.fail("document record version %d", v)
	}
	flags := r.bytes(1)
	if r.err == nil && flags[0]&^recFlags != 0 {
		r.fail("document record flags %#x", flags[0])
	}
	if r.err != nil {
		return 0
	}
	return flags[0]
}

// stored is the start of a record as stored: what a flag leaves out is
// empty.
type stored struct {
	flags                     byte
	kind, nodeKind, key, path string
	id, title                 []byte
}

// head decodes the start of a record, checking that its flags agree with
// what is stored: a field a flag stands for is not stored, and the flags
// that repeat the node key need one.
func (r *recordReader) head() stored {
	var s stored
	s.flags = r.start()
	s.kind = r.string()
	s.nodeKind = r.string()
	s.id = r.bytes(IDSize)
	s.key = r.string()
	s.title = r.bytes(r.uvarint())
	s.path = r.string()
	switch {
	case r.err != nil:
	case s.flags&RecNodeKind != 0 && s.nodeKind != "":
		r.fail("document record: a node kind stored and flagged as the kind's")
	case s.flags&RecPathKey != 0 && s.path != "":
		r.fail("document record: a path stored and flagged as the node key")
	case s.flags&(RecTitleKey|RecPathKey|RecTextKey) != 0 && s.key == "":
		r.fail("document record: flags %#x with no node key", s.flags)
	}
	return s
}

// DecodeRecordHead decodes the start of a document record.
func DecodeRecordHead(b []byte) (RecordHead, error) {
	r := &recordReader{b: b}
	s := r.head()
	h := RecordHead{Kind: DocKind(s.kind), NodeKey: s.key, Path: s.path}
	if s.flags&RecPathKey != 0 {
		h.Path = s.key
	}
	return h, r.err
}

// DecodeRecord decodes a document record and its length in positions.
func DecodeRecord(b []byte) (Doc, uint32, error) { return DecodeRecordOpts(b, true) }

// DecodeRecordOpts decodes a document record, with its text or not.
func DecodeRecordOpts(b []byte, withText bool) (Doc, uint32, error) {
	mode := textNone
	if withText {
		mode = textCopy
	}
	d, _, n, err := decodeRecord(b, mode, nil)
	return d, n, err
}

// What decodeRecord does with a document's text.
const (
	textNone    = iota // skips it
	textCopy           // sets Doc.Text, one allocation
	textScratch        // assembles it in *scratch and returns a view of it, valid until *scratch is used again
)

// decodeRecord decodes a document record and its length in positions,
// with its text as mode says.
func decodeRecord(b []byte, mode int, scratch *[]byte) (_ Doc, view string, _ uint32, _ error) {
	r := &recordReader{b: b}
	var d Doc
	s := r.head()
	flags := s.flags
	d.Kind = DocKind(s.kind)
	d.Node.Kind = s.nodeKind
	if flags&RecNodeKind != 0 {
		d.Node.Kind = s.kind
	}
	copy(d.Node.ID[:], s.id)
	d.Node.Key = s.key
	d.Path = s.path
	if flags&RecPathKey != 0 {
		d.Path = s.key
	}
	if flags&RecTitleKey != 0 {
		d.Title = string(s.title) + " " + s.key
	} else {
		d.Title = string(s.title)
	}
	d.StartLine = uint32(r.uvarint())
	d.EndLine = uint32(r.uvarint())
	d.Updated = r.varint()
	if tokens := r.uvarint(); tokens > math.MaxInt32 {
		r.fail("document record: %d tokens", tokens)
	} else {
		d.Tokens = int(tokens)
	}
	sup := r.bytes(1)
	d.Superseded = len(sup) == 1 && sup[0] == 1
	tags := r.uvarint()
	if tags > uint64(len(r.b)) {
		return d, "", 0, fmt.Errorf("%w: document record: %d tags", ErrCorrupt, tags)
	}
	for i := uint64(0); i < tags && r.err == nil; i++ {
		d.Tags = append(d.Tags, r.string())
	}
	n := r.uvarint()
	if text := r.bytes(r.uvarint()); mode != textNone && r.err == nil {
		var buf []byte
		if mode == textScratch {
			buf = (*scratch)[:0]
		} else {
			buf = make([]byte, 0, len(d.Node.Key)+1+len(text))
		}
		if flags&RecTextKey != 0 {
			buf = append(append(buf, d.Node.Key...), '\n')
		}
		buf = append(buf, text...)
		// The bytes are not written again while the string lives: a new
		// slice for textCopy; the caller's promise for textScratch.
		str := unsafe.String(unsafe.SliceData(buf), len(buf))
		if mode == textScratch {
			*scratch, view = buf, str
		} else {
			d.Text = str
		}
	}
	if r.err == nil && (len(r.b) != 0 || n > 1<<32-1) {
		r.err = fmt.Errorf("%w: document record: trailing bytes", ErrCorrupt)
	}
	return d, view, uint32(n), r.err
}

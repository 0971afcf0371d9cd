package extract

import (
	"math"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/internal/prefault"
	"github.com/ctx-dev/ctx/object"
)

// A hand-written decoder for the body of a file_version, for
// object.DecodeLax: the index reads every file version of a build, and the
// reflective decoder spent most of a rebuild's decoding time on them, in
// reflection per field and one allocation per string and span.
//
// It decodes only what the encoder writes, in any key order and with any
// integer or length width: maps with the fields' text keys, unsigned
// integers, text and byte strings, booleans and arrays, with definite
// lengths. Anything else (a key it does not know, a duplicate key, null,
// a tag, a float, a negative or overflowing integer, text that is not
// UTF-8, an ID that is not 32 bytes) makes it decline, and
// object.DecodeLax falls back to the reflective decoder, which decodes
// what it can and reports the rest as errors. So the two can differ only
// in speed.
//
// A file version costs a handful of allocations however many strings it
// holds: the enumerations (kinds, labels, confidences, visibilities) are
// the package's constants, the other strings are copied, once decoding is
// done and their total length known, into one string; the spans of the
// edges share one array, and so do the signature hashes.

var _ object.LaxDecoder = (*FileVersion)(nil)

// DecodeLaxBody decodes the CBOR body of a file_version into v, which must
// be the zero FileVersion, and reports whether it did; see
// object.LaxDecoder.
func (v *FileVersion) DecodeLaxBody(body []byte) bool {
	if !v.isZero() {
		return false // the reflective decoder merges into what is there
	}
	d := laxDecoderPool.Get().(*laxDecoder)
	d.b, d.off = body, 0
	ok := d.fileVersion(v) && d.off == len(body)
	if ok {
		d.copyStrings()
	} else {
		*v = FileVersion{} // as it was
	}
	d.reset()
	laxDecoderPool.Put(d)
	return ok
}

func (v *FileVersion) isZero() bool {
	return v.Path == "" && v.Blob.IsZero() && v.Bytes == 0 && v.Lines == 0 && v.Language == "" && !v.Binary &&
		v.Module == nil && v.SyntaxErrors == 0 && v.Items == nil && v.Imports == nil && v.Nodes == nil && v.Edges == nil
}

// CBOR major types (RFC 8949 §3.1), and the two simple values it reads.
const (
	cborUint  = 0
	cborBytes = 2
	cborText  = 3
	cborArray = 4
	cborMap   = 5

	cborFalse = 0xf4
	cborTrue  = 0xf5
)

// cborHead reads the head of the data item at b[off:]: its major type and
// argument, and where its content starts. It rejects the reserved
// additional information values and indefinite lengths (28 to 31).
func cborHead(b []byte, off int) (major byte, arg uint64, next int, ok bool) {
	if off >= len(b) {
		return 0, 0, 0, false
	}
	c := b[off]
	major, ai := c>>5, c&0x1f
	off++
	if ai < 24 {
		return major, uint64(ai), off, true
	}
	var n int
	switch ai {
	case 24:
		n = 1
	case 25:
		n = 2
	case 26:
		n = 4
	case 27:
		n = 8
	default:
		return 0, 0, 0, false
	}
	if len(b)-off < n {
		return 0, 0, 0, false
	}
	for _, x := range b[off : off+n] {
		arg = arg<<8 | uint64(x)
	}
	return major, arg, off + n, true
}

// laxDecoder decodes one body. Its methods report false for anything
// they do not handle, and check every length against the bytes left, so
// they are safe on any input.
type laxDecoder struct {
	b   []byte
	off int
	// strs are the strings to copy once decoding is done: where each goes
	// and where its bytes are in b.
	strs  []laxString
	total int // the length of strs' strings
	// spans holds the spans of the edges: allocated at the first one
	// for it and the rest of the edges.
	spans []graph.Span
	bin   []byte // the bytes of the signature hashes
}

type laxString struct {
	dst      *string
	off, end int
}

// laxDecoderPool keeps decoders for their strs, which grow to the number
// of strings of a file version.
var laxDecoderPool = sync.Pool{New: func() any { return new(laxDecoder) }}

func (d *laxDecoder) reset() {
	clear(d.strs) // no pointers into the last file version
	*d = laxDecoder{strs: d.strs[:0]}
}

// copyStrings copies the strings decoded into one string, sized once,
// and sets each field to its part.
func (d *laxDecoder) copyStrings() {
	if d.total == 0 {
		return
	}
	var all strings.Builder
	all.Grow(d.total)
	for _, s := range d.strs {
		all.Write(d.b[s.off:s.end])
	}
	// all never grew past its first buffer, so its parts are the bytes
	// just written in order, which it never writes again.
	text, at := all.String(), 0
	for _, s := range d.strs {
		n := s.end - s.off
		*s.dst = text[at : at+n]
		at += n
	}
}

// head reads the head of a data item of major type want and returns its
// argument.
func (d *laxDecoder) head(want byte) (uint64, bool) {
	if d.off < len(d.b) {
		if c := d.b[d.off] ^ want<<5; c < 24 { // the major type wanted and, as usual, a small argument
			d.off++
			return uint64(c), true
		}
	}
	return d.headLong(want)
}

func (d *laxDecoder) headLong(want byte) (uint64, bool) {
	major, arg, next, ok := cborHead(d.b, d.off)
	if !ok || major != want {
		return 0, false
	}
	d.off = next
	return arg, true
}

// mapLen reads a map's head: its number of pairs.
func (d *laxDecoder) mapLen() (int, bool) {
	n, ok := d.head(cborMap)
	return int(n), ok && n <= uint64(len(d.b)-d.off)/2 // a pair takes two bytes at least
}

// arrayLen reads an array's head: its number of elements, whose
// encodings take minSize bytes at least. A length the bytes left cannot
// hold is refused before anything is allocated for it, so that a hostile
// one cannot make a large allocation.
func (d *laxDecoder) arrayLen(minSize int) (int, bool) {
	n, ok := d.head(cborArray)
	return int(n), ok && n <= uint64((len(d.b)-d.off)/minSize)
}

// The fewest bytes the encoder writes for an element of each array: its
// fields without omitempty, each with an empty text or a one-byte number.
// An array of smaller elements (empty maps, say) is not the encoder's,
// and is declined. TestFileVersionLaxMinSizes checks them.
const (
	minSpanSize   = 1 + (1 + 7 + 1) + (1 + 8 + 1) + (1 + 9 + 1) + (1 + 10 + 1) // end_col, end_line, start_col, start_line
	minNodeSize   = 1 + (1 + 3 + 1) + (1 + 4 + 1)                              // key, kind
	minItemSize   = 1 + (1 + 3 + 1) + (1 + 4 + 1) + (1 + 4 + 1) + (1 + 4 + minSpanSize) + (1 + 10 + 1)
	minImportSize = 1 + (1 + 4 + 1) + (1 + 4 + minSpanSize) + (1 + 6 + minNodeSize) // path, span, target
	minEdgeSize   = 1 + (1 + 2 + 1) + (1 + 4 + 1) + (1 + 5 + 1) + (1 + 10 + 1)      // to, from, label, confidence
)

// raw reads a text or byte string and returns where its bytes are in b.
func (d *laxDecoder) raw(major byte) (off, end int, ok bool) {
	n, ok := d.head(major)
	if !ok || n > uint64(len(d.b)-d.off) {
		return 0, 0, false
	}
	off = d.off
	d.off += int(n)
	return off, d.off, true
}

// key reads a map key; the caller compares it with the field names.
func (d *laxDecoder) key() ([]byte, bool) {
	off, end, ok := d.raw(cborText)
	return d.b[off:end], ok
}

// str reads a text string into *dst, once decoding is done.
func (d *laxDecoder) str(dst *string) bool {
	off, end, ok := d.raw(cborText)
	if !ok || !utf8.Valid(d.b[off:end]) { // as the reflective decoder's UTF8RejectInvalid
		return false
	}
	if off < end {
		d.strs = append(d.strs, laxString{dst, off, end})
		d.total += end - off
	}
	return true
}

// enum reads a text string that is usually one of known.
func enum[T ~string](d *laxDecoder, dst *T, known []T) bool {
	off, end, ok := d.raw(cborText)
	if !ok {
		return false
	}
	p := d.b[off:end]
	for _, k := range known {
		if string(k) == string(p) {
			*dst = k
			return true
		}
	}
	if !utf8.Valid(p) {
		return false
	}
	*dst = T(p)
	return true
}

var visibilities = []Visibility{Public, Package, Private}

func (d *laxDecoder) uint64(dst *uint64) bool {
	n, ok := d.head(cborUint)
	*dst = n
	return ok
}

func (d *laxDecoder) uint32(dst *uint32) bool {
	// The usual numbers (columns, lines, node indexes), without a call.
	// d.off never passes len(d.b): every read checks the bytes left.
	switch b := d.b[d.off:]; {
	case len(b) >= 1 && b[0] < 24:
		*dst = uint32(b[0])
		d.off++
		return true
	case len(b) >= 2 && b[0] == 0x18:
		*dst = uint32(b[1])
		d.off += 2
		return true
	case len(b) >= 3 && b[0] == 0x19:
		*dst = uint32(b[1])<<8 | uint32(b[2])
		d.off += 3
		return true
	}
	n, ok := d.head(cborUint)
	*dst = uint32(n)
	return ok && n <= math.MaxUint32
}

func (d *laxDecoder) bool(dst *bool) bool {
	if d.off >= len(d.b) || d.b[d.off] != cborFalse && d.b[d.off] != cborTrue {
		return false
	}
	*dst = d.b[d.off] == cborTrue
	d.off++
	return true
}

// literal reads the bytes p if they come next.
func (d *laxDecoder) literal(p string) bool {
	if len(d.b)-d.off < len(p) || string(d.b[d.off:d.off+len(p)]) != p {
		return false
	}
	d.off += len(p)
	return true
}

// signatureHash reads a byte string into a slice of its own, as the
// reflective decoder does: an empty string gives an empty slice, not nil.
// left is how many items, this one included, are still to come.
func (d *laxDecoder) signatureHash(dst *[]byte, left int) bool {
	off, end, ok := d.raw(cborBytes)
	if !ok {
		return false
	}
	if off == end {
		*dst = []byte{}
		return true
	}
	if len(d.bin) == cap(d.bin) && end-off <= 16 {
		// Room for a hash for each item left, as NewFileVersion writes;
		// no more than the bytes left would hold.
		d.bin = make([]byte, 0, min(16*left, len(d.b)-off))
	}
	start := len(d.bin)
	d.bin = append(d.bin, d.b[off:end]...) // a new array if it is full: the hashes before keep theirs
	*dst = d.bin[start:len(d.bin):len(d.bin)]
	return true
}

func (d *laxDecoder) id(dst *object.ID) bool {
	off, end, ok := d.raw(cborBytes)
	if !ok || end-off != object.IDSize {
		return false
	}
	copy(dst[:], d.b[off:end])
	return true
}

// fields decodes a map whose keys field decodes. field reports false for
// a key it does not know; a key seen twice is refused too (the reflective
// decoder's DupMapKeyEnforcedAPF). Each field is a bit, so a struct has
// 32 at most.
func (d *laxDecoder) fields(field func(key []byte) (bit uint32, ok bool)) bool {
	n, ok := d.mapLen()
	if !ok {
		return false
	}
	var seen uint32
	for range n {
		var k []byte
		if d.off < len(d.b) && d.b[d.off]-0x60 < 24 && int(d.b[d.off]-0x60) < len(d.b)-d.off {
			// A text shorter than 24 bytes, as all the field names are.
			end := d.off + 1 + int(d.b[d.off]-0x60)
			k, d.off = d.b[d.off+1:end], end
		} else if k, ok = d.key(); !ok {
			return false
		}
		bit, ok := field(k)
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
	}
	return true
}

func (d *laxDecoder) fileVersion(v *FileVersion) bool {
	return d.fields(func(k []byte) (uint32, bool) {
		switch string(k) { // compared, not converted
		case "path":
			return 1 << 0, d.str(&v.Path)
		case "blob":
			return 1 << 1, d.id(&v.Blob)
		case "bytes":
			return 1 << 2, d.uint64(&v.Bytes)
		case "lines":
			return 1 << 3, d.uint64(&v.Lines)
		case "language":
			return 1 << 4, d.str(&v.Language)
		case "binary":
			return 1 << 5, d.bool(&v.Binary)
		case "module":
			v.Module = new(Node)
			return 1 << 6, d.node(v.Module)
		case "syntax_errors":
			return 1 << 7, d.uint64(&v.SyntaxErrors)
		case "items":
			return 1 << 8, d.items(&v.Items)
		case "imports":
			return 1 << 9, d.imports(&v.Imports)
		case "nodes":
			return 1 << 10, d.nodes(&v.Nodes)
		case "edges":
			return 1 << 11, d.edges(&v.Edges)
		}
		return 0, false
	})
}

// The arrays: a slice of the array's length, empty and not nil for an
// empty array, as the reflective decoder makes.

func (d *laxDecoder) items(dst *[]StoredItem) bool {
	n, ok := d.arrayLen(minItemSize)
	if !ok {
		return false
	}
	items := prefault.Make[StoredItem](n)
	for i := range items {
		if !d.item(&items[i], n-i) {
			return false
		}
	}
	*dst = items
	return true
}

func (d *laxDecoder) imports(dst *[]StoredImport) bool {
	n, ok := d.arrayLen(minImportSize)
	if !ok {
		return false
	}
	imports := prefault.Make[StoredImport](n)
	for i := range imports {
		if !d.importOne(&imports[i]) {
			return false
		}
	}
	*dst = imports
	return true
}

func (d *laxDecoder) nodes(dst *[]Node) bool {
	n, ok := d.arrayLen(minNodeSize)
	if !ok {
		return false
	}
	nodes := prefault.Make[Node](n)
	for i := range nodes {
		if !d.node(&nodes[i]) {
			return false
		}
	}
	*dst = nodes
	return true
}

func (d *laxDecoder) edges(dst *[]StoredEdge) bool {
	n, ok := d.arrayLen(minEdgeSize)
	if !ok {
		return false
	}
	edges := prefault.Make[StoredEdge](n)
	for i := range edges {
		if !d.edge(&edges[i], n-i) {
			return false
		}
	}
	*dst = edges
	return true
}

// item decodes an item of an array whose last left items, this one
// included, are still to come.
func (d *laxDecoder) item(it *StoredItem, left int) bool {
	return d.fields(func(k []byte) (uint32, bool) {
		switch string(k) {
		case "kind":
			return 1 << 0, enum(d, &it.Kind, ItemKinds)
		case "name":
			return 1 << 1, d.str(&it.Name)
		case "key":
			return 1 << 2, d.str(&it.Key)
		case "parent":
			return 1 << 3, d.str(&it.Parent)
		case "visibility":
			return 1 << 4, enum(d, &it.Visibility, visibilities)
		case "span":
			return 1 << 5, d.span(&it.Span)
		case "signature_hash":
			return 1 << 6, d.signatureHash(&it.SignatureHash, left)
		case "doc":
			return 1 << 7, d.str(&it.Doc)
		}
		return 0, false
	})
}

func (d *laxDecoder) importOne(im *StoredImport) bool {
	return d.fields(func(k []byte) (uint32, bool) {
		switch string(k) {
		case "path":
			return 1 << 0, d.str(&im.Path)
		case "alias":
			return 1 << 1, d.str(&im.Alias)
		case "target":
			return 1 << 2, d.node(&im.Target)
		case "span":
			return 1 << 3, d.span(&im.Span)
		}
		return 0, false
	})
}

func (d *laxDecoder) node(n *Node) bool {
	return d.fields(func(k []byte) (uint32, bool) {
		switch string(k) {
		case "kind":
			return 1 << 0, enum(d, &n.Kind, graph.NodeKinds)
		case "key":
			return 1 << 1, d.str(&n.Key)
		case "ecosystem":
			return 1 << 2, d.str(&n.Ecosystem)
		}
		return 0, false
	})
}

// edge decodes an edge of an array whose last left edges, this one
// included, are still to come.
func (d *laxDecoder) edge(e *StoredEdge, left int) bool {
	off := d.off
	if d.canonicalEdge(e, left) {
		return true
	}
	d.off, *e = off, StoredEdge{}
	return d.fields(func(k []byte) (uint32, bool) {
		switch string(k) {
		case "from":
			return 1 << 0, d.uint32(&e.From)
		case "to":
			return 1 << 1, d.uint32(&e.To)
		case "label":
			return 1 << 2, enum(d, &e.Label, graph.Labels)
		case "span":
			return 1 << 3, e.Span == nil && d.edgeSpan(e, left)
		case "confidence":
			return 1 << 4, enum(d, &e.Confidence, graph.Confidences)
		}
		return 0, false
	})
}

// canonicalEdge decodes an edge as the encoder writes it: its keys in
// canonical order, without looking them up. It reports false for any
// other.
func (d *laxDecoder) canonicalEdge(e *StoredEdge, left int) bool {
	if d.off >= len(d.b) || d.b[d.off] != 0xa4 && d.b[d.off] != 0xa5 {
		return false
	}
	withSpan := d.b[d.off] == 0xa5
	d.off++
	return d.literal("\x62to") && d.uint32(&e.To) && d.literal("\x64from") && d.uint32(&e.From) &&
		(!withSpan || d.literal("\x64span") && d.edgeSpan(e, left)) &&
		d.literal("\x65label") && enum(d, &e.Label, graph.Labels) &&
		d.literal("\x6aconfidence") && enum(d, &e.Confidence, graph.Confidences)
}

func (d *laxDecoder) edgeSpan(e *StoredEdge, left int) bool {
	if len(d.spans) == 0 {
		d.spans = prefault.Make[graph.Span](left) // one span an edge at most
	}
	e.Span, d.spans = &d.spans[0], d.spans[1:]
	return d.span(e.Span)
}

func (d *laxDecoder) span(s *graph.Span) bool {
	// Most spans come as the encoder writes them: four pairs, their keys
	// in canonical order; they are read without looking the keys up.
	off := d.off
	if d.literal("\xa4\x67end_col") && d.uint32(&s.EndCol) && d.literal("\x68end_line") && d.uint32(&s.EndLine) &&
		d.literal("\x69start_col") && d.uint32(&s.StartCol) && d.literal("\x6astart_line") && d.uint32(&s.StartLine) {
		return true
	}
	d.off, *s = off, graph.Span{}
	return d.fields(func(k []byte) (uint32, bool) {
		switch string(k) {
		case "start_line":
			return 1 << 0, d.uint32(&s.StartLine)
		case "start_col":
			return 1 << 1, d.uint32(&s.StartCol)
		case "end_line":
			return 1 << 2, d.uint32(&s.EndLine)
		case "end_col":
			return 1 << 3, d.uint32(&s.EndCol)
		}
		return 0, false
	})
}

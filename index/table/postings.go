package table

import (
	"encoding/binary"
	"math"
	"slices"
)

// Postings are sorted lists of uint32 ids packed into a table value; the
// list ends where the value ends. Two encodings (docs/INDEX.md, "Postings"):
//
//	ids:        uv(id₀) uv(id₁−id₀) uv(id₂−id₁) …
//	positions:  per document, in increasing document order:
//	            uv(doc−prevDoc) uv(n) uv(pos₀) uv(pos₁−pos₀) … (n positions)
//
// prevDoc is 0 before the first document and each position list starts
// again from 0, so the first value of every list is stored as is. A
// decoded running value above math.MaxUint32 is damage.
//
// A positions list may have a skip table (AppendSkips), kept beside it by
// its caller: an entry per SkipEvery-th document, so that Advance jumps
// over the runs of documents before its target.
//
//	skips:  per entry k = 1, 2, …, pointing at document k·SkipEvery:
//	        uv(prevₖ − prevₖ₋₁) uv(offₖ − offₖ₋₁)
//	        prevₖ: the document before it; offₖ: the offset of its
//	        encoding in the list; prev₀ = off₀ = 0

// AppendUvarintDeltas appends the ids encoding of sorted, which must be
// non-decreasing: each value is written as its difference from the one
// before as a uvarint. An unsorted list encodes to bytes that decode with
// ErrCorrupt.
func AppendUvarintDeltas(dst []byte, sorted []uint32) []byte {
	var prev uint32
	for _, v := range sorted {
		dst = binary.AppendUvarint(dst, uint64(v-prev))
		prev = v
	}
	return dst
}

// DecodeUvarintDeltas appends the ids of the list b to dst.
func DecodeUvarintDeltas(dst []uint32, b []byte) ([]uint32, error) {
	n := 0 // a uvarint's last byte is the only one below 0x80
	for _, c := range b {
		if c < 0x80 {
			n++
		}
	}
	dst = slices.Grow(dst, n)
	it := NewDeltaIter(b)
	for it.Next() {
		dst = append(dst, it.Value())
	}
	return dst, it.Err()
}

// AppendDocPositions appends one document of the positions encoding: doc
// as its difference from prevDoc (0 for the first document of a list), the
// number of positions, then positions, non-decreasing, as differences from
// the one before. The document's term frequency is len(positions), which a
// decoder reads without decoding the positions.
func AppendDocPositions(dst []byte, prevDoc, doc uint32, positions []uint32) []byte {
	dst = binary.AppendUvarint(dst, uint64(doc-prevDoc))
	dst = binary.AppendUvarint(dst, uint64(len(positions)))
	return AppendUvarintDeltas(dst, positions)
}

// SkipEvery is the number of documents between the entries of a
// positions list's skip table.
const SkipEvery = 16

// AppendSkips appends the skip table of the positions list b to dst, and
// returns it with the number of documents in b. An entry points at every
// SkipEvery-th document (the SkipEvery-th, the 2·SkipEvery-th, …):
// uv(prev − prevₑ) uv(off − offₑ), where prev is the document before the
// one pointed at, off the offset in b of that document's encoding, and
// prevₑ, offₑ those of the entry before (0 for the first). A list of
// SkipEvery documents or fewer has an empty table. An error wraps
// ErrCorrupt; the positions' encoding is checked, as Next checks it, but
// not their values, which a skip table does not depend on.
func AppendSkips(dst, b []byte) ([]byte, int, error) {
	if uint64(len(b)) > math.MaxUint32 {
		return nil, 0, errPostingOverflow
	}
	it := NewPositionIter(b)
	var lastDoc, lastOff, prev uint32
	n := 0
	for {
		// Past the positions, which a skip table does not need, to
		// where the next document starts.
		if !it.skipPositions() {
			break
		}
		off := len(b) - len(it.b)
		if !it.Next() {
			break
		}
		if n > 0 && n%SkipEvery == 0 {
			dst = binary.AppendUvarint(dst, uint64(prev-lastDoc))
			dst = binary.AppendUvarint(dst, uint64(uint32(off)-lastOff))
			lastDoc, lastOff = prev, uint32(off)
		}
		prev = it.Doc()
		n++
	}
	if err := it.Err(); err != nil {
		return nil, 0, err
	}
	return dst, n, nil
}

// uvarint32 decodes a uvarint of at most 32 bits from the front of b.
func uvarint32(b []byte) (v uint32, n int, err error) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint32(b[0]), 1, nil
	}
	x, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, 0, errPostingVarint
	}
	if x > math.MaxUint32 {
		return 0, 0, errPostingOverflow
	}
	return uint32(x), n, nil
}

// addDelta adds a decoded delta to a running value.
func addDelta(v, d uint32) (uint32, error) {
	s := uint64(v) + uint64(d)
	if s > math.MaxUint32 {
		return 0, errPostingOverflow
	}
	return uint32(s), nil
}

// DeltaIter decodes an ids list without allocating. The zero value is an
// empty list.
//
//	it := table.NewDeltaIter(value)
//	for it.Next() {
//		use(it.Value())
//	}
//	if err := it.Err(); err != nil { … }
type DeltaIter struct {
	b   []byte
	v   uint32
	err error
}

// NewDeltaIter returns an iterator over the ids list b.
func NewDeltaIter(b []byte) DeltaIter { return DeltaIter{b: b} }

// Reset restarts the iterator on the list b.
func (it *DeltaIter) Reset(b []byte) { *it = DeltaIter{b: b} }

// Next advances to the next id and reports whether there is one: false at
// the end of the list and on damage (see Err).
func (it *DeltaIter) Next() bool {
	if len(it.b) == 0 || it.err != nil {
		return false
	}
	d, n, err := uvarint32(it.b)
	if err == nil {
		it.v, err = addDelta(it.v, d)
	}
	if err != nil {
		it.err, it.b = err, nil
		return false
	}
	it.b = it.b[n:]
	return true
}

// Value returns the current id.
func (it *DeltaIter) Value() uint32 { return it.v }

// Err returns the damage that stopped the iteration (wrapping ErrCorrupt),
// or nil.
func (it *DeltaIter) Err() error { return it.err }

// PositionIter decodes a positions list without allocating: Next moves
// from document to document, skipping positions not read, and
// NextPosition walks the current document's positions. The zero value is
// an empty list.
//
//	it := table.NewPositionIter(value)
//	for it.Next() {
//		tf := it.Freq()
//		for it.NextPosition() {
//			use(it.Doc(), it.Position())
//		}
//	}
//	if err := it.Err(); err != nil { … }
type PositionIter struct {
	b    []byte
	doc  uint32
	freq int
	left int // positions of doc not yet decoded
	pos  uint32
	err  error

	// With a skip table (NewPositionIterSkips): the whole list, the
	// entries not yet passed, and the last one passed.
	list         []byte
	skips        []byte
	skDoc, skOff uint32
}

// NewPositionIter returns an iterator over the positions list b.
func NewPositionIter(b []byte) PositionIter { return PositionIter{b: b} }

// NewPositionIterSkips returns an iterator over the positions list b
// whose skip table (AppendSkips) is skips, so that Advance jumps over
// whole runs of documents.
func NewPositionIterSkips(b, skips []byte) PositionIter {
	return PositionIter{b: b, list: b, skips: skips}
}

// Reset restarts the iterator on the list b.
func (it *PositionIter) Reset(b []byte) { *it = PositionIter{b: b} }

// skipPositions passes over the current document's unread positions,
// checking their encoding but not decoding them, and reports whether the
// list is undamaged so far.
func (it *PositionIter) skipPositions() bool {
	if it.err != nil {
		return false
	}
	for ; it.left > 0; it.left-- {
		i := 0
		for i < len(it.b) && i < binary.MaxVarintLen32 && it.b[i] >= 0x80 {
			i++
		}
		if i == len(it.b) || i == binary.MaxVarintLen32 {
			return it.fail(errPostingVarint)
		}
		it.b = it.b[i+1:]
	}
	return true
}

// Next advances to the next document and reports whether there is one:
// false at the end of the list and on damage (see Err).
func (it *PositionIter) Next() bool {
	if !it.skipPositions() || len(it.b) == 0 {
		return false
	}
	d, n, err := uvarint32(it.b)
	if err != nil {
		return it.fail(err)
	}
	if it.doc, err = addDelta(it.doc, d); err != nil {
		return it.fail(err)
	}
	it.b = it.b[n:]
	c, n, err := uvarint32(it.b)
	if err != nil {
		return it.fail(err)
	}
	it.b = it.b[n:]
	if uint64(c) > uint64(len(it.b)) { // every position takes a byte at least
		return it.fail(errPostingCount)
	}
	it.freq, it.left, it.pos = int(c), int(c), 0
	return true
}

// Advance moves to the first document at or after target and reports
// whether there is one, like calling Next until then; with a skip table it
// jumps over the runs of documents that all come before target. It is
// meant for a target after the current document (or before the first
// call to Next): it always moves at least once.
func (it *PositionIter) Advance(target uint32) bool {
	for it.err == nil && len(it.skips) > 0 {
		dd, n, err := uvarint32(it.skips)
		if err != nil {
			return it.fail(err)
		}
		do, m, err := uvarint32(it.skips[n:])
		if err != nil {
			return it.fail(err)
		}
		doc, err := addDelta(it.skDoc, dd)
		if err != nil {
			return it.fail(err)
		}
		off, err := addDelta(it.skOff, do)
		if err != nil {
			return it.fail(err)
		}
		if doc >= target {
			break // the run starting there may hold target
		}
		if off == it.skOff || uint64(off) > uint64(len(it.list)) {
			return it.fail(errPostingSkip)
		}
		it.skips, it.skDoc, it.skOff = it.skips[n+m:], doc, off
		if cur := len(it.list) - len(it.b); int(off) > cur {
			// Every document before the run is at most doc < target:
			// continue from the run's first, a difference from doc.
			if doc < it.doc {
				return it.fail(errPostingSkip)
			}
			it.b, it.doc, it.left = it.list[off:], doc, 0
		}
	}
	for it.Next() {
		if it.doc >= target {
			return true
		}
	}
	return false
}

// Doc returns the current document.
func (it *PositionIter) Doc() uint32 { return it.doc }

// Freq returns the number of positions of the current document.
func (it *PositionIter) Freq() int { return it.freq }

// NextPosition advances to the current document's next position and
// reports whether there is one.
func (it *PositionIter) NextPosition() bool {
	if it.left == 0 || it.err != nil {
		return false
	}
	d, n, err := uvarint32(it.b)
	if err == nil {
		it.pos, err = addDelta(it.pos, d)
	}
	if err != nil {
		return it.fail(err)
	}
	it.b = it.b[n:]
	it.left--
	return true
}

// Position returns the current position.
func (it *PositionIter) Position() uint32 { return it.pos }

// AppendPositions appends the current document's positions not yet read
// to dst.
func (it *PositionIter) AppendPositions(dst []uint32) []uint32 {
	for it.NextPosition() {
		dst = append(dst, it.pos)
	}
	return dst
}

// Err returns the damage that stopped the iteration (wrapping ErrCorrupt),
// or nil.
func (it *PositionIter) Err() error { return it.err }

func (it *PositionIter) fail(err error) bool {
	it.err, it.b, it.left = err, nil, 0
	return false
}

package index

import (
	"bytes"
	"encoding/binary"
	"math/bits"

	"github.com/ctx-dev/ctx/internal/prefault"
)

// vocab is the inverter's vocabulary: a set of terms, numbered from 0 in
// order of insertion, looked up by their bytes. It replaces a Go map from
// string: a rebuild looks up every term the tokenizer emits (tens of
// millions) in a vocabulary of hundreds of thousands that does not fit in
// cache, and a map costs a string per new term, a hash of the whole term,
// and a probe that reads the control word, the slot and the key's bytes,
// each a cache miss for a rare term. Here a slot holds the term's first
// eight bytes, its length and part of its hash, so that a term of at most
// eight bytes (most of them) is found by reading one slot, and a longer
// one by reading one slot and its bytes; the terms' bytes are kept one
// after another in an arena, which the garbage collector does not scan.
//
// The table is open addressing with linear probing, at most half full.
type vocab struct {
	slots []vslot
	mask  uint64
	arena []byte
	offs  []uint32 // term i is arena[offs[i]:offs[i+1]]; offs[0] = 0
}

// vslot is a slot of the table; id 0 marks it empty.
type vslot struct {
	head uint64 // the term's first 8 bytes, little-endian, zero-padded
	meta uint32 // the hash's top 24 bits, then min(len, 255)
	id   uint32 // term number + 1
}

const minVocabSlots = 1 << 12

func newVocab() *vocab { return newVocabFor(0, 0) }

// newVocabFor returns a vocab sized for about n terms of about size bytes
// each: growing the table hashes every term again and writes it to a
// random slot, which for a vocabulary of hundreds of thousands costs more
// than the lookups that filled it (a quarter of a second of a rebuild of
// Go's tree). A wrong guess costs little: a table twice too large, or one
// more doubling.
func newVocabFor(n, size int) *vocab {
	slots := minVocabSlots
	for slots < 2*n && slots < 1<<30 {
		slots *= 2
	}
	return &vocab{
		slots: prefault.Make[vslot](slots), // probed (read) before filled
		mask:  uint64(slots - 1),
		offs:  make([]uint32, 1, slots/2+1),
		arena: make([]byte, 0, n*size),
	}
}

// textTerms guesses how many distinct terms a tokenizer finds in n
// bytes of text, for newVocabFor: one per 96 bytes, what a rebuild of
// Go's tree finds in its code (443,723 terms in 40 MB, 392,379 in 45).
// Smaller texts have more terms per byte, but their tables are small to
// grow.
func textTerms(n int) int { return n / 96 }

// len returns the number of terms.
func (v *vocab) len() int { return len(v.offs) - 1 }

// term returns the bytes of term id, which stay valid and unchanged.
func (v *vocab) term(id uint32) []byte {
	return v.arena[v.offs[id]:v.offs[id+1]:v.offs[id+1]]
}

// id returns the number of term, adding it if it is new (isNew). It does
// not keep term.
func (v *vocab) id(term []byte) (id uint32, isNew bool) {
	h, head := hashTerm(term)
	return v.idHashed(term, h, head)
}

// idHashed is id with hashTerm(term) given.
func (v *vocab) idHashed(term []byte, h, head uint64) (id uint32, isNew bool) {
	meta := uint32(h>>32)&^0xff | uint32(min(len(term), 0xff))
	for i := h & v.mask; ; i = (i + 1) & v.mask {
		s := &v.slots[i]
		if s.id == 0 {
			return v.insert(s, term, head, meta), true
		}
		if s.head == head && s.meta == meta {
			id := s.id - 1
			if len(term) <= 8 {
				return id, false
			}
			if bytes.Equal(v.arena[v.offs[id]+8:v.offs[id+1]], term[8:]) {
				return id, false
			}
		}
	}
}

// insert adds term in the empty slot s and returns its number.
func (v *vocab) insert(s *vslot, term []byte, head uint64, meta uint32) uint32 {
	id := uint32(v.len())
	v.arena = append(v.arena, term...)
	v.offs = append(v.offs, uint32(len(v.arena)))
	*s = vslot{head: head, meta: meta, id: id + 1}
	if 2*v.len() > len(v.slots) {
		v.grow()
	}
	return id
}

// grow doubles the table, hashing the terms again from the arena.
func (v *vocab) grow() {
	slots := prefault.Make[vslot](2 * len(v.slots))
	mask := uint64(len(slots) - 1)
	for id := range uint32(v.len()) {
		term := v.term(id)
		h, head := hashTerm(term)
		i := h & mask
		for slots[i].id != 0 {
			i = (i + 1) & mask
		}
		slots[i] = vslot{head: head, meta: uint32(h>>32)&^0xff | uint32(min(len(term), 0xff)), id: id + 1}
	}
	v.slots, v.mask = slots, mask
}

// hashTerm returns a hash of b and head, loadHead(b). It mixes 8 bytes at
// a time with a 64×64→128-bit multiply (as wyhash does).
func hashTerm(b []byte) (h, head uint64) {
	const (
		k0 = 0xa0761d6478bd642f
		k1 = 0xe7037ed1a0b428db
		k2 = 0x8ebc6af09c88c6e3
	)
	n := len(b)
	head = loadHead(b)
	h = mix(head^k0, uint64(n)^k1)
	if n > 8 {
		i := 8
		for ; i+8 < n; i += 8 {
			h = mix(binary.LittleEndian.Uint64(b[i:])^k2, h)
		}
		// The last 8 bytes, overlapping what was read.
		h = mix(binary.LittleEndian.Uint64(b[n-8:])^k1, h^k2)
	}
	return h, head
}

// loadHead returns b's first 8 bytes as a little-endian number,
// zero-padded. It reads a short b with a few overlapping loads instead
// of a loop.
func loadHead(b []byte) uint64 {
	switch n := len(b); {
	case n >= 8:
		return binary.LittleEndian.Uint64(b)
	case n >= 4:
		// The two loads overlap by 8-n bytes, which are equal.
		return uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint32(b[n-4:]))<<(8*(n-4))
	case n > 0:
		return uint64(b[0]) | uint64(b[n/2])<<(8*(n/2)) | uint64(b[n-1])<<(8*(n-1))
	}
	return 0
}

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// sorted returns the term numbers in order of their bytes.
func (v *vocab) sorted() []uint32 {
	ids := make([]uint32, v.len())
	for i := range ids {
		ids[i] = uint32(i)
	}
	s := byteSort{str: v.term}
	return s.order(ids)
}

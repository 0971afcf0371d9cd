package index

import (
	"encoding/binary"
	"math/bits"
)

// listPool holds growing byte lists (the inverter's postings lists) in
// large chunks of memory. A list lives in a region of a power-of-two size;
// a list that outgrows its region moves to one twice as large, and the
// old region goes on a free list of its size, for the next list that
// needs one. It replaces a slice per list: hundreds of thousands of them
// are as many objects for the garbage collector to allocate and mark,
// where the pool's chunks are a few large objects without pointers.
//
// A region is named by a ref: the chunk's index in the high 32 bits, the
// region's offset in the chunk in the low 32.
type listPool struct {
	chunks [][]byte
	used   int // bytes of the last chunk given out
	// free[c] is the ref+1 of a free region of 1<<c bytes, or 0; its first
	// 8 bytes hold the next one's ref+1.
	free [64]uint64
}

// A list is a region of the pool and the bytes of it used. The zero list
// is empty and has no region.
type list struct {
	ref   uint64
	n     uint32 // bytes used
	class uint8  // the region has 1<<class bytes; 0: no region
}

const (
	poolChunk    = 4 << 20 // bytes of a chunk
	minListClass = 4       // 16 bytes: room for a free list's link and a few entries
)

// bytes returns the bytes of l, which stay valid until l is next appended
// to.
func (p *listPool) bytes(l *list) []byte {
	if l.class == 0 {
		return nil
	}
	off := int(uint32(l.ref))
	return p.chunks[l.ref>>32][off : off+int(l.n)]
}

// append appends b to l.
func (p *listPool) append(l *list, b []byte) {
	if len(b) == 0 {
		return
	}
	n := int(l.n) + len(b)
	if l.class == 0 || n > 1<<l.class {
		class := uint8(max(minListClass, bits.Len(uint(n-1))))
		ref := p.alloc(class)
		if l.class != 0 {
			copy(p.region(ref, class), p.bytes(l))
			p.release(l.ref, l.class)
		}
		l.ref, l.class = ref, class
	}
	copy(p.region(l.ref, l.class)[l.n:], b)
	l.n = uint32(n)
}

// region returns the region ref of 1<<class bytes.
func (p *listPool) region(ref uint64, class uint8) []byte {
	off := int(uint32(ref))
	return p.chunks[ref>>32][off : off+1<<class]
}

// alloc returns a region of 1<<class bytes: a free one, or a new one at
// the end of the last chunk, or in a new chunk. A region larger than a
// chunk gets a chunk of its own.
func (p *listPool) alloc(class uint8) uint64 {
	if r := p.free[class]; r != 0 {
		ref := r - 1
		p.free[class] = binary.LittleEndian.Uint64(p.region(ref, class))
		return ref
	}
	size := 1 << class
	if len(p.chunks) == 0 || p.used+size > len(p.chunks[len(p.chunks)-1]) {
		// The rest of the last chunk is left unused: less than a
		// region of this size.
		p.chunks = append(p.chunks, make([]byte, max(poolChunk, size)))
		p.used = 0
	}
	ref := uint64(len(p.chunks)-1)<<32 | uint64(p.used)
	p.used += size
	return ref
}

// release puts the region ref of 1<<class bytes on its free list.
func (p *listPool) release(ref uint64, class uint8) {
	binary.LittleEndian.PutUint64(p.region(ref, class), p.free[class])
	p.free[class] = ref + 1
}

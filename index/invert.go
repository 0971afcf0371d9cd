package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"slices"
	"sort"

	"github.com/ctx-dev/ctx/internal/parallel"
)

// inverter gathers the postings of a run of documents, numbered in
// increasing order, in the positions encoding of table.AppendDocPositions: each term's
// list is encoded as its documents end, so nothing is kept per (term,
// document) pair but bytes. Terms get small numbers in order of first
// appearance (vocab). The document being tokenized is a list of its
// distinct terms, in order of first appearance, and of (term, position)
// pairs; when it ends, the positions are grouped by term with a counting
// sort, which keeps them in order, and each term's are encoded. The
// lists are kept in a listPool.
//
// The vocabulary's bytes and each list are counted in uint32: each would
// need more than 4 GiB of the worker's documents' text, all in memory, to
// overflow.
type inverter struct {
	vocab  *vocab
	terms  []invTerm // by term number
	pool   listPool  // the terms' lists
	entry  []byte    // endDoc's scratch: a term's entry for the document
	epoch  uint32    // invTerm.seen of the terms of the current document: from 1, one per document
	text   []byte    // the current document's terms longer than 8 bytes, one after another
	occs   []occ     // the current document's terms as added
	ids    []uint32  // endDoc's scratch: the occurrences' term numbers
	cur    []uint32  // the current document's terms, in order of first appearance
	counts []uint32  // counts[k]: occurrences of cur[k]
	pairs  []uint64  // the current document: k << 32 | position, k indexing cur
	pos    []uint32  // endDoc's scratch: the positions grouped by term
	touch  uint32    // a sum of what endDoc reads ahead, so that the compiler keeps the reads
}

// occ is a term added to the current document: its bytes are head if
// it has at most 8, else the next n of inverter.text.
type occ struct {
	h, head uint64 // hashTerm's
	n       uint32 // length
	pos     uint32
}

type invTerm struct {
	list list   // entries; the first document's number is stored as is
	last uint32 // document
	df   uint32
	seen uint32 // the inverter's epoch when the term was last added
	k    uint32 // the term's index in cur, if seen is the epoch
}

func newInverter() *inverter { return newInverterFor(0) }

// newInverterFor returns an inverter sized for about n distinct terms,
// of 20 bytes each (on Go's tree: code's identifiers are long).
func newInverterFor(n int) *inverter {
	return &inverter{vocab: newVocabFor(n, 20), terms: make([]invTerm, 0, max(n, 1<<11)), epoch: 1}
}

// len returns the number of distinct terms.
func (v *inverter) len() int { return len(v.terms) }

// add records term at pos in the current document; positions added to a
// document must not decrease. add does not keep term.
func (v *inverter) add(term []byte, pos uint32) {
	h, head := hashTerm(term)
	if len(term) > 8 {
		v.text = append(v.text, term...)
	}
	v.occs = append(v.occs, occ{h: h, head: head, n: uint32(len(term)), pos: pos})
}

// endDoc encodes the current document, doc, into its terms' lists. Docs
// must end in increasing order.
//
// The vocabulary and the terms' lists are far larger than the caches, so
// that looking up a term and appending to its list mostly wait for memory.
// endDoc first reads the slot of every term of the document in a loop
// whose loads do not depend on each other, so that the processor has many
// of them in flight at once; then it looks the terms up, and then, in the
// same way, reads each term's record before it groups the positions.
func (v *inverter) endDoc(doc uint32) {
	var touch uint32
	slots, mask := v.vocab.slots, v.vocab.mask
	for i := range v.occs {
		touch += slots[v.occs[i].h&mask].id
	}
	ids := v.ids[:0]
	var short [8]byte
	text := v.text
	for i := range v.occs {
		o := &v.occs[i]
		var term []byte
		if o.n <= 8 {
			binary.LittleEndian.PutUint64(short[:], o.head)
			term = short[:o.n]
		} else {
			term, text = text[:o.n], text[o.n:]
		}
		id, isNew := v.vocab.idHashed(term, o.h, o.head)
		if isNew {
			v.terms = append(v.terms, invTerm{})
		}
		ids = append(ids, id)
	}
	for _, id := range ids {
		touch += v.terms[id].seen
	}
	v.touch = touch
	for i, id := range ids {
		t := &v.terms[id]
		if t.seen != v.epoch {
			t.seen, t.k = v.epoch, uint32(len(v.cur))
			v.cur = append(v.cur, id)
			v.counts = append(v.counts, 0)
		}
		v.counts[t.k]++
		v.pairs = append(v.pairs, uint64(t.k)<<32|uint64(v.occs[i].pos))
	}
	v.ids = ids[:0]
	v.text, v.occs = v.text[:0], v.occs[:0]

	pos := v.pos[:0]
	if len(v.cur) == len(v.pairs) {
		// Every term once: the pairs are in the order of cur already.
		for _, p := range v.pairs {
			pos = append(pos, uint32(p))
		}
	} else {
		// Counting sort by term: counts become each term's end in pos.
		var end uint32
		for k, c := range v.counts {
			end += c
			v.counts[k] = end
		}
		pos = slices.Grow(pos, len(v.pairs))[:len(v.pairs)]
		for i := len(v.pairs) - 1; i >= 0; i-- {
			p := v.pairs[i]
			k := p >> 32
			v.counts[k]--
			pos[v.counts[k]] = uint32(p)
		}
		// Now counts[k] is term k's start.
	}
	for k, id := range v.cur {
		start, end := uint32(k), uint32(k+1)
		if len(v.cur) != len(v.pairs) {
			start, end = v.counts[k], uint32(len(pos))
			if k+1 < len(v.cur) {
				end = v.counts[k+1]
			}
		}
		t := &v.terms[id]
		prev := t.last
		if t.df == 0 {
			prev = 0
		}
		b := binary.AppendUvarint(v.entry[:0], uint64(doc-prev))
		b = binary.AppendUvarint(b, uint64(end-start))
		var last uint32
		for _, p := range pos[start:end] {
			b = binary.AppendUvarint(b, uint64(p-last))
			last = p
		}
		v.pool.append(&t.list, b)
		v.entry = b
		t.last = doc
		t.df++
	}
	v.pos = pos[:0]
	v.cur, v.counts, v.pairs = v.cur[:0], v.counts[:0], v.pairs[:0]
	v.epoch++
}

// sorted returns the inverter's term numbers in order of their bytes.
func (v *inverter) sorted() []uint32 { return v.vocab.sorted() }

// mergePostings calls fn for every term of the inverters, in order of
// name, with its postings value (document frequency, then the entries of
// every inverter in turn). The inverters must hold consecutive runs of
// documents, in order. name and val are only valid until fn returns.
func mergePostings(ctx context.Context, invs []*inverter, fn func(name, val []byte) error) error {
	m, err := newMerger(ctx, invs)
	if err != nil {
		return err
	}
	b := m.split(1)
	var mb mergeBuf
	return m.merge(&mb, b[0], b[1], fn)
}

// merger merges the terms of inverters that hold consecutive runs of
// documents, in order: each inverter's term numbers in order of their
// bytes, merged in ranges that can be merged side by side (split).
type merger struct {
	invs   []*inverter
	orders [][]uint32 // by inverter: its term numbers in order of bytes
}

// newMerger puts the terms of each inverter in order, on every core.
func newMerger(ctx context.Context, invs []*inverter) (*merger, error) {
	m := &merger{invs: invs, orders: make([][]uint32, len(invs))}
	if err := parallel.Do(ctx, len(invs), func(w int) error {
		m.orders[w] = invs[w].sorted()
		return nil
	}); err != nil {
		return nil, err
	}
	return m, nil
}

// split cuts the merged terms into at most n ranges of about as many
// terms each and returns their bounds: range k is, in each inverter w's
// order, from bounds[k][w] up to bounds[k+1][w]. The ranges are in order
// of name, and every term lies in one of them, whatever the inverter.
func (m *merger) split(n int) [][]int {
	// The cuts are terms of the inverter with the most, at even steps.
	big := 0
	for w := range m.orders {
		if len(m.orders[w]) > len(m.orders[big]) {
			big = w
		}
	}
	total := 0
	if len(m.orders) > 0 {
		total = len(m.orders[big])
	}
	n = max(1, min(n, total))
	bounds := make([][]int, 0, n+1)
	bounds = append(bounds, make([]int, len(m.invs)))
	for k := 1; k < n; k++ {
		cut := m.invs[big].vocab.term(m.orders[big][k*total/n])
		b := make([]int, len(m.invs))
		for w, v := range m.invs {
			// The first of w's terms not before cut.
			b[w] = sort.Search(len(m.orders[w]), func(i int) bool {
				return bytes.Compare(v.vocab.term(m.orders[w][i]), cut) >= 0
			})
		}
		bounds = append(bounds, b)
	}
	end := make([]int, len(m.invs))
	for w := range m.orders {
		end[w] = len(m.orders[w])
	}
	return append(bounds, end)
}

// mergeBuf is merge's scratch, reused from range to range.
type mergeBuf struct {
	next  []int
	val   []byte
	parts [][]byte // the term's lists
	lasts []uint32 // and their last documents
}

// merge calls fn, as mergePostings does, for the terms of the range that
// starts at lo and ends at hi (split's bounds).
func (m *merger) merge(mb *mergeBuf, lo, hi []int, fn func(name, val []byte) error) error {
	next := append(mb.next[:0], lo...)
	mb.next = next
	for {
		// The smallest name at the head of any inverter's range.
		var name []byte
		found := false
		for w, v := range m.invs {
			if next[w] < hi[w] {
				if n := v.vocab.term(m.orders[w][next[w]]); !found || bytes.Compare(n, name) < 0 {
					name, found = n, true
				}
			}
		}
		if !found {
			return nil
		}
		parts, lasts := mb.parts[:0], mb.lasts[:0]
		var df uint64
		for w, v := range m.invs {
			if next[w] < hi[w] {
				if id := m.orders[w][next[w]]; bytes.Equal(v.vocab.term(id), name) {
					t := &v.terms[id]
					parts = append(parts, v.pool.bytes(&t.list))
					lasts = append(lasts, t.last)
					df += uint64(t.df)
					next[w]++
				}
			}
		}
		val := binary.AppendUvarint(mb.val[:0], df)
		for i, list := range parts {
			if i == 0 {
				val = append(val, list...)
				continue
			}
			// The run's first document, stored as is, becomes a
			// difference from the previous run's last.
			first, n := binary.Uvarint(list)
			val = binary.AppendUvarint(val, first-uint64(lasts[i-1]))
			val = append(val, list[n:]...)
		}
		mb.parts, mb.lasts, mb.val = parts, lasts, val
		if err := fn(name, val); err != nil {
			return err
		}
	}
}

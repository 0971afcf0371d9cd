package index

import (
	"context"
	"encoding/binary"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/internal/parallel"
)

// inverter gathers the postings of a run of documents, numbered in
// increasing order, in the positions encoding of table.AppendDocPositions: each term's
// list is encoded as its documents end, so nothing is kept per (term,
// document) pair but bytes. Terms get small numbers in order of first
// appearance; the document being tokenized is a list of (term, position)
// pairs, sorted when it ends.
type inverter struct {
	ids   map[string]uint32
	terms []invTerm
	pairs []uint64 // the current document: term number << 32 | position
}

type invTerm struct {
	name        string
	buf         []byte // entries; the first document's number is stored as is
	first, last uint32 // documents
	df          uint32
}

func newInverter() *inverter { return &inverter{ids: make(map[string]uint32, 1<<12)} }

// add records term at pos in the current document.
func (v *inverter) add(term string, pos uint32) {
	id, ok := v.ids[term]
	if !ok {
		id = uint32(len(v.terms))
		name := strings.Clone(term)
		v.ids[name] = id
		v.terms = append(v.terms, invTerm{name: name})
	}
	v.pairs = append(v.pairs, uint64(id)<<32|uint64(pos))
}

// endDoc encodes the current document, doc, into its terms' lists. Docs
// must end in increasing order.
func (v *inverter) endDoc(doc uint32) {
	p := v.pairs
	slices.Sort(p)
	for i := 0; i < len(p); {
		id := uint32(p[i] >> 32)
		j := i + 1
		for j < len(p) && uint32(p[j]>>32) == id {
			j++
		}
		t := &v.terms[id]
		prev := t.last
		if t.df == 0 {
			prev, t.first = 0, doc
		}
		t.buf = binary.AppendUvarint(t.buf, uint64(doc-prev))
		t.buf = binary.AppendUvarint(t.buf, uint64(j-i))
		var last uint32
		for _, x := range p[i:j] {
			pos := uint32(x)
			t.buf = binary.AppendUvarint(t.buf, uint64(pos-last))
			last = pos
		}
		t.last = doc
		t.df++
		i = j
	}
	v.pairs = p[:0]
}

// sorted returns the inverter's term numbers in order of their names.
func (v *inverter) sorted() []uint32 {
	order := make([]uint32, len(v.terms))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return strings.Compare(v.terms[a].name, v.terms[b].name) })
	return order
}

// mergePostings calls fn for every term of the inverters, in order of
// name, with its postings value (document frequency, then the entries of
// every inverter in turn). The inverters must hold consecutive runs of
// documents, in order. val is reused between calls.
func mergePostings(ctx context.Context, invs []*inverter, fn func(name string, val []byte) error) error {
	orders := make([][]uint32, len(invs))
	if err := parallel.Do(ctx, len(invs), func(w int) error {
		orders[w] = invs[w].sorted()
		return nil
	}); err != nil {
		return err
	}
	next := make([]int, len(invs))
	var val []byte
	var parts []*invTerm
	for {
		// The smallest name at the head of any inverter's order.
		name, found := "", false
		for w, v := range invs {
			if next[w] < len(orders[w]) {
				if n := v.terms[orders[w][next[w]]].name; !found || n < name {
					name, found = n, true
				}
			}
		}
		if !found {
			return nil
		}
		parts = parts[:0]
		var df uint64
		for w, v := range invs {
			if next[w] < len(orders[w]) {
				if t := &v.terms[orders[w][next[w]]]; t.name == name {
					parts = append(parts, t)
					df += uint64(t.df)
					next[w]++
				}
			}
		}
		val = binary.AppendUvarint(val[:0], df)
		var last uint32
		for i, t := range parts {
			if i == 0 {
				val = append(val, t.buf...)
			} else {
				// The run's first document, stored as is, becomes a
				// difference from the previous run's last.
				_, n := binary.Uvarint(t.buf)
				val = binary.AppendUvarint(val, uint64(t.first-last))
				val = append(val, t.buf[n:]...)
			}
			last = t.last
		}
		if err := fn(name, val); err != nil {
			return err
		}
	}
}

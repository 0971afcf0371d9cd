package index

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ctx-dev/ctx/index/table"
)

// TestInverter checks the inverters' postings against a direct encoding
// with table.AppendDocPositions, for random documents split among random
// numbers of inverters at random boundaries.
func TestInverter(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 1))
		// Documents: lists of (term, position), positions non-decreasing,
		// as a tokenizer emits them (an inner term shares its position
		// with its first part).
		nDocs := 1 + rng.IntN(40)
		vocab := 1 + rng.IntN(30)
		type occ struct {
			term string
			pos  uint32
		}
		docs := make([][]occ, nDocs)
		for d := range docs {
			var pos uint32
			for range rng.IntN(25) {
				docs[d] = append(docs[d], occ{fmt.Sprintf("t%02d", rng.IntN(vocab)), pos})
				if rng.IntN(4) != 0 {
					pos++
				}
			}
		}
		// The reference: term → doc → positions.
		want := map[string][]byte{}
		var names []string
		{
			type list struct {
				docs []uint32
				pos  [][]uint32
			}
			lists := map[string]*list{}
			for d, occs := range docs {
				for _, o := range occs {
					l := lists[o.term]
					if l == nil {
						l = &list{}
						lists[o.term] = l
						names = append(names, o.term)
					}
					if len(l.docs) == 0 || l.docs[len(l.docs)-1] != uint32(d) {
						l.docs = append(l.docs, uint32(d))
						l.pos = append(l.pos, nil)
					}
					l.pos[len(l.pos)-1] = append(l.pos[len(l.pos)-1], o.pos)
				}
			}
			slices.Sort(names)
			for name, l := range lists {
				var val []byte
				val = binary.AppendUvarint(val, uint64(len(l.docs)))
				var prev uint32
				for i, d := range l.docs {
					val = table.AppendDocPositions(val, prev, d, l.pos[i])
					prev = d
				}
				want[name] = val
			}
		}
		// Split into inverters.
		cuts := []int{0}
		for d := 1; d < nDocs; d++ {
			if rng.IntN(3) == 0 {
				cuts = append(cuts, d)
			}
		}
		cuts = append(cuts, nDocs)
		var invs []*inverter
		for k := 0; k+1 < len(cuts); k++ {
			inv := newInverter()
			for d := cuts[k]; d < cuts[k+1]; d++ {
				for _, o := range docs[d] {
					inv.add([]byte(o.term), o.pos)
				}
				inv.endDoc(uint32(d))
			}
			invs = append(invs, inv)
		}
		var got []string
		err := mergePostings(context.Background(), invs, func(nameb, val []byte) error {
			name := string(nameb)
			got = append(got, name)
			if w := want[name]; !slices.Equal(val, w) {
				t.Errorf("seed %d, %d inverters: term %s: postings %x, want %x", seed, len(invs), name, val, w)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, names) {
			t.Errorf("seed %d: terms %q, want %q", seed, got, names)
		}
	}
}

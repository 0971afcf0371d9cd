package reader

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/ctx-dev/ctx/index/text"
)

// TestBaseRuns checks the runs of live base documents against numbering
// every document by brute force, for random dead documents and
// insertion points: each live base document and each delta document gets
// the number of its place in the merged order, and Locate finds it.
func TestBaseRuns(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for round := range 2000 {
		nb := uint32(rng.Intn(40))
		var dead, ins []uint32
		for b := range nb {
			if rng.Intn(3) == 0 {
				dead = append(dead, b)
			}
		}
		for range rng.Intn(12) {
			ins = append(ins, uint32(rng.Intn(int(nb)+1)))
		}
		slices.Sort(ins)
		// The merged order: before base document b, the delta documents
		// inserted at b; then b, unless dead; the rest at the end.
		want := map[[2]uint32]uint32{} // {0, b} or {1, j} → number
		v, j := uint32(0), 0
		for b := uint32(0); b <= nb; b++ {
			for ; j < len(ins) && ins[j] == b; j++ {
				want[[2]uint32{1, uint32(j)}] = v
				v++
			}
			if b < nb && !slices.Contains(dead, b) {
				want[[2]uint32{0, b}] = v
				v++
			}
		}
		d := &Delta{seg: &Segment{}, dead: dead, ins: ins, rank: Ranks(dead, ins), runs: BaseRuns(nb, dead, ins)}
		c := Part{base: &Segment{stats: text.Stats{Docs: nb}}, delta: d}
		for key, n := range want {
			s, local := c.Locate(n)
			if got := [2]uint32{boolNum(s == d.seg), local}; got != key {
				t.Fatalf("round %d (nb %d, dead %v, ins %v): locate(%d) = %v, want %v", round, nb, dead, ins, n, got, key)
			}
		}
		if s, local := c.Locate(v); s != c.base || local != nb {
			t.Fatalf("round %d: locate past the end gave %v %d", round, s == d.seg, local)
		}
	}
}

func boolNum(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

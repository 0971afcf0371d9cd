package reader

import (
	"math/rand"
	"testing"
)

func TestDocSet(t *testing.T) {
	s := newDocSet(130)
	for _, d := range []uint32{0, 63, 64, 129} {
		s.add(d)
	}
	s.add(1000) // beyond the bound: no entry, no panic
	for d := uint32(0); d < 200; d++ {
		want := d == 0 || d == 63 || d == 64 || d == 129
		if s.has(d) != want {
			t.Errorf("has(%d) = %v, want %v", d, !want, want)
		}
	}
	var none docSet
	if none.has(0) {
		t.Error("a nil set has 0")
	}
}

// TestSymbolSet checks the few and the many forms of a symbolSet against
// a map, for the documents a text search sees.
func TestSymbolSet(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for round := range 300 {
		docs := 1 + rng.Intn(5000)
		n := rng.Intn(2 * manySymbols)
		var symbols []uint32
		want := map[uint32]bool{}
		for range n {
			d := uint32(rng.Intn(docs))
			if !want[d] {
				want[d] = false
				symbols = append(symbols, d)
			}
		}
		s := newSymbolSet(symbols, docs)
		if (s.bits == nil) != (len(symbols) <= manySymbols) {
			t.Fatalf("round %d: %d symbols in the wrong form", round, len(symbols))
		}
		for range rng.Intn(3 * docs) {
			d := uint32(rng.Intn(docs))
			s.see(d)
			if _, ok := want[d]; ok {
				want[d] = true
			}
		}
		unseen := 0
		for _, seen := range want {
			if !seen {
				unseen++
			}
		}
		if got := s.unseen(); got != unseen {
			t.Fatalf("round %d (%d symbols over %d documents): unseen %d, want %d", round, len(symbols), docs, got, unseen)
		}
	}
}

package reader

import "testing"

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

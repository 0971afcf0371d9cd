package index

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestListPool appends random bytes to many lists, some growing to more
// than a chunk, and checks every list against a plain slice as it goes:
// lists move to larger regions, take the regions others left, and none
// overwrites another.
func TestListPool(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 4))
			var p listPool
			lists := make([]list, 1000)
			want := make([][]byte, len(lists))
			check := func() {
				t.Helper()
				for i := range lists {
					if got := p.bytes(&lists[i]); !bytes.Equal(got, want[i]) {
						t.Fatalf("list %d: %d bytes, want %d (or they differ)", i, len(got), len(want[i]))
					}
				}
			}
			check()
			for op := range 100000 {
				// A few lists get most of the bytes, as frequent terms do.
				i := rng.IntN(1 + rng.IntN(len(lists)))
				n := 1 + rng.IntN(12)
				if rng.IntN(500) == 0 {
					n = rng.IntN(200000)
				}
				if op == 50000 || op == 70000 {
					// More than a chunk, in one list.
					i, n = 0, 3<<20
				}
				b := make([]byte, n)
				for k := range b {
					b[k] = byte(rng.Uint32())
				}
				p.append(&lists[i], b)
				want[i] = append(want[i], b...)
				if op%10000 == 0 {
					check()
				}
			}
			check()
			big := 0
			for i := range lists {
				if lists[i].class > 22 {
					big++
				}
			}
			if len(p.chunks) < 3 || big == 0 {
				t.Errorf("%d chunks, %d lists larger than a chunk: the test does not reach them", len(p.chunks), big)
			}
		})
	}
}

func TestListPoolEmpty(t *testing.T) {
	var p listPool
	var l list
	if b := p.bytes(&l); len(b) != 0 {
		t.Errorf("empty list has %d bytes", len(b))
	}
	p.append(&l, nil)
	p.append(&l, []byte("x"))
	if b := p.bytes(&l); string(b) != "x" {
		t.Errorf("bytes %q, want %q", b, "x")
	}
}

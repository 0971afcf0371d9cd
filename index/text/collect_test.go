package text

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func TestCollector(t *testing.T) {
	hits := []Hit{{5, 1}, {3, 2}, {9, 2}, {1, 0.5}, {2, 2}, {7, 3}}
	c := NewCollector(4)
	for _, h := range hits {
		c.Push(h)
	}
	if m, ok := c.Min(); !ok || m != (Hit{9, 2}) {
		t.Errorf("Min() = %v, %v; want {9 2}, true", m, ok)
	}
	want := []Hit{{7, 3}, {2, 2}, {3, 2}, {9, 2}}
	if got := c.Hits(); !reflect.DeepEqual(got, want) {
		t.Errorf("Hits() = %v, want %v", got, want)
	}
	if c.Len() != 0 {
		t.Errorf("Len() after Hits = %d, want 0", c.Len())
	}
	z := NewCollector(0)
	z.Push(Hit{1, 1})
	if z.Len() != 0 || len(z.Hits()) != 0 {
		t.Error("a collector of 0 kept a hit")
	}
	if _, ok := NewCollector(3).Min(); ok {
		t.Error("Min() of an empty collector reported a hit")
	}
}

// TestCollectorDeterminism pushes many hits with many ties in random
// orders: the result is always the first K of the sorted hits.
func TestCollectorDeterminism(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		n := rng.IntN(300)
		hits := make([]Hit, n)
		for i := range hits {
			hits[i] = Hit{Doc: uint32(i), Score: float64(rng.IntN(5))}
		}
		sorted := slices.Clone(hits)
		slices.SortFunc(sorted, func(a, b Hit) int {
			if better(a, b) {
				return -1
			}
			return 1
		})
		k := rng.IntN(20)
		want := sorted[:min(k, n)]
		for range 3 {
			rng.Shuffle(n, func(i, j int) { hits[i], hits[j] = hits[j], hits[i] })
			c := NewCollector(k)
			for _, h := range hits {
				c.Push(h)
			}
			if got := c.Hits(); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("round %d, k=%d: got %v, want %v", round, k, got, want)
			}
		}
	}
}

func TestCollectorAllocs(t *testing.T) {
	c := NewCollector(10)
	var i uint32
	if a := testing.AllocsPerRun(1000, func() { i++; c.Push(Hit{Doc: i, Score: float64(i % 7)}) }); a != 0 {
		t.Errorf("Push allocates %v times", a)
	}
}

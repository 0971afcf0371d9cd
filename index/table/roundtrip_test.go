package table

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
)

// randKey draws keys from a small alphabet, so that they share prefixes,
// with some arbitrary bytes mixed in.
func randKey(rng *rand.Rand) []byte {
	const alpha = "ab/\x00\xff"
	k := make([]byte, rng.IntN(12))
	for i := range k {
		if rng.IntN(8) == 0 {
			k[i] = byte(rng.Uint32())
		} else {
			k[i] = alpha[rng.IntN(len(alpha))]
		}
	}
	return k
}

// TestRoundTrip checks tables of random records against a sorted map.
func TestRoundTrip(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 6))
		m := map[string]string{}
		for n := rng.IntN(1 << rng.IntN(12)); len(m) < n; {
			v := make([]byte, rng.IntN(1<<rng.IntN(11)))
			for i := range v {
				v[i] = byte(rng.Uint32())
			}
			m[string(randKey(rng))] = string(v)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		kvs := make([]kv, len(keys))
		for i, k := range keys {
			kvs[i] = kv{k, m[k]}
		}
		opts := WriterOptions{
			RestartInterval: []int{0, 1, 2, 7, 100}[seed%5],
			BlockSize:       []int{0, 1, 100}[seed%3],
			SummaryInterval: []int{0, 1, 3, 1000}[seed%4],
			BufferSize:      []int{0, 1, 17, 4096, 1 << 20, 5}[seed%6],
		}
		t.Run(fmt.Sprintf("seed%d-%d-r%d-b%d-s%d", seed, len(kvs), opts.RestartInterval, opts.BlockSize, opts.SummaryInterval), func(t *testing.T) {
			tab := mustOpen(t, build(t, opts, kvs))
			if err := tab.Verify(); err != nil {
				t.Fatal(err)
			}
			if tab.Len() != len(kvs) {
				t.Fatalf("Len = %d, want %d", tab.Len(), len(kvs))
			}
			if got := collect(t, tab.All()); !equalKVs(got, kvs) {
				t.Fatal("All differs from the map")
			}
			for _, r := range kvs {
				if v, ok := tab.Get([]byte(r.k)); !ok || string(v) != r.v {
					t.Fatalf("Get(%q) = %d bytes, %v", r.k, len(v), ok)
				}
			}
			for i := 0; i < 300; i++ {
				q := randKey(rng)
				if i%3 == 0 && len(kvs) > 0 { // near a key: extended or cut
					q = []byte(kvs[rng.IntN(len(kvs))].k)
					if rng.IntN(2) == 0 {
						q = append(q, byte(rng.Uint32()))
					} else if len(q) > 0 {
						q = q[:rng.IntN(len(q))]
					}
				}
				v, ok := tab.Get(q)
				want, wantOK := m[string(q)]
				if ok != wantOK || string(v) != want {
					t.Fatalf("Get(%q) = %v, want %v", q, ok, wantOK)
				}
				from := sort.Search(len(kvs), func(i int) bool { return kvs[i].k >= string(q) })
				if got := collect(t, tab.Seek(q)); !equalKVs(got, kvs[from:]) {
					t.Fatalf("Seek(%q): %d records, want %d", q, len(got), len(kvs)-from)
				}
				var want2 []kv
				for _, r := range kvs[from:] {
					if !bytes.HasPrefix([]byte(r.k), q) {
						break
					}
					want2 = append(want2, r)
				}
				if got := collect(t, tab.Prefix(q)); !equalKVs(got, want2) {
					t.Fatalf("Prefix(%q): %d records, want %d", q, len(got), len(want2))
				}
			}
			if err := tab.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

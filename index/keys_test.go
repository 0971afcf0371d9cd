package index

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/index/table"
	"github.com/ctx-dev/ctx/object"
)

// TestKeyTable checks keys.tbl as a keyTable writes it against a map of
// the same lookups: every name once, in byte order, with its numbers
// increasing and without repeats; empty keys left out; ids as their
// bytes.
func TestKeyTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	keys := newKeyTable()
	want := map[string][]uint32{}
	add := func(name string, n uint32) {
		if l := want[name]; len(l) == 0 || l[len(l)-1] != n {
			want[name] = append(l, n)
		}
	}
	parts := []string{"", "a", "ab", "abcdefgh", "abcdefghi", "abcdefgh\x00", "net/http", "net/http/client.go", "Ünïcode"}
	for n := range uint32(3000) {
		for range rng.IntN(4) {
			ns := []byte{nsPath, nsKey, nsName, nsKind}[rng.IntN(4)]
			key := parts[rng.IntN(len(parts))] + strings.Repeat("x", rng.IntN(3)) + fmt.Sprint(rng.IntN(50))
			if rng.IntN(10) == 0 {
				key = ""
			}
			keys.add(ns, key, n)
			keys.add(ns, key, n) // a repeat is no second entry
			if key != "" {
				add(string(ns)+key, n)
			}
		}
		if rng.IntN(5) == 0 {
			id := object.Sum(object.KindBlob, []byte(fmt.Sprint(rng.IntN(100))))
			keys.addID(nsNode, id, n)
			add(string(nsNode)+string(id[:]), n)
		}
	}
	if keys.len() != len(want) {
		t.Fatalf("%d names, want %d", keys.len(), len(want))
	}
	dir := t.TempDir()
	if err := keys.write(dir); err != nil {
		t.Fatal(err)
	}
	tb, err := table.Open(filepath.Join(dir, keysFile))
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range want {
			if !yield(k) {
				return
			}
		}
	})
	var got []string
	it := tb.All()
	for it.Next() {
		got = append(got, string(it.Key()))
		nums, err := table.DecodeUvarintDeltas(nil, it.Value())
		if err != nil || !slices.Equal(nums, want[string(it.Key())]) {
			t.Fatalf("%q: %v %v, want %v", it.Key(), nums, err, want[string(it.Key())])
		}
	}
	if !slices.Equal(got, names) {
		t.Fatalf("names %q..., want %q...", got[:min(5, len(got))], names[:min(5, len(names))])
	}
}

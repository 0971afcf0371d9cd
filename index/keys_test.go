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
	checkKeys(t, keys, nil, want)
}

// TestKeyRun checks keys.tbl as a keyTable and a keyRun write it: the
// run's names in order (the items' keys of a segment), among the table's
// of other namespaces; a repeat of the last name with the same or a
// greater number; and, in some cases, a name out of order, which spills
// the run into the table.
func TestKeyRun(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 9))
		keys := newKeyTable()
		run := &keyRun{t: keys}
		want := map[string][]uint32{}
		add := func(name string, n uint32) {
			if l := want[name]; len(l) == 0 || l[len(l)-1] != n {
				want[name] = append(l, n)
			}
		}
		var names []string
		for range 1 + rng.IntN(500) {
			names = append(names, []string{"a", "a.b", "net/http.Client", "net/http.Client.Do", "ünï"}[rng.IntN(5)]+fmt.Sprint(rng.IntN(1000)))
		}
		slices.Sort(names)
		spillAt := -1
		if seed%3 == 0 {
			spillAt = rng.IntN(len(names))
		}
		var n uint32
		for i, name := range names {
			if i == spillAt {
				name = "\x00before all" // out of order
			}
			for range 1 + rng.IntN(2) {
				run.add(nsKey, name, n)
				add(string(nsKey)+name, n)
				keys.add(nsName, name, n)
				add(string(nsName)+name, n)
				if rng.IntN(2) == 0 {
					f := "f" + fmt.Sprint(rng.IntN(7))
					keys.add(nsFile, f, n)
					add(string(nsFile)+f, n)
				}
				n += uint32(rng.IntN(2))
			}
		}
		if run.spilled != (spillAt > 0) {
			t.Fatalf("seed %d: spilled %v, out of order at %d", seed, run.spilled, spillAt)
		}
		if run.spilled && run.len() != 0 {
			t.Fatalf("seed %d: a spilled run holds %d names", seed, run.len())
		}
		checkKeys(t, keys, run, want)
	}
}

// checkKeys writes keys.tbl of keys and run and compares it with want.
func checkKeys(t *testing.T, keys *keyTable, run *keyRun, want map[string][]uint32) {
	t.Helper()
	dir := t.TempDir()
	if err := keys.writeWith(dir, run); err != nil {
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

// TestKeyTableAddLower checks that addLower adds the name strings.ToLower
// gives, ASCII or not.
func TestKeyTableAddLower(t *testing.T) {
	names := []string{"Connect", "HTTPClient", "already", "ÉtatCivil", "İstanbul", "MixedÜmlaut", "a\xffB", "x"}
	keys := newKeyTable()
	want := map[string][]uint32{}
	for i, name := range names {
		keys.addLower(nsName, name, uint32(i))
		l := string(nsName) + strings.ToLower(name)
		want[l] = append(want[l], uint32(i))
	}
	keys.addLower(nsName, "", 99) // no lookup
	checkKeys(t, keys, nil, want)
}

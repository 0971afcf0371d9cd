package object

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// countingGetter counts the objects read through it.
type countingGetter struct {
	Getter
	n int
}

func (c *countingGetter) Get(id ID) (Kind, []byte, error) {
	c.n++
	return c.Getter.Get(id)
}

// TestDiffTrees compares DiffTrees of random pairs of trees (files turned
// into directories and back included) with the difference of their
// listings: the same paths, in order, with the same old and new entries.
func TestDiffTrees(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	names := []string{"a", "b", "c.go", "d"}
	randPath := func() string {
		parts := make([]string, 1+r.IntN(3))
		for i := range parts {
			parts[i] = names[r.IntN(len(names))]
		}
		return strings.Join(parts, "/")
	}
	blob := func(i int) ID { return Sum(KindBlob, []byte{byte(i)}) }
	randFiles := func() map[string]ID {
		files := map[string]ID{}
		for range r.IntN(10) {
			p := randPath()
			clash := false
			for q := range files {
				if strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/") {
					clash = true
				}
			}
			if !clash {
				files[p] = blob(r.IntN(4))
			}
		}
		return files
	}
	for round := range 500 {
		st := NewMemStore()
		fa := randFiles()
		fb := fa
		if r.IntN(4) > 0 {
			fb = randFiles()
		}
		a, err := WriteTree(st, fa)
		if err != nil {
			t.Fatal(err)
		}
		b, err := WriteTree(st, fb)
		if err != nil {
			t.Fatal(err)
		}
		if len(fa) == 0 && r.IntN(2) == 0 {
			a = Zero
		}
		la, _ := ListTree(st, a, "")
		lb, _ := ListTree(st, b, "")
		var want []string
		for p, e := range la {
			if f, ok := lb[p]; !ok {
				want = append(want, fmt.Sprintf("%s %s -", p, e.ID.Short()))
			} else if f.ID != e.ID {
				want = append(want, fmt.Sprintf("%s %s %s", p, e.ID.Short(), f.ID.Short()))
			}
		}
		for p, f := range lb {
			if _, ok := la[p]; !ok {
				want = append(want, fmt.Sprintf("%s - %s", p, f.ID.Short()))
			}
		}
		slices.Sort(want)
		var got, order []string
		err = DiffTrees(st, a, b, func(p string, old, new *TreeEntry) error {
			s := p
			for _, e := range []*TreeEntry{old, new} {
				if e == nil {
					s += " -"
					continue
				}
				if e.Name != p || e.Kind != EntryBlob {
					t.Fatalf("round %d: entry %+v at %s", round, e, p)
				}
				s += " " + e.ID.Short()
			}
			got = append(got, s)
			order = append(order, p)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		sorted := slices.Clone(got)
		slices.Sort(sorted)
		if !slices.Equal(sorted, want) {
			t.Fatalf("round %d: %v → %v: got %v, want %v", round, fa, fb, got, want)
		}
		if !slices.IsSortedFunc(order, func(x, y string) int {
			return slices.Compare(strings.Split(x, "/"), strings.Split(y, "/"))
		}) {
			t.Fatalf("round %d: paths out of order: %v", round, order)
		}
	}
}

// TestDiffTreesReadsOnlyTheChange checks that subtrees equal on both sides
// are not read, and that fn's error stops the walk.
func TestDiffTreesReadsOnlyTheChange(t *testing.T) {
	st := NewMemStore()
	files := map[string]ID{}
	for i := range 200 {
		files[fmt.Sprintf("d%d/e%d/f%d.go", i%10, i%7, i)] = Sum(KindBlob, []byte{byte(i)})
	}
	a, err := WriteTree(st, files)
	if err != nil {
		t.Fatal(err)
	}
	files["d3/e3/f3.go"] = Sum(KindBlob, []byte("edited"))
	b, err := WriteTree(st, files)
	if err != nil {
		t.Fatal(err)
	}
	cg := &countingGetter{Getter: st}
	var got []string
	if err := DiffTrees(cg, a, b, func(p string, old, new *TreeEntry) error {
		got = append(got, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"d3/e3/f3.go"}) {
		t.Fatalf("got %v", got)
	}
	if cg.n != 6 { // the root, d3 and d3/e3, on each side
		t.Fatalf("read %d trees, want 6", cg.n)
	}
	cg.n = 0
	if err := DiffTrees(cg, a, a, nil); err != nil || cg.n != 0 {
		t.Fatalf("same tree: %v, %d reads", err, cg.n)
	}
	stop := errors.New("stop")
	if err := DiffTrees(st, Zero, b, func(string, *TreeEntry, *TreeEntry) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("fn's error: %v", err)
	}
	if err := DiffTrees(st, Zero, Sum(KindTyped, []byte("missing")), nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing tree: %v", err)
	}
}

package object

import (
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestEditTree applies random edits to random trees and checks the result
// against the same edits applied to a flat listing: the tree lists exactly
// the expected files, empty directories vanish, and editing nothing or
// rebuilding from scratch gives the same id.
func TestEditTree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	names := []string{"a", "b", "c", "d.go", "e.txt"}
	randPath := func() string {
		n := 1 + r.IntN(3)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = names[r.IntN(len(names))]
		}
		return strings.Join(parts, "/")
	}
	blob := func(i int) ID { return Sum(KindBlob, []byte{byte(i), byte(i >> 8)}) }
	// valid drops paths that are both a file and a directory's prefix.
	valid := func(files map[string]ID) map[string]ID {
		out := map[string]ID{}
		for p, id := range files {
			ok := true
			for q := range files {
				if strings.HasPrefix(q, p+"/") {
					ok = false
					break
				}
			}
			if ok {
				out[p] = id
			}
		}
		return out
	}
	for round := 0; round < 300; round++ {
		st := NewMemStore()
		files := map[string]ID{}
		for i := 0; i < r.IntN(12); i++ {
			files[randPath()] = blob(r.IntN(50))
		}
		files = valid(files)
		base, err := WriteTree(st, files)
		if err != nil {
			t.Fatal(err)
		}
		if same, err := EditTree(st, base, nil); err != nil || same != base {
			t.Fatalf("empty edit: %s, %v; want %s", same, err, base)
		}
		want := maps.Clone(files)
		changes := map[string]*TreeEntry{}
		for i := 0; i < 1+r.IntN(6); i++ {
			p := randPath()
			overlaps := false // the edits of one map do not overlap
			for q := range changes {
				if q != p && (strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/")) {
					overlaps = true
				}
			}
			if overlaps {
				continue
			}
			if r.IntN(3) == 0 {
				changes[p] = nil
				for q := range want {
					if q == p || strings.HasPrefix(q, p+"/") {
						delete(want, q)
					}
				}
				continue
			}
			id := blob(100 + r.IntN(50))
			// A file where a directory was (or under a file) replaces it.
			ok := true
			for q := range changes {
				if q != p && (strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/")) {
					ok = false
				}
			}
			if !ok {
				continue
			}
			changes[p] = &TreeEntry{Kind: EntryBlob, ID: id}
			for q := range want {
				if strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/") {
					delete(want, q)
				}
			}
			want[p] = id
		}
		got, err := EditTree(st, base, changes)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		list, err := ListTree(st, got, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != len(want) {
			t.Fatalf("round %d: %d files, want %d\nchanges %v\ngot %v\nwant %v", round, len(list), len(want), changes, list, want)
		}
		for p, id := range want {
			if list[p].ID != id || list[p].Kind != EntryBlob {
				t.Fatalf("round %d: %s = %+v, want %s", round, p, list[p], id)
			}
		}
		fresh, err := WriteTree(st, want)
		if err != nil {
			t.Fatal(err)
		}
		if fresh != got {
			t.Fatalf("round %d: edited tree %s differs from the same files written anew %s", round, got, fresh)
		}
	}
}

func TestListTreePrefix(t *testing.T) {
	st := NewMemStore()
	files := map[string]ID{"a/b/c": Sum(KindBlob, []byte("c")), "a/d": Sum(KindBlob, []byte("d")), "e": Sum(KindBlob, []byte("e"))}
	root, err := WriteTree(st, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		prefix string
		want   []string
	}{
		{"", []string{"a/b/c", "a/d", "e"}},
		{"a", []string{"a/b/c", "a/d"}},
		{"a/b", []string{"a/b/c"}},
		{"a/d", []string{"a/d"}},
		{"e", []string{"e"}},
		{"x", nil},
		{"e/f", nil},
	} {
		got, err := ListTree(st, root, tt.prefix)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tt.want) {
			t.Errorf("ListTree(%q) = %v, want %v", tt.prefix, got, tt.want)
			continue
		}
		for _, p := range tt.want {
			if got[p].ID != files[p] {
				t.Errorf("ListTree(%q)[%s] = %v", tt.prefix, p, got[p])
			}
		}
	}
}

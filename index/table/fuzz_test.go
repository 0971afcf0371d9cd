package table

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// FuzzOpen opens arbitrary bytes as a table file and runs every read: no
// input may panic or read out of bounds, damage must be ErrCorrupt (or
// ErrVersion from Open), and a file that passes Verify must read
// consistently.
func FuzzOpen(f *testing.F) {
	if golden, err := os.ReadFile(filepath.Join("testdata", "v1.table")); err == nil {
		f.Add(golden)
	}
	for _, opts := range []WriterOptions{{}, {RestartInterval: 1}, {RestartInterval: 2, BlockSize: 8, SummaryInterval: 2}} {
		for _, kvs := range [][]kv{nil, {{"a", "1"}}, {{"", ""}, {"a", "x"}, {"ab", "y"}, {"b", "z"}}, manyKVs(12, 4)} {
			b := build(f, opts, kvs)
			f.Add(b)
			f.Add(b[:len(b)-1])
		}
	}
	f.Add([]byte{})
	f.Add([]byte(Magic))
	probes := [][]byte{nil, []byte("a"), []byte("ab"), []byte("key00000007"), []byte("p/"), []byte("\xff")}
	path := filepath.Join(f.TempDir(), "f.table") // one fuzz worker runs one input at a time
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		tab, err := Open(path)
		if err == nil {
			exercise(t, tab, probes)
			tab.Close()
		} else if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) {
			t.Fatalf("Open = %v", err)
		}
		// Random bytes rarely match the checksums; with them fixed, the
		// fuzzer reaches the structural checks.
		b = bytes.Clone(b)
		reseal(b)
		if tab, err := newTable(b); err == nil {
			exercise(t, tab, probes)
		} else if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) {
			t.Fatalf("Open (resealed) = %v", err)
		}
	})
}

// FuzzDeltaIter decodes arbitrary bytes as an ids list; what decodes must
// encode back to a list that decodes the same.
func FuzzDeltaIter(f *testing.F) {
	f.Add([]byte{})
	f.Add(AppendUvarintDeltas(nil, []uint32{1, 2, 300, 1 << 31}))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		ids, err := DecodeUvarintDeltas(nil, b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatal(err)
			}
			return
		}
		if !slices.IsSorted(ids) {
			t.Fatalf("decoded an unsorted list %v", ids)
		}
		again, err := DecodeUvarintDeltas(nil, AppendUvarintDeltas(nil, ids))
		if err != nil || !slices.Equal(again, ids) {
			t.Fatalf("re-encoding %v gives %v, %v", ids, again, err)
		}
	})
}

// FuzzPositionIter decodes arbitrary bytes as a positions list, reading
// the positions of the documents that mask selects and skipping the rest.
func FuzzPositionIter(f *testing.F) {
	f.Add(uint64(0), []byte{})
	f.Add(uint64(5), encodePositions([]docPositions{{1, []uint32{1, 2}}, {9, nil}, {10, []uint32{7, 1 << 30}}}))
	f.Add(uint64(1), []byte{0, 2, 0x80, 0x80, 0x80, 0x80, 0x80, 0})
	f.Fuzz(func(t *testing.T, mask uint64, b []byte) {
		var docs []docPositions
		it := NewPositionIter(b)
		for i := 0; it.Next(); i++ {
			d := docPositions{doc: it.Doc()}
			if mask>>(i%64)&1 == 1 {
				d.pos = it.AppendPositions(nil)
				if it.Err() == nil && len(d.pos) != it.Freq() {
					t.Fatalf("doc %d: Freq %d, read %d positions", d.doc, it.Freq(), len(d.pos))
				}
			}
			if len(docs) > 0 && d.doc < docs[len(docs)-1].doc {
				t.Fatalf("documents decrease")
			}
			docs = append(docs, d)
		}
		if err := it.Err(); err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatal(err)
			}
			return
		}
		if mask != ^uint64(0) {
			return
		}
		if got, err := decodePositions(encodePositions(docs), false); err != nil || !equalDocs(got, docs) {
			t.Fatalf("re-encoding gives %v, %v", got, err)
		}
	})
}

// FuzzAdvanceSkips checks Advance on any list and skip table: no panic,
// only ErrCorrupt, and on a well-formed list with its own skip table the
// same documents as reading through.
func FuzzAdvanceSkips(f *testing.F) {
	docs := make([]docPositions, 40)
	for i := range docs {
		docs[i] = docPositions{doc: uint32(3 * i), pos: []uint32{uint32(i)}}
	}
	list := encodePositions(docs)
	skips, _, _ := AppendSkips(nil, list)
	f.Add(list, skips, []byte{1, 20, 3, 50, 7})
	f.Add(list, []byte{}, []byte{100})
	f.Add(list, []byte{5, 0x80}, []byte{0, 1, 2})
	f.Fuzz(func(t *testing.T, b, skips, targets []byte) {
		it := NewPositionIterSkips(b, skips)
		var target uint32
		for _, d := range targets {
			target += uint32(d)
			if !it.Advance(target) {
				break
			}
			if it.Doc() < target {
				t.Fatalf("Advance(%d) stopped at %d", target, it.Doc())
			}
		}
		if err := it.Err(); err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatal(err)
		}
		own, _, err := AppendSkips(nil, b)
		if err != nil {
			return // not a well-formed list
		}
		with, without := NewPositionIterSkips(b, own), NewPositionIter(b)
		target = 0
		for _, d := range targets {
			target += uint32(d)
			ok := with.Advance(target)
			if ok != without.Advance(target) || ok && with.Doc() != without.Doc() {
				t.Fatalf("Advance(%d): with skips at %d (%v), without at %d", target, with.Doc(), ok, without.Doc())
			}
			if !ok {
				break
			}
		}
	})
}

package table

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestUvarintDeltas(t *testing.T) {
	tests := []struct {
		name string
		ids  []uint32
		want []byte
	}{
		{"empty", nil, nil},
		{"zero", []uint32{0}, []byte{0}},
		{"small", []uint32{1, 2, 5, 300}, []byte{1, 1, 3, 0xa7, 0x02}},
		{"duplicates", []uint32{7, 7}, []byte{7, 0}},
		{"max", []uint32{0, math.MaxUint32}, []byte{0, 0xff, 0xff, 0xff, 0xff, 0x0f}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := AppendUvarintDeltas(nil, tt.ids)
			if !bytes.Equal(b, tt.want) {
				t.Fatalf("encoded % x, want % x", b, tt.want)
			}
			got, err := DecodeUvarintDeltas(nil, b)
			if err != nil || !slices.Equal(got, tt.ids) {
				t.Fatalf("decoded %v, %v", got, err)
			}
		})
	}
}

func TestUvarintDeltasCorrupt(t *testing.T) {
	for _, b := range [][]byte{
		{0x80},                            // truncated
		{1, 0x80, 0x80},                   // truncated
		{0x80, 0x80, 0x80, 0x80, 0x10},    // 2^32
		{0xff, 0xff, 0xff, 0xff, 0x0f, 1}, // sum overflows
		{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, // too long
		AppendUvarintDeltas(nil, []uint32{5, 3}),                           // unsorted
	} {
		if _, err := DecodeUvarintDeltas(nil, b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("% x: %v, want ErrCorrupt", b, err)
		}
	}
}

// docPositions is one document of a positions list.
type docPositions struct {
	doc uint32
	pos []uint32
}

func encodePositions(docs []docPositions) []byte {
	var b []byte
	var prev uint32
	for _, d := range docs {
		b = AppendDocPositions(b, prev, d.doc, d.pos)
		prev = d.doc
	}
	return b
}

// decodePositions reads every document; with skip, it reads the positions
// of every other document only, to exercise skipping.
func decodePositions(b []byte, skip bool) ([]docPositions, error) {
	var out []docPositions
	it := NewPositionIter(b)
	for i := 0; it.Next(); i++ {
		d := docPositions{doc: it.Doc()}
		if skip && i%2 == 1 {
			d.pos = make([]uint32, it.Freq()) // placeholders
			if it.NextPosition() {
				d.pos[0] = it.Position()
			}
		} else {
			d.pos = it.AppendPositions(nil)
			if it.Err() == nil && len(d.pos) != it.Freq() {
				return nil, errors.New("Freq differs from the positions read")
			}
		}
		out = append(out, d)
	}
	return out, it.Err()
}

func TestPositions(t *testing.T) {
	docs := []docPositions{{0, []uint32{0, 4, 9}}, {3, nil}, {4, []uint32{200, 200, 70000}}, {math.MaxUint32, []uint32{math.MaxUint32}}}
	b := encodePositions(docs)
	want := []byte{0, 3, 0, 4, 5, 3, 0, 1, 3, 0xc8, 0x01, 0, 0xa8, 0xa1, 0x04}
	if !bytes.HasPrefix(b, want) {
		t.Fatalf("encoded % x, want prefix % x", b, want)
	}
	got, err := decodePositions(b, false)
	if err != nil || !equalDocs(got, docs) {
		t.Fatalf("decoded %v, %v", got, err)
	}
	it := NewPositionIter(b)
	var seen []uint32
	for it.Next() { // never reading positions
		seen = append(seen, it.Doc())
	}
	if it.Err() != nil || !slices.Equal(seen, []uint32{0, 3, 4, math.MaxUint32}) {
		t.Fatalf("skipping: %v, %v", seen, it.Err())
	}
	for _, bad := range [][]byte{
		{0x80},                                  // truncated doc
		{0, 0x80},                               // truncated count
		{0, 3, 0, 1},                            // count beyond the list
		{0, 1, 0x80, 0},                         // position varint, skipped: fine; read: fine (0)
		{0, 2, 0xff, 0xff, 0xff, 0xff, 0x0f, 1}, // positions overflow
		{0, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0},
	} {
		_, err1 := decodePositions(bad, false)
		it := NewPositionIter(bad)
		for it.Next() {
		}
		if err1 == nil && it.Err() == nil && !bytes.Equal(bad, []byte{0, 1, 0x80, 0}) {
			t.Errorf("% x decodes", bad)
		}
		for _, err := range []error{err1, it.Err()} {
			if err != nil && !errors.Is(err, ErrCorrupt) {
				t.Errorf("% x: %v, want ErrCorrupt", bad, err)
			}
		}
	}
}

func equalDocs(a, b []docPositions) bool {
	return slices.EqualFunc(a, b, func(x, y docPositions) bool {
		return x.doc == y.doc && slices.Equal(x.pos, y.pos)
	})
}

func TestPostingsRoundTrip(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		ids := make([]uint32, rng.IntN(300))
		var docs []docPositions
		for i := range ids {
			ids[i] = rng.Uint32() >> rng.IntN(32)
		}
		slices.Sort(ids)
		for _, id := range slices.Compact(slices.Clone(ids)) {
			pos := make([]uint32, rng.IntN(6))
			for j := range pos {
				pos[j] = rng.Uint32() >> rng.IntN(32)
			}
			slices.Sort(pos)
			docs = append(docs, docPositions{id, pos})
		}
		got, err := DecodeUvarintDeltas(nil, AppendUvarintDeltas(nil, ids))
		if err != nil || !slices.Equal(got, ids) && len(ids) > 0 {
			t.Fatalf("seed %d: ids differ: %v", seed, err)
		}
		b := encodePositions(docs)
		for _, skip := range []bool{false, true} {
			gotDocs, err := decodePositions(b, skip)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if !skip && !equalDocs(gotDocs, docs) {
				t.Fatalf("seed %d: positions differ", seed)
			}
			if len(gotDocs) != len(docs) {
				t.Fatalf("seed %d, skip: %d docs, want %d", seed, len(gotDocs), len(docs))
			}
		}
	}
}

func TestPostingsAllocs(t *testing.T) {
	ids := AppendUvarintDeltas(nil, []uint32{1, 5, 9, 1000, 1 << 30})
	pos := encodePositions([]docPositions{{1, []uint32{1, 2}}, {9, []uint32{7}}})
	n := testing.AllocsPerRun(100, func() {
		it := NewDeltaIter(ids)
		for it.Next() {
		}
		p := NewPositionIter(pos)
		for p.Next() {
			for p.NextPosition() {
			}
		}
		bad := NewDeltaIter([]byte{0x80})
		bad.Next()
	})
	if n != 0 {
		t.Fatalf("decoding allocates %v times", n)
	}
}

// randomPositions returns a positions list of n documents, some of them
// equal, some without positions.
func randomPositions(rng *rand.Rand, n int) []docPositions {
	docs := make([]docPositions, n)
	var doc uint32
	for i := range docs {
		doc += uint32(rng.IntN(4)) // 0: the same document again
		var pos []uint32
		var p uint32
		for range rng.IntN(4) {
			p += uint32(rng.IntN(50))
			pos = append(pos, p)
		}
		docs[i] = docPositions{doc: doc, pos: pos}
	}
	return docs
}

// TestAdvanceSkips checks Advance over lists of every length around the
// skip interval, with and without their skip tables, against the
// documents: the first at or after each target, positions included.
func TestAdvanceSkips(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 5*SkipEvery + 3 {
		for round := range 20 {
			docs := randomPositions(rng, n)
			b := encodePositions(docs)
			skips, count, err := AppendSkips(nil, b)
			if err != nil || count != n {
				t.Fatalf("AppendSkips: %d documents, %v; want %d", count, err, n)
			}
			if wantSkips := max(0, (n-1)/SkipEvery); n > 0 && len(skips) < 2*wantSkips {
				t.Fatalf("%d documents: a skip table of %d bytes, want %d entries", n, len(skips), wantSkips)
			}
			for _, withSkips := range []bool{false, true} {
				it := NewPositionIter(b)
				if withSkips {
					it = NewPositionIterSkips(b, skips)
				}
				i := 0 // the first document not yet passed
				var target uint32
				for step := 0; ; step++ {
					if n > 0 && (step > 0 || round%2 == 1) {
						target = docs[max(0, i-1)].doc + uint32(rng.IntN(2*SkipEvery))
						if i > 0 && target <= docs[i-1].doc {
							target = docs[i-1].doc + 1
						}
					}
					for i < n && docs[i].doc < target {
						i++
					}
					ok := it.Advance(target)
					if ok != (i < n) {
						t.Fatalf("n %d skips %v: Advance(%d) = %v, want %v", n, withSkips, target, ok, i < n)
					}
					if !ok {
						break
					}
					if it.Doc() != docs[i].doc || it.Freq() != len(docs[i].pos) || !slices.Equal(it.AppendPositions(nil), docs[i].pos) {
						t.Fatalf("n %d skips %v: Advance(%d) at doc %d, want %d", n, withSkips, target, it.Doc(), docs[i].doc)
					}
					i++
				}
				if err := it.Err(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

func TestAdvanceSkipsCorrupt(t *testing.T) {
	docs := randomPositions(rand.New(rand.NewPCG(3, 4)), 4*SkipEvery)
	for i := range docs {
		docs[i].doc = uint32(10 * i) // distinct
	}
	b := encodePositions(docs)
	skips, _, err := AppendSkips(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	past := binary.AppendUvarint(binary.AppendUvarint(nil, 5), uint64(len(b)+1))
	backwards := slices.Concat(skips[:2], binary.AppendUvarint(binary.AppendUvarint(nil, 1), 0))
	for name, sk := range map[string][]byte{
		"truncated":  skips[:1],
		"past end":   past,
		"backwards":  backwards,
		"bad varint": {0x80, 0x80, 0x80, 0x80, 0x80, 0x80},
	} {
		it := NewPositionIterSkips(b, sk)
		for it.Advance(uint32(10*len(docs)) - 1) {
		}
		if !errors.Is(it.Err(), ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, it.Err())
		}
	}
}

// TestAdvanceJumps checks that Advance uses the skip table: it reaches a
// document past a damaged first run, which reading through cannot.
func TestAdvanceJumps(t *testing.T) {
	docs := make([]docPositions, 3*SkipEvery)
	for i := range docs {
		docs[i] = docPositions{doc: uint32(2 * i), pos: []uint32{1, 2}}
	}
	b := encodePositions(docs)
	skips, _, err := AppendSkips(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	for i := 4; i < 10; i++ { // the second document: a varint of more than 32 bits
		b[i] = 0x80
	}
	target := docs[2*SkipEvery+1].doc
	it := NewPositionIterSkips(b, skips)
	if !it.Advance(target) || it.Doc() != target {
		t.Fatalf("Advance(%d) with skips: at %d, %v", target, it.Doc(), it.Err())
	}
	it = NewPositionIter(b)
	if it.Advance(target) || !errors.Is(it.Err(), ErrCorrupt) {
		t.Fatalf("Advance(%d) without skips read through the damage: %v", target, it.Err())
	}
}

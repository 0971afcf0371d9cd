package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestHashTermHead(t *testing.T) {
	tests := []struct {
		term string
		head uint64
	}{
		{"", 0},
		{"a", 0x61},
		{"ab", 0x6261},
		{"abc", 0x636261},
		{"abcd", 0x64636261},
		{"abcde", 0x6564636261},
		{"abcdef", 0x666564636261},
		{"abcdefg", 0x67666564636261},
		{"abcdefgh", 0x6867666564636261},
		{"abcdefghi", 0x6867666564636261},
		{"a\x00", 0x61},
		{"\xff\xfe\xfd", 0xfdfeff},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.term), func(t *testing.T) {
			if _, head := hashTerm([]byte(tt.term)); head != tt.head {
				t.Errorf("head %#x, want %#x", head, tt.head)
			}
		})
	}
	// The head is the zero-padded little-endian load, at every length.
	b := []byte("0123456789abcdefghijklmnopqrstuvwxyz")
	for n := range len(b) {
		var pad [8]byte
		copy(pad[:], b[:n])
		if _, head := hashTerm(b[:n]); head != binary.LittleEndian.Uint64(pad[:]) {
			t.Errorf("length %d: head %#x", n, head)
		}
	}
}

// TestHashTermBytes checks that every byte of a term changes its hash:
// the loads of long terms overlap and skip nothing.
func TestHashTermBytes(t *testing.T) {
	for n := 1; n <= 70; n++ {
		b := bytes.Repeat([]byte{'x'}, n)
		h0, _ := hashTerm(b)
		for i := range n {
			b[i] = 'y'
			if h, _ := hashTerm(b); h == h0 {
				t.Errorf("length %d: byte %d does not change the hash", n, i)
			}
			b[i] = 'x'
		}
	}
}

// randomTerm returns a term that is likely to share a prefix, a length or
// a head with others: short and long, ASCII and not, with NUL bytes.
func randomTerm(rng *rand.Rand) []byte {
	var n int
	switch rng.IntN(4) {
	case 0:
		n = rng.IntN(9)
	case 1:
		n = 8 + rng.IntN(10)
	case 2:
		n = rng.IntN(40)
	default:
		n = 250 + rng.IntN(20) // around the 255 that meta holds
	}
	b := make([]byte, n)
	alphabet := "ab\x00\xff"
	if rng.IntN(2) == 0 {
		alphabet = "abcdefghijklmnopqrstuvwxyz/._"
	}
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return b
}

// TestVocab checks the vocabulary against a map on random terms, through
// several doublings of the table: numbers are given in order of first
// appearance, found again, and the terms' bytes stay as added.
func TestVocab(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 2))
			v := newVocab()
			want := map[string]uint32{}
			var names []string
			for range 1 + rng.IntN(20000) {
				var term []byte
				if len(names) > 0 && rng.IntN(3) == 0 {
					term = []byte(names[rng.IntN(len(names))])
				} else {
					term = randomTerm(rng)
				}
				wid, known := want[string(term)]
				if !known {
					wid = uint32(len(names))
					want[string(term)] = wid
					names = append(names, string(term))
				}
				id, isNew := v.id(term)
				if id != wid || isNew == known {
					t.Fatalf("id(%q) = %d, %v; want %d, %v", term, id, isNew, wid, !known)
				}
				// id must not keep term.
				if len(term) > 0 {
					term[0] ^= 0xff
				}
			}
			if v.len() != len(names) {
				t.Fatalf("len %d, want %d", v.len(), len(names))
			}
			for id, name := range names {
				if got := v.term(uint32(id)); string(got) != name {
					t.Fatalf("term(%d) = %q, want %q", id, got, name)
				}
				if got, isNew := v.id([]byte(name)); got != uint32(id) || isNew {
					t.Fatalf("id(%q) = %d, %v; want %d", name, got, isNew, id)
				}
			}
			if 2*v.len() > len(v.slots) {
				t.Errorf("%d terms in %d slots", v.len(), len(v.slots))
			}
		})
	}
}

// TestVocabCollisions fills the vocabulary with terms that share their
// head and length and differ after byte 8, so that lookups compare the
// arena's bytes.
func TestVocabCollisions(t *testing.T) {
	v := newVocab()
	const n = 5000
	for i := range n {
		term := fmt.Sprintf("abcdefgh%06d", i)
		if id, isNew := v.id([]byte(term)); id != uint32(i) || !isNew {
			t.Fatalf("id(%q) = %d, %v", term, id, isNew)
		}
	}
	for i := range n {
		term := fmt.Sprintf("abcdefgh%06d", i)
		if id, isNew := v.id([]byte(term)); id != uint32(i) || isNew {
			t.Fatalf("id(%q) = %d, %v again", term, id, isNew)
		}
	}
	if id, isNew := v.id([]byte(strings.Repeat("a", 300))); id != n || !isNew {
		t.Fatalf("long term: %d, %v", id, isNew)
	}
}

// TestVocabSameHash looks up terms under another term's hash and head,
// as if they collided: only the lengths and the bytes after the head
// (which the slot does not hold) tell them apart.
func TestVocabSameHash(t *testing.T) {
	tests := []struct{ a, b string }{
		{"abcdefgh-one", "abcdefgh-two"},
		{"abcdefgh-one", "abcdefgh-one-more"},
		{"ab", "ab\x00"},
		{"abcdefgh", "abcdefgh\x00"},
	}
	for _, tt := range tests {
		t.Run(tt.a+"/"+tt.b, func(t *testing.T) {
			v := newVocab()
			a, b := []byte(tt.a), []byte(tt.b)
			h, head := hashTerm(a)
			ida, _ := v.idHashed(a, h, head)
			idb, isNew := v.idHashed(b, h, head)
			if idb == ida || !isNew {
				t.Fatalf("%q under the hash of %q: %d, %v; want a new number", b, a, idb, isNew)
			}
			if id, isNew := v.idHashed(b, h, head); id != idb || isNew {
				t.Errorf("%q again: %d, %v; want %d", b, id, isNew, idb)
			}
			if id, isNew := v.idHashed(a, h, head); id != ida || isNew {
				t.Errorf("%q again: %d, %v; want %d", a, id, isNew, ida)
			}
		})
	}
}

func BenchmarkVocab(b *testing.B) {
	docs := benchDocs(b)
	var terms [][]byte
	for _, d := range docs[:min(len(docs), 20000)] {
		for _, f := range strings.Fields(d) {
			terms = append(terms, []byte(f))
		}
	}
	b.ResetTimer()
	for b.Loop() {
		v := newVocab()
		for _, t := range terms {
			v.id(t)
		}
	}
}

package index

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/index/table"
	"github.com/ctx-dev/ctx/index/text"
)

// occurrence is a term at a position of a document.
type occurrence struct {
	term string
	pos  uint32
}

// refPostings is the simple reference of the inverters: a map from term
// to its documents and positions, encoded with table.AppendDocPositions.
// It returns the terms in order and each one's postings value.
func refPostings(docs [][]occurrence) ([]string, map[string][]byte) {
	type list struct {
		docs []uint32
		pos  [][]uint32
	}
	lists := map[string]*list{}
	var names []string
	for d, occs := range docs {
		for _, o := range occs {
			l := lists[o.term]
			if l == nil {
				l = &list{}
				lists[o.term] = l
				names = append(names, o.term)
			}
			if len(l.docs) == 0 || l.docs[len(l.docs)-1] != uint32(d) {
				l.docs = append(l.docs, uint32(d))
				l.pos = append(l.pos, nil)
			}
			l.pos[len(l.pos)-1] = append(l.pos[len(l.pos)-1], o.pos)
		}
	}
	slices.Sort(names)
	want := make(map[string][]byte, len(lists))
	for name, l := range lists {
		val := binary.AppendUvarint(nil, uint64(len(l.docs)))
		var prev uint32
		for i, d := range l.docs {
			val = table.AppendDocPositions(val, prev, d, l.pos[i])
			prev = d
		}
		want[name] = val
	}
	return names, want
}

// checkInverters inverts docs with one inverter per run of documents
// between cuts and compares what mergePostings gives with refPostings.
func checkInverters(t *testing.T, docs [][]occurrence, cuts []int) {
	t.Helper()
	names, want := refPostings(docs)
	var invs []*inverter
	for k := 0; k+1 < len(cuts); k++ {
		inv := newInverter()
		for d := cuts[k]; d < cuts[k+1]; d++ {
			for _, o := range docs[d] {
				inv.add([]byte(o.term), o.pos)
			}
			inv.endDoc(uint32(d))
		}
		invs = append(invs, inv)
	}
	checkMerged(t, invs, names, want)
}

// checkMerged compares what mergePostings gives for invs with the terms
// names, in order, and their postings values want.
func checkMerged(t *testing.T, invs []*inverter, names []string, want map[string][]byte) {
	t.Helper()
	var got []string
	err := mergePostings(context.Background(), invs, func(name, val []byte) error {
		got = append(got, string(name))
		if w := want[string(name)]; !slices.Equal(val, w) {
			t.Errorf("term %q: postings %x, want %x", name, val, w)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkNames(t, "merged", got, names)
	// Merged in ranges, as writeTerms merges them side by side, the terms
	// are the same, each in one range.
	m, err := newMerger(context.Background(), invs)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 3, 7, 64, 1 << 20} {
		bounds := m.split(n)
		if len(bounds) < 2 || len(bounds) > n+1 {
			t.Fatalf("split(%d): %d bounds", n, len(bounds))
		}
		got = got[:0]
		var mb mergeBuf
		for k := range len(bounds) - 1 {
			err := m.merge(&mb, bounds[k], bounds[k+1], func(name, val []byte) error {
				got = append(got, string(name))
				if w := want[string(name)]; !slices.Equal(val, w) {
					t.Errorf("split(%d), range %d: term %q: postings %x, want %x", n, k, name, val, w)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		checkNames(t, fmt.Sprintf("split(%d)", n), got, names)
	}
}

// checkNames compares the terms merged, got, with names.
func checkNames(t *testing.T, what string, got, names []string) {
	t.Helper()
	if !slices.Equal(got, names) {
		t.Errorf("%s: %d terms, want %d", what, len(got), len(names))
		for i := range min(len(got), len(names)) {
			if got[i] != names[i] {
				t.Fatalf("%s: term %d is %q, want %q", what, i, got[i], names[i])
			}
		}
	}
}

// randomCuts splits n documents into runs at random boundaries.
func randomCuts(rng *rand.Rand, n, every int) []int {
	cuts := []int{0}
	for d := 1; d < n; d++ {
		if rng.IntN(every) == 0 {
			cuts = append(cuts, d)
		}
	}
	return append(cuts, n)
}

// TestInverterRandomTerms is TestInverter with terms of random bytes
// (sharing heads and lengths, long and short, as randomTerm makes them),
// vocabularies large enough to grow the table, documents whose terms all
// differ and documents with many repeats, positions that repeat, and, in
// one case, lists enough to outgrow the pool's first slice many times.
func TestInverterRandomTerms(t *testing.T) {
	for seed := range uint64(31) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 3))
			vocab := make([]string, 1+rng.IntN(3000))
			for i := range vocab {
				vocab[i] = string(randomTerm(rng))
			}
			docs := make([][]occurrence, 1+rng.IntN(300))
			if seed == 30 {
				// Enough postings to outgrow the pool's first slice.
				docs = make([][]occurrence, 5000)
			}
			for d := range docs {
				var pos uint32
				n := rng.IntN(60)
				distinct := rng.IntN(3) == 0
				for i := range n {
					term := vocab[rng.IntN(len(vocab))]
					if distinct {
						term = fmt.Sprintf("%s#%d", term, i)
					}
					docs[d] = append(docs[d], occurrence{term, pos})
					if rng.IntN(4) != 0 {
						pos += uint32(1 + rng.IntN(3))
					}
				}
			}
			checkInverters(t, docs, randomCuts(rng, len(docs), 1+rng.IntN(100)))
		})
	}
}

// TestInverterTokenized inverts Go sources as writeSegment does, through
// TokenizeBytes, and compares with the reference fed by Tokenize: the two
// ways of tokenizing give the same postings.
func TestInverterTokenized(t *testing.T) {
	var srcs []string
	for _, f := range []string{"invert.go", "vocab.go", "build.go", "corpus.go"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// Chunks of 7 lines: documents small and large, with repeats.
		lines := strings.SplitAfter(string(b), "\n")
		for i := 0; i < len(lines); i += 7 {
			srcs = append(srcs, strings.Join(lines[i:min(i+7, len(lines))], ""))
		}
	}
	srcs = append(srcs, "", "the and", "ÉtatCivil İstanbul HTTPClient net/http.Client.Do")
	docs := make([][]occurrence, len(srcs))
	for d, s := range srcs {
		text.Tokenize(s, func(term string, pos uint32) {
			docs[d] = append(docs[d], occurrence{strings.Clone(term), pos})
		})
	}
	names, want := refPostings(docs)
	invs := []*inverter{newInverter(), newInverter()}
	var tk text.Tokenizer
	for d, s := range srcs {
		inv := invs[2*d/len(srcs)]
		tk.TokenizeBytes(s, 0, inv.add)
		inv.endDoc(uint32(d))
	}
	checkMerged(t, invs, names, want)
}

package graph

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/object"
)

// addPayloads seeds f with each payload and some damaged copies of it.
func addPayloads(f *testing.F, payloads ...[]byte) {
	for _, p := range payloads {
		f.Add(p)
		f.Add(p[:len(p)/2])
		f.Add(p[:len(p)-1])
		flipped := bytes.Clone(p)
		flipped[len(p)*2/3] ^= 0x01
		f.Add(flipped)
	}
	f.Add([]byte{})
	f.Add([]byte{0xa1})
}

func FuzzDecodeEdgeBatch(f *testing.F) {
	c := object.Sum(object.KindTyped, []byte("c"))
	keyed := testEdge()
	keyed.From.Key, keyed.To.Key = "a.go", "a.F"
	keyed.Evidence.CommitID = &c
	for _, b := range []*EdgeBatch{
		{CreatedAt: 0},
		{Edges: []Edge{testEdge()}, CreatedAt: 1790000000},
		{Edges: []Edge{keyed, testEdge()}, CreatedAt: -1, Tombstones: []Tombstone{testTombstone()}},
		{Edges: randomGraph(rand.New(rand.NewPCG(1, 1)), 4, 8), CreatedAt: 2},
	} {
		p, err := object.Encode(b)
		if err != nil {
			f.Fatal(err)
		}
		addPayloads(f, p)
	}
	e := testEdge()
	f.Add(rawPayload(f, "edge_batch", map[string]any{"edges": []Edge{e}, "created_at": 1, "tombstones": []any{}}))
	inf := math.Inf(1)
	e.Weight = &inf
	f.Add(rawPayload(f, "edge_batch", map[string]any{"edges": []Edge{e}, "created_at": 1}))
	f.Add(rawPayload(f, "edge_batch", map[string]any{"edges": []Edge{testEdge()}, "created_at": 1, "newer_field": 1}))

	f.Fuzz(func(t *testing.T, p []byte) {
		b := new(EdgeBatch)
		if err := object.Decode(p, b); err != nil {
			if !errors.Is(err, object.ErrDecode) {
				t.Fatalf("Decode = %v, not ErrDecode", err)
			}
			return
		}
		if err := b.Validate(); err != nil {
			t.Fatalf("Decode accepted an invalid batch: %v", err)
		}
		for _, l := range b.Links() {
			if l.ID.IsZero() || l.Field == "" {
				t.Fatalf("bad link %+v", l)
			}
		}
		// Encode(Decode(p)) is canonical and stable (p itself may hold
		// keys this version does not know).
		out, err := object.Encode(b)
		if err != nil {
			t.Fatalf("Encode(Decode(p)): %v", err)
		}
		b2 := new(EdgeBatch)
		if err := object.Decode(out, b2); err != nil {
			t.Fatalf("Decode(Encode(Decode(p))): %v", err)
		}
		if again, err := object.Encode(b2); err != nil || !bytes.Equal(again, out) {
			t.Fatalf("re-encoding is not stable (%v)", err)
		}
		// Whatever decodes builds a graph whose view is valid.
		g := New(b.Edges)
		v := NewSccView(g, nil, testSource, 0)
		if err := v.Validate(); err != nil {
			t.Fatalf("view of a decoded batch: %v", err)
		}
		_ = v.Cycles()
		if g.Len() > 0 {
			_ = g.Walk(0, Both, 0, nil)
		}
	})
}

func FuzzDecodeSccView(f *testing.F) {
	r := rand.New(rand.NewPCG(11, 12))
	var payloads [][]byte
	for range 4 {
		_, v := randomView(r)
		p, err := object.Encode(v)
		if err != nil {
			f.Fatal(err)
		}
		payloads = append(payloads, p)
	}
	p, err := object.Encode(validView())
	if err != nil {
		f.Fatal(err)
	}
	payloads = append(payloads, p)
	addPayloads(f, payloads...)
	f.Add(rawPayload(f, "scc_view", &SccView{Count: math.MaxUint32}))
	huge := validView()
	huge.Count = math.MaxUint32
	f.Add(rawPayload(f, "scc_view", huge))
	loops := validView()
	loops.SelfLoops = []uint32{0}
	f.Add(rawPayload(f, "scc_view", loops))

	f.Fuzz(func(t *testing.T, p []byte) {
		v := new(SccView)
		if err := object.Decode(p, v); err != nil {
			if !errors.Is(err, object.ErrDecode) {
				t.Fatalf("Decode = %v, not ErrDecode", err)
			}
			return
		}
		if err := v.Validate(); err != nil {
			t.Fatalf("Decode accepted an invalid view: %v", err)
		}
		members := v.Members()
		total := 0
		for c, ms := range members {
			if len(ms) == 0 {
				t.Fatalf("component %d is empty", c)
			}
			total += len(ms)
		}
		if total != len(v.Nodes) {
			t.Fatalf("members cover %d of %d nodes", total, len(v.Nodes))
		}
		for _, cyc := range v.Cycles() {
			for _, i := range cyc {
				_ = v.Nodes[i]
			}
		}
		out, err := object.Encode(v)
		if err != nil {
			t.Fatalf("Encode(Decode(p)): %v", err)
		}
		v2 := new(SccView)
		if err := object.Decode(out, v2); err != nil {
			t.Fatalf("Decode(Encode(Decode(p))): %v", err)
		}
		if again, err := object.Encode(v2); err != nil || !bytes.Equal(again, out) {
			t.Fatalf("re-encoding is not stable (%v)", err)
		}
	})
}

// asciiLabel is ParseLabel's contract for ASCII input, written out: the
// label whose name, lower-cased without '_' and '-', is the input's.
func asciiLabel(s string) Label {
	norm := func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case c == '_' || c == '-':
			case 'A' <= c && c <= 'Z':
				b.WriteByte(c + 'a' - 'A')
			default:
				b.WriteByte(c)
			}
		}
		return b.String()
	}
	for _, l := range Labels {
		if norm(string(l)) == norm(s) {
			return l
		}
	}
	return ""
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func FuzzParseLabel(f *testing.F) {
	for _, l := range Labels {
		f.Add(string(l))
		f.Add(strings.ToUpper(string(l)))
		f.Add(strings.ReplaceAll(string(l), "_", "-"))
	}
	for _, s := range []string{"", "_", "-", "DerivedFrom", "derived from", "calls!", "İmports", "c_a-l_l-s", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLabel(s)
		if isASCII(s) && l != asciiLabel(s) {
			t.Fatalf("ParseLabel(%q) = %q, want %q", s, l, asciiLabel(s))
		}
		if err != nil {
			if l != "" || !errors.Is(err, ErrInvalidLabel) {
				t.Fatalf("ParseLabel(%q) = %q, %v", s, l, err)
			}
			return
		}
		if !l.Valid() {
			t.Fatalf("ParseLabel(%q) = %q, not a label", s, l)
		}
		if again, err := ParseLabel(string(l)); err != nil || again != l {
			t.Fatalf("ParseLabel(%q) = %q, %v", l, again, err)
		}
	})
}

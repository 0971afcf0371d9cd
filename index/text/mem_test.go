package text

import (
	"slices"
	"testing"
)

func TestMemIndex(t *testing.T) {
	m := NewMemIndex()
	if st := m.Stats(); st != (Stats{}) || st.AvgDocLen() != 0 {
		t.Errorf("empty Stats() = %+v", st)
	}
	m.Add("Client.connect client")
	m.Add("")
	if got := m.Stats(); got != (Stats{Docs: 2, Tokens: 3}) || got.AvgDocLen() != 1.5 {
		t.Errorf("Stats() = %+v", got)
	}
	p, df := m.Postings("client")
	if df != 1 {
		t.Fatalf("df = %d", df)
	}
	got := readPostings(p)
	if len(got) != 1 || got[0].Doc != 0 || got[0].Freq != 2 || got[0].Pos[0] != 0 || got[0].Pos[1] != 2 {
		t.Errorf("postings of client = %+v", got)
	}
	if res, err := Search(NewMemIndex(), ParseQuery("client"), SearchOptions{}); err != nil || len(res.Hits) != 0 {
		t.Errorf("search of an empty index = %v, %v", res, err)
	}
}

// posting is one document of a postings list, copied.
type posting struct {
	Doc  uint32
	Freq int
	Pos  []uint32
}

func readPostings(p Postings) []posting {
	var out []posting
	for p.Next() {
		out = append(out, posting{p.Doc(), p.Freq(), slices.Clone(p.Positions())})
	}
	return out
}

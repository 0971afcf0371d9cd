package text

import "testing"

func TestPhraseFreq(t *testing.T) {
	tests := []struct {
		name  string
		lists [][]uint32
		offs  []uint32
		want  int
	}{
		{"None", nil, nil, 0},
		{"One", [][]uint32{{1, 5, 9}}, []uint32{0}, 3},
		{"Adjacent", [][]uint32{{1, 5, 9}, {2, 7, 10}}, []uint32{0, 1}, 2},
		{"Gap", [][]uint32{{1, 5}, {4, 8}}, []uint32{0, 3}, 2},
		{"Order", [][]uint32{{2}, {1}}, []uint32{0, 1}, 0},
		{"Three", [][]uint32{{0, 3, 6}, {1, 4, 8}, {2, 9}}, []uint32{0, 1, 2}, 1},
		{"Repeated", [][]uint32{{0, 1, 2}, {0, 1, 2}}, []uint32{0, 1}, 2},
		{"EmptyList", [][]uint32{{1}, {}}, []uint32{0, 1}, 0},
		{"Mismatch", [][]uint32{{1}}, []uint32{0, 1}, 0},
		{"OffsetPastStart", [][]uint32{{0, 3}, {5}}, []uint32{1, 3}, 1},
		{"Max", [][]uint32{{^uint32(0) - 1}, {^uint32(0)}}, []uint32{0, 1}, 1},
		{"Long", longLists(20), seq(20), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PhraseFreq(tt.lists, tt.offs); got != tt.want {
				t.Errorf("PhraseFreq = %d, want %d", got, tt.want)
			}
		})
	}
}

func seq(n int) []uint32 {
	s := make([]uint32, n)
	for i := range s {
		s[i] = uint32(i)
	}
	return s
}

func longLists(n int) [][]uint32 {
	l := make([][]uint32, n)
	for i := range l {
		l[i] = []uint32{uint32(i), uint32(i + 100)}
	}
	l[n-1] = []uint32{uint32(n - 1)}
	return l
}

func TestPhraseFreqAllocs(t *testing.T) {
	lists := [][]uint32{{1, 5, 9}, {2, 6, 10}, {3, 11}}
	offs := []uint32{0, 1, 2}
	if a := testing.AllocsPerRun(100, func() { PhraseFreq(lists, offs) }); a != 0 {
		t.Errorf("PhraseFreq allocates %v times", a)
	}
}

// TestPhraseSearch checks that phrases match over prose and identifiers
// alike, as the package documentation promises.
func TestPhraseSearch(t *testing.T) {
	docs := []string{
		0: "We retry with exponential backoff.",
		1: "type ExponentialBackoff struct{}",
		2: "exponential_backoff = True",
		3: "backoff, exponential",
		4: "c.Client.connect(ctx)",
		5: "the client connect call",
		6: "core::net::Client::connect",
		7: "It is the state of the art.",
		8: "state art",
		9: "HTTPClient.Do(req)",
	}
	m := NewMemIndex()
	for _, d := range docs {
		m.Add(d)
	}
	tests := []struct {
		query string
		want  []uint32 // in document order
	}{
		{`"exponential backoff"`, []uint32{0, 1, 2}},
		{`ExponentialBackoff`, []uint32{0, 1, 2}},
		{`exponential_backoff`, []uint32{0, 1, 2}},
		{`exponentialbackoff`, []uint32{1}},
		{`"backoff exponential"`, []uint32{3}},
		{`Client.connect`, []uint32{4, 5, 6}},
		{`"client connect"`, []uint32{4, 5, 6}},
		{`core::net::Client::connect`, []uint32{6}},
		{`"state of the art"`, []uint32{7}},
		{`"state art"`, []uint32{8}},
		{`HTTPClient.Do`, []uint32{9}},
		{`httpclient`, []uint32{9}},
		{`"httpclient do"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			res, err := Search(m, ParseQuery(tt.query), SearchOptions{K: 100})
			if err != nil {
				t.Fatal(err)
			}
			got := docsOf(res.Hits)
			if !equalDocs(got, tt.want) {
				t.Errorf("docs = %v, want %v", got, tt.want)
			}
		})
	}
}

// docsOf returns the documents of hits in increasing order.
func docsOf(hits []Hit) []uint32 {
	var out []uint32
	for _, h := range hits {
		out = append(out, h.Doc)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func equalDocs(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

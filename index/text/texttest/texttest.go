// Package texttest is the conformance suite of text.Reader
// implementations: package text's in-memory index and the on-disk index
// run it.
package texttest

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/ctx-dev/ctx/index/text"
)

// conformanceDocs are the documents Reader indexes: code in several
// languages, prose, paths, keys, repeated terms, an empty document and one
// of stop words only.
var conformanceDocs = []string{
	"func (c *Client) Connect(ctx context.Context) error { return c.dialWithBackoff(ctx) }",
	"Decision: retry with exponential backoff; ExponentialBackoff is in net/http/client.go.",
	"",
	"the and of the",
	"impl Client { pub fn connect(&mut self) { core::net::Client::connect(self) } }",
	"class HTTPAdapter(BaseAdapter):\n    def send(self, request, max_retries=0): pass",
	"backoff backoff backoff jitter backoff",
	"index.max_file_bytes: MaxFileBytes, max-file-bytes; état Straße 日本語",
	"export async function loadUserProfile(id: string): Promise<UserProfile> {}",
	"exponential growth, not backoff",
}

// conformanceQueries are the queries Reader runs on both indexes.
var conformanceQueries = []string{
	"backoff", "exponential backoff", `"exponential backoff"`, "Client.connect",
	"client -jitter", "max_file_bytes", "maxfilebytes", `"state of the art"`,
	"état", "nothing", "connect", "user profile",
}

// TestReader checks a Reader against MemIndex over conformanceDocs:
// statistics, document lengths, every term's postings, document
// frequencies, Advance when the postings implement Seeker, and search
// results, which must be identical to the last bit of every score. build
// must index the documents given, document i under number i, each
// tokenized from position 0 by Tokenize. It is the conformance suite of
// Reader implementations (the on-disk index runs it).
func Reader(t *testing.T, build func(tb testing.TB, docs []string) text.Reader) {
	t.Helper()
	ref := text.NewMemIndex()
	for _, d := range conformanceDocs {
		ref.Add(d)
	}
	r := build(t, slices.Clone(conformanceDocs))

	t.Run("Stats", func(t *testing.T) {
		if got, want := r.Stats(), ref.Stats(); got != want {
			t.Errorf("Stats() = %+v, want %+v", got, want)
		}
		for doc := range uint32(len(conformanceDocs) + 1) {
			if got, want := r.DocLen(doc), ref.DocLen(doc); got != want {
				t.Errorf("DocLen(%d) = %d, want %d", doc, got, want)
			}
		}
	})
	t.Run("Postings", func(t *testing.T) {
		for _, term := range ref.Terms() {
			wp, wdf := ref.Postings(term)
			gp, gdf := r.Postings(term)
			if gp == nil || gdf != wdf {
				t.Errorf("Postings(%q): %v, df %d; want df %d", term, gp != nil, gdf, wdf)
				continue
			}
			if got, want := readPostings(gp), readPostings(wp); !reflect.DeepEqual(got, want) {
				t.Errorf("Postings(%q) = %v, want %v", term, got, want)
			}
		}
		for _, term := range []string{"", "zebra", "Client", "the", "client.connect"} {
			if p, df := r.Postings(term); p != nil || df != 0 {
				t.Errorf("Postings(%q) = %v, %d; want nil, 0", term, p, df)
			}
		}
	})
	t.Run("Advance", func(t *testing.T) {
		n := uint32(len(conformanceDocs))
		for _, term := range ref.Terms() {
			for start := range n + 1 {
				for target := start; target <= n+1; target++ {
					p, _ := r.Postings(term)
					s, ok := p.(text.Seeker)
					if !ok {
						t.Skip("postings do not implement Seeker")
					}
					want := readFrom(ref, term, start, target)
					got := "end"
					if s.Advance(start) && (s.Doc() >= target || s.Advance(target)) {
						got = fmt.Sprint(s.Doc(), s.Freq(), s.Positions())
					}
					if got != want {
						t.Fatalf("%q: Advance(%d), Advance(%d) = %s, want %s", term, start, target, got, want)
					}
				}
			}
		}
	})
	t.Run("Search", func(t *testing.T) {
		for _, q := range conformanceQueries {
			for _, any := range []bool{false, true} {
				opts := text.SearchOptions{K: 5, Any: any}
				got, err := text.Search(r, text.ParseQuery(q), opts)
				if err != nil {
					t.Fatalf("Search(%q): %v", q, err)
				}
				want, _ := text.Search(ref, text.ParseQuery(q), opts)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("Search(%q, any=%v) = %+v, want %+v", q, any, got, want)
				}
			}
		}
	})
}

// posting is one document of a postings list, copied.
type posting struct {
	Doc  uint32
	Freq int
	Pos  []uint32
}

func readPostings(p text.Postings) []posting {
	var out []posting
	for p.Next() {
		out = append(out, posting{p.Doc(), p.Freq(), slices.Clone(p.Positions())})
	}
	return out
}

// readFrom returns the first posting of term at or after max(start,
// target) in ref, formatted, or "end".
func readFrom(ref *text.MemIndex, term string, start, target uint32) string {
	p, _ := ref.Postings(term)
	for p.Next() {
		if p.Doc() >= max(start, target) {
			return fmt.Sprint(p.Doc(), p.Freq(), p.Positions())
		}
	}
	return "end"
}

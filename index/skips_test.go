package index

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/index/table"
	"github.com/ctx-dev/ctx/index/text"
)

// TestSkipTables checks the on-disk index against the in-memory one on
// documents where common terms' postings are long enough to have skip
// tables: postings advanced to random targets, and searches (bare words,
// identifiers split into parts, phrases) to the last bit of every score.
func TestSkipTables(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	words := []string{"read", "config", "dns", "error", "timeout", "connection", "deadline", "exceeded", "client", "server", "parse", "file"}
	texts := make([]string, 700)
	for i := range texts {
		var b strings.Builder
		for range 3 + rng.IntN(30) {
			// Common words most of the time, the last ones rarely.
			w := words[min(rng.IntN(len(words)), rng.IntN(len(words)))]
			if rng.IntN(20) == 0 {
				w = "dnsReadConfig"
			}
			b.WriteString(w)
			b.WriteByte(' ')
		}
		texts[i] = b.String()
	}
	ref := text.NewMemIndex()
	for _, s := range texts {
		ref.Add(s)
	}
	ix := textIndex(t, texts)

	long := 0
	for _, term := range ref.Terms() {
		_, df := ref.Postings(term)
		if df > 4*table.SkipEvery {
			long++
		}
		for round := range 5 {
			got, _ := ix.Postings(term)
			want, _ := ref.Postings(term)
			s := got.(text.Seeker)
			var target uint32
			for {
				target += uint32(rng.IntN(3 * table.SkipEvery))
				if round == 0 {
					target++ // every document: Advance as Next
				}
				ok := s.Advance(target)
				wok := false
				for want.Next() {
					if want.Doc() >= target {
						wok = true
						break
					}
				}
				if ok != wok {
					t.Fatalf("%q: Advance(%d) = %v, want %v", term, target, ok, wok)
				}
				if !ok {
					break
				}
				if s.Doc() != want.Doc() || s.Freq() != want.Freq() || !reflect.DeepEqual(s.Positions(), want.Positions()) {
					t.Fatalf("%q: Advance(%d) at %d %v, want %d %v", term, target, s.Doc(), s.Positions(), want.Doc(), want.Positions())
				}
				target = s.Doc() + 1
			}
			if err := got.(text.Errer).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if long < 5 {
		t.Fatalf("only %d terms with long postings: not the corpus to test", long)
	}
	for _, q := range []string{"dnsReadConfig", "read config", `"read config"`, `"deadline exceeded"`, "connection timeout error", "dns -timeout", "file parse server client"} {
		for _, any := range []bool{false, true} {
			opts := text.SearchOptions{K: 20, Any: any}
			got, err := text.Search(ix, text.ParseQuery(q), opts)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := text.Search(ref, text.ParseQuery(q), opts)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Search(%q, any=%v) = %+v, want %+v", q, any, got, want)
			}
		}
	}
}

package index

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/repo"
)

// TestIncrementalEqualsFull applies random sequences of changes — code
// files added, edited and removed then ingested, narrative nodes added,
// edited by hand and deleted — and after each one checks that the index
// a reading command brings up to date (rebuilding only stale segments)
// answers every query exactly as a full rebuild does, and that the
// segments it kept are byte-identical to a full rebuild's.
func TestIncrementalEqualsFull(t *testing.T) {
	words := []string{"alpha", "beta", "gamma", "delta", "retry", "backoff", "zebra", "client", "connect", "jitter"}
	queries := []string{"alpha", "beta gamma", `"retry backoff"`, "zebra -alpha", "client connect", "jitter type:item", "delta type:observation"}
	for seed := int64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			r := repo.NewTestRepo(t)
			root := r.ProjectRoot()
			if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/p\n\ngo 1.22\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			sentence := func() string {
				n := 2 + rng.Intn(4)
				out := make([]string, n)
				for i := range out {
					out[i] = words[rng.Intn(len(words))]
				}
				return fmt.Sprint(out)
			}
			var nodes []*narrative.Node
			for step := 0; step < 12; step++ {
				w, err := r.Lock(context.Background(), repo.LockOptions{})
				if err != nil {
					t.Fatal(err)
				}
				switch op := rng.Intn(5); {
				case op <= 1: // write or edit a code file, then ingest
					name := fmt.Sprintf("pkg%d/f%d.go", rng.Intn(2), rng.Intn(3))
					fn := words[rng.Intn(len(words))]
					src := fmt.Sprintf("package p\n\n// F%s does %s.\nfunc F%s() {}\n", fn, sentence(), fn)
					full := filepath.Join(root, filepath.FromSlash(name))
					if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
						t.Fatal(err)
					}
					if rng.Intn(4) == 0 {
						os.Remove(full)
					} else if err := os.WriteFile(full, []byte(src), 0o644); err != nil {
						t.Fatal(err)
					}
					if _, err := w.Ingest(context.Background(), repo.IngestOptions{Semantics: true, Message: "step"}); err != nil {
						t.Fatal(err)
					}
				case op == 2 || len(nodes) == 0: // add a node
					n, err := w.Narrative().Add(narrative.NewNode{Type: narrative.Observation, Content: sentence()})
					if err != nil {
						t.Fatal(err)
					}
					nodes = append(nodes, n)
				case op == 3: // edit a node's file by hand
					n := nodes[rng.Intn(len(nodes))]
					file := filepath.Join(r.Narrative().Root, filepath.FromSlash(n.Path))
					data, err := os.ReadFile(file)
					if err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(file, append(data, []byte("\n"+sentence()+"\n")...), 0o644); err != nil {
						t.Fatal(err)
					}
				default: // delete a node
					n := nodes[rng.Intn(len(nodes))]
					cat, err := w.Narrative().Load()
					if err != nil {
						t.Fatal(err)
					}
					if cur := cat.Nodes[n.ID]; cur != nil && !cur.Deleted {
						if _, err := w.Narrative().Change(cur, narrative.OpDelete, ""); err != nil {
							t.Fatal(err)
						}
					}
				}
				w.Unlock()

				inc, _, err := Open(context.Background(), r, BuildOptions{})
				if err != nil {
					t.Fatal(err)
				}
				incAnswers := answers(t, inc, queries)
				incFiles := segmentFiles(t, inc)
				inc.Close()
				full, _, err := Rebuild(context.Background(), r, BuildOptions{})
				if err != nil {
					t.Fatal(err)
				}
				fullAnswers := answers(t, full, queries)
				for i, q := range queries {
					if !slices.Equal(incAnswers[i], fullAnswers[i]) {
						t.Fatalf("step %d, query %q: incremental %v, full %v", step, q, incAnswers[i], fullAnswers[i])
					}
				}
				if got, want := incFiles, segmentFiles(t, full); !slices.Equal(got, want) {
					t.Fatalf("step %d: the incremental index's files differ from a full rebuild's", step)
				}
				full.Close()
			}
		})
	}
}

// answers runs the queries and returns each one's hits as text.
func answers(t *testing.T, ix *Index, queries []string) [][]string {
	t.Helper()
	out := make([][]string, len(queries))
	for i, q := range queries {
		hits, matched, err := ix.Search(q, SearchOptions{Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = append(out[i], fmt.Sprint(matched))
		for _, h := range hits {
			out[i] = append(out[i], fmt.Sprintf("%s %s %.9f", h.Doc.Kind, h.Doc.Node.Key, h.Score))
		}
	}
	return out
}

// segmentFiles returns the contents of both segments' files, in order.
func segmentFiles(t *testing.T, ix *Index) []string {
	t.Helper()
	var out []string
	for _, s := range ix.segs {
		for _, f := range []string{docsFile, termsFile, keysFile, metaFile, manifest, commitsFile} {
			b, err := os.ReadFile(filepath.Join(s.dir, f))
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			out = append(out, string(b))
		}
	}
	return out
}

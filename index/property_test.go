package index

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/index/reader"
	"github.com/ctx-dev/ctx/index/table"
	"github.com/ctx-dev/ctx/index/text"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
	"github.com/ctx-dev/ctx/repo"
)

// TestIncrementalEqualsFull applies random sequences of changes — code
// files added, edited and removed then ingested, narrative nodes added,
// edited by hand and deleted — and after each one checks that the index
// a reading command brings up to date (rebuilding only stale segments, or
// adding a delta segment to the code's) answers every query exactly as a
// full rebuild does: the same documents under the same numbers, the same
// postings and lookups (equalIndexes), and that the segments it kept or
// rebuilt are byte-identical to a full rebuild's.
func TestIncrementalEqualsFull(t *testing.T) {
	defer func(share, slack int) { deltaShare, deltaSlack = share, slack }(deltaShare, deltaSlack)
	defer func(share, slack int) { graphDeltaShare, graphDeltaSlack = share, slack }(graphDeltaShare, graphDeltaSlack)
	words := []string{"alpha", "beta", "gamma", "delta", "retry", "backoff", "zebra", "client", "connect", "jitter"}
	queries := []string{"alpha", "beta gamma", `"retry backoff"`, "zebra -alpha", "client connect", "jitter type:item", "delta type:observation"}
	severalHeads := 0   // deltas built for several heads, over every seed
	allGraphDeltas := 0 // code graph deltas, over every seed
	allNarrDeltas := 0  // narrative deltas, over every seed
	allDeltas := 0      // code deltas, over every seed
	for seed := int64(1); seed <= 8; seed++ {
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
			deltas, multi, lastDelta := 0, 0, ""
			graphDeltas, lastGraphDelta := 0, ""
			narrDeltas, lastNarrDelta := 0, ""
			var history []object.ID // heads after code changes
			for step := 0; step < 16; step++ {
				// Deltas of every size, and changes too large for one.
				deltaShare, deltaSlack = 1+rng.Intn(4), rng.Intn(12)
				graphDeltaShare, graphDeltaSlack = 1+rng.Intn(2), rng.Intn(40)
				w, err := r.Lock(context.Background(), repo.LockOptions{})
				if err != nil {
					t.Fatal(err)
				}
				switch op := rng.Intn(9); {
				case op <= 2: // write, edit or remove code files, then ingest
					// Sometimes as another clone would, from an older
					// commit: main then has two heads, as after a git
					// merge, until the next ingestion reconciles them.
					var others []object.ID
					if len(history) > 1 && rng.Intn(3) == 0 {
						if others, err = r.Heads(refs.Main); err != nil {
							t.Fatal(err)
						}
						if err := w.UpdateRef(refs.Main, history[rng.Intn(len(history)-1)], refs.Any()); err != nil {
							t.Fatal(err)
						}
					}
					for range 1 + rng.Intn(3) {
						name := fmt.Sprintf("pkg%d/f%d.go", rng.Intn(2), rng.Intn(3))
						if rng.Intn(8) == 0 {
							name = fmt.Sprintf("notes%d.txt", rng.Intn(2)) // no file version
						}
						// Functions of one name in several files, and
						// several init functions, tie on their keys.
						src := "package p\n"
						for range 1 + rng.Intn(3) {
							fn := "F" + words[rng.Intn(len(words))]
							if rng.Intn(4) == 0 {
								fn = "init"
							}
							// Calls across files: edges into other files' items.
							body := ""
							for range rng.Intn(3) {
								body += fmt.Sprintf("\tF%s()\n", words[rng.Intn(len(words))])
							}
							src += fmt.Sprintf("\n// %s does %s.\nfunc %s() {\n%s}\n", fn, sentence(), fn, body)
						}
						full := filepath.Join(root, filepath.FromSlash(name))
						if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
							t.Fatal(err)
						}
						switch rng.Intn(8) {
						case 0:
							os.Remove(full)
						case 1:
							if filepath.Dir(full) != root {
								os.RemoveAll(filepath.Dir(full)) // a whole package
							}
						default:
							if err := os.WriteFile(full, []byte(src), 0o644); err != nil {
								t.Fatal(err)
							}
						}
					}
					if _, err := w.Ingest(context.Background(), repo.IngestOptions{Semantics: true, Message: "step"}); err != nil {
						t.Fatal(err)
					}
					if rng.Intn(3) == 0 { // a command run: every diagnostic replaced
						out := ""
						for range rng.Intn(3) {
							out += fmt.Sprintf("pkg%d/f%d.go:%d:1: %s\n", rng.Intn(2), rng.Intn(3), 1+rng.Intn(5), sentence())
						}
						if _, err := w.RecordCommand(context.Background(), repo.CommandOptions{Name: "go vet ./...", Output: []byte(out), ExitCode: 1}); err != nil {
							t.Fatal(err)
						}
					}
					heads, err := r.Heads(refs.Main)
					if err != nil {
						t.Fatal(err)
					}
					history = append(history, heads...)
					for _, h := range others {
						repo.AddHead(t, r, refs.Main, h)
					}
				case op == 8 || len(nodes) == 0: // add a node
					n, err := w.Narrative().Add(narrative.NewNode{Type: narrative.Observation, Content: sentence()})
					if err != nil {
						t.Fatal(err)
					}
					nodes = append(nodes, n)
				case op == 3: // edit a node's file by hand
					n := nodes[rng.Intn(len(nodes))]
					file := filepath.Join(r.Narrative().Root, filepath.FromSlash(n.Path))
					data, err := os.ReadFile(file)
					if err != nil && !os.IsNotExist(err) {
						t.Fatal(err)
					}
					if err == nil { // not removed
						if err := os.WriteFile(file, append(data, []byte("\n"+sentence()+"\n")...), 0o644); err != nil {
							t.Fatal(err)
						}
					}
				case op == 5: // copy a node's file (its id is then in two files)
					n := nodes[rng.Intn(len(nodes))]
					dir := r.Narrative().Root
					data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(n.Path)))
					if err == nil {
						copied := path.Join(path.Dir(n.Path), fmt.Sprintf("%c-copy-%d.md", "az"[rng.Intn(2)], step))
						if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(copied)), data, 0o644); err != nil {
							t.Fatal(err)
						}
						nodes = append(nodes, &narrative.Node{ID: n.ID, Path: copied})
					}
				case op == 6: // remove or rename a node's file
					n := nodes[rng.Intn(len(nodes))]
					dir := r.Narrative().Root
					file := filepath.Join(dir, filepath.FromSlash(n.Path))
					if rng.Intn(2) == 0 {
						os.Remove(file)
					} else {
						moved := path.Join(path.Dir(n.Path), fmt.Sprintf("moved-%d.md", step))
						if os.Rename(file, filepath.Join(dir, filepath.FromSlash(moved))) == nil {
							n.Path = moved
						}
					}
				case op == 7: // supersede a node by another
					a, b := nodes[rng.Intn(len(nodes))], nodes[rng.Intn(len(nodes))]
					cat, err := w.Narrative().Load()
					if err != nil {
						t.Fatal(err)
					}
					if cur := cat.Nodes[a.ID]; cur != nil && a.ID != b.ID && cur.Path == a.Path {
						if _, err := w.Narrative().Change(cur, narrative.OpSupersede, string(b.ID)); err != nil {
							t.Fatal(err)
						}
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
				defer inc.Close()
				if d := inc.Code().Delta(); d != nil && d.Segment().Dir() != lastDelta {
					deltas++ // a new one
					lastDelta = d.Segment().Dir()
					if len(partManifest(t, d.Segment()).Heads) > 1 {
						multi++
					}
				}
				if d := inc.Narrative().Delta(); d != nil && d.Segment().Dir() != lastNarrDelta {
					narrDeltas++
					lastNarrDelta = d.Segment().Dir()
				}
				incAnswers := answers(t, inc, queries)
				// A full rebuild in another store's index directory,
				// so that inc stays open beside it.
				full := fullIndexOf(t, r)
				fullAnswers := answers(t, full, queries)
				for i, q := range queries {
					if !slices.Equal(incAnswers[i], fullAnswers[i]) {
						t.Fatalf("step %d, query %q: incremental %v, full %v", step, q, incAnswers[i], fullAnswers[i])
					}
				}
				equalIndexes(t, inc, full, rng)
				// The graph a query reads, brought up to date (with a code
				// graph delta when the change is small), against a full
				// build's.
				gx, err := OpenGraph(context.Background(), r)
				if err != nil {
					t.Fatal(err)
				}
				defer gx.Close()
				if d := graphDeltaName(r); d != "" && d != lastGraphDelta {
					graphDeltas++
					lastGraphDelta = d
				}
				equalGraphs(t, gx, fullGraphOf(t, r))
				// A segment not extended by a delta is byte for byte a full
				// build's.
				got, want := segmentFiles(t, inc), segmentFiles(t, full)
				if inc.Code().Delta() == nil && !slices.Equal(got[:6], want[:6]) {
					t.Fatalf("step %d: the incremental code segment differs from a full rebuild's", step)
				}
				if inc.Narrative().Delta() == nil && !slices.Equal(got[6:], want[6:]) {
					t.Fatalf("step %d: the incremental narrative segment differs from a full rebuild's", step)
				}
			}
			t.Logf("%d of 16 steps built a delta segment, %d of them for several heads; %d a code graph delta; %d a narrative delta", deltas, multi, graphDeltas, narrDeltas)
			severalHeads += multi
			allGraphDeltas += graphDeltas
			allNarrDeltas += narrDeltas
			allDeltas += deltas
		})
	}
	if allDeltas == 0 {
		t.Fatal("no step built a delta segment")
	}
	if severalHeads == 0 {
		t.Fatal("no delta segment was built for several heads")
	}
	if allGraphDeltas == 0 {
		t.Fatal("no code graph delta segment was built")
	}
	if allNarrDeltas == 0 {
		t.Fatal("no narrative delta segment was built")
	}
}

// fullIndexOf builds both text segments of r afresh, in a directory of
// the test's (the store's index is not changed).
func fullIndexOf(t *testing.T, r *repo.Repo) *Index {
	t.Helper()
	m, err := CurrentManifest(r)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := buildIn(context.Background(), r, m, t.TempDir(), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// equalIndexes checks that two indexes of one store hold the same
// documents under the same numbers, the same statistics, the same
// postings for every term either knows (walked and advanced at random),
// and the same lookups for every key either knows.
func equalIndexes(t *testing.T, got, want *Index, rng *rand.Rand) {
	t.Helper()
	if got.Stats() != want.Stats() {
		t.Fatalf("stats %+v, want %+v", got.Stats(), want.Stats())
	}
	for n := range uint32(want.Docs()) {
		g, err1 := got.Doc(n)
		w, err2 := want.Doc(n)
		if err1 != nil || err2 != nil || !reflect.DeepEqual(g, w) {
			t.Fatalf("document %d: %+v (%v), want %+v (%v)", n, g, err1, w, err2)
		}
		if got.DocLen(n) != want.DocLen(n) {
			t.Fatalf("document %d: length %d, want %d", n, got.DocLen(n), want.DocLen(n))
		}
	}
	terms, keys := map[string]bool{}, map[string]bool{}
	for _, ix := range []*Index{got, want} {
		for _, s := range append([]*reader.Segment{ix.Code().Base(), ix.Narrative().Base()}, deltaSegs(ix)...) {
			if s == nil {
				continue
			}
			for _, tk := range []struct {
				tb  *table.Table
				set map[string]bool
			}{{s.Terms(), terms}, {s.Keys(), keys}} {
				it := tk.tb.All()
				for it.Next() {
					tk.set[string(it.Key())] = true
				}
			}
		}
	}
	for term := range terms {
		if g, w := postingsText(t, got, term, nil), postingsText(t, want, term, nil); g != w {
			t.Fatalf("term %q: postings %s, want %s", term, g, w)
		}
		// Advance to random targets, as a conjunction would.
		targets := make([]uint32, 1+rng.Intn(4))
		for i := range targets {
			targets[i] = uint32(rng.Intn(want.Docs() + 1))
		}
		slices.Sort(targets)
		if g, w := postingsText(t, got, term, targets), postingsText(t, want, term, targets); g != w {
			t.Fatalf("term %q, advancing to %v: postings %s, want %s", term, targets, g, w)
		}
	}
	for key := range keys {
		ns := reader.NamespaceName(key[0])
		if ns == "" {
			t.Fatalf("key %q: no namespace", key)
		}
		g, err1 := got.Lookup(ns, key[1:])
		w, err2 := want.Lookup(ns, key[1:])
		if err1 != nil || err2 != nil || !slices.Equal(g, w) {
			t.Fatalf("lookup %s %q: %v (%v), want %v (%v)", ns, key[1:], g, err1, w, err2)
		}
	}
}

func deltaSegs(ix *Index) []*reader.Segment {
	var out []*reader.Segment
	for _, d := range []*reader.Delta{ix.Code().Delta(), ix.Narrative().Delta()} {
		if d != nil {
			out = append(out, d.Segment())
		}
	}
	return out
}

// postingsText returns the postings of term as text: its frequency, then
// each document with its positions; with targets, only the first
// document at or after each target (Advance), in turn.
func postingsText(t *testing.T, ix *Index, term string, targets []uint32) string {
	t.Helper()
	p, df := ix.Postings(term)
	if p == nil {
		return fmt.Sprint(df)
	}
	out := fmt.Sprint(df)
	if targets == nil {
		for p.Next() {
			out += fmt.Sprintf(" %d%v", p.Doc(), p.Positions())
		}
	} else {
		sk := p.(text.Seeker)
		last, done := uint32(0), false
		for i, target := range targets {
			if done || i > 0 && target <= last {
				continue
			}
			if !sk.Advance(target) {
				done = true
				out += " end"
				continue
			}
			last = sk.Doc()
			out += fmt.Sprintf(" %d>%d%v", target, last, sk.Positions())
		}
	}
	if e, ok := p.(text.Errer); ok && e.Err() != nil {
		t.Fatalf("term %q: %v", term, e.Err())
	}
	return out
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

// segmentFiles returns the contents of both segments' files, in order;
// of the manifests, all but the heads (a code segment stays when a commit
// leaves the code as it was, though its manifest names the heads it was
// built at) and the hashes of racy files (withoutSums).
func segmentFiles(t *testing.T, ix *Index) []string {
	t.Helper()
	var out []string
	for _, s := range []*reader.Segment{ix.Code().Base(), ix.Narrative().Base()} {
		for _, f := range []string{docsFile, termsFile, keysFile, metaFile, manifest, commitsFile} {
			b, err := os.ReadFile(filepath.Join(s.Dir(), f))
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			if f == manifest {
				lines := strings.SplitAfter(string(b), "\n")
				b = withoutSums([]byte(strings.Join(slices.DeleteFunc(lines, func(l string) bool { return strings.HasPrefix(l, "head ") }), "")))
			}
			out = append(out, string(b))
		}
	}
	return out
}

// withoutSums returns a manifest's text with the hash of every file line
// as "-": which narrative files a build found racy (written in the same
// tick of the clock as it began) depends on when it ran, not on what it
// indexed.
func withoutSums(manifest []byte) []byte {
	lines := strings.SplitAfter(string(manifest), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "file ") {
			continue
		}
		f := strings.SplitN(l, "\t", 6)
		if len(f) == 6 {
			f[4] = "-"
			lines[i] = strings.Join(f, "\t")
		}
	}
	return []byte(strings.Join(lines, ""))
}

package repo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
)

// sccPaths are the pointer file and the objects directory of the SCC
// view.
func sccPaths(r *Repo) (ptr, objects string) {
	return filepath.Join(r.Root, derivedDir, sccLatest), filepath.Join(r.Root, derivedDir, "objects")
}

// storedView returns the id scc_latest names and the path of its file.
func storedView(t *testing.T, r *Repo) (object.ID, string) {
	t.Helper()
	ptr, objects := sccPaths(r)
	id, err := readPointer(ptr)
	if err != nil {
		t.Fatalf("scc_latest: %v", err)
	}
	return id, filepath.Join(objects, id.String()[:2], id.String())
}

func sccView(t *testing.T, r *Repo, g *Graph, wantFresh bool) *graph.SccView {
	t.Helper()
	v, fresh, err := r.SccView(t.Context(), g)
	if err != nil {
		t.Fatalf("SccView: %v", err)
	}
	if fresh != wantFresh {
		t.Errorf("fresh = %v, want %v", fresh, wantFresh)
	}
	if v.Source != g.SccSource() || !slices.Equal(v.Heads, g.Heads) {
		t.Errorf("view of %s at %s, want %s at %s", v.Source.Short(), shorts(v.Heads), g.SccSource().Short(), shorts(g.Heads))
	}
	// The view on disk is the one returned.
	id, path := storedView(t, r)
	st, err := object.NewStore(filepath.Dir(filepath.Dir(path)), object.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stored := new(graph.SccView)
	if err := object.GetTyped(st, id, stored); err != nil {
		t.Fatalf("stored view: %v", err)
	}
	if !reflect.DeepEqual(stored, v) {
		t.Errorf("stored view differs from the one returned")
	}
	return v
}

// checkCondensation checks that v condenses g as graph.SCC does: the same
// partition of the nodes, DAG edges for the edges between components,
// cycles where SCC finds them.
func checkCondensation(t *testing.T, g *Graph, v *graph.SccView) {
	t.Helper()
	if err := v.Validate(); err != nil {
		t.Fatal(err)
	}
	c := g.SCC(nil)
	if int(v.Count) != len(c.Topo) || len(v.Nodes) != g.Len() {
		t.Fatalf("view: %d components of %d nodes; SCC: %d of %d", v.Count, len(v.Nodes), len(c.Topo), g.Len())
	}
	at := make(map[object.ID]int, len(v.Nodes)) // node id → index in v.Nodes
	for i, n := range v.Nodes {
		at[n.ID] = i
	}
	comp := func(i int32) uint32 { return v.Comp[at[g.Node(i).ID]] }
	for i := int32(0); i < int32(g.Len()); i++ {
		for j := int32(0); j < int32(g.Len()); j++ {
			if (c.Comp[i] == c.Comp[j]) != (comp(i) == comp(j)) {
				t.Errorf("%s and %s: same component in SCC %v, in the view %v", g.Node(i).Name(), g.Node(j).Name(), c.Comp[i] == c.Comp[j], comp(i) == comp(j))
			}
		}
	}
	dag := map[[2]uint32]bool{}
	for e := int32(0); e < int32(g.EdgeCount()); e++ {
		from, to := g.Ends(e)
		if a, b := comp(from), comp(to); a != b {
			dag[[2]uint32{a, b}] = true
		}
	}
	if len(dag) != len(v.DAG) {
		t.Errorf("DAG has %d edges, want %d", len(v.DAG), len(dag))
	}
	for _, e := range v.DAG {
		if !dag[e] {
			t.Errorf("DAG edge %v joins no edge", e)
		}
	}
	var cyclic int
	for k := range c.Topo {
		if c.Cyclic(int32(k)) {
			cyclic++
		}
	}
	if len(v.Cycles()) != cyclic {
		t.Errorf("%d cycles, SCC finds %d", len(v.Cycles()), cyclic)
	}
}

// cycleNames lists the view's cycles as their nodes' names.
func cycleNames(v *graph.SccView) []string {
	var out []string
	for _, ms := range v.Cycles() {
		var ns []string
		for _, m := range ms {
			ns = append(ns, v.Nodes[m].Name())
		}
		slices.Sort(ns)
		out = append(out, strings.Join(ns, " "))
	}
	slices.Sort(out)
	return out
}

func TestSccView(t *testing.T) {
	r := NewTestRepo(t)
	w := lock(t, r)
	// a → b → c → a is a cycle; c → d leaves it; e calls itself.
	linkEdges(t, w, []graph.Edge{
		edgeOf(item("a"), item("b"), graph.Calls), edgeOf(item("b"), item("c"), graph.Calls),
		edgeOf(item("c"), item("a"), graph.Calls), edgeOf(item("c"), item("d"), graph.Calls),
		edgeOf(item("e"), item("e"), graph.Calls), edgeOf(item("d"), item("e"), graph.Calls),
	}, EdgeOptions{})
	g := buildGraph(t, r, GraphOptions{})

	v := sccView(t, r, g, false)
	checkCondensation(t, g, v)
	if got, want := cycleNames(v), []string{"item:a item:b item:c", "item:e"}; !slices.Equal(got, want) {
		t.Errorf("cycles %q, want %q", got, want)
	}
	if v.CreatedAt != TestTime.Unix() || v.Count != 3 {
		t.Errorf("view %+v", v)
	}
	firstID, firstPath := storedView(t, r)

	// The same graph, or another built at the same heads: fresh.
	if again := sccView(t, r, g, true); !reflect.DeepEqual(again, v) {
		t.Errorf("fresh view differs")
	}
	sccView(t, r, buildGraph(t, r, GraphOptions{}), true)

	// A new edge: stale. The view is recomputed and replaces the old one.
	linkEdges(t, w, []graph.Edge{edgeOf(item("d"), item("a"), graph.Calls)}, EdgeOptions{})
	g2 := buildGraph(t, r, GraphOptions{})
	v2 := sccView(t, r, g2, false)
	checkCondensation(t, g2, v2)
	if got, want := cycleNames(v2), []string{"item:a item:b item:c item:d", "item:e"}; !slices.Equal(got, want) {
		t.Errorf("cycles %q, want %q", got, want)
	}
	if id, _ := storedView(t, r); id == firstID {
		t.Error("scc_latest still names the old view")
	}
	if _, err := os.Stat(firstPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the replaced view is still there: %v", err)
	}
	sccView(t, r, g2, true)

	// The graph at the old head is stale against the new view.
	old := buildGraph(t, r, GraphOptions{At: g.Heads})
	sccView(t, r, old, false)
	sccView(t, r, g2, false)

	// A narrative edge at the same heads: stale too.
	src := addNodeID(t, w, "bbbbbbbbbb", narrative.NewNode{Type: narrative.Fact, Content: "Source"})
	addNodeID(t, w, "dddddddddd", narrative.NewNode{Type: narrative.Task, Content: "Task", DerivedFrom: []narrative.ID{src.ID}})
	g3 := buildGraph(t, r, GraphOptions{})
	if !slices.Equal(g3.Heads, g2.Heads) || g3.SccSource() == g2.SccSource() {
		t.Fatalf("heads %s, source %s; want the heads of g2 and another source", shorts(g3.Heads), g3.SccSource().Short())
	}
	checkCondensation(t, g3, sccView(t, r, g3, false))
	sccView(t, r, g3, true)
	// Without the narrative's edges the source is g2's.
	if bare := buildGraph(t, r, GraphOptions{NoNarrative: true}); bare.SccSource() != g2.SccSource() {
		t.Error("NoNarrative graph has another source than the graph before the narrative")
	}
	// Nodes the narrative has but no edge names are not in the view; a
	// node added without edges does not make it stale.
	addNodeID(t, w, "ffffffffff", narrative.NewNode{Type: narrative.Fact, Content: "Lonely"})
	sccView(t, r, buildGraph(t, r, GraphOptions{}), true)

	// Only the current view is kept.
	_, objects := sccPaths(r)
	st, err := object.NewStore(objects, object.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ids, strays, err := st.List(t.Context())
	if id, _ := storedView(t, r); err != nil || len(strays) > 0 || !slices.Equal(ids, []object.ID{id}) {
		t.Errorf("DERIVED/objects holds %s (strays %v, %v), want only %s", shorts(ids), strays, err, id.Short())
	}
	// The store itself holds no view.
	if rep, err := r.Verify(t.Context(), VerifyOptions{}); err != nil || !rep.OK() || rep.Typed["scc_view"] != 0 {
		t.Errorf("Verify: %v %+v", err, rep)
	}
}

// invalidView encodes as an scc_view without being validated.
type invalidView graph.SccView

func (*invalidView) TypeName() string     { return "scc_view" }
func (*invalidView) Links() []object.Link { return nil }

func TestSccViewDamaged(t *testing.T) {
	template := NewTestRepo(t)
	w := lock(t, template)
	linkEdges(t, w, []graph.Edge{
		edgeOf(item("a"), item("b"), graph.Calls), edgeOf(item("b"), item("a"), graph.Calls), edgeOf(item("b"), item("c"), graph.Calls),
	}, EdgeOptions{})
	if err := w.Unlock(); err != nil {
		t.Fatal(err)
	}
	write := func(t *testing.T, path string, data []byte) {
		t.Helper()
		_ = os.Chmod(path, 0o644) // object files are read-only
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		damage func(t *testing.T, r *Repo, g *Graph)
	}{
		{"object overwritten", func(t *testing.T, r *Repo, g *Graph) {
			_, path := storedView(t, r)
			write(t, path, []byte("garbage"))
		}},
		{"object truncated", func(t *testing.T, r *Repo, g *Graph) {
			_, path := storedView(t, r)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			write(t, path, data[:len(data)/2])
		}},
		{"object holds another object", func(t *testing.T, r *Repo, g *Graph) {
			_, path := storedView(t, r)
			other, err := r.Objects.Put(object.KindBlob, []byte("another object"))
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(r.Root, filepath.FromSlash(object.RelPath(other))))
			if err != nil {
				t.Fatal(err)
			}
			write(t, path, data)
		}},
		{"object missing", func(t *testing.T, r *Repo, g *Graph) {
			_, path := storedView(t, r)
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}},
		{"pointer garbage", func(t *testing.T, r *Repo, g *Graph) {
			ptr, _ := sccPaths(r)
			write(t, ptr, []byte("not an id\n"))
		}},
		{"pointer empty", func(t *testing.T, r *Repo, g *Graph) {
			ptr, _ := sccPaths(r)
			write(t, ptr, nil)
		}},
		{"pointer to a missing object", func(t *testing.T, r *Repo, g *Graph) {
			ptr, _ := sccPaths(r)
			write(t, ptr, []byte(object.Sum(object.KindTyped, []byte("nothing")).String()+"\n"))
		}},
		{"pointer removed", func(t *testing.T, r *Repo, g *Graph) {
			ptr, _ := sccPaths(r)
			if err := os.Remove(ptr); err != nil {
				t.Fatal(err)
			}
		}},
		{"DERIVED removed", func(t *testing.T, r *Repo, g *Graph) {
			if err := os.RemoveAll(filepath.Join(r.Root, derivedDir)); err != nil {
				t.Fatal(err)
			}
		}},
		{"pointer to an object of another type", func(t *testing.T, r *Repo, g *Graph) {
			ptr, objects := sccPaths(r)
			st, err := object.NewStore(objects, object.StoreOptions{})
			if err != nil {
				t.Fatal(err)
			}
			id, err := object.PutTyped(st, adding(edgeAB))
			if err != nil {
				t.Fatal(err)
			}
			write(t, ptr, []byte(id.String()+"\n"))
		}},
		{"current source, invalid view", func(t *testing.T, r *Repo, g *Graph) {
			ptr, objects := sccPaths(r)
			st, err := object.NewStore(objects, object.StoreOptions{})
			if err != nil {
				t.Fatal(err)
			}
			bad := invalidView{Source: g.SccSource(), Heads: g.Heads, Nodes: []graph.NodeID{item("a")}, Comp: []uint32{7}, Count: 1, DAG: [][2]uint32{}}
			id, err := object.PutTyped(st, &bad)
			if err != nil {
				t.Fatal(err)
			}
			write(t, ptr, []byte(id.String()+"\n"))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := cloneRepo(t, template)
			g := buildGraph(t, r, GraphOptions{})
			want := sccView(t, r, g, false)
			tc.damage(t, r, g)
			v := sccView(t, r, g, false)
			if !reflect.DeepEqual(v, want) {
				t.Errorf("recomputed view differs from the first")
			}
			checkCondensation(t, g, v)
			// The damage is repaired: the next call finds the view fresh.
			sccView(t, r, g, true)
		})
	}
}

func TestSccViewCanceled(t *testing.T) {
	r := NewTestRepo(t)
	w := lock(t, r)
	linkEdges(t, w, []graph.Edge{edgeAB}, EdgeOptions{})
	g := buildGraph(t, r, GraphOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := r.SccView(ctx, g); !errors.Is(err, context.Canceled) {
		t.Errorf("SccView with a canceled context: %v, want context.Canceled", err)
	}
	if _, err := os.Stat(filepath.Join(r.Root, derivedDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("DERIVED written: %v", err)
	}
	sccView(t, r, g, false)
	// A fresh view needs no work: it is returned even now.
	if _, fresh, err := r.SccView(ctx, g); err != nil || !fresh {
		t.Errorf("fresh view with a canceled context: %v, %v", fresh, err)
	}
}

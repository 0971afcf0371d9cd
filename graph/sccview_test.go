package graph

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/fxamacker/cbor/v2"

	"github.com/ctx-dev/ctx/object"
)

// rawPayload encodes {name: v} deterministically without the checks
// object.Encode makes, to build payloads a writer must not produce.
func rawPayload(t testing.TB, name string, v any) []byte {
	t.Helper()
	eo := cbor.CoreDetEncOptions()
	eo.NilContainers = cbor.NilContainerAsEmpty
	em, err := eo.EncMode()
	if err != nil {
		t.Fatal(err)
	}
	b, err := em.Marshal(map[string]any{name: v})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// randomView builds a graph with self loops and cycles and its view.
func randomView(r *rand.Rand) (*Graph, *SccView) {
	n := 1 + r.IntN(30)
	edges := randomGraph(r, n, r.IntN(3*n))
	heads := []object.ID{object.Sum(object.KindTyped, []byte(fmt.Sprint(n)))}
	g := New(edges)
	return g, NewSccView(g, heads, object.Sum(object.KindBlob, []byte("source")), 1790000000)
}

func TestSccViewProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 300; trial++ {
		g, v := randomView(r)
		if err := v.Validate(); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		// Deterministic: the same graph gives the same bytes.
		p1, err := object.Encode(v)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		p2, err := object.Encode(NewSccView(g, v.Heads, v.Source, v.CreatedAt))
		if err != nil || !bytes.Equal(p1, p2) {
			t.Fatalf("trial %d: two views of one graph differ (%v)", trial, err)
		}

		c := g.SCC(nil)
		if int(v.Count) != len(c.Members) || len(v.Nodes) != g.Len() {
			t.Fatalf("trial %d: %d components of %d nodes, want %d of %d", trial, v.Count, len(v.Nodes), len(c.Members), g.Len())
		}
		// Map the view's nodes and components to the graph's.
		node := make([]int32, len(v.Nodes)) // view node → graph node
		renum := make(map[int32]uint32)     // graph component → view component
		for i, n := range v.Nodes {
			gi, ok := g.Lookup(n.ID)
			if !ok || g.Node(gi) != n {
				t.Fatalf("trial %d: view node %d %+v is not the graph's", trial, i, n)
			}
			node[i] = gi
			if i > 0 && v.Nodes[i-1].ID.Compare(n.ID) >= 0 {
				t.Fatalf("trial %d: nodes not sorted", trial)
			}
			if vc, ok := renum[c.Comp[gi]]; ok && vc != v.Comp[i] {
				t.Fatalf("trial %d: graph component %d is view components %d and %d", trial, c.Comp[gi], vc, v.Comp[i])
			}
			renum[c.Comp[gi]] = v.Comp[i]
		}
		if len(renum) != len(c.Members) {
			t.Fatalf("trial %d: components do not map one to one", trial)
		}
		var wantDAG [][2]uint32
		for _, e := range c.DAG {
			wantDAG = append(wantDAG, [2]uint32{renum[e[0]], renum[e[1]]})
		}
		slices.SortFunc(wantDAG, cmpPair)
		if !slices.Equal(v.DAG, wantDAG) {
			t.Fatalf("trial %d: DAG %v, want %v", trial, v.DAG, wantDAG)
		}
		for _, e := range v.DAG {
			if e[0] >= e[1] {
				t.Fatalf("trial %d: DAG edge %v goes backward", trial, e)
			}
		}
		// Cycles: the components of several nodes, or of one with an
		// edge to itself, by brute force over the edges.
		loop := map[uint32]bool{}
		for e := int32(0); e < int32(g.EdgeCount()); e++ {
			if from, to := g.Ends(e); from == to {
				loop[renum[c.Comp[from]]] = true
			}
		}
		var want [][]uint32
		members := v.Members()
		total := 0
		for comp, ms := range members {
			total += len(ms)
			if len(ms) == 0 || !slices.IsSorted(ms) {
				t.Fatalf("trial %d: component %d members %v", trial, comp, ms)
			}
			if len(ms) > 1 || loop[uint32(comp)] {
				want = append(want, ms)
			}
			if len(ms) == 1 && loop[uint32(comp)] != slices.Contains(v.SelfLoops, uint32(comp)) {
				t.Fatalf("trial %d: component %d self loop %v, SelfLoops %v", trial, comp, loop[uint32(comp)], v.SelfLoops)
			}
		}
		if total != len(v.Nodes) {
			t.Fatalf("trial %d: members cover %d of %d nodes", trial, total, len(v.Nodes))
		}
		if got := v.Cycles(); !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("trial %d: Cycles = %v, want %v", trial, got, want)
		}

		// Round trip.
		back := new(SccView)
		if err := object.Decode(p1, back); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if p3, err := object.Encode(back); err != nil || !bytes.Equal(p1, p3) {
			t.Fatalf("trial %d: re-encoding differs (%v)", trial, err)
		}
		if !slices.Equal(back.Nodes, v.Nodes) || !slices.Equal(back.Comp, v.Comp) || !slices.Equal(back.DAG, v.DAG) ||
			!slices.Equal(back.SelfLoops, v.SelfLoops) || !slices.Equal(back.Heads, v.Heads) ||
			back.Count != v.Count || back.Source != v.Source || back.CreatedAt != v.CreatedAt {
			t.Fatalf("trial %d: decoded %+v, want %+v", trial, back, v)
		}
	}
}

// TestSccViewSelfLoopInCycle: a self loop inside a larger component is not
// listed in SelfLoops, which lists components of one node.
func TestSccViewSelfLoopInCycle(t *testing.T) {
	a, b, c := ItemNode("t", "a"), ItemNode("t", "b"), ItemNode("t", "c")
	ev := Evidence{Tool: ToolHuman, Confidence: High}
	g := New([]Edge{
		{From: a, To: b, Label: Calls, Evidence: ev},
		{From: b, To: a, Label: Calls, Evidence: ev},
		{From: a, To: a, Label: Calls, Evidence: ev},
		{From: c, To: c, Label: Calls, Evidence: ev},
	})
	comps := g.SCC(nil)
	ia, _ := g.Lookup(a.ID)
	ic, _ := g.Lookup(c.ID)
	if comps.SelfLoop[comps.Comp[ia]] || !comps.SelfLoop[comps.Comp[ic]] {
		t.Errorf("SelfLoop = %v; want only c's component", comps.SelfLoop)
	}
	if !comps.Cyclic(comps.Comp[ia]) || !comps.Cyclic(comps.Comp[ic]) {
		t.Error("both components are cycles")
	}
	v := NewSccView(g, nil, testSource, 0)
	if err := v.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(v.SelfLoops) != 1 || len(v.Cycles()) != 2 {
		t.Errorf("SelfLoops %v, Cycles %v", v.SelfLoops, v.Cycles())
	}
}

func TestSccViewEmpty(t *testing.T) {
	v := NewSccView(New(nil), nil, testSource, 0)
	if v.Count != 0 || len(v.Nodes) != 0 || len(v.Cycles()) != 0 {
		t.Fatalf("view of no graph: %+v", v)
	}
	p, err := object.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := object.Decode(p, new(SccView)); err != nil {
		t.Fatal(err)
	}
}

// validView is a view of four nodes: {0, 1} a cycle, {2} a self loop,
// {3} alone, with edges 0→1, 0→2 and 1→2 between them.
func validView() *SccView {
	nodes := make([]NodeID, 4)
	for i := range nodes {
		nodes[i] = ItemNode("t", fmt.Sprint(i))
	}
	slices.SortFunc(nodes, func(a, b NodeID) int { return a.ID.Compare(b.ID) })
	return &SccView{
		Source: object.Sum(object.KindBlob, []byte("s")), Heads: []object.ID{object.Sum(object.KindTyped, []byte("h"))},
		CreatedAt: 1, Nodes: nodes, Comp: []uint32{0, 0, 1, 2}, Count: 3,
		DAG: [][2]uint32{{0, 1}, {0, 2}, {1, 2}}, SelfLoops: []uint32{1},
	}
}

func TestSccViewValidate(t *testing.T) {
	tests := []struct {
		name   string
		want   string // in the error
		change func(v *SccView)
	}{
		{"fewer component numbers than nodes", "component numbers", func(v *SccView) { v.Comp = v.Comp[:3] }},
		{"more component numbers than nodes", "component numbers", func(v *SccView) { v.Comp = append(v.Comp, 2) }},
		{"component out of range", "is in component 3 of 3", func(v *SccView) { v.Comp[3] = 3 }},
		{"empty component", "component 3 has no nodes", func(v *SccView) { v.Count = 4 }},
		{"more components than nodes", "5 components but only 4 nodes", func(v *SccView) { v.Count = 5 }},
		{"huge count, no nodes", "but only 0 nodes", func(v *SccView) { *v = SccView{Source: testSource, Count: math.MaxUint32} }},
		{"nodes not sorted", "not sorted", func(v *SccView) { v.Nodes[0], v.Nodes[1] = v.Nodes[1], v.Nodes[0] }},
		{"node twice", "not sorted", func(v *SccView) { v.Nodes[1] = v.Nodes[0] }},
		{"DAG edge backward", "not forward", func(v *SccView) { v.DAG[1] = [2]uint32{2, 0} }},
		{"DAG edge to itself", "not forward", func(v *SccView) { v.DAG[1] = [2]uint32{1, 1} }},
		{"DAG edge out of range", "not forward", func(v *SccView) { v.DAG[2] = [2]uint32{1, 3} }},
		{"DAG not sorted", "out of order or repeated", func(v *SccView) { v.DAG[0], v.DAG[1] = v.DAG[1], v.DAG[0] }},
		{"DAG edge twice", "out of order or repeated", func(v *SccView) { v.DAG[1] = v.DAG[0] }},
		{"self loop out of range", "self loop on component 3 of 3", func(v *SccView) { v.SelfLoops = []uint32{3} }},
		{"self loops not sorted", "out of order or repeated", func(v *SccView) { v.SelfLoops = []uint32{2, 1} }},
		{"self loop twice", "out of order or repeated", func(v *SccView) { v.SelfLoops = []uint32{1, 1} }},
		{"self loop on a cycle of two", "of 2 nodes", func(v *SccView) { v.SelfLoops = []uint32{0, 1} }},
		{"zero source", "source is the zero id", func(v *SccView) { v.Source = object.Zero }},
		{"zero head", "a head is the zero id", func(v *SccView) { v.Heads = append(v.Heads, object.Zero) }},
		{"zero node id", "non-zero", func(v *SccView) { v.Nodes[0].ID = object.Zero }},
		{"unknown node kind", "must be a node kind", func(v *SccView) { v.Nodes[2].Kind = "blob" }},
	}
	if err := validView().Validate(); err != nil {
		t.Fatalf("the valid view: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := validView()
			tt.change(v)
			if err := v.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate = %v, want an error saying %q", err, tt.want)
			}
			if _, err := object.Encode(v); !errors.Is(err, object.ErrInvalidArgument) {
				t.Errorf("Encode = %v, want ErrInvalidArgument", err)
			}
			if err := object.Decode(rawPayload(t, "scc_view", v), new(SccView)); !errors.Is(err, object.ErrDecode) {
				t.Errorf("Decode = %v, want ErrDecode", err)
			}
		})
	}
}

func TestSccViewDecodeStrict(t *testing.T) {
	good, err := object.Encode(validView())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rawPayload(t, "scc_view", validView()), good) {
		t.Fatal("rawPayload differs from object.Encode on a valid view")
	}
	noLoops := validView()
	noLoops.SelfLoops = nil
	tests := []struct {
		name string
		body any
	}{
		{"self_loops present but empty", map[string]any{
			"source": noLoops.Source, "heads": noLoops.Heads, "created_at": noLoops.CreatedAt, "nodes": noLoops.Nodes,
			"comp": noLoops.Comp, "count": noLoops.Count, "dag": noLoops.DAG, "self_loops": []uint32{}}},
		{"dag missing", map[string]any{
			"source": noLoops.Source, "heads": noLoops.Heads, "created_at": noLoops.CreatedAt, "nodes": noLoops.Nodes,
			"comp": noLoops.Comp, "count": noLoops.Count}},
		{"a node key present but empty", map[string]any{
			"source": noLoops.Source, "heads": noLoops.Heads, "created_at": noLoops.CreatedAt,
			"nodes": []map[string]any{
				{"kind": "item", "id": noLoops.Nodes[0].ID, "key": ""},
				{"kind": "item", "id": noLoops.Nodes[1].ID},
				{"kind": "item", "id": noLoops.Nodes[2].ID},
				{"kind": "item", "id": noLoops.Nodes[3].ID},
			},
			"comp": noLoops.Comp, "count": noLoops.Count, "dag": noLoops.DAG}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := object.Decode(rawPayload(t, "scc_view", tt.body), new(SccView)); !errors.Is(err, object.ErrDecode) {
				t.Errorf("Decode = %v, want ErrDecode", err)
			}
		})
	}
}

// testSource is a non-zero source id for views made in tests.
var testSource = object.Sum(object.KindBlob, []byte("test source"))

package repo

import (
	"slices"
	"testing"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/narrative/view"
)

// TestGraphNoCode checks that GraphOptions.NoCode leaves out the edges of
// the code and keeps every edge between narrative nodes: those of edge
// batches and those the narrative declares.
func TestGraphNoCode(t *testing.T) {
	r := NewTestRepo(t)
	writeProject(t, r, map[string]string{"go.mod": "module example.com/m\n", "a.go": "package m\n\nfunc A() { B() }\n\nfunc B() {}\n"})
	w := lock(t, r)
	if _, err := w.Ingest(t.Context(), IngestOptions{Semantics: true}); err != nil {
		t.Fatal(err)
	}
	fact := addNodeID(t, w, "bbbbbbbbbb", narrative.NewNode{Type: narrative.Fact, Content: "A fact"})
	dec := addNodeID(t, w, "cccccccccc", narrative.NewNode{Type: narrative.Decision, Content: "A decision\n\nSee `a.go`.", DerivedFrom: []narrative.ID{fact.ID}})
	if _, err := w.Link(t.Context(), buildGraph(t, r, GraphOptions{}), []graph.Edge{edgeOf(nodeOf(dec), nodeOf(fact), graph.DependsOn)}, EdgeOptions{}); err != nil {
		t.Fatal(err)
	}
	all := buildGraph(t, r, GraphOptions{})
	lean := buildGraph(t, r, GraphOptions{NoCode: true})
	if all.EdgeCount() <= lean.EdgeCount()+2 {
		t.Fatalf("the code graph has %d edges, the lean one %d: no code edges to leave out?", all.EdgeCount(), lean.EdgeCount())
	}
	got := append(edgeNames(lean, true), edgeNames(lean, false)...)
	want := []string{
		"decision:cccccccccc depends_on fact:bbbbbbbbbb",
		"decision:cccccccccc derived_from fact:bbbbbbbbbb",
		"decision:cccccccccc mentions file:a.go",
	}
	if !slices.Equal(got, want) {
		t.Errorf("NoCode graph:\n%q\nwant\n%q", got, want)
	}
}

func TestViews(t *testing.T) {
	r := NewTestRepo(t)
	views, bad, err := r.Views().List()
	if err != nil || len(bad) != 0 || len(views) != 1 || views[0].Name != view.DefaultName {
		t.Fatalf("the views of a new store: %v %v %v", views, bad, err)
	}
	w := lock(t, r)
	if err := w.Views().Create(&view.View{Name: "facts", Query: "type:fact"}, TestTime, false); err != nil {
		t.Fatal(err)
	}
	if v, err := r.Views().Get("facts"); err != nil || v.Query != "type:fact" {
		t.Fatalf("Get = %+v, %v", v, err)
	}
}

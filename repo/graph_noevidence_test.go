package repo

import (
	"errors"
	"slices"
	"testing"

	"github.com/ctx-dev/ctx/graph"
)

// TestGraphNoEvidence checks that a graph built with NoEvidence is the
// graph built without it, less the edges' evidence: the same nodes in
// the same numbering, and the same edges with their ends, labels and
// confidences, when batch edges come before the code's (some of them
// the code's own, at another confidence) and a diagnostic's after it,
// referencing a code item.
func TestGraphNoEvidence(t *testing.T) {
	r := NewTestRepo(t)
	id := r.Config.Repo.ID
	main, foo := graph.ItemNode(id, "example.com/fix.main"), graph.ItemNode(id, "example.com/fix.foo")
	w, err := r.Lock(t.Context(), LockOptions{Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	batch := adding(
		graph.Edge{From: main, To: foo, Label: graph.Calls, Evidence: graph.Evidence{Tool: graph.ToolLLM, Confidence: graph.Low}},
		graph.Edge{From: graph.FileNode(id, "main.go"), To: graph.ItemNode(id, "example.com/fix.gone"), Label: graph.Defines, Evidence: humanHigh},
	)
	if _, err := w.Commit(t.Context(), CommitOptions{Message: "edges", NoNarrative: true, EdgeBatches: []*graph.EdgeBatch{batch}}); err != nil {
		t.Fatal(err)
	}
	w.Unlock()
	writeDated(t, r, map[string]string{
		"go.mod":  "module example.com/fix\n",
		"main.go": "package main\n\nfunc main() {\n\tfoo()\n}\n\nfunc foo() {}\n",
		"util.go": "package main\n\nfunc bar() { foo(); main() }\n",
	})
	mustIngest(t, r, IngestOptions{Semantics: true})
	if _, err := recordCommand(t, r, CommandOptions{Name: "go build", Output: []byte("# example.com/fix\n./main.go:4:2: undefined: foo\n"), ExitCode: 1}); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []GraphOptions{{NoNarrative: true}, {NoNarrative: true, NoBatches: true}} {
		full := buildGraph(t, r, opts)
		var code, diag int
		for e := range int32(full.EdgeCount()) {
			o := full.Origin(e)
			if o.File != "" {
				code++
			}
			if o.Derived != "" && full.Edge(e).To.Kind == graph.NodeItem {
				diag++
			}
		}
		if code == 0 || diag == 0 {
			t.Fatalf("%+v: %d code edges, %d diagnostic references to items: not the graph to test", opts, code, diag)
		}
		opts.NoEvidence = true
		lean := buildGraph(t, r, opts)
		if lean.Len() != full.Len() || lean.EdgeCount() != full.EdgeCount() {
			t.Fatalf("%+v: %d nodes, %d edges; without NoEvidence %d, %d", opts, lean.Len(), lean.EdgeCount(), full.Len(), full.EdgeCount())
		}
		for i := range int32(full.Len()) {
			if lean.Node(i) != full.Node(i) || !slices.Equal(lean.Out(i), full.Out(i)) || !slices.Equal(lean.In(i), full.In(i)) {
				t.Errorf("%+v: node %d: %v, want %v, or its edges differ", opts, i, lean.Node(i), full.Node(i))
			}
		}
		for e := range int32(full.EdgeCount()) {
			lf, lt := lean.Ends(e)
			ff, ft := full.Ends(e)
			if lf != ff || lt != ft || lean.Label(e) != full.Label(e) {
				t.Errorf("%+v: edge %d differs", opts, e)
			}
			if got, want := lean.Confidence(e), full.Edge(e).Evidence.Confidence; got != want || full.Confidence(e) != want {
				t.Errorf("%+v: edge %d: confidence %q (%q without NoEvidence), want %q", opts, e, got, full.Confidence(e), want)
			}
			if lean.Edge(e) != nil {
				t.Errorf("%+v: Edge(%d) is not nil", opts, e)
			}
		}
	}
	if _, err := r.Graph(t.Context(), GraphOptions{NoEvidence: true}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("NoEvidence with the narrative: %v, want ErrInvalidArgument", err)
	}
}

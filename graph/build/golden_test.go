package build

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/object"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// testRepo is the repository id the tests derive node ids from.
const testRepo = "repo-test"

// checkGolden compares got with testdata/golden/name, or rewrites the file
// with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run with -update if the change is intended):\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

// snapshotJSON encodes v and renders the payload as JSON, the form the
// golden files hold: what is stored, field for field.
func snapshotJSON(t *testing.T, v object.Typed) []byte {
	t.Helper()
	p, err := object.Encode(v)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	j, err := object.ToJSON(p, true)
	if err != nil {
		t.Fatalf("ToJSON: %v", err)
	}
	return append(j, '\n')
}

// edgeText renders edges one per line: "FROM LABEL TO CONFIDENCE".
func edgeText(edges []graph.Edge) string {
	var b strings.Builder
	for _, e := range edges {
		fmt.Fprintf(&b, "%s %s %s %s\n", e.From.Name(), e.Label, e.To.Name(), e.Evidence.Confidence)
	}
	return b.String()
}

// checkEdges checks what every edge list must satisfy: valid edges with
// build evidence, each (from, to, label) once, in sorted order.
func checkEdges(t testing.TB, edges []graph.Edge) {
	t.Helper()
	seen := make(map[graph.EdgeKey]bool, len(edges))
	for i := range edges {
		e := &edges[i]
		if err := e.Validate(); err != nil {
			t.Fatalf("edge %d %s %s %s: %v", i, e.From.Name(), e.Label, e.To.Name(), err)
		}
		if e.Evidence.Tool != graph.ToolBuild {
			t.Fatalf("edge %d: tool %q, want build", i, e.Evidence.Tool)
		}
		if seen[e.Key()] {
			t.Fatalf("edge %d %s %s %s repeated", i, e.From.Name(), e.Label, e.To.Name())
		}
		seen[e.Key()] = true
	}
	b := &edgeSet{}
	for _, e := range edges {
		b.add(e.From, e.Label, e.To, e.Evidence.Confidence)
	}
	if got, want := edgeText(b.sorted()), edgeText(edges); got != want {
		t.Fatalf("edges are not sorted:\n%s", want)
	}
	// The edges fit in a batch.
	if _, err := object.Encode(&graph.EdgeBatch{Edges: edges}); err != nil {
		t.Fatalf("edge batch: %v", err)
	}
}

// roundTrip encodes v, decodes it into fresh, and checks that the
// re-encoding gives the same bytes.
func roundTrip(t testing.TB, v, fresh object.Typed) {
	t.Helper()
	p, err := object.Encode(v)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if err := object.Decode(p, fresh); err != nil {
		t.Fatalf("Decode: %v", err)
	}
	q, err := object.Encode(fresh)
	if err != nil {
		t.Fatalf("Encode(Decode): %v", err)
	}
	if !bytes.Equal(p, q) {
		t.Fatalf("Encode(Decode(p)) != p:\n%x\n%x", p, q)
	}
}

package extract

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/object"
)

// TestFileVersionInvalidUTF8 stores a file whose import path and doc
// comment are not UTF-8, as in Go's own testdata
// (internal/types/testdata/check/importdecl0/importdecl0b.go): the stored
// form must decode, with the bad bytes replaced.
func TestFileVersionInvalidUTF8(t *testing.T) {
	src := []byte("package p\n\nimport (\n\t\"abc\\xffdef\"\n\t\"fmt\"\n)\n\n// F says \xff.\nfunc F() { fmt.Println() }\n")
	f := &File{Path: "p/p.go", Src: src, ModuleInfo: goLang{}.Module(&memProject{}, "p/p.go")}
	r, err := goLang{}.Extract(f)
	if err != nil {
		t.Fatal(err)
	}
	edges := Resolve([]*Result{r}, ResolveOptions{})
	v := NewFileVersion(f.Path, object.Sum(object.KindBlob, src), src, r, edges[0])
	if err := v.Validate(); err != nil {
		t.Fatal(err)
	}
	payload, err := object.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	var back FileVersion
	if err := object.Decode(payload, &back); err != nil {
		t.Fatalf("decode: %v", err)
	}
	var paths []string
	for _, im := range back.Imports {
		paths = append(paths, im.Path)
	}
	if got, want := strings.Join(paths, " "), "abc\uFFFDdef fmt"; got != want {
		t.Errorf("import paths %q, want %q", got, want)
	}
	for _, n := range back.Nodes {
		if !utf8.ValidString(n.Key) {
			t.Errorf("node key %q is not UTF-8", n.Key)
		}
	}
	if len(back.Items) != 1 || back.Items[0].Doc != "F says \uFFFD." {
		t.Errorf("items %+v", back.Items)
	}
}

// TestFileVersionValidateWritesNothing checks that Validate leaves the
// node table's spare capacity alone: validating one value from several
// goroutines must not race.
func TestFileVersionValidateWritesNothing(t *testing.T) {
	nodes := make([]Node, 1, 4)
	nodes[0] = Node{Kind: graph.NodeFile, Key: "a.go"}
	v := &FileVersion{Path: "a.go", Blob: object.Sum(object.KindBlob, []byte("a")), Nodes: nodes,
		Module: &Node{Kind: graph.NodePackage, Key: "example.com/a", Ecosystem: "go"}}
	if err := v.Validate(); err != nil {
		t.Fatal(err)
	}
	if spare := nodes[:2][1]; spare != (Node{}) {
		t.Fatalf("Validate wrote %+v past the node table", spare)
	}
	v.Module = &Node{Kind: graph.NodePackage, Key: "example.com/a"} // no ecosystem
	if err := v.Validate(); err == nil || !strings.Contains(err.Error(), "node 1") {
		t.Fatalf("a module without its ecosystem: %v, want node 1 refused", err)
	}
}

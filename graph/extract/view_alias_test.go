package extract

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/object"
)

// TestDecodeKeepsNothingLent checks that a file version read through
// object.GetTypedLax and GetTyped, which decode bytes the store lends
// (Store.View) and reuses for the next read, keeps none of them: after
// reads that overwrite the store's buffers in place, the decoded value is
// still the one stored. GetTypedLax decodes with the file version's own
// decoder, GetTyped with the reflective one.
func TestDecodeKeepsNothingLent(t *testing.T) {
	s, err := object.NewStore(t.TempDir(), object.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	span := graph.Span{StartLine: 3, StartCol: 1, EndLine: 9, EndCol: 2}
	want := &FileVersion{
		Path: "pkg/file.go", Blob: object.Sum(object.KindBlob, []byte("x")), Bytes: 1000, Lines: 40, Language: "go",
		Module: &Node{Kind: graph.NodeModule, Key: "example.com/mod"},
		Items: []StoredItem{
			{Kind: Function, Name: "Run", Key: "pkg.Run", Visibility: Public, Span: span, SignatureHash: bytes.Repeat([]byte{7}, 16), Doc: "Run runs."},
			{Kind: Method, Name: "Stop", Key: "pkg.T.Stop", Parent: "pkg.T", Visibility: Private, Span: span, Doc: "Stop stops."},
		},
		Nodes: []Node{{Kind: graph.NodeItem, Key: "pkg.Run"}, {Kind: graph.NodeItem, Key: "pkg.T.Stop"}},
		Edges: []StoredEdge{
			{From: 0, To: 1, Label: graph.Calls, Span: &span, Confidence: graph.High},
			{From: 1, To: 0, Label: graph.Calls, Confidence: graph.Medium},
		},
	}
	id, err := object.PutTyped(s, want)
	if err != nil {
		t.Fatal(err)
	}
	// Junk of every size up to the file version's, so that each buffer is
	// overwritten in place rather than replaced by a larger one.
	_, payload, err := s.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	var junk []object.ID
	for n := 1; n <= len(payload)+64; n += 7 {
		junk = append(junk, mustPutBlob(t, s, bytes.Repeat([]byte{0xff}, n)))
	}
	for _, get := range []struct {
		name string
		fn   func(object.Getter, object.ID, object.Typed) error
	}{{"GetTypedLax", object.GetTypedLax}, {"GetTyped", object.GetTyped}} {
		got := new(FileVersion)
		if err := get.fn(s, id, got); err != nil {
			t.Fatalf("%s: %v", get.name, err)
		}
		for _, j := range junk {
			if err := s.View(j, func(object.Kind, []byte) error { return nil }); err != nil {
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: after the store's buffers were reused, the decoded version is\n%+v\nwant\n%+v", get.name, got, want)
		}
	}
}

func mustPutBlob(t *testing.T, s *object.Store, b []byte) object.ID {
	t.Helper()
	id, err := s.Put(object.KindBlob, b)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

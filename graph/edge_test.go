package graph

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/object"
)

func TestParseLabel(t *testing.T) {
	tests := []struct {
		in   string
		want Label
	}{
		{"derived_from", DerivedFrom},
		{"DerivedFrom", DerivedFrom},
		{"DERIVED_FROM", DerivedFrom},
		{"derived-from", DerivedFrom},
		{"Calls", Calls},
		{"RELATES_TO", RelatesTo},
		{"childof", ChildOf},
		{"depends_on", DependsOn},
		{"DEPENDS_ON", DependsOn},
	}
	for _, tt := range tests {
		got, err := ParseLabel(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseLabel(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "calls!", "frobnicates", "derived from"} {
		_, err := ParseLabel(bad)
		if err == nil || !strings.Contains(err.Error(), "valid: contains, defines") {
			t.Errorf("ParseLabel(%q) = %v, want an error listing the labels", bad, err)
		}
	}
	for _, l := range Labels {
		if got, err := ParseLabel(string(l)); err != nil || got != l {
			t.Errorf("ParseLabel(%q) = %q, %v", l, got, err)
		}
	}
}

func testEdge() Edge {
	a, b := object.Sum(object.KindBlob, []byte("a")), object.Sum(object.KindBlob, []byte("b"))
	w := 0.5
	return Edge{
		From: NodeID{Kind: NodeFile, ID: a}, To: NodeID{Kind: NodeItem, ID: b}, Label: Defines, Weight: &w,
		Evidence: Evidence{Tool: ToolParser, Confidence: High, Span: &Span{StartLine: 3, StartCol: 1, EndLine: 9, EndCol: 2}, BlobID: &a},
	}
}

func TestEdgeValidate(t *testing.T) {
	nan, zero := math.NaN(), object.Zero
	tests := []struct {
		name   string
		change func(e *Edge)
		ok     bool
	}{
		{"valid", func(e *Edge) {}, true},
		{"bad from kind", func(e *Edge) { e.From.Kind = "gadget" }, false},
		{"bad to kind", func(e *Edge) { e.To.Kind = "" }, false},
		{"zero node id", func(e *Edge) { e.To.ID = object.Zero }, false},
		{"bad label", func(e *Edge) { e.Label = "Calls" }, false},
		{"bad tool", func(e *Edge) { e.Evidence.Tool = "oracle" }, false},
		{"bad confidence", func(e *Edge) { e.Evidence.Confidence = "certain" }, false},
		{"NaN weight", func(e *Edge) { e.Weight = &nan }, false},
		{"zero evidence blob", func(e *Edge) { e.Evidence.BlobID = &zero }, false},
		{"zero evidence commit", func(e *Edge) { e.Evidence.CommitID = &zero }, false},
		{"span line 0", func(e *Edge) { e.Evidence.Span.StartLine = 0 }, false},
		{"backward span", func(e *Edge) { e.Evidence.Span.EndLine = 2 }, false},
		{"no span", func(e *Edge) { e.Evidence.Span = nil }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := testEdge()
			tt.change(&e)
			err := (&EdgeBatch{Edges: []Edge{e}}).Validate()
			if (err == nil) != tt.ok {
				t.Fatalf("Validate = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestEdgeBatchRoundTrip(t *testing.T) {
	reg, err := object.NewRegistry(append(object.CoreTypes(), Types()...)...)
	if err != nil {
		t.Fatal(err)
	}
	c := object.Sum(object.KindTyped, []byte("commit"))
	e := testEdge()
	e.Evidence.CommitID = &c
	b := &EdgeBatch{Edges: []Edge{e, testEdge()}, CreatedAt: 1790000000}
	payload, err := object.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := object.CheckCanonical(payload); err != nil {
		t.Fatal(err)
	}
	v, err := reg.Decode(payload)
	if err != nil {
		t.Fatal(err)
	}
	again, err := object.Encode(v)
	if err != nil || string(again) != string(payload) {
		t.Fatalf("re-encoding differs: %v", err)
	}
	links := v.Links()
	if len(links) != 3 || links[0].Type != "commit" || links[1].Kind != object.KindBlob {
		t.Fatalf("Links = %+v", links)
	}
	js, err := object.ToJSON(payload, false)
	if err != nil || !strings.Contains(string(js), `"label":"defines"`) || !strings.Contains(string(js), `"weight":0.5`) {
		t.Fatalf("ToJSON = %s, %v", js, err)
	}
	back, err := reg.FromJSON(js)
	if err != nil || string(back) != string(payload) {
		t.Fatalf("FromJSON(ToJSON) differs: %v", err)
	}
	// An integer weight is not a float (FORMAT.md §4.1).
	bad := strings.Replace(string(js), `"weight":0.5`, `"weight":1`, 1)
	if p, err := reg.FromJSON([]byte(bad)); err == nil {
		if err := object.Decode(p, new(EdgeBatch)); err != nil {
			t.Fatalf("a float weight of 1 must decode: %v", err)
		}
	}
	if err := object.Decode(payload, new(object.Tree)); !errors.Is(err, object.ErrDecode) {
		t.Fatalf("decoding an edge batch as a tree: %v", err)
	}
}

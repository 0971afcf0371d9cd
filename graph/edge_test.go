package graph

import (
	"bytes"
	"errors"
	"math"
	"slices"
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

func testTombstone() Tombstone {
	e := testEdge()
	c := object.Sum(object.KindTyped, []byte("unlink commit"))
	return Tombstone{From: e.From, To: e.To, Label: e.Label,
		Evidence: Evidence{Tool: ToolHuman, Confidence: High, CommitID: &c}}
}

func TestEdgeBatchValidateTombstones(t *testing.T) {
	zero := object.Zero
	tests := []struct {
		name   string
		change func(t *Tombstone)
		ok     bool
	}{
		{"valid", func(t *Tombstone) {}, true},
		{"bad from kind", func(t *Tombstone) { t.From.Kind = "gadget" }, false},
		{"bad to kind", func(t *Tombstone) { t.To.Kind = "" }, false},
		{"zero from id", func(t *Tombstone) { t.From.ID = object.Zero }, false},
		{"bad label", func(t *Tombstone) { t.Label = "DEFINES" }, false},
		{"bad tool", func(t *Tombstone) { t.Evidence.Tool = "" }, false},
		{"bad confidence", func(t *Tombstone) { t.Evidence.Confidence = "" }, false},
		{"zero evidence commit", func(t *Tombstone) { t.Evidence.CommitID = &zero }, false},
		{"zero evidence blob", func(t *Tombstone) { t.Evidence.BlobID = &zero }, false},
		{"backward span", func(t *Tombstone) { t.Evidence.Span = &Span{StartLine: 5, EndLine: 4} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := []Tombstone{testTombstone(), testTombstone()}
			tt.change(&ts[1])
			b := &EdgeBatch{Edges: []Edge{testEdge()}, Tombstones: ts}
			err := b.Validate()
			if (err == nil) != tt.ok {
				t.Fatalf("Validate = %v, want ok=%v", err, tt.ok)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "tombstones[1]: ") {
				t.Errorf("Validate = %q, want it to name tombstones[1]", err)
			}
			// A batch of only tombstones is checked the same way.
			b.Edges = nil
			if err := b.Validate(); (err == nil) != tt.ok {
				t.Fatalf("without edges: Validate = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestEdgeBatchLinks(t *testing.T) {
	c1 := object.Sum(object.KindTyped, []byte("c1"))
	c2 := object.Sum(object.KindTyped, []byte("c2"))
	blob := object.Sum(object.KindBlob, []byte("why"))
	e0 := testEdge() // a blob
	e0.Evidence.BlobID = &blob
	e1 := testEdge() // a commit and no blob
	e1.Evidence.CommitID, e1.Evidence.BlobID = &c1, nil
	t0 := testTombstone() // a commit and a blob
	t0.Evidence.CommitID, t0.Evidence.BlobID = &c2, &blob
	t1 := testTombstone() // neither
	t1.Evidence.CommitID = nil
	b := &EdgeBatch{Edges: []Edge{e0, e1}, Tombstones: []Tombstone{t0, t1}}
	want := []object.Link{
		{Field: "edges[0].evidence.blob_id", ID: blob, Kind: object.KindBlob},
		{Field: "edges[1].evidence.commit_id", ID: c1, Kind: object.KindTyped, Type: "commit"},
		{Field: "tombstones[0].evidence.blob_id", ID: blob, Kind: object.KindBlob},
		{Field: "tombstones[0].evidence.commit_id", ID: c2, Kind: object.KindTyped, Type: "commit"},
	}
	got := b.Links()
	slices.SortFunc(got, func(a, b object.Link) int { return strings.Compare(a.Field, b.Field) })
	if !slices.Equal(got, want) {
		t.Errorf("Links =\n%+v\nwant\n%+v", got, want)
	}
	if ls := (&EdgeBatch{}).Links(); len(ls) != 0 {
		t.Errorf("empty batch: Links = %+v", ls)
	}
}

// oldEdgeBatch is an edge batch as a ctx without tombstones wrote it.
type oldEdgeBatch struct {
	Edges     []Edge `json:"edges"`
	CreatedAt int64  `json:"created_at"`
}

func (*oldEdgeBatch) TypeName() string     { return "edge_batch" }
func (*oldEdgeBatch) Links() []object.Link { return nil }

func TestEdgeBatchTombstonesRoundTrip(t *testing.T) {
	keyless := testEdge()
	keyless.From.Key, keyless.To.Key = "", ""
	keyed := testEdge()
	keyed.From.Key, keyed.To.Key = "a.go", "a.F"
	keyedTombstone := testTombstone()
	keyedTombstone.To.Key = "a.F"
	tests := []struct {
		name  string
		batch EdgeBatch
	}{
		{"no tombstones", EdgeBatch{Edges: []Edge{keyless}, CreatedAt: 1}},
		{"empty tombstones", EdgeBatch{Edges: []Edge{keyless}, CreatedAt: 1, Tombstones: []Tombstone{}}},
		{"tombstones", EdgeBatch{Edges: []Edge{keyed}, CreatedAt: 2, Tombstones: []Tombstone{testTombstone()}}},
		{"only tombstones", EdgeBatch{CreatedAt: 3, Tombstones: []Tombstone{testTombstone(), keyedTombstone}}},
		{"nothing", EdgeBatch{CreatedAt: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := object.Encode(&tt.batch)
			if err != nil {
				t.Fatal(err)
			}
			back := new(EdgeBatch)
			if err := object.Decode(p, back); err != nil {
				t.Fatal(err)
			}
			if again, err := object.Encode(back); err != nil || !bytes.Equal(again, p) {
				t.Fatalf("re-encoding differs (%v)", err)
			}
			if len(back.Edges) != len(tt.batch.Edges) || len(back.Tombstones) != len(tt.batch.Tombstones) {
				t.Fatalf("decoded %d edges, %d tombstones", len(back.Edges), len(back.Tombstones))
			}
			for i := range back.Tombstones {
				if back.Tombstones[i].Key() != tt.batch.Tombstones[i].Key() || *back.Tombstones[i].Evidence.CommitID != *tt.batch.Tombstones[i].Evidence.CommitID {
					t.Fatalf("tombstone %d: %+v", i, back.Tombstones[i])
				}
			}
			for i := range back.Edges {
				if back.Edges[i].From != tt.batch.Edges[i].From || back.Edges[i].To != tt.batch.Edges[i].To {
					t.Fatalf("edge %d: %+v", i, back.Edges[i])
				}
			}
			js, err := object.ToJSON(p, false)
			if err != nil {
				t.Fatal(err)
			}
			if has := strings.Contains(string(js), `"tombstones"`); has != (len(tt.batch.Tombstones) > 0) {
				t.Errorf("tombstones key present = %v in %s", has, js)
			}
			// A node's key is written only when it has one.
			wantKey := false
			for _, e := range tt.batch.Edges {
				wantKey = wantKey || e.From.Key != "" || e.To.Key != ""
			}
			for _, ts := range tt.batch.Tombstones {
				wantKey = wantKey || ts.From.Key != "" || ts.To.Key != ""
			}
			if has := strings.Contains(string(js), `"key"`); has != wantKey {
				t.Errorf("key present = %v in %s", has, js)
			}

			// An old reader reads the edges of any batch (it ignores the
			// tombstones it does not know); an old writer writes the same
			// bytes as a new one for a batch without tombstones.
			old := new(oldEdgeBatch)
			if err := object.Decode(p, old); err != nil {
				t.Fatalf("old reader: %v", err)
			}
			if len(old.Edges) != len(tt.batch.Edges) {
				t.Fatalf("old reader: %d edges", len(old.Edges))
			}
			if len(tt.batch.Tombstones) == 0 {
				op, err := object.Encode(old)
				if err != nil || !bytes.Equal(op, p) {
					t.Fatalf("old writer: bytes differ (%v)", err)
				}
			}
		})
	}
}

// TestEdgeBatchDecodeStrict: an absent optional field has one encoding,
// no key, so empty tombstones or an empty node key are refused.
func TestEdgeBatchDecodeStrict(t *testing.T) {
	e := testEdge()
	node := func(key string) map[string]any {
		return map[string]any{"kind": "file", "id": e.From.ID, "key": key}
	}
	edge := func(from map[string]any) map[string]any {
		return map[string]any{"from": from, "to": e.To, "label": "defines",
			"evidence": map[string]any{"tool": "parser", "confidence": "high"}}
	}
	tests := []struct {
		name string
		body map[string]any
		ok   bool
	}{
		{"canonical", map[string]any{"edges": []any{edge(node("a.go"))}, "created_at": 1}, true},
		{"empty tombstones", map[string]any{"edges": []any{edge(node("a.go"))}, "created_at": 1, "tombstones": []any{}}, false},
		{"null tombstones", map[string]any{"edges": []any{edge(node("a.go"))}, "created_at": 1, "tombstones": nil}, false},
		{"empty key", map[string]any{"edges": []any{edge(node(""))}, "created_at": 1}, false},
		{"no edges", map[string]any{"created_at": 1}, false},
		{"an invalid tombstone", map[string]any{"edges": []any{}, "created_at": 1,
			"tombstones": []any{map[string]any{"from": e.From, "to": e.To, "label": "nope",
				"evidence": map[string]any{"tool": "human", "confidence": "high"}}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := object.Decode(rawPayload(t, "edge_batch", tt.body), new(EdgeBatch))
			if tt.ok && err != nil || !tt.ok && !errors.Is(err, object.ErrDecode) {
				t.Fatalf("Decode = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

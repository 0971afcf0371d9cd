package index

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/ctx-dev/ctx/graph"
)

func testRecords() []Doc {
	return []Doc{
		{Kind: DocFile, Node: graph.FileNode("r", "net/http/client.go"), Title: "net/http/client.go", Path: "net/http/client.go", Text: "net/http/client.go"},
		{Kind: DocItem, Node: graph.ItemNode("r", "net/http.Client.Do"), Title: "method net/http.Client.Do", Path: "net/http/client.go",
			StartLine: 10, EndLine: 40, Text: "net/http.Client.Do\nDo sends a request.\nfunc (c *Client) Do()", Tokens: 12},
		{Kind: "decision", Node: graph.NarrativeNode("decision", "d-1"), Title: "Retry with backoff", Path: ".ctx/narrative/decisions.md",
			Text: "We retry.", Tags: []string{"tier:reference", "net"}, Updated: -5, Superseded: true, Tokens: 3},
		{},
	}
}

// TestRecordRoundTrip checks that a record decodes to the document
// encoded, and that its head agrees.
func TestRecordRoundTrip(t *testing.T) {
	for i, d := range testRecords() {
		b := appendRecord(nil, &d, uint32(i*7))
		got, n, err := decodeRecord(b)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if n != uint32(i*7) {
			t.Errorf("record %d: length %d, want %d", i, n, i*7)
		}
		if len(d.Tags) == 0 {
			d.Tags = nil
		}
		if !reflect.DeepEqual(got, d) {
			t.Errorf("record %d: decoded %+v, want %+v", i, got, d)
		}
		h, err := decodeRecordHead(b)
		if err != nil || h != (recordHead{Kind: d.Kind, NodeKey: d.Node.Key, Path: d.Path}) {
			t.Errorf("record %d: head %+v, %v", i, h, err)
		}
		for cut := range len(b) {
			if _, _, err := decodeRecord(b[:cut]); err == nil {
				t.Errorf("record %d cut at %d of %d bytes: no error", i, cut, len(b))
			}
		}
	}
}

// FuzzRecord checks that the record decoders never panic, and that a
// record decodeRecord accepts has a head that agrees with it and
// encodes back to an equivalent record.
func FuzzRecord(f *testing.F) {
	for i, d := range testRecords() {
		f.Add(appendRecord(nil, &d, uint32(i)))
	}
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, herr := decodeRecordHead(b)
		d, n, err := decodeRecord(b)
		if err != nil {
			return
		}
		if herr != nil || h.Kind != d.Kind || h.NodeKey != d.Node.Key || h.Path != d.Path {
			t.Fatalf("head %+v, %v of record %+v", h, herr, d)
		}
		re := appendRecord(nil, &d, n)
		d2, n2, err := decodeRecord(re)
		if err != nil || n2 != n || !reflect.DeepEqual(d, d2) {
			t.Fatalf("re-encoded record decodes to %+v, %d, %v; want %+v, %d", d2, n2, err, d, n)
		}
		if bytes.Equal(re, b) != bytes.Equal(appendRecord(nil, &d2, n2), b) {
			t.Fatal("encoding is not deterministic")
		}
	})
}

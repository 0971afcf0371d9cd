package index

import (
	"bytes"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/index/reader"
	"github.com/ctx-dev/ctx/object"
)

func testRecords() []Doc {
	return []Doc{
		{Kind: DocFile, Node: graph.FileNode("r", "net/http/client.go"), Title: "net/http/client.go", Path: "net/http/client.go", Text: "net/http/client.go"},
		{Kind: DocItem, Node: graph.ItemNode("r", "net/http.Client.Do"), Title: "method net/http.Client.Do", Path: "net/http/client.go",
			StartLine: 10, EndLine: 40, Text: "net/http.Client.Do\nDo sends a request.\nfunc (c *Client) Do()", Tokens: 12},
		{Kind: "decision", Node: graph.NarrativeNode("decision", "d-1"), Title: "Retry with backoff", Path: ".ctx/narrative/decisions.md",
			Text: "We retry.", Tags: []string{"tier:reference", "net"}, Updated: -5, Superseded: true, Tokens: 3},
		{Kind: "open-question", Node: graph.NarrativeNode("open-question", "q-1"), Title: "q-1", Text: "q-1\n"},
		{Kind: DocDiagnostic, Node: graph.DiagnosticNode(graph.ItemNode("r", "x").ID, 3), Title: "error: x", Path: "a.go", StartLine: 4, EndLine: 4, Text: "error: x\na.go\ngo vet"},
		{Kind: DocItem, Node: graph.ItemNode("r", "a\nb c"), Title: " a\nb c", Path: "a\nb c", Text: "a\nb c\n"},
		{Kind: DocItem, Node: graph.ItemNode("r", "k"), Title: "k k", Path: "k", Text: "k"},
		{},
	}
}

// TestRecordCorrupt checks that both decoders reject records whose flags
// disagree with what is stored, and a count of tokens out of range.
func TestRecordCorrupt(t *testing.T) {
	item := Doc{Kind: DocItem, Node: graph.ItemNode("r", "a.B"), Title: "func a.B", Path: "a.go", Text: "a.B\nbody"}
	setFlags := func(d Doc, set byte) []byte {
		b := appendRecord(nil, &d, 1)
		b[1] |= set // the version is one byte
		return b
	}
	other := item
	other.Node.Kind = "other"
	keyless := Doc{Kind: DocFile, Title: "x"}
	huge := item
	var tooMany uint64 = 1 << 31 // a variable: an int of 32 bits cannot hold it
	huge.Tokens = int(tooMany)
	for name, b := range map[string][]byte{
		"unknown flag":             setFlags(item, 0x80),
		"node kind stored":         setFlags(other, reader.RecNodeKind),
		"path stored":              setFlags(item, reader.RecPathKey),
		"title flag without a key": setFlags(keyless, reader.RecTitleKey),
		"path flag without a key":  setFlags(keyless, reader.RecPathKey),
		"text flag without a key":  setFlags(keyless, reader.RecTextKey),
	} {
		if _, _, err := decodeRecord(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: decodeRecord = %v, want ErrCorrupt", name, err)
		}
		if _, err := decodeRecordHead(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: decodeRecordHead = %v, want ErrCorrupt", name, err)
		}
	}
	if strconv.IntSize == 64 {
		if _, _, err := decodeRecord(appendRecord(nil, &huge, 1)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("2^31 tokens: decodeRecord = %v, want ErrCorrupt", err)
		}
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
		// The writer's record is canonical: it encodes back to itself.
		if again := appendRecord(nil, &d2, n2); !bytes.Equal(again, re) {
			t.Fatalf("the record %x of %+v encodes back to %x", re, d2, again)
		}
	})
}

// TestNodeName: the reader names nodes as graph does (what search hits
// show), for each kind of node.
func TestNodeName(t *testing.T) {
	ids := []graph.NodeID{
		graph.FileNode("r1", "net/http/client.go"),
		graph.DirectoryNode("r1", "net/http"),
		{Kind: graph.NodeCommit, ID: object.Sum(object.KindBlob, []byte("c")), Key: strings.Repeat("ab", 32)},
		{Kind: graph.NodeCommit, ID: object.Sum(object.KindBlob, []byte("c")), Key: "abc"},
		{Kind: graph.NodeItem, ID: object.Sum(object.KindBlob, []byte("i"))},
		{Kind: "task", Key: "t-01"},
	}
	for _, id := range ids {
		d := Doc{Kind: DocItem, Node: id}
		if got, want := readerDoc(&d).Node.Name(), id.Name(); got != want {
			t.Errorf("%+v: reader names it %q, graph %q", id, got, want)
		}
	}
}

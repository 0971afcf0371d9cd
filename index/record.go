package index

import (
	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/index/reader"
	"github.com/ctx-dev/ctx/object"
)

// Document records are package reader's (docs/INDEX.md): it decodes them
// into its own Doc, whose node is plain values; this package's Doc holds a
// graph.NodeID.

// recordHead is the start of a document record (reader.RecordHead).
type recordHead = reader.RecordHead

// docOf is the Doc of a reader's document.
func docOf(d reader.Doc) Doc {
	return Doc{Kind: d.Kind, Node: graph.NodeID{Kind: graph.NodeKind(d.Node.Kind), ID: object.ID(d.Node.ID), Key: d.Node.Key},
		Title: d.Title, Path: d.Path, StartLine: d.StartLine, EndLine: d.EndLine, Text: d.Text,
		Tags: d.Tags, Updated: d.Updated, Superseded: d.Superseded, Tokens: d.Tokens}
}

// readerDoc is d as package reader holds it.
func readerDoc(d *Doc) reader.Doc {
	return reader.Doc{Kind: d.Kind, Node: reader.Node{Kind: string(d.Node.Kind), ID: d.Node.ID, Key: d.Node.Key},
		Title: d.Title, Path: d.Path, StartLine: d.StartLine, EndLine: d.EndLine, Text: d.Text,
		Tags: d.Tags, Updated: d.Updated, Superseded: d.Superseded, Tokens: d.Tokens}
}

// appendRecord encodes d, whose tokenized length is n.
func appendRecord(b []byte, d *Doc, n uint32) []byte {
	rd := readerDoc(d)
	return reader.AppendRecord(b, &rd, n)
}

// decodeRecord decodes a document record and its length in positions.
func decodeRecord(b []byte) (Doc, uint32, error) { return decodeRecordOpts(b, true) }

// decodeRecordOpts decodes a document record, with its text or not.
func decodeRecordOpts(b []byte, withText bool) (Doc, uint32, error) {
	d, n, err := reader.DecodeRecordOpts(b, withText)
	return docOf(d), n, err
}

// decodeRecordHead decodes the start of a document record.
func decodeRecordHead(b []byte) (recordHead, error) { return reader.DecodeRecordHead(b) }

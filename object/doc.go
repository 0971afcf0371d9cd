// Package object is the content-addressed object store of ctx: immutable
// objects named by the BLAKE3-256 hash of their canonical bytes.
//
// # Nouns
//
//   - ID: 32 bytes, written as 64 lowercase hex digits; the BLAKE3-256
//     hash of an object's canonical bytes.
//   - Kind: blob (raw bytes) or typed (one CBOR data item naming its type).
//   - Canonical bytes: the envelope header followed by the payload. IDs are
//     computed over these, uncompressed, so the compression level never
//     changes an ID.
//   - Typed object: a Go value implementing Typed (Commit, Tree,
//     WorkCommit, and types of other packages such as graph.EdgeBatch),
//     encoded by Encode.
//   - Store: the loose-object directory .ctx/objects/; Batch: a group of
//     writes made durable together; MemStore: an in-memory store.
//
// # Canonical bytes
//
//	offset  size  field
//	0       5     magic "CTXO1" (0x43 0x54 0x58 0x4f 0x31)
//	5       1     kind: 0x01 blob, 0x02 typed
//	6       8     payload length n, unsigned, little-endian
//	14      n     payload
//
//	+-----+-----+-----+-----+-----+------+------------------------+-----------+
//	| 'C' | 'T' | 'X' | 'O' | '1' | kind | length (u64 LE, 8 B)   | payload … |
//	+-----+-----+-----+-----+-----+------+------------------------+-----------+
//
// # Typed payload
//
// Exactly one CBOR data item in Core Deterministic Encoding (RFC 8949
// §4.2.1): a map with one entry whose key is the type name (text) and whose
// value is a map of the type's fields, keyed by their snake_case names.
//
//	A1                      map(1)
//	   66 636F6D6D6974      text(6) "commit"
//	   A7 …                 map(7): the commit's fields
//
// Object IDs inside typed objects are byte strings of 32 bytes (58 20 …).
// Optional fields are omitted when absent; readers ignore keys they do not
// know.
//
// # Files
//
// Each object is stored at objects/<hex[0:2]>/<hex> as one zstd frame (or
// several concatenated frames) that decompresses to its canonical bytes.
// Files are written under a name ending in ".tmp" in the same file system
// and renamed into place, so a complete file is the only thing a reader can
// see under an object's name. Every read decompresses, hashes and compares
// with the name before returning anything.
package object

// Package exchange moves knowledge in and out of a store: ctx export,
// ctx import and ctx ingest. docs/EXPORT.md is the normative description
// of the export file.
//
// # Nouns
//
//   - File: an export document, {"format":"ctx-export","version":1,
//     "nodes":[…],"edges":[…]}: narrative nodes with their whole state
//     (ids, type, stream, title, body, tags, metadata, times, supersede,
//     deletion, derived-from) and the edges edge batches assert from or to
//     them, with their evidence. Encode writes it in one canonical byte
//     form, so that the same store always exports the same bytes; Decode
//     reads it strictly (unknown fields, unknown versions and trailing data
//     are errors).
//   - End: one end of an exported edge: a narrative node by id, or a code
//     node by kind and key, which the importing store turns into its own
//     node id (file and item ids derive from the store's repository id,
//     so the same path names the same file in every store).
//   - Export: the File of a store's working narrative and graph, filtered.
//   - Import: a File written into a store through the writer's paths: node
//     files drafted and checked first (nothing is written when any entry is
//     wrong), then written, then one commit with the narrative and an edge
//     batch. Merge decides what happens to nodes the store already has.
//   - Report: what an import added, updated and skipped.
//   - Ingest: a text document made into a source node, its bytes kept as a
//     blob.
//
// The package never reads the wall clock: times come from the store's
// clock (repo.Repo.Clock) or from the file.
package exchange

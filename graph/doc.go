// Package graph holds the relationship graph of ctx: labelled, directed
// edges between nodes, each with the evidence that supports it.
//
// # Nouns
//
//   - NodeID: a node of the graph, a kind (file, item, task, decision, …)
//     and a 32-byte id. The id is an object ID or a stable id derived by
//     hashing (a file's id is derived from the repository id and its path),
//     so it need not name a stored object.
//   - Label: the relation, from a fixed vocabulary (contains, imports,
//     calls, mentions, derived_from, supersedes, …).
//   - Evidence: where an edge comes from: the tool that asserted it, its
//     confidence, and optionally the commit, source span and blob behind it.
//     An edge without evidence is not a graph edge (design §3.5).
//   - EdgeBatch: an immutable typed object holding the edges created in one
//     operation; commits list the batches they introduce, and the graph at
//     a commit is the union of the batches of its ancestry.
package graph

// Package index is the rebuildable flat-file index under .ctx/index/
// (design §10, docs/INDEX.md): full-text search over code chunks, paths,
// narrative and diagnostics, lookups by path, stable key, name, node id
// and kind, and the graph's adjacency. It is derived from the objects and
// the narrative, never tracked in git, and kept fresh without thought:
// Open (and OpenGraph) compares a manifest of the store (the current
// ref's heads, the stat data of the narrative files) with the ones the
// index's segments were built from, and brings the stale ones up to date
// first: a small change of code by a delta segment beside the code
// segment (and a code graph delta beside the code graph segment), which
// readers merge so that every answer is a full build's; anything else by
// rebuilding the segment. Segments are written beside the current ones
// and switched atomically, so a crash or a concurrent reader never sees a
// half-built index.
package index

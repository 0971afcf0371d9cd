// Package index is the rebuildable flat-file index under .ctx/index/
// (design §10, docs/INDEX.md): full-text search over code chunks, paths,
// narrative and diagnostics, and lookups by path, stable key, name, node
// id and kind. It is derived from the objects and the narrative, never
// tracked in git, and kept fresh without thought: Open compares a
// manifest of the store (the current ref's heads, the stat data of the
// narrative files) with the ones the index's two segments were built
// from, and rebuilds the stale segment (the code's or the narrative's)
// first. Segments are written beside the current ones and switched
// atomically, so a crash or a concurrent reader never sees a half-built
// index.
package index

// Package pack will compile prompt packs: retrieval seeded by full-text and
// entity lookups, expanded through the graph, cut to span granularity and
// fitted to a token budget, with an explanation of every choice
// (design §12).
//
// The package is reserved by the layout of docs/ARCHITECTURE.md; it has no
// code yet.
package pack

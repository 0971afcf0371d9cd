// Package pack compiles prompt packs: retrieval seeded by full-text and
// entity lookups, expanded through the graph, cut to span granularity and
// fitted to a token budget, with an explanation of every choice
// (design §12).
//
// Build runs the pipeline (docs/PACK.md) and Render writes a pack as JSON,
// Markdown or text, within the budget it was built for.
package pack

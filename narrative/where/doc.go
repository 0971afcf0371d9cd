// Package where is the node filter language of `ctx list --where`: a small
// boolean language over the fields of narrative nodes and the edges of the
// graph, such as
//
//	type:decision tag:project:netlib created:>7d
//	(type:task OR type:open-question) AND NOT has:summary
//	-tag:tier:off-context tokens:<1000
//
// docs/QUERY.md is its reference: the grammar, every predicate, the time
// semantics and the errors.
//
// # Nouns
//
//   - Expr: a parsed expression. Parse builds it against a fixed "now",
//     so that relative times (created:>24h) mean one instant however long
//     the caller takes; Match tests a node; String gives the canonical,
//     fully parenthesised form; Needs says which graph facts Match
//     consults; Resolve turns the id prefixes of from: and to: into ids.
//   - Predicate: one field:value test (type:decision, tag:tier:reference,
//     created:>24h, tokens:<1000, has:summary, has:edges, from:ID, to:ID).
//   - Graph: what a node's file alone cannot say — whether a summary
//     derives from it, whether it has edges, and which — answered by the
//     caller from its catalog and its graph.
//   - Error: what is wrong with an expression, at a column, with Caret to
//     show it under the expression.
//
// The package does no I/O and never reads the clock.
package where

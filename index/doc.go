// Package index will hold the rebuildable flat-file index under
// .ctx/index/: path, name, stable-key, snapshot and adjacency lookups and
// full-text postings, derived from objects and narrative and never tracked
// in git (design §10).
//
// The package is reserved by the layout of docs/ARCHITECTURE.md; it has no
// code yet.
package index

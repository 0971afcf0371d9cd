// Package gc will remove objects no ref, session or staging pointer can
// reach, after a safety margin, as a plan that can be shown (--dry-run)
// before it is executed (design §15.3, docs/FORMAT.md §11).
//
// The package is reserved by the layout of docs/ARCHITECTURE.md; it has no
// code yet.
package gc

// Package staging will manage staging sessions: chains of
// object.WorkCommit steps on a session pointer, their compaction into one
// canonical commit, and recovery after a crash (design §11, §15).
//
// The package is reserved by the layout of docs/ARCHITECTURE.md; it has no
// code yet.
package staging

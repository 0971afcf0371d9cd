// Package narrative will hold the human-editable Markdown knowledge of a
// store: .ctx/narrative/ with its README, decisions, daily log, tasks and
// session notes (design §8), parsed into typed nodes and snapshotted into
// blobs by commits (object.NarrativeRef).
//
// The package is reserved by the layout of docs/ARCHITECTURE.md; it has no
// code yet.
package narrative

// Package gc removes the objects no ref or staging pointer can reach,
// after a safety margin, and packs the reachable loose objects into a
// pack file (design §15.3, §15.4; docs/FORMAT.md §3.4 and §11). Run
// shows its plan with DryRun before it changes anything.
package gc

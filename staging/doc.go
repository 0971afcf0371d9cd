// Package staging holds what a staging session is made of on disk: its
// state object (State, stored as "session_state"), the journal that names
// the session's successive states (.ctx/sessions/<id>, one object ID per
// line, append-only), session identifiers, and the one-line summaries a
// compaction writes into the daily log (design §11, §15; docs/FORMAT.md
// §4.14 and §6.5).
//
// The steps themselves (object.WorkCommit), routing commands into a
// session, compaction, abort and recovery are the repo package's: they
// need the store's commits, narrative and graph.
package staging

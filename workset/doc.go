// Package workset is the working set of an agent session (issue 9; the
// context-manager seed): what one agent has seen of the files around it,
// what it has in its context now, and the assembly of that context in a
// cache-friendly order. It is local state under .ctx/local/workset/,
// never tracked, never shared through git (docs/FORMAT.md §21).
//
// # Nouns
//
//   - File: a sourced content object — a file on a file system — with a
//     stable identity (ID: BLAKE3-256 of its type and Source, the
//     file system id and the canonical path) and an append-only list of
//     Versions. A version holds the file's text (as a blob in the
//     working set's own object store), its hashes, its file type and
//     character count; a discovery stub is a version with no content and
//     no file hash ([unread]); a deleted file is a version with no content
//     and Deleted set. File objects are shared by every session of the
//     machine: the same file is the same object.
//   - Call: an unsourced content object, the output of one tool call,
//     written once, owned by its session.
//   - Session: one agent session's state (State): the system prompt, the
//     chat (Turns of user, assistant and toolcall_ref entries), the mount
//     mappings, and four sets of content object IDs: the session index
//     (append-only, every object the session has encountered) ⊇ the
//     metadata pool (shown as one line each) ⊇ the active set (shown
//     in full); and the pinned set (exempt from auto-collapse).
//   - Outcome: what the indexing protocol did to a File: Created,
//     Updated or Unchanged.
//   - Mount: a mapping between an agent-visible path prefix (/workspace in
//     a sandbox) and a canonical host prefix with its file system id.
//   - Render: the four sections in their fixed order — system prompt,
//     metadata pool, chat, active content — fitted to a token budget.
//
// # Layout
//
//	.ctx/local/workset/
//	├── LOCK                      the working set's writer lock (flock)
//	├── objects/                  content blobs: the layout of .ctx/objects/
//	├── files/<64 hex>.json       one File each, named by its ID
//	└── sessions/<key>/state.json one State each
//
// Every file is written by the protocol of FORMAT.md §10, content blobs
// first, then file objects, then the session state, so that a crash
// leaves the state of before or after a command, never a state naming
// something missing.
//
// The agent host (a harness, the Claude Code hooks, a script) feeds the
// working set through Session's Observe methods (ReadFile, WriteFile,
// DeleteFile, Tool, Prompt, Reply, SetSystem, Sync) and the agent steers
// it with Activate, Deactivate, Pin and Unpin.
package workset

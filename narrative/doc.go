// Package narrative is the human-editable knowledge of a store: Markdown
// files under .ctx/narrative/ that people read with cat, edit in any
// editor, and merge with git, and that ctx parses into typed nodes.
//
// # Nouns
//
//   - Space: the narrative directory and the operations that write it.
//   - Node: one piece of knowledge (fact, decision, pattern, observation,
//     hypothesis, open-question, task, summary, source), kept in a file of
//     its own: <type dir>/<slug>-<id>.md.
//   - ID: ten random base32 characters, typed by any unique prefix of four
//     or more, never colliding between teammates who work offline.
//   - Tag: "namespace:value" (or a bare word); "tier:X" sets the node's
//     tier (pinned, reference, working, off-context).
//   - Event: a change to a node (tag, untag, meta, type, supersede,
//     delete, restore, edit), one line appended to its file.
//   - Journal: today's log (log/YYYY-MM-DD.md) and decisions.md, to which
//     ctx appends one line per node created, superseded or deleted.
//   - Catalog: every node, parsed, with the problems found on the way.
//
// # A node file
//
//	# Retry strategy: exponential backoff with jitter     ← title: first line of the content
//
//	<!-- ctx:node                                         ← metadata, written once
//	id: 9x2k4m7qab
//	type: decision
//	created: 2026-11-22T11:30:00Z
//	tags: [project:netlib, tier:reference]
//	meta.confidence: high
//	-->
//
//	## Context                                            ← body: free Markdown
//	…
//
//	<!-- ctx:changes: ctx appends one line per change below this one -->
//	<!-- ctx:event 2026-11-22T12:00:00Z 1 4k2m9x7a tag tier:pinned -->   ← events, appended
//
// The node's content is the title, a blank line and the body. Its state is
// the metadata with the events applied in (sequence, time, event id) order. A human
// may edit any of it; ctx re-reads the file every time.
//
// # Why one file per node, and one-line journal entries
//
// Two teammates who append multi-line entries to the same file and merge
// with git's union driver can get their lines interleaved when the entries
// share a few lines (git refines the conflict on the common lines). Files
// created by one writer only, and appended single lines that each carry a
// unique id, merge cleanly under the union driver that .ctx/.gitattributes
// sets for narrative/: nothing conflicts and nothing is lost.
package narrative

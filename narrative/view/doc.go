// Package view composes the narrative into context for an agent: a view
// is a saved filter expression with a token budget, and rendering it
// selects the nodes the expression matches, orders them by priority and
// keeps as many as fit the budget, in Markdown (for hook injection) or
// JSON (for scripts).
//
// # Nouns
//
//   - View: a name, a query (a filter expression of package where,
//     docs/QUERY.md), a token budget, and optionally a description and
//     a default output format.
//   - Store: the directory .ctx/views/, one file <name>.toml per view.
//     The view "default" needs no file: it is built in (pinned, reference
//     and working nodes), and a file of that name replaces it.
//   - Select: the nodes a query matches, superseded and deleted ones left
//     out unless asked for, highest priority first: pinned, then by tier
//     (reference, working, none, off-context), then the most recently
//     changed, ties by id.
//   - Render: the selected nodes laid out in a Format within a budget.
//     The budget bounds the whole output — headers, markers and JSON
//     punctuation included — counted as (characters+3)/4 tokens, the
//     estimate node sizes use (narrative.Node.Tokens). A node that does
//     not fit is left out, the next one tried, and the header says how
//     many were left out.
//
// # A view file
//
//	# A ctx view: `ctx view render NAME` composes the nodes its query
//	# selects within its budget (docs/FORMAT.md §17).
//	version = 1                                   ← required; 1 is the only version
//	query = "type:decision tag:project:netlib"    ← required
//	budget = 40000                                ← optional; absent: the default budget
//	description = "Decisions about the network library"
//	format = "markdown"                           ← optional: markdown or json
//	created = 2026-09-21T14:13:20Z
//	updated = 2026-09-21T14:13:20Z
//
// The name is the file's, not a key: renaming the file renames the view.
// One file per view, so that teammates who create or change different
// views never touch the same file and git merges their work without a
// conflict.
//
// # The Markdown rendering
//
//	<!-- ctx: 3 nodes, 212 tokens, rendered at 2026-09-21T14:13:20Z -->
//
//	## Pinned
//
//	- [fact:9x2k4m7qab] The first 100 characters of the content, on one line...
//	  - Tags: project:netlib
//
//	## Reference
//
//	### Decisions
//
//	- [decision:5tq8w2hzn1] Retry with exponential backoff
//
//	  The body, indented under the item.
//	  - Rationale: the rationale metadata, if any
//	  - Depends on: [fact:9x2k4m7qab]
//
//	## Working Context
//
//	- [task:2n0t3q6v8r] Add retries to the upload path
//
//	<!-- ctx:end -->
//
// When nodes were left out the header ends "; N omitted (budget B)".
//
// The package reads and writes only the view files; the narrative and the
// graph come from its caller, and it never reads the clock.
package view

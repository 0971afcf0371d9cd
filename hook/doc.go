// Package hook is ctx's side of the Claude Code integration: the six
// hooks Claude Code runs (`ctx hook session-start | prompt-submit |
// post-tool-use | stop | pre-compact | session-end`), the <ctx:*>
// commands an agent writes in its responses, and the per-session state that carries results from one
// hook to the next. An agent host written in Go links it instead of
// running the ctx binary; cmd/ctx adds only flags and exit codes.
//
// # Nouns
//
//   - Event: one of the hooks, named as Claude Code names it
//     (SessionStart, UserPromptSubmit, PostToolUse, Stop, PreCompact,
//     SessionEnd).
//   - Input: the JSON Claude Code writes on a hook's standard input
//     (session_id, cwd, transcript_path, source, prompt, stop_hook_active,
//     trigger, reason, …). Output: the JSON a hook answers with: "{}",
//     hookSpecificOutput.additionalContext (context for the agent), or a
//     systemMessage (a warning for the user).
//   - State: what one Claude Code session keeps between hooks, in
//     .ctx/local/hooks/<session>/ (never tracked, never shared): the
//     session's current task, the transcript cursor (the last entry whose
//     commands ran), and pending results (recall, status, expand,
//     notices) waiting to be injected, exactly once, by the next
//     prompt-submit or session-start. Two agents in one repository have
//     two session ids, so neither receives the other's results.
//   - Directive: a <ctx:*> command (package hook/directive), found by the
//     Stop and PreCompact hooks in the assistant's text (package
//     hook/transcript) and executed through the store's Writer, so that an
//     active staging session records the change as a step.
//
// # Flow
//
//	SessionStart  ── pending results + the default view ──▶ additionalContext
//	Stop          ── transcript → directives → store writes, pending results
//	PreCompact    ── the same as Stop: commands of a turn cut by compaction
//	UserPromptSubmit ── pending results (claimed, then deleted) ──▶ additionalContext
//	SessionEnd    ── removes state of sessions idle for 30 days; nothing slow
//	PostToolUse   ── a file read or written, or paths a Bash/Grep/Glob output
//	                 names, join the session's working set (package workset)
//
// Every injection fits Options.MaxChars (config hooks.max_context_chars,
// 10,000 by default), well under the 50,000 characters above which Claude
// Code stops inlining a hook's output, whatever the budget of the view.
//
// Hooks never break the agent: Run returns an Output in every case, and an
// error only when the store is damaged (IsCorrupt).
package hook

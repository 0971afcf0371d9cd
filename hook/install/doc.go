// Package install puts ctx into Claude Code: the skill that teaches the
// agent the <ctx:*> commands (.claude/skills/ctx/SKILL.md) and the hooks
// in a settings.json that run `ctx hook …` (docs/CLAUDE_CODE.md).
//
// # Nouns
//
//   - Scope: where it goes: Project (<project>/.claude/) or User
//     (~/.claude/, every project; a project without a .ctx store gets
//     "{}" from each hook).
//   - Skill: the embedded SKILL.md: frontmatter (name, a description with
//     the trigger words of hooks design §12) and the commands.
//   - Settings: Claude Code's settings.json,
//     {"hooks": {"SessionStart": [{"matcher": "", "hooks": [{"type":
//     "command", "command": "ctx-core hook session-start"}]}], …}}. Merge adds
//     ctx's hook to each event unless one is there already, keeping every
//     other key, event, group and hook, in their order; Remove takes out
//     only ctx's hooks. Both are idempotent.
//
// A hook is ctx's when its command is `<program> hook <event word>` and
// the program's base name is ctx or ctx-core: an absolute path to the
// binary counts.
package install

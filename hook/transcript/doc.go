// Package transcript reads what an agent said from a Claude Code
// transcript: the JSONL file named by a hook's transcript_path.
//
// # Nouns
//
//   - Entry: one line of the file: a JSON object with type ("user",
//     "assistant", "system", "summary", …), uuid, parentUuid, isSidechain,
//     isMeta and, for messages, message.content: a string or an array of
//     blocks ({"type":"text","text":…}, tool_use, tool_result, thinking…).
//     One API message of the assistant may span several lines that share
//     message.id, one block each.
//   - Conversation: the chain of parentUuid links from the last entry
//     that is neither a sidechain (a subagent's) nor meta, back to the
//     root. Lines of abandoned branches (a message edited and resent) are
//     in the file but not on the chain.
//   - Turn: the assistant's part of the conversation since the user's
//     last prompt — a user entry whose content is text, not tool results.
//   - Cursor: the uuid of the last entry a reader already handled, so
//     that a later read (the Stop hook after PreCompact) returns only
//     what came after it.
//
// Text returns the text blocks of the assistant entries of the last turn
// after the cursor. Lines that are not JSON, entries of unknown types and
// blocks it does not know are skipped: the format belongs to Claude Code
// and grows new fields. ReadFile reads only the end of a large file,
// reading further back only while the turn's start is not in what it
// read. Nothing here panics on any input (FuzzText).
package transcript

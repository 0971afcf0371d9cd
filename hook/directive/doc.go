// Package directive finds the <ctx:*> commands an agent writes in its
// response text (hooks design §11, §16; node graph design "Claude Code
// Integration"):
//
//	<ctx:remember type="fact" tags="tier:reference">content</ctx:remember>
//	<ctx:recall query='type:decision'/>
//
// # Nouns
//
//   - Directive: one command: its name, its attributes (double or single
//     quotes), and for the paired form its content, trimmed of the white
//     space around it.
//   - Problem: something that looks like a command but is not one (an
//     unknown name, a tag left open, a malformed attribute), with its line.
//
// Commands inside Markdown code are not commands: a fenced block (``` or
// ~~~, closed by a fence of the same character at least as long, or by
// the end of the text) or an inline code span (a run of backticks closed
// by a run of the same length) is skipped, so that an agent can show the
// syntax without running it. A paired command's content is taken as
// written, code included, up to the first closing tag outside code.
//
// The package does no I/O and never panics on any input (FuzzParse).
package directive

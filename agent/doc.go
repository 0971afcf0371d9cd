// Package agent is the contract an agent host links to keep a store
// (design §4.1): an agent session observes what the agent does — files
// read and written, commands run, notes, relations — builds prompt packs,
// and flushes and compacts its staging session. It is a thin layer over
// the library functions the ctx commands call (docs/COMPATIBILITY.md), so
// that a host written in Go gets the same behaviour without starting a
// process per call.
//
// # Nouns
//
//   - Session: one agent's use of one store. It holds no store state
//     between calls: each call opens the store, and a call that writes
//     takes the store's writer lock for that call only, so people and
//     other agents can use ctx meanwhile. Writes go where a ctx command's
//     would: a step of the selected staging session (Options.Stage, else
//     the one STAGE names), else main.
//   - Working set: what the agent has seen (package workset), kept per
//     agent session id (Options.Agent); the file observations feed it.
package agent

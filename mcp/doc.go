// Package mcp is ctx's Model Context Protocol server: `ctx mcp` runs it
// over stdio so that an MCP client (Claude Code, any agent host) can read
// and write a ctx store through tools and resources instead of shelling
// out to the ctx binary.
//
// # Nouns
//
//   - Server: the MCP server of one store. It holds no store state
//     between calls: each tool call opens the store afresh, and a call
//     that writes takes the store's writer lock for the call only, never
//     across calls, so a person or another agent can use ctx meanwhile.
//   - Tool: one operation with a JSON schema for its arguments: query,
//     search, remember, recall, relate, show, status, stage_start,
//     stage_compact, and activate/deactivate of an agent session's
//     working set (package workset) (docs/MCP.md lists them). Each calls the library
//     function its CLI command calls (docs/COMPATIBILITY.md), never the
//     ctx binary. A tool that fails answers a result with isError set and
//     the reason as text; a call of an unknown tool is a JSON-RPC error
//     (-32602), as the MCP specification says.
//   - Resource: a narrative file (.ctx/narrative/…, Markdown), named
//     ctx://narrative/PATH. resources/list lists the files present when
//     it is asked; the template ctx://narrative/{+path} reads any of them.
//
// The protocol is ctx's own (jsonrpc.go, session.go, transport.go): the
// stdio subset of MCP that the server needs — JSON-RPC 2.0 framing,
// initialize with version negotiation, ping, cancellation, tools,
// resources and the list_changed notification — and the JSON schemas of
// the tools' arguments, derived from their Go input types (schema.go),
// which also validate and decode each call's arguments. It is small
// enough to own, and owning it keeps every ctx process free of a protocol
// library's package initialisers and 2.8 MB of binary (0.1–0.8 ms of
// every command on the machines measured, docs/benchmarks.md, ninth
// round); the official TypeScript SDK
// client drives it end to end (e2e_test.go). Two guarantees of its own: a
// handler that panics answers an error instead of killing the server, and
// the server writes nothing but protocol messages on its output (its log
// goes to Options.Log, stderr for ctx mcp).
package mcp

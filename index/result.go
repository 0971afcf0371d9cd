package index

import "github.com/ctx-dev/ctx/index/reader"

// Result is a search's answer as ctx search --json prints it and the MCP
// search tool returns it (reader.Result, which reader.NewResult makes
// of the hits of reader.Index.Search).
type Result = reader.Result

// HitView is a hit as it is shown (reader.HitView).
type HitView = reader.HitView

package index

import "github.com/ctx-dev/ctx/index/reader"

// Result is a search's answer as ctx search --json prints it and the MCP
// search tool returns it (reader.Result).
type Result = reader.Result

// HitView is a hit as it is shown (reader.HitView).
type HitView = reader.HitView

// NewResult describes the hits of query q, of which matched documents
// matched.
func NewResult(q string, matched int, hits []Hit) Result {
	rh := make([]reader.Hit, len(hits))
	for i, h := range hits {
		rh[i] = reader.Hit{Doc: readerDoc(&h.Doc), Score: h.Score, Snippet: h.Snippet}
	}
	return reader.NewResult(q, matched, rh)
}

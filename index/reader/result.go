package reader

// Result is a search's answer as ctx search --json prints it and the MCP
// search tool returns it: the query, the number of documents that
// matched, and the hits shown.
type Result struct {
	Query   string    `json:"query"`
	Matched int       `json:"matched"`
	Hits    []HitView `json:"hits"`
}

// HitView is a hit as it is shown: the document's kind, node, title,
// place and tags, the score and the snippet.
type HitView struct {
	Kind      string   `json:"kind"`
	Node      string   `json:"node"`
	Title     string   `json:"title"`
	Path      string   `json:"path,omitempty"`
	StartLine uint32   `json:"start_line,omitempty"`
	EndLine   uint32   `json:"end_line,omitempty"`
	Score     float64  `json:"score"`
	Snippet   string   `json:"snippet"`
	Tags      []string `json:"tags,omitempty"`
}

// NewResult describes the hits of query q, of which matched documents
// matched.
func NewResult(q string, matched int, hits []Hit) Result {
	out := Result{Query: q, Matched: matched, Hits: make([]HitView, 0, len(hits))}
	for _, h := range hits {
		d := h.Doc
		out.Hits = append(out.Hits, HitView{Kind: string(d.Kind), Node: d.Node.Name(), Title: d.Title, Path: d.Path,
			StartLine: d.StartLine, EndLine: d.EndLine, Score: h.Score, Snippet: h.Snippet.Text, Tags: d.Tags})
	}
	return out
}

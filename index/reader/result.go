package reader

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

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

// AppendText appends the hits of query q, of which matched documents
// matched, as ctx search prints them: a line per hit (kind, title, place,
// score) and its snippet indented below, or "no hits". (Without fmt,
// whose first use costs a new process more than the rest of this.)
func AppendText(b []byte, q string, matched int, hits []Hit) []byte {
	if len(hits) == 0 {
		b = append(b, "no hits for "...)
		b = strconv.AppendQuote(b, q)
		return append(b, '\n')
	}
	for _, h := range hits {
		d := h.Doc
		// %-11s of the kind, the title, the place, "  (%.2f)".
		b = append(b, d.Kind...)
		for n := utf8.RuneCountInString(string(d.Kind)); n < 11; n++ {
			b = append(b, ' ')
		}
		b = append(b, ' ')
		b = append(b, d.Title...)
		switch {
		case d.Path != "" && d.StartLine > 0:
			b = append(b, "  "...)
			b = append(b, d.Path...)
			b = append(b, ':')
			b = strconv.AppendUint(b, uint64(d.StartLine), 10)
			b = append(b, '-')
			b = strconv.AppendUint(b, uint64(d.EndLine), 10)
		case d.Kind != DocFile && d.Kind != DocItem && d.Kind != DocDiagnostic:
			b = append(b, "  ["...) // a narrative node: its id
			b = append(b, d.Node.Key...)
			b = append(b, ']')
		}
		b = append(b, "  ("...)
		b = strconv.AppendFloat(b, h.Score, 'f', 2, 64)
		b = append(b, ")\n"...)
		if s := strings.TrimSpace(h.Snippet.Text); s != "" && s != d.Title {
			for line := range strings.SplitSeq(s, "\n") {
				b = append(b, "    "...)
				b = append(b, strings.TrimRight(line, " \t\r")...)
				b = append(b, '\n')
			}
		}
	}
	if matched > len(hits) {
		b = append(b, '(')
		b = strconv.AppendInt(b, int64(len(hits)), 10)
		b = append(b, " of "...)
		b = strconv.AppendInt(b, int64(matched), 10)
		b = append(b, " matching; -n for more)\n"...)
	}
	return b
}

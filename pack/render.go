package pack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"
)

// Tokens estimates the tokens of rendered text as ctx counts them
// everywhere: characters / 4, rounded up.
func Tokens(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }

// Render returns the pack in format f. The budget of a pack built for f
// holds for exactly these bytes.
func Render(p *Pack, f Format) (string, error) {
	r, err := newRenderer(f)
	if err != nil {
		return "", err
	}
	var s strings.Builder
	s.WriteString(r.header(p))
	for i := range p.Retrieved {
		s.WriteString(r.chunk(&p.Retrieved[i], i))
	}
	s.WriteString(r.footer(p))
	return s.String(), nil
}

// renderer renders a pack in pieces whose lengths add up: a header, each
// chunk (with its separator), and a footer. fit counts them one by one.
type renderer interface {
	header(p *Pack) string
	chunk(c *Chunk, i int) string
	footer(p *Pack) string
}

func newRenderer(f Format) (renderer, error) {
	switch f {
	case JSON, "":
		return jsonRenderer{}, nil
	case Markdown:
		return markdownRenderer{}, nil
	case Text:
		return textRenderer{}, nil
	}
	_, err := ParseFormat(string(f))
	return nil, err
}

// jsonRenderer writes the pack as indented JSON, the fields in the order
// of the Pack struct.
type jsonRenderer struct{}

func marshal(v any, prefix string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	_ = enc.Encode(v) // the pack's types always encode
	return strings.TrimSuffix(b.String(), "\n")
}

func (jsonRenderer) header(p *Pack) string {
	return "{\n  \"task\": " + marshal(p.Task, "  ") + ",\n  \"head_commit\": " + marshal(p.HeadCommit, "  ") + ",\n  \"retrieved\": ["
}

func (jsonRenderer) chunk(c *Chunk, i int) string {
	sep := "\n    "
	if i > 0 {
		sep = ",\n    "
	}
	return sep + marshal(c, "    ")
}

func (jsonRenderer) footer(p *Pack) string {
	var s strings.Builder
	if len(p.Retrieved) > 0 {
		s.WriteString("\n  ")
	}
	s.WriteString("],\n  \"graph_context\": " + marshal(p.GraphContext, "  "))
	s.WriteString(",\n  \"recent_narrative\": " + marshal(p.RecentNarrative, "  "))
	s.WriteString(",\n  \"token_budget\": " + marshal(p.TokenBudget, "  "))
	if p.Explain != nil {
		s.WriteString(",\n  \"explain\": " + marshal(p.Explain, "  "))
	}
	s.WriteString("\n}\n")
	return s.String()
}

// markdownRenderer writes the pack for a model's context: the task, each
// chunk under a heading with its code fenced, the graph and the narrative.
type markdownRenderer struct{}

func (markdownRenderer) header(p *Pack) string {
	var s strings.Builder
	fmt.Fprintf(&s, "<!-- ctx: prompt pack, head %s, budget %d tokens (%d reserved for the response) -->\n\n", orNone(p.HeadCommit), p.TokenBudget.Total, p.TokenBudget.ReservedForResponse)
	s.WriteString("# Task\n\n" + p.Task + "\n\n## Retrieved\n")
	return s.String()
}

func (markdownRenderer) chunk(c *Chunk, i int) string {
	var s strings.Builder
	fmt.Fprintf(&s, "\n### %d. %s\n\n", i+1, c.Title)
	fmt.Fprintf(&s, "%s · %s · relevance %.3f", c.ChunkKind, c.Node, c.RelevanceScore)
	if c.ObjectID != "" {
		fmt.Fprintf(&s, " · object %s", c.ObjectID[:min(len(c.ObjectID), 12)])
	}
	s.WriteString("\n\n")
	if c.Snippet != "" {
		fence := fenceFor(c.Snippet)
		s.WriteString(fence + langOf(c) + "\n" + c.Snippet + "\n" + fence + "\n")
	}
	if c.Why != nil {
		s.WriteString("\nWhy: " + marshalLine(c.Why) + "\n")
	}
	return s.String()
}

func (markdownRenderer) footer(p *Pack) string {
	var s strings.Builder
	if len(p.Retrieved) == 0 {
		s.WriteString("\n(nothing retrieved)\n")
	}
	g := p.GraphContext
	fmt.Fprintf(&s, "\n## Graph context\n\nSeeds: %s\n\nExpanded (depth %d): %s\n", listOrNone(g.SeedNodes), g.ExpansionDepth, listOrNone(g.ExpandedNodes))
	if p.RecentNarrative != "" {
		s.WriteString("\n## Recent narrative\n\n" + demote(p.RecentNarrative) + "\n")
	}
	if p.Explain != nil {
		s.WriteString("\n## Explain\n\n" + marshalLine(p.Explain) + "\n")
	}
	fmt.Fprintf(&s, "\n<!-- ctx: %d tokens used of %d -->\n<!-- ctx:end -->\n", p.TokenBudget.Used, p.TokenBudget.Total)
	return s.String()
}

// textRenderer writes the pack for a terminal.
type textRenderer struct{}

func (textRenderer) header(p *Pack) string {
	return fmt.Sprintf("task: %s\nhead: %s\n", oneLine(p.Task), orNone(p.HeadCommit))
}

func (textRenderer) chunk(c *Chunk, i int) string {
	var s strings.Builder
	fmt.Fprintf(&s, "\n%d. %s  [%s, %.3f]\n", i+1, c.Title, c.ChunkKind, c.RelevanceScore)
	for _, l := range strings.Split(c.Snippet, "\n") {
		if c.Snippet != "" {
			s.WriteString("   │ " + l + "\n")
		}
	}
	if c.Why != nil {
		s.WriteString("   why: " + marshalLine(c.Why) + "\n")
	}
	return s.String()
}

func (textRenderer) footer(p *Pack) string {
	var s strings.Builder
	if len(p.Retrieved) == 0 {
		s.WriteString("\nnothing retrieved\n")
	}
	g := p.GraphContext
	fmt.Fprintf(&s, "\ngraph: %d seeds, %d nodes reached (depth %d)\n", len(g.SeedNodes), len(g.ExpandedNodes), g.ExpansionDepth)
	if p.RecentNarrative != "" {
		s.WriteString("\nrecent narrative:\n" + p.RecentNarrative)
	}
	if p.Explain != nil {
		s.WriteString("\nexplain: " + marshalLine(p.Explain) + "\n")
	}
	fmt.Fprintf(&s, "\ntokens: %d used of %d (%d reserved for the response)\n", p.TokenBudget.Used, p.TokenBudget.Total, p.TokenBudget.ReservedForResponse)
	return s.String()
}

// demote makes the recent log's day headings (## DATE) subsections of
// the pack's ## Recent narrative.
func demote(log string) string {
	if strings.HasPrefix(log, "## ") {
		log = "#" + log
	}
	return strings.ReplaceAll(log, "\n## ", "\n### ")
}

func marshalLine(v any) string {
	b, _ := json.Marshal(v) // the pack's types always encode
	return string(b)
}

// fenceFor returns a code fence longer than any run of backticks in s.
func fenceFor(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// langOf names the language of a chunk's fence, from its file's
// extension.
func langOf(c *Chunk) string {
	switch c.ChunkKind {
	case SymbolDefinition, FileContent:
	default:
		return ""
	}
	switch path.Ext(c.Path) {
	case ".go":
		return "go"
	case ".rs":
		return "rust"
	case ".py":
		return "python"
	case ".ts", ".tsx":
		return "typescript"
	case ".js", ".jsx", ".mjs", ".cjs":
		return "javascript"
	case ".md":
		return "markdown"
	}
	return ""
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "(none)"
	}
	return strings.Join(l, ", ")
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > 200 {
		r := []rune(s)
		s = string(r[:200]) + "…"
	}
	return s
}

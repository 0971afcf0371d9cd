package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/narrative"
)

// The edge labels a rendering shows.
const (
	// LabelDependsOn is the label of the "Depends on" line and of
	// edges.depends_on in JSON.
	LabelDependsOn = "depends_on"
	// LabelDerivedFrom is the label of edges.derived_from in JSON.
	LabelDerivedFrom = "derived_from"
)

// Edges answers which nodes a node links to, for the "Depends on" lines
// and the edges of the JSON rendering. Render calls it from its own
// goroutine, for the nodes it renders.
type Edges interface {
	// Targets returns the narrative nodes that id has an edge to with
	// the label (LabelDependsOn, LabelDerivedFrom), in any order; none
	// for an id it does not know.
	Targets(id narrative.ID, label string) []narrative.ID
}

// PreviewLen is the length, in characters, of the content a pinned node
// shows in Markdown (hooks design §13: "first 100 characters + ...").
const PreviewLen = 100

// RenderOptions configure Render.
type RenderOptions struct {
	// Budget bounds the whole rendering, in tokens (Tokens): 1 to
	// MaxBudget.
	Budget int
	// Format is the layout; 0 means Markdown.
	Format Format
	// Now is the time the rendering says it was made at.
	Now time.Time
	// View names the view rendered, for the JSON rendering's meta; ""
	// for a query without a view.
	View string
}

// Validate checks the options.
func (o *RenderOptions) Validate() error {
	if o.Budget < 1 || o.Budget > MaxBudget {
		return fmt.Errorf("%w: budget %d: give a number of tokens from 1 to %d", ErrInvalid, o.Budget, MaxBudget)
	}
	if o.Format != 0 && !o.Format.Valid() {
		return fmt.Errorf("%w: format %d is neither markdown nor json", ErrInvalid, o.Format)
	}
	return nil
}

// Result is a rendering and what went into it.
type Result struct {
	// Text is the rendering.
	Text string
	// Format is its format.
	Format Format
	// Nodes are the nodes rendered, in priority order (the order they
	// were given in).
	Nodes []*narrative.Node
	// Matched counts the nodes given; Omitted those left out because
	// they did not fit the budget: Matched = len(Nodes) + Omitted.
	Matched, Omitted int
	// Tokens is the estimate of Text: Tokens(Text) ≤ Budget.
	Tokens int
	// Budget is the budget the rendering fits.
	Budget int
}

// Tokens estimates the tokens of text as ctx does everywhere: its
// characters divided by 4, rounded up.
func Tokens(text string) int { return (utf8.RuneCountInString(text) + 3) / 4 }

// Render lays out nodes (in priority order: Select's) in a format, within
// a budget that bounds the whole text. Nodes are taken in order; one that
// does not fit is left out and the next one is tried, so a large node of
// high priority does not keep out smaller ones after it. The header
// counts the nodes rendered, the tokens of the whole text (itself
// included), and the nodes left out. cat supplies the types of the nodes
// that rendered nodes depend on (nil: no "Depends on" and no edges); g
// (nil for none) their edges. A budget
// too small for the rendering of no node at all is ErrBudget.
func Render(cat *narrative.Catalog, nodes []*narrative.Node, g Edges, opts RenderOptions) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	format := opts.Format
	if format == 0 {
		format = Markdown
	}
	at := opts.Now.UTC().Format(time.RFC3339)
	var l layout
	if format == JSON {
		l = &jsonLayout{at: at, budget: opts.Budget, view: opts.View}
	} else {
		l = &markdownLayout{at: at, budget: opts.Budget}
	}
	e := &entries{cat: cat, g: g}

	// The header's numbers are known only at the end, so a first pass
	// fits nodes against the longest header they could give: with every
	// node counted, the whole budget spent and every node left out (at
	// least 2 of each, for the plural). Formatted numbers grow with the
	// value, so the real header is never longer.
	limit := 4 * opts.Budget // Tokens(s) ≤ Budget ⇔ characters(s) ≤ 4·Budget
	most := max(len(nodes), 2)
	bound := chars(l.header(most, max(opts.Budget, 2), most))
	body := l.fixed() // the characters of the rendering but its header
	items := make([]*item, len(nodes))
	kept := make([]bool, len(nodes))
	count := 0
	for i, n := range nodes {
		if body+bound >= limit {
			break // nothing fits any more
		}
		items[i] = l.item(n, e)
		items[i].idx = i
		if c := l.cost(items[i]); body+bound+c <= limit {
			l.add(items[i])
			body += c
			kept[i] = true
			count++
		}
	}
	// A second pass tries the nodes left out against the exact header:
	// the longest one may have kept out a node that fits (the last node
	// left out, say, whose "; 1 omitted" would not be written).
	for i, n := range nodes {
		if kept[i] {
			continue
		}
		if items[i] == nil {
			items[i] = l.item(n, e)
			items[i].idx = i
		}
		c := l.cost(items[i])
		if _, total := exact(l, body+c, count+1, len(nodes)-count-1); total <= limit {
			l.add(items[i])
			body += c
			kept[i] = true
			count++
		}
	}
	res := &Result{Format: format, Matched: len(nodes), Omitted: len(nodes) - count, Budget: opts.Budget}
	for i, n := range nodes {
		if kept[i] {
			res.Nodes = append(res.Nodes, n)
		}
	}
	tokens, _ := exact(l, body, count, res.Omitted)
	res.Text = l.text(l.header(count, tokens, res.Omitted))
	res.Tokens = Tokens(res.Text)
	if res.Tokens > opts.Budget {
		return nil, fmt.Errorf("%w: %d tokens cannot hold even the header of an empty rendering (%d tokens)", ErrBudget, opts.Budget, res.Tokens)
	}
	return res, nil
}

// exact returns the token count a header states for a rendering whose
// other parts have body characters, and the characters of the whole
// rendering. The header counts the tokens of the text it is part of, so
// the count must give itself once written: the estimate grows with the
// count's length (a digit, a comma), so the sequence below increases to
// that fixed point within a few steps.
func exact(l layout, body, nodes, omitted int) (tokens, total int) {
	for {
		h := chars(l.header(nodes, tokens, omitted))
		next := (body + h + 3) / 4
		if next <= tokens {
			return tokens, body + h
		}
		tokens = next
	}
}

// chars counts the characters of s, as Tokens does.
func chars(s string) int { return utf8.RuneCountInString(s) }

// layout is a format: the pieces a rendering is made of. A rendering is
// the fixed pieces, the header, and each item added with the pieces it
// brings (a section heading the first time a section is used, say); cost
// counts exactly what add adds, so that the length of text is known
// without building it.
type layout interface {
	// header returns the header for the counts.
	header(nodes, tokens, omitted int) string
	// fixed returns the characters of the rendering of no node, without
	// its header.
	fixed() int
	// item lays out a node.
	item(n *narrative.Node, e *entries) *item
	// cost returns the characters adding it would add.
	cost(it *item) int
	// add adds it.
	add(it *item)
	// text returns the rendering of the items added, with header.
	text(header string) string
}

// item is a node laid out.
type item struct {
	idx     int // the node's place among those given: items are laid out in that order
	text    string
	chars   int
	section int    // Markdown: the section (rank of the tier)
	group   string // Markdown: the type group's key in a grouped section
	heading string // Markdown: the type group's heading
}

// entries gives what a node's entry shows besides the node itself.
type entries struct {
	cat *narrative.Catalog
	g   Edges
}

// targets returns the nodes of the catalog that are not deleted and that
// n has an edge to with the label, sorted by id; with derived, also those
// its derived-from header names.
func (e *entries) targets(n *narrative.Node, label string) []*narrative.Node {
	if e.cat == nil {
		return nil
	}
	var ids []narrative.ID
	if e.g != nil {
		ids = append(ids, e.g.Targets(n.ID, label)...)
	}
	if label == LabelDerivedFrom {
		ids = append(ids, n.DerivedFrom...)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var out []*narrative.Node
	for _, id := range ids {
		if t, ok := e.cat.Nodes[id]; ok && !t.Deleted && id != n.ID {
			out = append(out, t)
		}
	}
	return out
}

// sortItems puts items in the order of their nodes: the second pass of
// Render adds some out of order.
func sortItems(items []*item) {
	slices.SortFunc(items, func(a, b *item) int { return a.idx - b.idx })
}

// formatCount writes n with a comma every three digits: 42,000.
func formatCount(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// plural returns word for 1 and word+"s" otherwise.
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// The Markdown layout (hooks design §13):
//
//	<!-- ctx: N nodes, T tokens, rendered at TIME -->
//	                                     ← "\n## Section\n" (+ "\n" if not grouped)
//	## Pinned
//
//	- [type:id] preview…                 ← items, one list each section or group
//	  - Tags: a, b
//	                                     ← "\n### Group\n\n" in grouped sections
//	…
//	                                     ← "\n<!-- ctx:end -->\n"
//	<!-- ctx:end -->

// sections are the Markdown sections, by rank (select.go).
var sections = [...]struct {
	title   string
	grouped bool // by type
}{
	{"Pinned", false},
	{"Reference", true},
	{"Working Context", false},
	{"Other", true}, // nodes without a tier, which a view's query may select
	{"Off-Context", false},
}

// groupTitles are the headings of the type groups, in narrative.Types
// order: facts, decisions and patterns first, as the design lists them.
var groupTitles = map[narrative.Type]string{
	narrative.Fact:         "Facts",
	narrative.Decision:     "Decisions",
	narrative.Pattern:      "Patterns",
	narrative.Observation:  "Observations",
	narrative.Hypothesis:   "Hypotheses",
	narrative.OpenQuestion: "Open Questions",
	narrative.Task:         "Tasks",
	narrative.Summary:      "Summaries",
	narrative.Source:       "Sources",
}

const mdEnd = "\n<!-- ctx:end -->\n"

type markdownLayout struct {
	at       string
	budget   int
	sections [len(sections)]mdSection
}

// mdSection holds the items added to a section: in a list, or by group.
type mdSection struct {
	items  []*item
	groups map[string][]*item
}

func (m *markdownLayout) header(nodes, tokens, omitted int) string {
	s := fmt.Sprintf("<!-- ctx: %s %s, %s %s, rendered at %s", formatCount(nodes), plural(nodes, "node"),
		formatCount(tokens), plural(tokens, "token"), m.at)
	if omitted > 0 {
		s += fmt.Sprintf("; %s omitted (budget %s)", formatCount(omitted), formatCount(m.budget))
	}
	return s + " -->\n"
}

func (m *markdownLayout) fixed() int { return chars(mdEnd) }

// groupOf returns the key that orders a type's group, its place in
// narrative.Types (after them, by name, for a type ctx does not know),
// and its heading.
func groupOf(t narrative.Type) (key, heading string) {
	i := slices.Index(narrative.Types, t)
	if i < 0 {
		i = len(narrative.Types)
	}
	title, ok := groupTitles[t]
	if !ok {
		title = string(t)
	}
	return fmt.Sprintf("%02d %s", i, t), "\n### " + title + "\n\n"
}

func sectionHeading(s int) string {
	h := "\n## " + sections[s].title + "\n"
	if !sections[s].grouped {
		h += "\n"
	}
	return h
}

func (m *markdownLayout) item(n *narrative.Node, e *entries) *item {
	s := rank(n.Tier())
	it := &item{section: s}
	if sections[s].grouped {
		it.group, it.heading = groupOf(n.Type)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "- [%s:%s]", n.Type, n.ID)
	if s == 0 {
		// Pinned nodes show a preview and their tags (design §13).
		if p := preview(n.Content); p != "" {
			b.WriteString(" " + p)
		}
		b.WriteByte('\n')
		var tags []string
		for _, t := range n.Tags {
			if !strings.HasPrefix(t, narrative.TierPrefix) {
				tags = append(tags, t)
			}
		}
		if len(tags) > 0 {
			b.WriteString("  - Tags: " + strings.Join(tags, ", ") + "\n")
		}
	} else {
		writeContent(&b, n.Content)
	}
	if r := strings.TrimSpace(n.Meta["rationale"]); r != "" {
		b.WriteString("  - Rationale: " + r + "\n")
	}
	if deps := e.targets(n, LabelDependsOn); len(deps) > 0 {
		refs := make([]string, len(deps))
		for i, d := range deps {
			refs[i] = fmt.Sprintf("[%s:%s]", d.Type, d.ID)
		}
		b.WriteString("  - Depends on: " + strings.Join(refs, ", ") + "\n")
	}
	it.text = b.String()
	it.chars = chars(it.text)
	return it
}

// writeContent writes content as the rest of a list item: its first line
// after the item's marker, the others indented under it (blank lines
// left empty). The indentation also keeps any line of the content from
// starting a line of the rendering, so content can never pass for the
// end marker.
func writeContent(b *strings.Builder, content string) {
	for i, line := range strings.Split(content, "\n") {
		switch {
		case i == 0:
			if line != "" {
				b.WriteString(" " + line)
			}
		case strings.TrimSpace(line) == "":
		default:
			b.WriteString("  " + line)
		}
		b.WriteByte('\n')
	}
}

// preview returns content on one line, white space collapsed, cut to
// PreviewLen characters followed by "..." if it is longer.
func preview(content string) string {
	s := strings.Join(strings.Fields(content), " ")
	if utf8.RuneCountInString(s) <= PreviewLen {
		return s
	}
	k := 0
	for i := range s {
		if k == PreviewLen {
			return s[:i] + "..."
		}
		k++
	}
	return s
}

func (m *markdownLayout) cost(it *item) int {
	c := it.chars
	sec := &m.sections[it.section]
	if len(sec.items) == 0 && len(sec.groups) == 0 {
		c += chars(sectionHeading(it.section))
	}
	if sections[it.section].grouped && len(sec.groups[it.group]) == 0 {
		c += chars(it.heading)
	}
	return c
}

func (m *markdownLayout) add(it *item) {
	sec := &m.sections[it.section]
	if !sections[it.section].grouped {
		sec.items = append(sec.items, it)
		return
	}
	if sec.groups == nil {
		sec.groups = map[string][]*item{}
	}
	sec.groups[it.group] = append(sec.groups[it.group], it)
}

func (m *markdownLayout) text(header string) string {
	var b strings.Builder
	b.WriteString(header)
	for i := range m.sections {
		sec := &m.sections[i]
		if len(sec.items) == 0 && len(sec.groups) == 0 {
			continue
		}
		b.WriteString(sectionHeading(i))
		sortItems(sec.items)
		for _, it := range sec.items {
			b.WriteString(it.text)
		}
		keys := make([]string, 0, len(sec.groups))
		for k := range sec.groups {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			group := sec.groups[k]
			sortItems(group)
			b.WriteString(group[0].heading)
			for _, it := range group {
				b.WriteString(it.text)
			}
		}
	}
	b.WriteString(mdEnd)
	return b.String()
}

// The JSON layout (hooks design §13), indented by two spaces:
//
//	{
//	  "meta": {…},                       ← the header
//	  "nodes": [                         ← "[" alone when there is no node
//	    {…},                             ← items, separated by ","
//	    {…}
//	  ]
//	}

// jsonMeta is the header of the JSON rendering.
type jsonMeta struct {
	NodeCount  int    `json:"node_count"`
	TokenCount int    `json:"token_count"`
	RenderedAt string `json:"rendered_at"`
	Budget     int    `json:"budget"`
	Omitted    int    `json:"omitted"`
	View       string `json:"view,omitempty"`
}

// jsonNode is a node of the JSON rendering.
type jsonNode struct {
	ID            narrative.ID   `json:"id"`
	Type          narrative.Type `json:"type"`
	Content       string         `json:"content"`
	Tags          []string       `json:"tags"`
	TokenEstimate int            `json:"token_estimate"`
	CreatedAt     string         `json:"created_at"`
	Edges         jsonEdges      `json:"edges"`
}

// jsonEdges are the edges of a node in the JSON rendering.
type jsonEdges struct {
	DependsOn   []narrative.ID `json:"depends_on"`
	DerivedFrom []narrative.ID `json:"derived_from"`
}

const (
	jsonOpen   = "{\n  \"meta\": "
	jsonNodes  = ",\n  \"nodes\": ["
	jsonItem   = "\n    "
	jsonEmpty  = "]"
	jsonClose  = "\n  ]"
	jsonFinish = "\n}\n"
)

type jsonLayout struct {
	at     string
	budget int
	view   string
	items  []*item
}

func (j *jsonLayout) header(nodes, tokens, omitted int) string {
	return encodeJSON(jsonMeta{NodeCount: nodes, TokenCount: tokens, RenderedAt: j.at, Budget: j.budget, Omitted: omitted, View: j.view}, "  ")
}

func (j *jsonLayout) fixed() int {
	return chars(jsonOpen) + chars(jsonNodes) + chars(jsonEmpty) + chars(jsonFinish)
}

func (j *jsonLayout) item(n *narrative.Node, e *entries) *item {
	v := jsonNode{ID: n.ID, Type: n.Type, Content: n.Content, Tags: n.Tags, TokenEstimate: n.Tokens(),
		CreatedAt: n.Created.UTC().Format(time.RFC3339),
		Edges:     jsonEdges{DependsOn: ids(e.targets(n, LabelDependsOn)), DerivedFrom: ids(e.targets(n, LabelDerivedFrom))}}
	if v.Tags == nil {
		v.Tags = []string{}
	}
	text := jsonItem + encodeJSON(v, "    ")
	return &item{text: text, chars: chars(text)}
}

// ids returns the nodes' ids, never nil (an empty JSON array).
func ids(nodes []*narrative.Node) []narrative.ID {
	out := make([]narrative.ID, len(nodes))
	for i, n := range nodes {
		out[i] = n.ID
	}
	return out
}

func (j *jsonLayout) cost(it *item) int {
	if len(j.items) == 0 {
		return it.chars + chars(jsonClose) - chars(jsonEmpty)
	}
	return it.chars + 1 // ","
}

func (j *jsonLayout) add(it *item) { j.items = append(j.items, it) }

func (j *jsonLayout) text(header string) string {
	var b strings.Builder
	b.WriteString(jsonOpen)
	b.WriteString(header)
	b.WriteString(jsonNodes)
	sortItems(j.items)
	for i, it := range j.items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(it.text)
	}
	if len(j.items) > 0 {
		b.WriteString(jsonClose)
	} else {
		b.WriteString(jsonEmpty)
	}
	b.WriteString(jsonFinish)
	return b.String()
}

// encodeJSON encodes v indented, every line after the first starting
// with prefix, without escaping HTML characters (the rendering is not
// HTML, and "\u003c" would cost six characters for one).
func encodeJSON(v any, prefix string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(v); err != nil {
		// The values are strings, numbers and lists of them: they
		// always encode.
		return "null"
	}
	return strings.TrimSuffix(b.String(), "\n")
}

package pack

import (
	"bytes"
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/index"
	"github.com/ctx-dev/ctx/index/text"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// Context lines shown around an item's span, and the lines of a file
// shown when no item of it matched.
const (
	contextBefore = 2
	contextAfter  = 1
	fileHeadLines = 40
	itemsPerFile  = 4
)

// candidate is a chunk not read yet: its relevance, and how to read it
// (a nil chunk: nothing to show). fit reads candidates in relevance
// order and stops when the budget is full, so that a pack reads the
// blobs of the files it shows, not of every file that matched.
type candidate struct {
	rel  float64
	narr bool
	load func() (*Chunk, error)
}

// codeChunks returns the candidates of the ranked files: the best item
// of each file in rank order (or the file's first lines when none of its
// items matched), then the second-best items of the files that have one,
// and so on up to itemsPerFile, then the diagnostics the text matched.
func (b *builder) codeChunks() []candidate {
	rounds := make([][]candidate, itemsPerFile) // the files' first items, their second items, …
	named := map[string]bool{}
	for _, c := range b.query.Clauses {
		if c.Weight == 0 {
			named[c.Terms[0]] = true
		}
	}
	for _, f := range b.ranked {
		rel := 0.0
		if b.maxFused > 0 {
			rel = f.fused / b.maxFused
		}
		if len(f.items) == 0 {
			rounds[0] = append(rounds[0], candidate{rel: round(rel), load: func() (*Chunk, error) { return b.fileHead(f, round(rel)) }})
			continue
		}
		// The items the query names come first ("Connect" is first of all
		// Client.Connect), then the others by score.
		items := slices.Clone(f.items[:min(itemsPerFile, len(f.items))])
		slices.SortStableFunc(items, func(x, y hit) int {
			return cmp.Compare(b2i(named[strings.ToLower(index.LastName(y.meta.Node.Key))]), b2i(named[strings.ToLower(index.LastName(x.meta.Node.Key))]))
		})
		for i, it := range items {
			r := rel
			if i > 0 {
				r = rel * min(1, it.score/items[0].score) / float64(int(1)<<i)
			}
			rounds[i] = append(rounds[i], candidate{rel: round(r), load: func() (*Chunk, error) {
				c, err := b.itemChunk(f, it, round(r), i == 0)
				return &c, err
			}})
		}
	}
	var out []candidate
	for _, r := range rounds {
		out = append(out, r...)
	}
	for _, h := range b.narr {
		if h.meta.Kind == index.DocDiagnostic {
			c := b.diagnosticChunk(h)
			out = append(out, candidate{rel: c.RelevanceScore, load: func() (*Chunk, error) { return &c, nil }})
		}
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// loaded wraps chunks already read as candidates.
func loaded(chunks []Chunk, narr bool) []candidate {
	out := make([]candidate, len(chunks))
	for i := range chunks {
		c := chunks[i]
		out[i] = candidate{rel: c.RelevanceScore, narr: narr, load: func() (*Chunk, error) { return &c, nil }}
	}
	return out
}

// content returns the file at path in Head, and its blob id.
func (b *builder) content(p string) ([]byte, object.ID, error) {
	id, err := b.blobOf(p)
	if err != nil {
		return nil, object.Zero, err
	}
	if src, ok := b.sources[id]; ok {
		return src, id, nil
	}
	_, src, err := b.src.Repo.Objects.Get(id)
	if err != nil {
		return nil, object.Zero, err
	}
	if b.sources == nil {
		b.sources = map[object.ID][]byte{}
	}
	b.sources[id] = src
	return src, id, nil
}

// itemChunk is an item's source lines, with a little context.
func (b *builder) itemChunk(f *fileCand, it hit, rel float64, first bool) (Chunk, error) {
	// rel arrives rounded.
	d := it.meta
	c := Chunk{
		Title:          fmt.Sprintf("%s (%s:%d-%d)", titleOf(d), d.Path, d.StartLine, d.EndLine),
		RelevanceScore: rel,
		ChunkKind:      SymbolDefinition,
		Path:           d.Path,
		Node:           d.Node.Name(),
	}
	src, blob, err := b.content(d.Path)
	if err == nil && d.StartLine > 0 {
		from := contextStart(src, int(d.StartLine))
		to := int(d.EndLine) + contextAfter
		snippet, last := cutLines(src, from, to, MaxChunkTokens)
		c.ObjectID, c.Snippet, c.Span = blob.String(), snippet, &Span{Start: uint32(from), End: uint32(last)}
	} else {
		// The file is not in Head (another head of a merge has it): the
		// index's copy of the item.
		full, err := b.src.Index.Doc(it.doc)
		if err != nil {
			return Chunk{}, err
		}
		body := full.Text
		if _, rest, ok := strings.Cut(body, "\n"); ok {
			body = rest
		}
		c.Snippet = truncate(body, MaxChunkTokens)
		c.Span = &Span{Start: d.StartLine, End: d.EndLine}
	}
	if b.opts.Explain {
		c.Why = b.why(f, it, first)
	}
	return c, nil
}

// fileHead is the first lines of a file that ranks without a matching
// item (by its path, the names it declares, or the graph).
func (b *builder) fileHead(f *fileCand, rel float64) (*Chunk, error) {
	src, blob, err := b.content(f.path)
	if err != nil {
		return nil, nil // not in Head: nothing to show
	}
	if !utf8.Valid(src) || bytes.IndexByte(src, 0) >= 0 {
		return nil, nil // binary
	}
	snippet, last := cutLines(src, 1, fileHeadLines, MaxChunkTokens)
	c := &Chunk{
		Title:          fmt.Sprintf("File: %s", f.path),
		ObjectID:       blob.String(),
		Snippet:        snippet,
		RelevanceScore: rel,
		ChunkKind:      FileContent,
		Path:           f.path,
		Span:           &Span{Start: 1, End: uint32(last)},
		Node:           "file:" + f.path,
	}
	if b.opts.Explain {
		c.Why = b.why(f, hit{}, true)
	}
	return c, nil
}

func (b *builder) diagnosticChunk(h hit) Chunk {
	d := h.meta
	c := Chunk{
		Title:          "Diagnostic: " + d.Title,
		RelevanceScore: round(h.score / b.narrTop()),
		ChunkKind:      DiagnosticOutput,
		Path:           d.Path,
		Node:           d.Node.Name(),
		Snippet:        d.Title,
	}
	if d.StartLine > 0 {
		c.Span = &Span{Start: d.StartLine, End: max(d.EndLine, d.StartLine)}
	}
	if b.opts.Explain {
		c.Why = &Why{Text: &TextMatch{Score: round(h.score), Terms: b.matched(d.Title)}}
	}
	return c
}

// narrTop is the best narrative or diagnostic score, to scale the others.
func (b *builder) narrTop() float64 {
	if len(b.narr) == 0 || b.narr[0].score <= 0 {
		return 1
	}
	return b.narr[0].score
}

// narrativeChunks returns the narrative that belongs in the pack: the
// active task first, then the nodes the text matched, best first.
func (b *builder) narrativeChunks() []Chunk {
	var out []Chunk
	seen := map[narrative.ID]bool{}
	if t := activeTask(b.src.Catalog); t != nil && (b.opts.Where == nil || b.opts.Where.Match(t, b.opts.WhereGraph)) {
		seen[t.ID] = true
		c := b.nodeChunk(t, 1)
		if b.opts.Explain {
			c.Why = &Why{Reason: "the active task (the most recently updated task in tier working or pinned)"}
		}
		out = append(out, c)
	}
	if b.opts.Where != nil && len(b.query.Clauses) == 0 {
		// A filter alone: every node it matches, newest first.
		nodes := b.src.Catalog.List(narrative.Filter{IncludeSuperseded: b.opts.IncludeSuperseded})
		for _, n := range nodes {
			if seen[n.ID] || !b.opts.Where.Match(n, b.opts.WhereGraph) {
				continue
			}
			seen[n.ID] = true
			c := b.nodeChunk(n, 1/float64(len(out)+1))
			if b.opts.Explain {
				c.Why = &Why{Reason: "matches --where " + b.opts.Where.String()}
			}
			out = append(out, c)
		}
		return out
	}
	for _, h := range b.narr {
		if h.meta.Kind == index.DocDiagnostic {
			continue
		}
		n := b.src.Catalog.Nodes[narrative.ID(h.meta.Node.Key)]
		if n == nil || seen[n.ID] || n.Deleted || n.SupersededBy != "" && !b.opts.IncludeSuperseded {
			continue
		}
		if b.opts.Where != nil && !b.opts.Where.Match(n, b.opts.WhereGraph) {
			continue
		}
		seen[n.ID] = true
		c := b.nodeChunk(n, h.score/b.narrTop())
		if b.opts.Explain {
			c.Why = &Why{Text: &TextMatch{Score: round(h.score), Terms: b.matched(n.Content)}}
		}
		out = append(out, c)
	}
	// Then the nodes the graph reached from the code (a decision that
	// mentions a function the query found), scaled below the text's.
	top := 0.0
	for _, r := range b.graphNarr {
		top = max(top, r.a)
	}
	for _, r := range b.graphNarr {
		if seen[r.node.ID] || b.opts.Where != nil && !b.opts.Where.Match(r.node, b.opts.WhereGraph) {
			continue
		}
		seen[r.node.ID] = true
		c := b.nodeChunk(r.node, r.a/top/2)
		if b.opts.Explain {
			c.Why = &Why{Graph: r.via}
		}
		out = append(out, c)
	}
	return out
}

func (b *builder) nodeChunk(n *narrative.Node, rel float64) Chunk {
	kind := NarrativeExcerpt
	if n.Type == narrative.Decision {
		kind = Decision
	}
	return Chunk{
		Title:          fmt.Sprintf("%s: %s", titleCase(string(n.Type)), n.Title),
		Snippet:        truncate(n.Content, MaxChunkTokens),
		RelevanceScore: round(rel),
		ChunkKind:      kind,
		Path:           path.Join(repo.DirName, "narrative", n.Path),
		Span:           &Span{Start: uint32(max(n.Line, 1)), End: uint32(max(n.Line, 1))},
		Node:           string(n.Type) + ":" + string(n.ID),
	}
}

// activeTask returns the task being worked on: the most recently updated
// task, not superseded or deleted, in tier working or pinned.
func activeTask(cat *narrative.Catalog) *narrative.Node {
	var best *narrative.Node
	for _, id := range cat.IDs() {
		n := cat.Nodes[id]
		if n.Type != narrative.Task || !n.Active() || n.Tier() != narrative.Working && n.Tier() != narrative.Pinned {
			continue
		}
		if best == nil || n.Updated.After(best.Updated) || n.Updated.Equal(best.Updated) && n.ID < best.ID {
			best = n
		}
	}
	return best
}

// recentLog is the narrative of the last NarrativeDays days, newest day
// first: one line per node created or changed, under its day.
func (b *builder) recentLog() string {
	since := b.opts.Now.AddDate(0, 0, -b.opts.NarrativeDays)
	var nodes []*narrative.Node
	for _, id := range b.src.Catalog.IDs() {
		n := b.src.Catalog.Nodes[id]
		if n.Active() && !n.Updated.Before(since) && (b.opts.Where == nil || b.opts.Where.Match(n, b.opts.WhereGraph)) {
			nodes = append(nodes, n)
		}
	}
	slices.SortFunc(nodes, func(x, y *narrative.Node) int {
		return cmp.Or(y.Updated.Compare(x.Updated), strings.Compare(string(x.ID), string(y.ID)))
	})
	var s strings.Builder
	day := ""
	for _, n := range nodes {
		if d := n.Updated.UTC().Format(time.DateOnly); d != day {
			if day != "" {
				s.WriteByte('\n')
			}
			day = d
			fmt.Fprintf(&s, "## %s\n\n", d)
		}
		fmt.Fprintf(&s, "- [%s:%s] %s\n", n.Type, n.ID, n.Title)
	}
	return s.String()
}

// cutLines returns lines from..to (1-based, inclusive) of src, at most
// maxTokens of them (a marker says how many lines were left out; a line
// longer than the whole allowance is cut inside, with "…"), and the last
// line number shown. It reads only as far as it shows.
func cutLines(src []byte, from, to, maxTokens int) (string, int) {
	// Skip to line from.
	start := 0
	for line := 1; line < from; line++ {
		i := bytes.IndexByte(src[start:], '\n')
		if i < 0 {
			return "", from
		}
		start += i + 1
	}
	if start >= len(src) {
		return "", from
	}
	var s strings.Builder
	runes, budget := 0, 4*maxTokens
	last := from - 1
	pos := start
	for i := from; i <= to && pos < len(src); i++ {
		end := len(src)
		if j := bytes.IndexByte(src[pos:], '\n'); j >= 0 {
			end = pos + j + 1
		}
		l := src[pos:end]
		n := utf8.RuneCount(l)
		if runes+n > budget {
			if i == from {
				// A single line over the allowance: its start, cut.
				cut, k := 0, 0
				for cut < len(l) && k < budget {
					_, size := utf8.DecodeRune(l[cut:])
					cut += size
					k++
				}
				s.Write(l[:cut])
				s.WriteString("…\n")
				last = i
				pos = end
				i++
			}
			if i <= to && pos < len(src) {
				left := bytes.Count(src[pos:], []byte{'\n'})
				if src[len(src)-1] != '\n' {
					left++
				}
				fmt.Fprintf(&s, "… (%d more lines)\n", min(left, to-i+1))
			}
			break
		}
		s.Write(l)
		runes += n
		last = i
		pos = end
	}
	return strings.TrimRight(s.String(), "\n"), last
}

// contextStart returns the first line to show before an item that starts
// at line start: up to contextBefore lines, each short (a long line of
// context would take the room of the item itself).
func contextStart(src []byte, start int) int {
	from := start
	for from > 1 && start-from < contextBefore {
		l := lineAt(src, from-1)
		if utf8.RuneCount(l) > maxContextLine {
			break
		}
		from--
	}
	return from
}

// maxContextLine is the longest line shown as context, in characters.
const maxContextLine = 200

// lineAt returns line n (1-based) of src, or nil.
func lineAt(src []byte, n int) []byte {
	start := 0
	for line := 1; line < n; line++ {
		i := bytes.IndexByte(src[start:], '\n')
		if i < 0 {
			return nil
		}
		start += i + 1
	}
	end := len(src)
	if i := bytes.IndexByte(src[start:], '\n'); i >= 0 {
		end = start + i
	}
	return src[start:end]
}

// truncate cuts s to about maxTokens, at a line end when it can.
func truncate(s string, maxTokens int) string {
	if utf8.RuneCountInString(s) <= 4*maxTokens {
		return s
	}
	cut, n := 0, 0
	for i := range s {
		if n == 4*maxTokens {
			cut = i
			break
		}
		n++
	}
	if j := strings.LastIndexByte(s[:cut], '\n'); j > cut/2 {
		cut = j
	}
	return s[:cut] + "\n…"
}

func titleOf(d index.Doc) string {
	if d.Title != "" {
		return d.Title
	}
	return d.Node.Name()
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// round keeps three decimals: scores print the same on every machine.
func round(x float64) float64 {
	return float64(int64(float64(x*1000)+0.5)) / 1000 // float64(): no fused multiply-add
}

// matched returns the query's terms that occur in s.
func (b *builder) matched(s string) []string {
	want := map[string]bool{}
	for _, c := range b.query.Clauses {
		want[c.Terms[0]] = true
	}
	seen := map[string]bool{}
	var out []string
	text.Tokenize(s, func(term string, _ uint32) {
		if want[term] && !seen[term] {
			seen[term] = true
			out = append(out, strings.Clone(term))
		}
	})
	return out
}

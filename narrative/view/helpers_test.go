package view

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/narrative/where"
)

// now is the time the tests render at.
var now = time.Date(2026, 9, 21, 14, 13, 20, 0, time.UTC)

// spec describes a node file for catalogOf.
type spec struct {
	id, typ string
	created time.Time
	tags    []string
	meta    map[string]string
	derived []string
	content string
	events  []string // "OP [ARG]", one minute apart after created
}

// file returns the node's file as ctx writes it (docs/FORMAT.md §14.2).
func (s spec) file() string {
	var b strings.Builder
	title, body, _ := strings.Cut(s.content, "\n")
	fmt.Fprintf(&b, "# %s\n\n<!-- ctx:node\nid: %s\ntype: %s\ncreated: %s\n", title, s.id, s.typ, s.created.Format(time.RFC3339))
	if len(s.tags) > 0 {
		fmt.Fprintf(&b, "tags: [%s]\n", strings.Join(s.tags, ", "))
	}
	if len(s.derived) > 0 {
		fmt.Fprintf(&b, "derived-from: [%s]\n", strings.Join(s.derived, ", "))
	}
	keys := make([]string, 0, len(s.meta))
	for k := range s.meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "meta.%s: %s\n", k, s.meta[k])
	}
	b.WriteString("-->\n")
	if body = strings.TrimSpace(body); body != "" {
		b.WriteString("\n" + body + "\n")
	}
	b.WriteString("\n<!-- ctx:changes: ctx appends one line per change below this one -->\n")
	for i, e := range s.events {
		fmt.Fprintf(&b, "<!-- ctx:event %s %d ev%06d %s -->\n", s.created.Add(time.Duration(i+1)*time.Minute).Format(time.RFC3339), i+1, i, e)
	}
	return b.String()
}

// catalogOf parses the nodes' files into a catalog; a problem fails the
// test.
func catalogOf(tb testing.TB, specs ...spec) *narrative.Catalog {
	tb.Helper()
	files := make([]narrative.FileSource, len(specs))
	for i, s := range specs {
		files[i] = narrative.FileSource{Path: fmt.Sprintf("nodes/%s.md", s.id), Src: []byte(s.file())}
	}
	cat := narrative.CatalogOf(files)
	for _, p := range cat.Problems {
		tb.Fatalf("fixture: %s", p)
	}
	if len(cat.Nodes) != len(specs) {
		tb.Fatalf("fixture: %d nodes parsed of %d", len(cat.Nodes), len(specs))
	}
	return cat
}

// fakeGraph is a graph over a list of labelled edges between narrative
// nodes.
type fakeGraph struct {
	edges []fakeEdge
}

type fakeEdge struct {
	from, to narrative.ID
	label    string
}

var (
	_ where.Graph = (*fakeGraph)(nil)
	_ Edges       = (*fakeGraph)(nil)
)

func (g *fakeGraph) HasSummary(id narrative.ID) bool {
	for _, e := range g.edges {
		if e.to == id && e.label == LabelDerivedFrom {
			return true
		}
	}
	return false
}

func (g *fakeGraph) HasEdges(id narrative.ID) bool {
	for _, e := range g.edges {
		if e.from == id || e.to == id {
			return true
		}
	}
	return false
}

func (g *fakeGraph) EdgeFrom(from, to narrative.ID) bool {
	for _, e := range g.edges {
		if e.from == from && e.to == to {
			return true
		}
	}
	return false
}

func (g *fakeGraph) Targets(id narrative.ID, label string) []narrative.ID {
	var out []narrative.ID
	for _, e := range g.edges {
		if e.from == id && e.label == label {
			out = append(out, e.to)
		}
	}
	return out
}

// mustParse parses a filter expression at now and resolves its ids in
// cat.
func mustParse(tb testing.TB, cat *narrative.Catalog, expr string) *where.Expr {
	tb.Helper()
	e, err := where.Parse(expr, now)
	if err != nil {
		tb.Fatalf("parse %q: %v", expr, err)
	}
	if err := e.Resolve(func(p string) (narrative.ID, error) {
		n, err := cat.Resolve(p)
		if err != nil {
			return "", err
		}
		return n.ID, nil
	}); err != nil {
		tb.Fatalf("resolve %q: %v", expr, err)
	}
	return e
}

// ago returns the time d before now.
func ago(d time.Duration) time.Time { return now.Add(-d) }

// fixture is the catalog and graph of the golden and table tests: every
// tier, several types, a superseded and a deleted node, metadata,
// derived-from headers and depends_on edges.
func fixture(tb testing.TB) (*narrative.Catalog, *fakeGraph) {
	tb.Helper()
	h := time.Hour
	cat := catalogOf(tb,
		spec{id: "p1nnedfact", typ: "fact", created: ago(30 * 24 * h), tags: []string{"project:ctx", "tier:pinned"},
			content: "Database uses SQLite with WAL mode, so readers never block the writer and a crash loses at most the last transaction\n\nSee `store/db.go`."},
		spec{id: "p2nnedsecr", typ: "decision", created: ago(2 * h), tags: []string{"tier:pinned"},
			content: "Never print secrets"},
		spec{id: "r1facterrs", typ: "fact", created: ago(10 * 24 * h), tags: []string{"tier:reference"},
			content: "User prefers explicit error handling"},
		spec{id: "r2dec00000", typ: "decision", created: ago(5 * 24 * h), tags: []string{"project:ctx", "tier:reference"},
			meta:    map[string]string{"rationale": "No runtime dependencies, easy distribution"},
			content: "Chose Go for single-binary requirement\n\n## Context\n\nWe ship to machines without a toolchain.\n\n    indented code stays indented"},
		spec{id: "r3pattern0", typ: "pattern", created: ago(3 * 24 * h), tags: []string{"tier:reference"},
			content: "Table-driven tests with t.Run subtests"},
		spec{id: "r4smmary00", typ: "summary", created: ago(24 * h), tags: []string{"tier:reference"}, derived: []string{"w2nte00000"},
			content: "Load problems come from the retry loop"},
		spec{id: "r5fact0000", typ: "fact", created: ago(20 * 24 * h), tags: []string{"tier:reference"},
			content: "Database uses PostgreSQL", events: []string{"supersede p1nnedfact"}},
		spec{id: "r6gnefact0", typ: "fact", created: ago(20 * 24 * h), tags: []string{"tier:reference"},
			content: "A fact deleted since", events: []string{"delete"}},
		spec{id: "w1task0000", typ: "task", created: ago(3 * h), tags: []string{"task:views", "tier:working"},
			content: "Implement views\n\n- [ ] selection\n- [ ] rendering <with budgets> & \"JSON\""},
		spec{id: "w2nte00000", typ: "observation", created: ago(4 * h), tags: []string{"tier:working"},
			content: "Timeouts under load", events: []string{"tag project:ctx"}},
		spec{id: "x1hyp00000", typ: "hypothesis", created: ago(6 * h),
			content: "The cache may be too small"},
		spec{id: "z1archved0", typ: "observation", created: ago(40 * 24 * h), tags: []string{"tier:off-context"},
			content: "An archived note"},
	)
	g := &fakeGraph{edges: []fakeEdge{
		{"r2dec00000", "r1facterrs", LabelDependsOn},
		{"r2dec00000", "p1nnedfact", LabelDependsOn},
		{"w1task0000", "r2dec00000", LabelDependsOn},
		{"w1task0000", "r6gnefact0", LabelDependsOn}, // deleted: not shown
		{"r4smmary00", "w2nte00000", LabelDerivedFrom},
	}}
	return cat, g
}

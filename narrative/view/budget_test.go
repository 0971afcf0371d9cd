package view

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/narrative"
)

// words make random content: ASCII, accents, CJK, an emoji, and the
// characters JSON escapes or HTML would.
var words = []string{"retry", "loop", "backoff", "béta", "naïve", "日本語", "🙂", "x", "a<b", "&", `"q"`, `\`, "tab\there", "Ω"}

// randomCatalog returns n random nodes with random tiers, types, times,
// sizes and edges.
func randomCatalog(tb testing.TB, r *rand.Rand, n int) (*narrative.Catalog, *fakeGraph) {
	tb.Helper()
	tiers := []string{"", "tier:pinned", "tier:reference", "tier:working", "tier:off-context"}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("n%09d", i)
	}
	specs := make([]spec, n)
	g := &fakeGraph{}
	for i := range specs {
		var lines []string
		for range 1 + r.IntN(6) {
			var w []string
			size := 1 + r.IntN(12)
			if r.IntN(8) == 0 {
				size = 50 + r.IntN(400) // a large node now and then
			}
			for range size {
				w = append(w, words[r.IntN(len(words))])
			}
			line := strings.Join(w, " ")
			if r.IntN(4) == 0 {
				line = "    " + line // indented
			}
			lines = append(lines, line)
			if r.IntN(3) == 0 {
				lines = append(lines, "")
			}
		}
		lines[0] = "Title " + strings.TrimSpace(lines[0])
		s := spec{
			id:      ids[i],
			typ:     string(narrative.Types[r.IntN(len(narrative.Types))]),
			created: now.Add(-time.Duration(r.IntN(1000)) * time.Hour),
			content: strings.Join(lines, "\n"),
		}
		if t := tiers[r.IntN(len(tiers))]; t != "" {
			s.tags = append(s.tags, t)
		}
		if r.IntN(3) == 0 {
			s.tags = append(s.tags, "project:p"+strconv.Itoa(r.IntN(3)))
		}
		if r.IntN(5) == 0 {
			s.meta = map[string]string{"rationale": "because " + words[r.IntN(len(words))]}
		}
		switch r.IntN(10) {
		case 0:
			s.events = append(s.events, "delete")
		case 1:
			s.events = append(s.events, "supersede "+ids[r.IntN(n)])
		case 2, 3:
			s.events = append(s.events, "edit")
		}
		for range r.IntN(3) {
			label := LabelDependsOn
			if r.IntN(2) == 0 {
				label = LabelDerivedFrom
			}
			g.edges = append(g.edges, fakeEdge{narrative.ID(ids[i]), narrative.ID(ids[r.IntN(n)]), label})
		}
		specs[i] = s
	}
	files := make([]narrative.FileSource, n)
	for i, s := range specs {
		files[i] = narrative.FileSource{Path: "nodes/" + s.id + ".md", Src: []byte(s.file())}
	}
	cat := narrative.CatalogOf(files)
	for _, p := range cat.Problems {
		if !strings.Contains(p.Msg, "supersede cycle") {
			tb.Fatalf("generated node: %s", p)
		}
	}
	return cat, g
}

// headerRE reads the Markdown header.
var headerRE = regexp.MustCompile(`^<!-- ctx: ([\d,]+) nodes?, ([\d,]+) tokens?, rendered at (\S+)(; ([\d,]+) omitted \(budget ([\d,]+)\))? -->\n`)

// TestBudgetProperty renders random catalogs with random queries and
// budgets in both formats and checks that the whole rendering never
// exceeds the budget, that its header tells the truth, that the nodes
// kept are in priority order, and that a budget large enough for
// everything leaves nothing out.
func TestBudgetProperty(t *testing.T) {
	queries := []string{DefaultQuery, "tokens:>=0", "type:fact OR type:decision", "NOT tag:tier:pinned", "tag:project:p1 OR tokens:<20"}
	iterations := 300
	if testing.Short() {
		iterations = 50
	}
	var rendered, partial, tooSmall int
	for seed := range iterations {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		cat, g := randomCatalog(t, r, 1+r.IntN(40))
		q := queries[r.IntN(len(queries))]
		sel := SelectOptions{IncludeSuperseded: r.IntN(4) == 0, IncludeDeleted: r.IntN(4) == 0}
		nodes := Select(cat, mustParse(t, cat, q), g, sel)
		for i := 1; i < len(nodes); i++ {
			if Less(nodes[i], nodes[i-1]) {
				t.Fatalf("seed %d: Select's order: %s before %s", seed, nodes[i-1].ID, nodes[i].ID)
			}
		}
		for _, f := range []Format{Markdown, JSON} {
			var budget int
			switch r.IntN(4) {
			case 0:
				budget = 1 + r.IntN(60) // around the header's own size
			case 1:
				budget = 1 + r.IntN(20000)
			default:
				budget = 1 + r.IntN(2000)
			}
			res, err := Render(cat, nodes, g, RenderOptions{Budget: budget, Format: f, Now: now, View: "v"})
			if err != nil {
				// Only a budget below the empty rendering may fail.
				empty, err2 := Render(cat, nodes, g, RenderOptions{Budget: MaxBudget, Format: f, Now: now})
				if err2 != nil || budget >= Tokens(emptyOf(empty, f, budget)) {
					t.Fatalf("seed %d %s budget %d: %v", seed, f, budget, err)
				}
				tooSmall++
				continue
			}
			checkResult(t, res)
			rendered++
			if res.Omitted > 0 && len(res.Nodes) > 0 {
				partial++
			}
			ctx := fmt.Sprintf("seed %d %s budget %d", seed, f, budget)
			if f == Markdown {
				m := headerRE.FindStringSubmatch(res.Text)
				if m == nil {
					t.Fatalf("%s: header %q", ctx, strings.SplitN(res.Text, "\n", 2)[0])
				}
				if atoi(m[1]) != len(res.Nodes) || atoi(m[2]) != Tokens(res.Text) || atoi(m[5]) != res.Omitted {
					t.Fatalf("%s: header %q for %d nodes, %d tokens, %d omitted", ctx, m[0], len(res.Nodes), Tokens(res.Text), res.Omitted)
				}
			}
			for i := 1; i < len(res.Nodes); i++ {
				if Less(res.Nodes[i], res.Nodes[i-1]) {
					t.Fatalf("%s: kept nodes out of order", ctx)
				}
			}
			again, err := Render(cat, nodes, g, RenderOptions{Budget: budget, Format: f, Now: now, View: "v"})
			if err != nil || again.Text != res.Text {
				t.Fatalf("%s: a second rendering differs", ctx)
			}
			// Everything fits a budget of the whole rendering's size.
			all, err := Render(cat, nodes, g, RenderOptions{Budget: MaxBudget, Format: f, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			if fit, err := Render(cat, nodes, g, RenderOptions{Budget: all.Tokens, Format: f, Now: now}); err != nil || fit.Omitted != 0 {
				t.Fatalf("%s: a budget of the whole rendering (%d) left %d out (%v)", ctx, all.Tokens, fit.Omitted, err)
			}
		}
	}
	// The generator must reach every case.
	t.Logf("%d renderings, %d with some nodes left out, %d budgets too small", rendered, partial, tooSmall)
	if partial == 0 || tooSmall == 0 {
		t.Fatalf("the random budgets miss a case")
	}
}

// emptyOf returns the rendering of no node in format f with every node
// of res left out: the least a budget must hold.
func emptyOf(res *Result, f Format, budget int) string {
	var l layout = &markdownLayout{at: now.Format(time.RFC3339), budget: budget}
	if f == JSON {
		l = &jsonLayout{at: now.Format(time.RFC3339), budget: budget, view: "v"}
	}
	tokens, _ := exact(l, l.fixed(), 0, res.Matched)
	return l.text(l.header(0, tokens, res.Matched))
}

func atoi(s string) int {
	n, _ := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	return n
}

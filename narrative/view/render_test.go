package view

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/narrative"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestRenderGolden renders the fixture in both formats and compares with
// testdata/golden. The renderings are what hooks inject and scripts
// parse: a change to a golden file is a change of that contract.
func TestRenderGolden(t *testing.T) {
	cat, g := fixture(t)
	tests := []struct {
		golden string
		query  string
		opts   RenderOptions
		sel    SelectOptions
	}{
		{"default.md", DefaultQuery, RenderOptions{Budget: DefaultBudget}, SelectOptions{}},
		{"default.json", DefaultQuery, RenderOptions{Budget: DefaultBudget, Format: JSON, View: "default"}, SelectOptions{}},
		// Every node, superseded and deleted too: the sections of nodes
		// without a tier and off-context.
		{"all.md", "tokens:>=0", RenderOptions{Budget: DefaultBudget}, SelectOptions{IncludeSuperseded: true, IncludeDeleted: true}},
		// A budget that holds only some: the header says how many were
		// left out.
		{"budget.md", DefaultQuery, RenderOptions{Budget: 150}, SelectOptions{}},
		{"budget.json", DefaultQuery, RenderOptions{Budget: 200, Format: JSON}, SelectOptions{}},
		{"empty.md", "type:source", RenderOptions{Budget: 100}, SelectOptions{}},
		{"empty.json", "type:source", RenderOptions{Budget: 100, Format: JSON}, SelectOptions{}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			tt.opts.Now = now
			nodes := Select(cat, mustParse(t, cat, tt.query), g, tt.sel)
			res, err := Render(cat, nodes, g, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, res)
			path := filepath.Join("testdata", "golden", tt.golden)
			if *update {
				if err := os.WriteFile(path, []byte(res.Text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != string(want) {
				t.Errorf("rendering differs from %s (go test -update rewrites it):\n%s", path, res.Text)
			}
		})
	}
}

// checkResult checks what every rendering must satisfy: within the
// budget, with a header that tells the truth, and for JSON a valid
// document.
func checkResult(tb testing.TB, res *Result) {
	tb.Helper()
	if got := Tokens(res.Text); got != res.Tokens || got > res.Budget {
		tb.Fatalf("rendering of %d tokens (Result says %d), budget %d", got, res.Tokens, res.Budget)
	}
	if len(res.Nodes)+res.Omitted != res.Matched {
		tb.Fatalf("%d nodes + %d omitted != %d matched", len(res.Nodes), res.Omitted, res.Matched)
	}
	switch res.Format {
	case Markdown:
		first, _, _ := strings.Cut(res.Text, "\n")
		want := (&markdownLayout{at: now.Format("2006-01-02T15:04:05Z07:00"), budget: res.Budget}).header(len(res.Nodes), res.Tokens, res.Omitted)
		if first+"\n" != want {
			tb.Fatalf("header %q, want %q", first, want)
		}
		if !strings.HasSuffix(res.Text, "\n<!-- ctx:end -->\n") || strings.Count(res.Text, "<!-- ctx:end -->") != 1 {
			tb.Fatalf("the end marker is not the last line, once:\n%s", res.Text)
		}
		if got := strings.Count(res.Text, "\n- ["); got != len(res.Nodes) {
			tb.Fatalf("%d items for %d nodes:\n%s", got, len(res.Nodes), res.Text)
		}
	case JSON:
		var doc struct {
			Meta struct {
				NodeCount  int    `json:"node_count"`
				TokenCount int    `json:"token_count"`
				RenderedAt string `json:"rendered_at"`
				Budget     int    `json:"budget"`
				Omitted    int    `json:"omitted"`
			} `json:"meta"`
			Nodes []map[string]any `json:"nodes"`
		}
		if err := json.Unmarshal([]byte(res.Text), &doc); err != nil {
			tb.Fatalf("not JSON: %v\n%s", err, res.Text)
		}
		m := doc.Meta
		if m.NodeCount != len(res.Nodes) || len(doc.Nodes) != len(res.Nodes) || m.TokenCount != res.Tokens || m.Budget != res.Budget || m.Omitted != res.Omitted {
			tb.Fatalf("meta %+v with %d nodes, want %d nodes, %d tokens, %d omitted", m, len(doc.Nodes), len(res.Nodes), res.Tokens, res.Omitted)
		}
		for i, n := range doc.Nodes {
			if n["id"] != string(res.Nodes[i].ID) || n["content"] != res.Nodes[i].Content {
				tb.Fatalf("node %d is %v, want %s", i, n["id"], res.Nodes[i].ID)
			}
		}
	default:
		tb.Fatalf("format %v", res.Format)
	}
}

func TestRenderBudgets(t *testing.T) {
	cat, g := fixture(t)
	nodes := Select(cat, mustParse(t, cat, DefaultQuery), g, SelectOptions{})
	full, err := Render(cat, nodes, g, RenderOptions{Budget: MaxBudget, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if full.Omitted != 0 {
		t.Fatalf("%d omitted with the largest budget", full.Omitted)
	}
	// The smallest budget that renders: no node, only the header (with
	// every node counted as omitted) and the end marker.
	least := map[Format]int{}
	for _, f := range []Format{Markdown, JSON} {
		for b := 1; ; b++ {
			res, err := Render(cat, nodes, g, RenderOptions{Budget: b, Format: f, Now: now})
			if errors.Is(err, ErrBudget) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, res)
			if len(res.Nodes) != 0 || res.Omitted != len(nodes) {
				t.Fatalf("%s: the least budget, %d, renders %d nodes", f, b, len(res.Nodes))
			}
			least[f] = b
			break
		}
	}
	if least[Markdown] != 27 || least[JSON] != 40 {
		t.Errorf("least budgets %v", least)
	}
	tests := []struct {
		name    string
		format  Format
		budget  int
		kept    int // nodes rendered; -1: do not check
		tooBig  bool
		omitted bool
	}{
		{"exactly the whole rendering", Markdown, full.Tokens, len(nodes), false, false},
		{"a token less", Markdown, full.Tokens - 1, len(nodes) - 1, false, true},
		{"only the header", Markdown, least[Markdown], 0, false, true},
		{"not even the header", Markdown, least[Markdown] - 1, 0, true, true},
		{"only the header", JSON, least[JSON], 0, false, true},
		{"not even the header", JSON, least[JSON] - 1, 0, true, true},
		{"one token", JSON, 1, 0, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.format.String(), func(t *testing.T) {
			res, err := Render(cat, nodes, g, RenderOptions{Budget: tt.budget, Format: tt.format, Now: now})
			if tt.tooBig {
				if !errors.Is(err, ErrBudget) {
					t.Fatalf("err = %v, want ErrBudget", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, res)
			if tt.kept >= 0 && len(res.Nodes) != tt.kept {
				t.Errorf("kept %d nodes, want %d", len(res.Nodes), tt.kept)
			}
			if (res.Omitted > 0) != tt.omitted {
				t.Errorf("omitted %d", res.Omitted)
			}
		})
	}
}

// TestRenderSkipsWhatDoesNotFit checks that a large node of high priority
// does not keep out smaller ones after it.
func TestRenderSkipsWhatDoesNotFit(t *testing.T) {
	cat := catalogOf(t,
		spec{id: "aaaaaaaaaa", typ: "fact", created: ago(1), tags: []string{"tier:reference"}, content: "big\n\n" + strings.Repeat("word ", 400)},
		spec{id: "bbbbbbbbbb", typ: "fact", created: ago(2), tags: []string{"tier:reference"}, content: "small"},
	)
	nodes := Select(cat, mustParse(t, cat, DefaultQuery), nil, SelectOptions{})
	if nodes[0].ID != "aaaaaaaaaa" {
		t.Fatalf("order %s %s", nodes[0].ID, nodes[1].ID)
	}
	res, err := Render(cat, nodes, nil, RenderOptions{Budget: 100, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, res)
	if len(res.Nodes) != 1 || res.Nodes[0].ID != "bbbbbbbbbb" || res.Omitted != 1 {
		t.Fatalf("rendered %v, omitted %d:\n%s", res.Nodes, res.Omitted, res.Text)
	}
	if !strings.Contains(res.Text, "; 1 omitted (budget 100) -->") {
		t.Fatalf("header does not report the omitted node:\n%s", res.Text)
	}
}

func TestRenderEntries(t *testing.T) {
	long := strings.Repeat("é", 99) + " ab"
	tests := []struct {
		name string
		spec spec
		want string // the item
	}{
		{"pinned: preview on one line, tags without the tier",
			spec{typ: "fact", tags: []string{"b", "a:x", "tier:pinned"}, content: "Title\n\nBody  line\n  two"},
			"- [fact:aaaaaaaaaa] Title Body line two\n  - Tags: a:x, b\n"},
		{"pinned: a long preview is cut at 100 characters",
			spec{typ: "fact", tags: []string{"tier:pinned"}, content: long},
			"- [fact:aaaaaaaaaa] " + strings.Repeat("é", 99) + " ...\n"},
		{"reference: whole content, indented under the item",
			spec{typ: "decision", tags: []string{"tier:reference"}, content: "Title\n\n## Context\n\n    code\n\nend"},
			"- [decision:aaaaaaaaaa] Title\n\n  ## Context\n\n      code\n\n  end\n"},
		{"rationale and dependencies",
			spec{typ: "task", tags: []string{"tier:working"}, meta: map[string]string{"rationale": "because"}, content: "Do it"},
			"- [task:aaaaaaaaaa] Do it\n  - Rationale: because\n  - Depends on: [fact:bbbbbbbbbb]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.spec.id, tt.spec.created = "aaaaaaaaaa", ago(1)
			cat := catalogOf(t, tt.spec, spec{id: "bbbbbbbbbb", typ: "fact", created: ago(1), content: "dependency"})
			g := &fakeGraph{edges: []fakeEdge{{"aaaaaaaaaa", "bbbbbbbbbb", LabelDependsOn}}}
			if !strings.Contains(tt.name, "dependencies") {
				g = nil
			}
			var e Edges
			if g != nil {
				e = g
			}
			it := (&markdownLayout{}).item(cat.Nodes["aaaaaaaaaa"], &entries{cat: cat, g: e})
			if it.text != tt.want {
				t.Errorf("item\n%q\nwant\n%q", it.text, tt.want)
			}
			if it.chars != len([]rune(it.text)) {
				t.Errorf("chars %d for %d characters", it.chars, len([]rune(it.text)))
			}
		})
	}
}

func TestRenderOptions(t *testing.T) {
	cat, _ := fixture(t)
	for _, o := range []RenderOptions{{Budget: 0}, {Budget: -1}, {Budget: MaxBudget + 1}, {Budget: 10, Format: 7}} {
		if _, err := Render(cat, nil, nil, o); !errors.Is(err, ErrInvalid) {
			t.Errorf("Render with %+v: %v, want ErrInvalid", o, err)
		}
	}
}

func TestFormatCount(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 42000: "42,000", 1234567: "1,234,567", -5: "-5"} {
		if got := formatCount(n); got != want {
			t.Errorf("formatCount(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestTokens(t *testing.T) {
	for s, want := range map[string]int{"": 0, "a": 1, "abcd": 1, "abcde": 2, "éééé": 1, "ééééé": 2} {
		if got := Tokens(s); got != want {
			t.Errorf("Tokens(%q) = %d, want %d", s, got, want)
		}
	}
	n := &narrative.Node{Content: "ééééé"}
	if n.Tokens() != Tokens(n.Content) {
		t.Errorf("Tokens disagrees with Node.Tokens")
	}
}

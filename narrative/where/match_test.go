package where

import (
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/narrative"
)

// fakeGraph is a Graph over a list of edges and a set of summarised nodes.
type fakeGraph struct {
	edges      [][2]narrative.ID // from, to
	summarised map[narrative.ID]bool
}

var _ Graph = (*fakeGraph)(nil)

func (g *fakeGraph) HasSummary(id narrative.ID) bool { return g.summarised[id] }

func (g *fakeGraph) HasEdges(id narrative.ID) bool {
	for _, e := range g.edges {
		if e[0] == id || e[1] == id {
			return true
		}
	}
	return false
}

func (g *fakeGraph) EdgeFrom(from, to narrative.ID) bool {
	for _, e := range g.edges {
		if e[0] == from && e[1] == to {
			return true
		}
	}
	return false
}

func TestMatch(t *testing.T) {
	day := 24 * time.Hour
	node := func(id narrative.ID, typ narrative.Type, created, updated time.Time, content string, tags ...string) *narrative.Node {
		return &narrative.Node{ID: id, Type: typ, Created: created, Updated: updated, Content: content, Tags: tags}
	}
	// now is 2026-01-20 12:00 UTC.
	nodes := []*narrative.Node{
		node("aaaaaaaaaa", narrative.Decision, now.Add(-2*time.Hour), now.Add(-time.Hour), strings.Repeat("x", 400), "project:netlib", "tier:reference"),
		node("bbbbbbbbbb", narrative.Fact, now.Add(-10*day), now.Add(-3*day), strings.Repeat("x", 4000), "project:viberent"),
		node("cccccccccc", narrative.Observation, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 1, 1, 23, 59, 59, 0, time.UTC), "short"),
		node("dddddddddd", narrative.Summary, now.Add(-day), now.Add(-day), strings.Repeat("y", 4001)),
		node("eeeeeeeeee", narrative.OpenQuestion, time.Date(2023, 12, 31, 23, 59, 59, 0, time.UTC), time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC), "why?", "tier:working"),
	}
	g := &fakeGraph{
		edges:      [][2]narrative.ID{{"dddddddddd", "aaaaaaaaaa"}, {"dddddddddd", "bbbbbbbbbb"}, {"bbbbbbbbbb", "cccccccccc"}},
		summarised: map[narrative.ID]bool{"aaaaaaaaaa": true, "bbbbbbbbbb": true},
	}
	tests := []struct {
		expr string
		want string // the ids that match, by first letter
	}{
		{"type:decision", "a"},
		{"type:note", "c"},
		{"type:question OR type:summary", "de"},
		{"tag:project:netlib", "a"},
		{"tag:tier:reference", "a"},
		{"tag:project", ""}, // a tag is matched whole, not by prefix
		{"-tag:project:netlib", "bcde"},
		{"NOT tag:tier:working NOT tag:tier:reference", "bcd"},

		// Durations name the instant that long ago: > is newer, < older.
		{"created:>24h", "a"},
		{"created:>=24h", "ad"}, // d was created exactly 24h ago
		{"created:<24h", "bce"},
		{"created:<=1d", "bcde"},
		{"created:>1w", "ad"},
		{"created:<1w", "bce"},
		{"updated:>3d", "ad"},
		{"updated:>=3d", "abd"},
		{"updated:>90m", "a"},

		// A date is its whole day (UTC).
		{"created:=2024-01-01", "c"},
		{"created:2024-01-01", "c"},
		{"created:>2024-01-01", "abd"},
		{"created:>=2024-01-01", "abcd"},
		{"created:<2024-01-01", "e"},
		{"created:<=2024-01-01", "ce"},
		{"updated:=2024-01-01", "c"},
		{"updated:>2024-01-01", "abde"},
		{"updated:=2024-01-02", "e"},
		{"updated:<2026-01-20", "bcde"},
		{"created:=2026-01-20", "a"},

		// A timestamp is an instant.
		{"created:=2024-01-01T00:00:00Z", "c"},
		{"created:>2024-01-01T00:00:00Z", "abd"},
		{"created:<=2023-12-31T23:59:59Z", "e"},
		{"created:>2026-01-20T09:00:00+01:00", "a"}, // 08:00 UTC

		// Tokens: characters / 4, rounded up.
		{"tokens:<1000", "ace"},
		{"tokens:>1000", "d"},
		{"tokens:>=1000", "bd"},
		{"tokens:<=1000", "abce"},
		{"tokens:=1000", "b"},
		{"tokens:1001", "d"},
		{"tokens:=100", "a"},

		{"has:summary", "ab"},
		{"NOT has:summary", "cde"},
		{"has:edges", "abcd"},
		{"-has:edges", "e"},
		{"from:dddddddddd", "ab"},
		{"to:dddddddddd", ""},
		{"to:cccccccccc", "b"},
		{"from:bbbbbbbbbb OR to:aaaaaaaaaa", "cd"},

		{"type:decision tag:project:netlib", "a"},
		{"type:decision OR type:fact tag:project:viberent", "ab"},
		{"(type:decision OR type:fact) tag:project:viberent", "b"},
		{"NOT (type:decision OR type:fact)", "cde"},
		{"type:fact OR NOT has:edges AND created:<1w", "be"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			e, err := Parse(tt.expr, now)
			if err != nil {
				t.Fatal(err)
			}
			var got strings.Builder
			for _, n := range nodes {
				if e.Match(n, g) {
					got.WriteByte(n.ID[0])
				}
			}
			if got.String() != tt.want {
				t.Errorf("%s matches %q, want %q", e, got.String(), tt.want)
			}
		})
	}
}

// TestMatchNilGraph: without a Graph the graph predicates are false, and
// nothing panics.
func TestMatchNilGraph(t *testing.T) {
	n := &narrative.Node{ID: "aaaaaaaaaa", Type: narrative.Fact}
	for expr, want := range map[string]bool{
		"has:summary":           false,
		"has:edges":             false,
		"from:abcd":             false,
		"NOT to:abcd":           true,
		"type:fact -has:edges":  true,
		"type:fact has:summary": false,
	} {
		e, err := Parse(expr, now)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Match(n, nil); got != want {
			t.Errorf("%s with a nil Graph: %v, want %v", expr, got, want)
		}
	}
}

package view

import (
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/narrative"
)

func TestSelect(t *testing.T) {
	cat, g := fixture(t)
	tests := []struct {
		name  string
		query string
		opts  SelectOptions
		want  string // ids in order
	}{
		{"the default view: pinned, then reference, then working, each most recent first", DefaultQuery, SelectOptions{},
			"p2nnedsecr p1nnedfact r4smmary00 r3pattern0 r2dec00000 r1facterrs w1task0000 w2nte00000"},
		{"superseded and deleted nodes are left out whatever the query says", "tag:tier:reference", SelectOptions{},
			"r4smmary00 r3pattern0 r2dec00000 r1facterrs"},
		{"unless asked for", "tag:tier:reference", SelectOptions{IncludeSuperseded: true, IncludeDeleted: true},
			// r5 and r6 were created together; their events came a minute later, the same minute: ties by id.
			"r4smmary00 r3pattern0 r2dec00000 r1facterrs r5fact0000 r6gnefact0"},
		{"nodes without a tier come after working, before off-context", "type:hypothesis OR type:observation", SelectOptions{},
			"w2nte00000 x1hyp00000 z1archved0"},
		{"graph predicates", "has:summary OR to:r1facterrs", SelectOptions{}, "r2dec00000 w2nte00000"},
		{"nothing", "type:source", SelectOptions{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes := Select(cat, mustParse(t, cat, tt.query), g, tt.opts)
			ids := make([]string, len(nodes))
			for i, n := range nodes {
				ids[i] = string(n.ID)
			}
			if got := strings.Join(ids, " "); got != tt.want {
				t.Errorf("Select(%q) =\n%s\nwant\n%s", tt.query, got, tt.want)
			}
		})
	}
}

func TestLess(t *testing.T) {
	at := func(h int) time.Time { return now.Add(time.Duration(h) * time.Hour) }
	node := func(id string, tier narrative.Tier, updated time.Time) *narrative.Node {
		n := &narrative.Node{ID: narrative.ID(id), Updated: updated}
		if tier != "" {
			n.Tags = []string{tier.Tag()}
		}
		return n
	}
	tests := []struct {
		a, b *narrative.Node
		want bool
	}{
		{node("b", narrative.Pinned, at(-100)), node("a", narrative.Reference, at(0)), true}, // tier before recency
		{node("a", narrative.Reference, at(0)), node("b", narrative.Working, at(0)), true},
		{node("a", narrative.Working, at(0)), node("b", "", at(0)), true},
		{node("a", "", at(-9)), node("b", narrative.OffContext, at(0)), true},
		{node("a", narrative.Working, at(0)), node("b", narrative.Working, at(-1)), true}, // recency
		{node("b", narrative.Working, at(0)), node("a", narrative.Working, at(0)), false}, // ties by id
		{node("a", narrative.Working, at(0)), node("b", narrative.Working, at(0)), true},
		{node("a", narrative.Working, at(0)), node("a", narrative.Working, at(0)), false}, // irreflexive
	}
	for i, tt := range tests {
		if got := Less(tt.a, tt.b); got != tt.want {
			t.Errorf("%d: Less(%s %s, %s %s) = %v", i, tt.a.ID, tt.a.Tier(), tt.b.ID, tt.b.Tier(), got)
		}
	}
}

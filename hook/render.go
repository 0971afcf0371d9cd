package hook

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/narrative"
)

// bodyChars bounds the content shown per node in recall results and
// expansions; the whole injection has its own bound.
const bodyChars = 1200

// nodeLines writes a node as a list item: "- [type:id] content" (the
// content's later lines indented under it) and its tags.
func nodeLines(b *strings.Builder, n *narrative.Node) {
	content := narrative.Truncate(strings.TrimSpace(n.Content), bodyChars)
	fmt.Fprintf(b, "- [%s:%s] %s\n", n.Type, n.ID, strings.ReplaceAll(content, "\n", "\n  "))
	if len(n.Tags) > 0 {
		fmt.Fprintf(b, "  - Tags: %s\n", strings.Join(n.Tags, ", "))
	}
	if n.SupersededBy != "" {
		fmt.Fprintf(b, "  - Superseded by: %s\n", n.SupersededBy)
	}
}

// renderRecall renders recall results (hooks design §17) within max
// characters; nodes that do not fit are counted.
func renderRecall(query, note string, nodes []*narrative.Node, max int) string {
	var b strings.Builder
	b.WriteString("## Recall Results\n\n")
	fmt.Fprintf(&b, "Query: `%s`\n\n", strings.ReplaceAll(query, "`", "'"))
	if note != "" {
		b.WriteString(note + "\n\n")
	}
	if len(nodes) == 0 {
		b.WriteString("No matching nodes found.\n\n---\n")
		return b.String()
	}
	fmt.Fprintf(&b, "Found %d node(s):\n\n", len(nodes))
	const tail = "\n(%d more not shown: narrow the query)\n\n---\n"
	for i, n := range nodes {
		var item strings.Builder
		nodeLines(&item, n)
		item.WriteString("\n")
		if b.Len()+item.Len()+len(tail)+8 > max {
			fmt.Fprintf(&b, tail, len(nodes)-i)
			return b.String()
		}
		b.WriteString(item.String())
	}
	b.WriteString("---\n")
	return b.String()
}

// renderExpand renders an expansion: the summary's sources as they are
// now, off-context ones included (hooks design §8: the tier is overridden
// for this one injection).
func renderExpand(cat *narrative.Catalog, it Item, max int) string {
	var b strings.Builder
	title := it.Summary
	if s, ok := cat.Nodes[narrative.ID(it.Summary)]; ok {
		title = fmt.Sprintf("[%s:%s] %s", s.Type, s.ID, s.Title)
	}
	fmt.Fprintf(&b, "## Expanded: %s\n\nThe nodes it was derived from (shown once; <ctx:expand node=\"%s\"/> again to see them again):\n\n", title, it.Summary)
	shown := 0
	for _, id := range it.Nodes {
		n, ok := cat.Nodes[narrative.ID(id)]
		if !ok || n.Deleted {
			continue
		}
		var item strings.Builder
		nodeLines(&item, n)
		if b.Len()+item.Len()+64 > max {
			fmt.Fprintf(&b, "\n(%d more not shown)\n", len(it.Nodes)-shown)
			break
		}
		b.WriteString(item.String())
		shown++
	}
	if shown == 0 && len(it.Nodes) == 0 {
		b.WriteString("(it derives from no node)\n")
	}
	return b.String()
}

// renderStatus renders <ctx:status/>: the nodes per type and tier with
// their tokens, and the session's current task.
func renderStatus(cat *narrative.Catalog, task string) string {
	types := map[narrative.Type]int{}
	tiers := map[narrative.Tier][2]int{}
	active, tokens, superseded, deleted, taskNodes := 0, 0, 0, 0, 0
	for _, id := range cat.IDs() {
		n := cat.Nodes[id]
		switch {
		case n.Deleted:
			deleted++
			continue
		case n.SupersededBy != "":
			superseded++
			continue
		}
		active++
		tokens += n.Tokens()
		types[n.Type]++
		t := tiers[n.Tier()]
		tiers[n.Tier()] = [2]int{t[0] + 1, t[1] + n.Tokens()}
		if task != "" && n.HasTag("task:"+task) && n.Tier() == narrative.Working {
			taskNodes++
		}
	}
	var b strings.Builder
	b.WriteString("## ctx status\n\n")
	fmt.Fprintf(&b, "Active nodes: %d (%d tokens); superseded: %d; deleted: %d\n", active, tokens, superseded, deleted)
	var ts []string
	for _, t := range narrative.Types {
		if types[t] > 0 {
			ts = append(ts, fmt.Sprintf("%s %d", t, types[t]))
		}
	}
	if len(ts) > 0 {
		fmt.Fprintf(&b, "- By type: %s\n", strings.Join(ts, ", "))
	}
	var tr []string
	for _, t := range append(narrative.Tiers, "") {
		if c := tiers[t]; c[0] > 0 {
			name := string(t)
			if name == "" {
				name = "no tier"
			}
			tr = append(tr, fmt.Sprintf("%s %d (%d tokens)", name, c[0], c[1]))
		}
	}
	if len(tr) > 0 {
		fmt.Fprintf(&b, "- By tier: %s\n", strings.Join(tr, ", "))
	}
	if task != "" {
		fmt.Fprintf(&b, "- Current task: %s (%d working node(s))\n", task, taskNodes)
	} else {
		b.WriteString("- Current task: none\n")
	}
	if len(cat.Problems) > 0 {
		fmt.Fprintf(&b, "- Narrative problems: %d (`ctx status` lists them)\n", len(cat.Problems))
	}
	tags := cat.Tags("")
	sort.Slice(tags, func(i, j int) bool {
		return tags[i].Nodes > tags[j].Nodes || tags[i].Nodes == tags[j].Nodes && tags[i].Tag < tags[j].Tag
	})
	if len(tags) > 10 {
		tags = tags[:10]
	}
	if len(tags) > 0 {
		var tt []string
		for _, t := range tags {
			tt = append(tt, fmt.Sprintf("%s (%d)", t.Tag, t.Nodes))
		}
		fmt.Fprintf(&b, "- Top tags: %s\n", strings.Join(tt, ", "))
	}
	return b.String()
}

package narrative

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// renderNode returns the initial file of a new node: the title as a level-1
// heading, the metadata comment, and the body.
//
//	# Retry strategy: exponential backoff with jitter
//
//	<!-- ctx:node
//	id: 9x2k4m7qab
//	type: decision
//	created: 2026-11-22T11:30:00Z
//	tags: [project:netlib, tier:reference]
//	-->
//
//	## Context
//	…
func renderNode(n *Node) []byte {
	title, body := splitContent(n.Content)
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", titleLine(title))
	b.WriteString(renderHeader(n))
	if body != "" {
		fmt.Fprintf(&b, "\n%s\n", body)
	}
	fmt.Fprintf(&b, "\n%s\n", changesLine)
	return []byte(b.String())
}

// titleLine returns the level-1 heading of a title. A title ending in '#'
// gets a closing "#": Markdown would otherwise read its trailing "#"s as
// the heading's closing sequence and drop them ("Fix issue #" would read
// back as "Fix issue").
func titleLine(title string) string {
	if strings.HasSuffix(title, "#") {
		return "# " + title + " #"
	}
	return "# " + title
}

// renderHeader returns the metadata comment of a node, ending in a newline.
func renderHeader(n *Node) string {
	var b strings.Builder
	b.WriteString(nodeMarker + "\n")
	fmt.Fprintf(&b, "id: %s\n", n.ID)
	fmt.Fprintf(&b, "type: %s\n", n.Type)
	fmt.Fprintf(&b, "created: %s\n", n.Created.UTC().Format(time.RFC3339))
	if len(n.Tags) > 0 {
		fmt.Fprintf(&b, "tags: [%s]\n", strings.Join(n.Tags, ", "))
	}
	if len(n.DerivedFrom) > 0 {
		ids := make([]string, len(n.DerivedFrom))
		for i, id := range n.DerivedFrom {
			ids[i] = string(id)
		}
		fmt.Fprintf(&b, "derived-from: [%s]\n", strings.Join(ids, ", "))
	}
	keys := make([]string, 0, len(n.Meta))
	for k := range n.Meta {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "meta.%s: %s\n", k, n.Meta[k])
	}
	b.WriteString("-->\n")
	return b.String()
}

// renderEvent returns the line of an event, without a newline.
func renderEvent(e Event) string {
	s := fmt.Sprintf("%s %s %d %s %s", eventMarker, e.Time.UTC().Format(time.RFC3339), e.Seq, e.ID, e.Op)
	if e.Arg != "" {
		s += " " + e.Arg
	}
	return s + " -->"
}

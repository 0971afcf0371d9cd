package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/repo"
)

// nodeView is a node as --json prints it.
type nodeView struct {
	*narrative.Node
	Tier   narrative.Tier `json:"tier,omitempty"`
	Tokens int            `json:"tokens"`
	Active bool           `json:"active"`
	File   string         `json:"file"`            // relative to the project directory
	Edges  *[]edgeRow     `json:"edges,omitempty"` // with --with-edges
}

func viewOf(r *repo.Repo, n *narrative.Node) nodeView {
	if n.Tags == nil {
		n.Tags = []string{}
	}
	return nodeView{Node: n, Tier: n.Tier(), Tokens: n.Tokens(), Active: n.Active(), File: ".ctx/narrative/" + n.Path}
}

// loadCatalog parses the narrative and warns on stderr about files that do
// not parse (at most a few; `ctx status` lists them all).
func loadCatalog(app *App, r *repo.Repo) (*narrative.Catalog, error) {
	cat, err := r.Narrative().Load()
	if err != nil {
		return nil, err
	}
	warnProblems(app, cat.Problems)
	return cat, nil
}

func warnProblems(app *App, probs []narrative.Problem) {
	const most = 5
	for i, p := range probs {
		if i == most {
			fmt.Fprintf(app.Stderr, "ctx: warning: %d more narrative problem(s); `ctx status` lists them\n", len(probs)-most)
			break
		}
		fmt.Fprintf(app.Stderr, "ctx: warning: %s\n", p)
	}
}

// resolveNode finds a node by ID or ID prefix.
func resolveNode(app *App, r *repo.Repo, prefix string) (*narrative.Catalog, *narrative.Node, error) {
	cat, err := loadCatalog(app, r)
	if err != nil {
		return nil, nil, err
	}
	n, err := cat.Resolve(prefix)
	if err != nil {
		return nil, nil, err
	}
	return cat, n, nil
}

// printNode writes a node for people.
func printNode(w io.Writer, n *narrative.Node) {
	state := "active"
	switch {
	case n.Deleted:
		state = "deleted"
	case n.SupersededBy != "":
		state = "superseded by " + string(n.SupersededBy)
	}
	fmt.Fprintf(w, "%s  %s  (%s)\n", n.ID, n.Type, state)
	fmt.Fprintf(w, "file:     .ctx/narrative/%s\n", n.Path)
	fmt.Fprintf(w, "created:  %s\n", fmtTime(n.Created))
	if !n.Updated.Equal(n.Created) {
		fmt.Fprintf(w, "updated:  %s\n", fmtTime(n.Updated))
	}
	if len(n.Tags) > 0 {
		fmt.Fprintf(w, "tags:     %s\n", strings.Join(n.Tags, " "))
	}
	if len(n.Meta) > 0 {
		keys := make([]string, 0, len(n.Meta))
		for k := range n.Meta {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "=" + n.Meta[k]
		}
		fmt.Fprintf(w, "meta:     %s\n", strings.Join(parts, " "))
	}
	if len(n.DerivedFrom) > 0 {
		ids := make([]string, len(n.DerivedFrom))
		for i, id := range n.DerivedFrom {
			ids[i] = string(id)
		}
		fmt.Fprintf(w, "derived from: %s\n", strings.Join(ids, " "))
	}
	fmt.Fprintf(w, "tokens:   %d\n\n", n.Tokens())
	fmt.Fprintf(w, "%s\n", n.Content)
}

// listLine is one node in a listing.
func listLine(n *narrative.Node) string {
	title := n.Title
	if len(title) > 72 {
		title = title[:69] + "..."
	}
	tags := ""
	if len(n.Tags) > 0 {
		tags = "  [" + strings.Join(n.Tags, " ") + "]"
	}
	mark := ""
	switch {
	case n.Deleted:
		mark = " (deleted)"
	case n.SupersededBy != "":
		mark = " (superseded)"
	}
	return fmt.Sprintf("%s  %-13s %s  %s%s%s", n.ID, n.Type, n.Updated.UTC().Format("2006-01-02"), title, tags, mark)
}

func fmtTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

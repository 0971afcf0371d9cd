package main

import (
	"strings"

	"github.com/ctx-dev/ctx/index"
	"github.com/ctx-dev/ctx/repo"
)

// StatusCmd is `ctx status`.
type StatusCmd struct{}

// Run prints the store's state.
func (c *StatusCmd) Run(app *App, r *repo.Repo) error {
	st, err := r.Status(app.Ctx)
	if err != nil {
		return err
	}
	ist, err := index.Check(r)
	if err != nil && st.SessionProblem != "" {
		// The index follows the session, which does not read: say so
		// and show the rest.
		ist, err = &index.Status{Reason: "the selected session does not read (see above)"}, nil
	}
	if err != nil {
		return err
	}
	if app.Globals.JSON {
		return app.emit(struct {
			*repo.Status
			Index *index.Status `json:"index"`
		}{st, ist})
	}
	app.printf("store:  %s (%s, %s)\n", st.Root, plural(st.Objects, "object"), humanBytes(st.ObjectBytes))
	heads := make([]string, len(st.Heads))
	for i, h := range st.Heads {
		heads[i] = h.Short()
	}
	if len(st.Heads) == 1 {
		subject, _, _ := strings.Cut(st.Message, "\n")
		app.printf("%s: %s %s\n", st.Ref, heads[0], subject)
	} else {
		app.printf("%s: %d heads (%s) after a git merge; `ctx reconcile` or the next `ctx commit` merges them\n", st.Ref, len(heads), strings.Join(heads, ", "))
	}
	if st.Session != "" {
		app.printf("session: %s at step %s (ctx stage status)\n", st.Session, st.Stage.Short())
	}
	if st.SessionProblem != "" {
		app.printf("session: %s\n", st.SessionProblem)
	}
	n := st.Nodes
	app.printf("nodes:  %d active (~%d tokens), %d superseded, %d deleted; %s\n", n.Active, n.Tokens, n.Superseded, n.Deleted, plural(n.Tags, "distinct tag"))
	for _, g := range n.ByType {
		app.printf("  %-14s %5d  %7d tokens\n", g.Name, g.Nodes, g.Tokens)
	}
	app.printf("tiers:\n")
	for _, g := range n.ByTier {
		app.printf("  %-14s %5d  %7d tokens\n", g.Name, g.Nodes, g.Tokens)
	}
	if len(st.Changes) == 0 {
		app.printf("narrative: nothing to commit\n")
	} else {
		app.printf("narrative: %s to commit (ctx commit -m MSG)\n", plural(len(st.Changes), "changed file"))
		for _, ch := range st.Changes {
			app.printf("  %-9s %s\n", ch.Status, ch.Path)
		}
	}
	switch {
	case ist.Fresh:
		delta := ""
		if d := ist.Delta; d != nil {
			delta = "; " + deltaPhrase("", d)
		}
		if d := ist.NarrativeDelta; d != nil {
			delta += "; " + deltaPhrase("narrative", d)
		}
		app.printf("index: fresh (%d documents%s)\n", ist.Docs, delta)
	default:
		app.printf("index: %s; the next search or query updates it (or ctx rebuild)\n", ist.Reason)
	}
	if ist.Stamp.Holds {
		app.printf("search: answered by ctx alone (the index's stamp holds)\n")
	} else {
		app.printf("search: through ctx-core (%s); a search that finds the index fresh stamps it\n", ist.Stamp.Reason)
	}
	switch g := ist.Graph; {
	case g.Fresh:
		delta := ""
		if d := ist.GraphDelta; d != nil {
			delta = "; " + graphDeltaPhrase(d)
		}
		app.printf("graph:  fresh (%s in the code graph%s)\n", plural(int(g.Nodes), "node"), delta)
	case g.Present:
		app.printf("graph:  %s; the next query updates it (or ctx rebuild)\n", g.Reason)
	case ist.Present:
		app.printf("graph:  %s; the first query builds it (or ctx rebuild)\n", g.Reason)
	}
	if len(st.Problems) > 0 {
		app.printf("problems: %d narrative file problem(s):\n", len(st.Problems))
		for _, p := range st.Problems {
			app.printf("  %s\n", p)
		}
	}
	return nil
}

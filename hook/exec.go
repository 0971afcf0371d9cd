package hook

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/hook/directive"
	"github.com/ctx-dev/ctx/internal/secrets"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/repo"
)

// executor runs the directives of one response under the writer lock.
type executor struct {
	ctx   context.Context
	w     *repo.Writer
	st    *State
	max   int
	now   time.Time
	warnf func(format string, args ...any)

	cat   *narrative.Catalog // nil: to be (re)loaded
	items []Item             // pending results
	done  []string           // what the commands did, for the notice
	// failed are the commands that failed, each with why.
	failed []string
	// fatal stops everything: a damaged store.
	fatal error
}

// run executes one directive; a failure is recorded and the next one
// goes on.
func (x *executor) run(d *directive.Directive) {
	if x.fatal != nil {
		return
	}
	var err error
	switch d.Name {
	case directive.Remember:
		err = x.remember(d)
	case directive.Recall:
		err = x.recall(d)
	case directive.Summarize:
		err = x.summarize(d)
	case directive.Link:
		err = x.link(d)
	case directive.Status:
		err = x.status()
	case directive.Task:
		err = x.task(d)
	case directive.Expand:
		err = x.expand(d)
	case directive.Supersede:
		err = x.supersede(d)
	}
	if err == nil {
		return
	}
	if IsCorrupt(err) {
		x.fatal = err
		return
	}
	msg := fmt.Sprintf("%s (line %d): %s", d.String(), d.Line, message(err))
	x.failed = append(x.failed, msg)
	x.warnf("%s", msg)
}

// message strips the package prefixes of an error for the agent.
func message(err error) string {
	s := err.Error()
	for _, p := range []string{"hook: ", "narrative: ", "repo: ", "graph: ", "where: "} {
		s = strings.ReplaceAll(s, p, "")
	}
	return s
}

// catalog returns the narrative as it is now, reloading it after a write.
func (x *executor) catalog() (*narrative.Catalog, error) {
	if x.cat == nil {
		cat, err := x.w.Narrative().Load()
		if err != nil {
			return nil, err
		}
		x.cat = cat
	}
	return x.cat, nil
}

// changed marks the catalog stale.
func (x *executor) changed() { x.cat = nil }

// resolve finds a node by id or unique prefix; "type:id" (as renderings
// write it, "[fact:9x2k4m7qab]") is accepted too.
func (x *executor) resolve(attr, s string) (*narrative.Node, error) {
	s = strings.Trim(strings.TrimSpace(s), "[]")
	if t, id, ok := strings.Cut(s, ":"); ok {
		if _, err := narrative.ParseType(t); err == nil {
			s = id
		}
	}
	if s == "" {
		return nil, fmt.Errorf("%w: %s is missing", ErrInvalidInput, attr)
	}
	cat, err := x.catalog()
	if err != nil {
		return nil, err
	}
	n, err := cat.Resolve(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", attr, err)
	}
	return n, nil
}

// list splits an attribute holding several values (ids, tags) on commas
// and white space.
func list(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
}

// boolAttr reads true/yes/1 (and a bare attribute) as true.
func boolAttr(s string) bool {
	b, err := strconv.ParseBool(strings.TrimSpace(s))
	return err == nil && b || strings.EqualFold(strings.TrimSpace(s), "yes")
}

// content checks a command's content: not empty, warned about when large,
// secrets redacted.
func (x *executor) content(d *directive.Directive) (string, error) {
	c := d.Content
	if strings.TrimSpace(c) == "" {
		return "", fmt.Errorf("%w: empty content: nothing to store", ErrInvalidInput)
	}
	if len(c) > narrative.MaxRecommendedContent {
		x.warnf("large content (%d bytes) in <ctx:%s> (line %d): it costs about %d tokens in every context it enters", len(c), d.Name, d.Line, (len(c)+3)/4)
	}
	red, found := secrets.Redact([]byte(c))
	for _, s := range found {
		x.warnf("redacted a secret in <ctx:%s> (line %d of its content): %s", d.Name, s.Line, s.Reason)
	}
	if len(found) > 0 {
		c = string(red)
	}
	return c, nil
}

// tags parses a tags attribute; a malformed tag fails the command, so
// that the agent learns of it.
func tags(s string) ([]string, error) {
	var out []string
	for _, t := range list(s) {
		tag, err := narrative.ParseTag(t)
		if err != nil {
			return nil, err
		}
		out = append(out, tag)
	}
	return out, nil
}

func tierOf(tags []string) narrative.Tier {
	var t narrative.Tier
	for _, tag := range tags {
		if v, ok := strings.CutPrefix(tag, narrative.TierPrefix); ok {
			t = narrative.Tier(v)
		}
	}
	return t
}

// add creates a node and reports it.
func (x *executor) add(in narrative.NewNode, verb string) (*narrative.Node, error) {
	n, err := x.w.Narrative().Add(in)
	if n == nil && err != nil {
		return nil, err
	}
	x.changed()
	if err != nil {
		x.warnf("%s was added, but its journal line was not: %v", n.ID, err)
	}
	x.done = append(x.done, fmt.Sprintf("%s [%s:%s] %s", verb, n.Type, n.ID, narrative.Truncate(n.Title, 100)))
	return n, nil
}

// remember is <ctx:remember type="T" tags="A,B" [supersedes="ID"]>: a
// node; a working one is tagged with the current task (hooks design §6).
func (x *executor) remember(d *directive.Directive) error {
	typ := narrative.Observation
	if s := d.Attr("type"); s != "" {
		t, err := narrative.ParseType(s)
		if err != nil {
			return err
		}
		typ = t
	}
	tg, err := tags(d.Attr("tags"))
	if err != nil {
		return err
	}
	content, err := x.content(d)
	if err != nil {
		return err
	}
	var old *narrative.Node
	if s := d.Attr("supersedes"); s != "" {
		if old, err = x.resolve("supersedes", s); err != nil {
			return err
		}
	}
	if tierOf(tg) == narrative.Working {
		if task, _ := x.st.Task(); task != "" {
			tg = append(tg, "task:"+task)
		}
	}
	n, err := x.add(narrative.NewNode{Type: typ, Content: content, Tags: tg}, "remembered")
	if err != nil {
		return err
	}
	if old != nil {
		return x.supersedeNodes(old, n)
	}
	return nil
}

// recall is <ctx:recall query="EXPR" [limit="N"]/>: the nodes matching a
// filter expression (docs/QUERY.md), or, when the query is not one, the
// nodes whose content holds every word of it; rendered now, injected by
// the next prompt.
func (x *executor) recall(d *directive.Directive) error {
	q := d.Attr("query")
	if q == "" {
		q = strings.TrimSpace(d.Content)
	}
	if q == "" {
		return fmt.Errorf("%w: query is missing", ErrInvalidInput)
	}
	limit := 20
	if s := d.Attr("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return fmt.Errorf("%w: limit %q is not a positive number", ErrInvalidInput, s)
		}
		limit = n
	}
	cat, err := x.catalog()
	if err != nil {
		return err
	}
	nodes, perr, err := Recall(x.ctx, x.w.Repo, cat, q, x.now)
	if err != nil {
		return err
	}
	note := ""
	if perr != nil {
		note = fmt.Sprintf("(Not a filter expression — %s — so nodes holding every word are shown. Filters: type:decision tag:x created:>7d, with AND, OR, NOT.)", message(perr))
	}
	matched := len(nodes)
	if len(nodes) > limit {
		nodes = nodes[:limit]
	}
	text := renderRecall(q, note, nodes, x.max)
	if matched > len(nodes) {
		text = strings.TrimSuffix(text, "---\n") + fmt.Sprintf("(%d more beyond limit %d)\n\n---\n", matched-len(nodes), limit)
	}
	x.items = append(x.items, Item{Kind: KindRecall, Query: q, Text: text})
	return nil
}

// matchWords returns the active nodes whose content or tags hold every
// word of q (case folded), most recently changed first.
func matchWords(cat *narrative.Catalog, q string) []*narrative.Node {
	words := strings.Fields(strings.ToLower(q))
	var out []*narrative.Node
	for _, n := range cat.List(narrative.Filter{}) {
		hay := strings.ToLower(n.Content + " " + strings.Join(n.Tags, " "))
		all := true
		for _, w := range words {
			all = all && strings.Contains(hay, w)
		}
		if all {
			out = append(out, n)
		}
	}
	return out
}

// summarize is <ctx:summarize nodes="A,B" [archive="true"] [tags="…"]>:
// a summary derived from the nodes (a derived_from edge to each); with
// archive the sources go off-context. A summary given no tier takes the
// highest tier of its sources, so that archiving them does not take the
// knowledge out of context.
func (x *executor) summarize(d *directive.Directive) error {
	ids := list(d.Attr("nodes"))
	if len(ids) == 0 {
		return fmt.Errorf("%w: nodes is missing: the ids of the nodes summarized", ErrInvalidInput)
	}
	tg, err := tags(d.Attr("tags"))
	if err != nil {
		return err
	}
	content, err := x.content(d)
	if err != nil {
		return err
	}
	var sources []*narrative.Node
	seen := map[narrative.ID]bool{}
	for _, s := range ids {
		n, err := x.resolve("nodes", s)
		if err != nil {
			return err
		}
		if n.Deleted {
			return fmt.Errorf("%w: %s is deleted", ErrInvalidInput, n.ID)
		}
		if !seen[n.ID] {
			seen[n.ID] = true
			sources = append(sources, n)
		}
	}
	if tierOf(tg) == "" {
		best := len(narrative.Tiers)
		for _, n := range sources {
			for i, t := range narrative.Tiers {
				if n.Tier() == t && i < best && t != narrative.OffContext {
					best = i
				}
			}
		}
		if best < len(narrative.Tiers) {
			tg = append(tg, narrative.Tiers[best].Tag())
		}
	}
	in := narrative.NewNode{Type: narrative.Summary, Content: content, Tags: tg}
	for _, n := range sources {
		in.DerivedFrom = append(in.DerivedFrom, n.ID)
	}
	sum, err := x.add(in, "summarized into")
	if err != nil {
		return err
	}
	if !boolAttr(d.Attrs["archive"]) {
		return nil
	}
	var archived []string
	for _, n := range sources {
		if n.Tier() == narrative.OffContext {
			continue
		}
		if _, err := x.w.Narrative().Change(n, narrative.OpTag, narrative.OffContext.Tag()); err != nil {
			return fmt.Errorf("summary %s added, but archiving %s failed: %w", sum.ID, n.ID, err)
		}
		archived = append(archived, string(n.ID))
	}
	x.changed()
	if len(archived) > 0 {
		x.done = append(x.done, fmt.Sprintf("archived (tier:off-context) %s; <ctx:expand node=\"%s\"/> shows them", strings.Join(archived, ", "), sum.ID))
	}
	return nil
}

// link is <ctx:link from="A" to="B" type="DEPENDS_ON"/>: an edge between
// two nodes, committed (in a staging session: a step).
func (x *executor) link(d *directive.Directive) error {
	from, err := x.resolve("from", d.Attr("from"))
	if err != nil {
		return err
	}
	to, err := x.resolve("to", d.Attr("to"))
	if err != nil {
		return err
	}
	if from.ID == to.ID {
		return fmt.Errorf("%w: from and to are the same node", ErrInvalidInput)
	}
	ls := d.Attr("type")
	if ls == "" {
		ls = "RELATES_TO"
	}
	l, err := graph.ParseLabel(ls)
	if err != nil {
		return err
	}
	cat, err := x.catalog()
	if err != nil {
		return err
	}
	g, err := x.w.Graph(x.ctx, repo.GraphOptions{Catalog: cat, NoCode: true})
	if err != nil {
		return err
	}
	e := graph.Edge{
		From: graph.NarrativeNode(string(from.Type), string(from.ID)), To: graph.NarrativeNode(string(to.Type), string(to.ID)),
		Label: l, Evidence: graph.Evidence{Tool: graph.ToolLLM, Confidence: graph.Medium},
	}
	res, err := x.w.Link(x.ctx, g, []graph.Edge{e}, repo.EdgeOptions{Message: fmt.Sprintf("ctx hook: link %s %s %s", from.ID, l, to.ID)})
	if err != nil {
		return err
	}
	if len(res.Added) > 0 {
		x.done = append(x.done, fmt.Sprintf("linked %s %s %s", from.ID, l, to.ID))
	} else {
		x.done = append(x.done, fmt.Sprintf("%s %s %s was already there", from.ID, l, to.ID))
	}
	return nil
}

// status is <ctx:status/>.
func (x *executor) status() error {
	cat, err := x.catalog()
	if err != nil {
		return err
	}
	task, _ := x.st.Task()
	x.items = append(x.items, Item{Kind: KindStatus, Text: renderStatus(cat, task)})
	return nil
}

// TaskTag returns the tag of a task name: "task:" and the name folded to
// a tag's characters (lower case; spaces become '-').
func TaskTag(name string) (string, error) {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(name)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_', r == '-', r == '/', r == '+':
			b.WriteRune(r)
		case unicode.IsSpace(r) || r == ':':
			b.WriteByte('-')
		}
	}
	s := strings.Trim(b.String(), "-./_+")
	if s == "" {
		return "", fmt.Errorf("%w: task name %q has no letter or digit", ErrInvalidInput, name)
	}
	return narrative.ParseTag("task:" + s)
}

// task is <ctx:task name="X" action="start|end" [summarize="true"]/>
// (hooks design §6). Start makes X the session's current task and tags
// the working nodes that belong to no task with task:X (those of another
// agent's task stay its own). End moves the task's working nodes out of
// working memory — decisions to tier:reference, the rest off-context —
// and clears the current task; with summarize it asks the agent for a
// summary of them in the next prompt.
func (x *executor) task(d *directive.Directive) error {
	tag, err := TaskTag(d.Attr("name"))
	if err != nil {
		return err
	}
	name := strings.TrimPrefix(tag, "task:")
	cat, err := x.catalog()
	if err != nil {
		return err
	}
	working := cat.List(narrative.Filter{Tags: []string{narrative.Working.Tag()}})
	switch a := strings.ToLower(d.Attr("action")); a {
	case "start":
		if err := x.st.SetTask(name); err != nil {
			return err
		}
		n := 0
		for _, node := range working {
			if hasTaskTag(node) {
				continue
			}
			if _, err := x.w.Narrative().Change(node, narrative.OpTag, tag); err != nil {
				return err
			}
			n++
		}
		x.changed()
		x.done = append(x.done, fmt.Sprintf("started task %s (tagged %d working node(s) %s); working nodes you remember now get that tag", name, n, tag))
	case "end":
		var archived, promoted []string
		for _, node := range working {
			if !node.HasTag(tag) {
				continue
			}
			to := narrative.OffContext
			if node.Type == narrative.Decision {
				to = narrative.Reference
			}
			if _, err := x.w.Narrative().Change(node, narrative.OpTag, to.Tag()); err != nil {
				return err
			}
			if to == narrative.Reference {
				promoted = append(promoted, string(node.ID))
			} else {
				archived = append(archived, string(node.ID))
			}
		}
		x.changed()
		if cur, _ := x.st.Task(); cur == name {
			if err := x.st.SetTask(""); err != nil {
				return err
			}
		}
		msg := fmt.Sprintf("ended task %s: %d node(s) off-context, %d decision(s) to tier:reference", name, len(archived), len(promoted))
		x.done = append(x.done, msg)
		if boolAttr(d.Attrs["summarize"]) && len(archived)+len(promoted) > 0 {
			ids := strings.Join(append(archived, promoted...), ",")
			x.items = append(x.items, Item{Kind: KindNotice, Text: fmt.Sprintf(
				"## Task %s ended\n\nSummarize what it established, so that it stays in context:\n\n<ctx:summarize nodes=\"%s\" tags=\"tier:reference\">…</ctx:summarize>", name, ids)})
		}
	default:
		return fmt.Errorf("%w: action %q: want start or end", ErrInvalidInput, a)
	}
	return nil
}

func hasTaskTag(n *narrative.Node) bool {
	for _, t := range n.Tags {
		if strings.HasPrefix(t, "task:") {
			return true
		}
	}
	return false
}

// expand is <ctx:expand node="SUMMARY"/>: the summary's sources, in the
// next context only (hooks design §8).
func (x *executor) expand(d *directive.Directive) error {
	n, err := x.resolve("node", d.Attr("node"))
	if err != nil {
		return err
	}
	if n.Type != narrative.Summary && len(n.DerivedFrom) == 0 {
		return fmt.Errorf("%w: %s is a %s, not a summary: nothing to expand", ErrInvalidInput, n.ID, n.Type)
	}
	it := Item{Kind: KindExpand, Summary: string(n.ID)}
	for _, id := range n.DerivedFrom {
		it.Nodes = append(it.Nodes, string(id))
	}
	x.items = append(x.items, it)
	return nil
}

// supersede is <ctx:supersede old="A" new="B"/>.
func (x *executor) supersede(d *directive.Directive) error {
	old, err := x.resolve("old", d.Attr("old"))
	if err != nil {
		return err
	}
	nw, err := x.resolve("new", d.Attr("new"))
	if err != nil {
		return err
	}
	return x.supersedeNodes(old, nw)
}

// supersedeNodes marks old superseded by nw, refusing what ctx supersede
// refuses: a node superseding itself, a deleted replacement, a cycle.
func (x *executor) supersedeNodes(old, nw *narrative.Node) error {
	switch {
	case old.ID == nw.ID:
		return fmt.Errorf("%w: a node cannot supersede itself", ErrInvalidInput)
	case nw.Deleted:
		return fmt.Errorf("%w: %s is deleted", ErrInvalidInput, nw.ID)
	}
	cat, err := x.catalog()
	if err != nil {
		return err
	}
	seen := map[narrative.ID]bool{}
	for y := nw; y.SupersededBy != "" && !seen[y.ID]; {
		seen[y.ID] = true
		if y.SupersededBy == old.ID {
			return fmt.Errorf("%w: %s is already superseded by %s: that would make a cycle", ErrInvalidInput, nw.ID, old.ID)
		}
		next, ok := cat.Nodes[y.SupersededBy]
		if !ok {
			break
		}
		y = next
	}
	if old.SupersededBy == nw.ID {
		return nil
	}
	// old may come from an older catalog: take the current one.
	cur, ok := cat.Nodes[old.ID]
	if !ok {
		return fmt.Errorf("%w: %s", narrative.ErrNotFound, old.ID)
	}
	if _, err := x.w.Narrative().Change(cur, narrative.OpSupersede, string(nw.ID)); err != nil {
		return err
	}
	x.changed()
	x.done = append(x.done, fmt.Sprintf("%s is superseded by %s (hidden from default views)", old.ID, nw.ID))
	return nil
}

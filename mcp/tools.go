package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/hook"
	"github.com/ctx-dev/ctx/index"
	"github.com/ctx-dev/ctx/index/reader"
	"github.com/ctx-dev/ctx/internal/secrets"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/narrative/where"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/pack"
	"github.com/ctx-dev/ctx/repo"
)

// The tools' names, as tools/call takes them.
const (
	ToolQuery        = "query"
	ToolSearch       = "search"
	ToolRemember     = "remember"
	ToolRecall       = "recall"
	ToolRelate       = "relate"
	ToolShow         = "show"
	ToolStatus       = "status"
	ToolStageStart   = "stage_start"
	ToolStageCompact = "stage_compact"
	ToolActivate     = "activate"
	ToolDeactivate   = "deactivate"
)

// addTools registers ctx's tools, in the order tools/list gives them.
// Every tool works on the local store alone (openWorldHint false); the
// writing ones add to it and lose nothing (destructiveHint false: MCP
// takes a tool for destructive unless told otherwise).
func (s *Server) addTools() error {
	no := false
	ro := &toolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}
	add := &toolAnnotations{DestructiveHint: &no, OpenWorldHint: &no}
	addIdem := &toolAnnotations{DestructiveHint: &no, IdempotentHint: true, OpenWorldHint: &no}
	return errors.Join(
		addTool(s, toolDef{Name: ToolQuery, Title: "Query ctx", Annotations: ro, Description: "Build a prompt pack for a question or task: the code and narrative (decisions, notes, tasks) of this code base that answer it, ranked and fitted to a token budget (ctx query). Give query (natural language), a where filter over narrative nodes, or both."}, s.query),
		addTool(s, toolDef{Name: ToolSearch, Title: "Search ctx", Annotations: ro, Description: "Full-text search of the code, paths, narrative and diagnostics: ranked hits with snippets (ctx search). The query takes words, \"exact phrases\", -word to exclude, and filters type:KIND, tag:TAG, path:PREFIX."}, s.search),
		addTool(s, toolDef{Name: ToolRemember, Title: "Remember", Annotations: add, Description: "Add a narrative node: a fact, decision, pattern, observation (note), hypothesis, open-question or task worth keeping (ctx add). The content's first line is its title. Secrets in the content are redacted. Returns the new node."}, s.remember),
		addTool(s, toolDef{Name: ToolRecall, Title: "Recall", Annotations: ro, Description: "List narrative nodes by a filter expression (type:decision AND tag:project:x, created:>7d, -has:summary; docs/QUERY.md), highest priority first; a query that is not a filter matches the nodes holding every word."}, s.recall),
		addTool(s, toolDef{Name: ToolRelate, Title: "Relate", Annotations: addIdem, Description: "Assert an edge FROM LABEL TO between nodes, files, directories, symbols or commits (ctx relate), committed at once (in a staging session: a step). Idempotent: an edge already there is reported present."}, s.relate),
		addTool(s, toolDef{Name: ToolShow, Title: "Show a node", Annotations: ro, Description: "Show one narrative node by id or unique id prefix (ctx show): its content, type, tags, tier, state and file; with_edges adds its edges."}, s.show),
		addTool(s, toolDef{Name: ToolStatus, Title: "Store status", Annotations: ro, Description: "The store's state (ctx status): heads, active staging session, nodes per type and tier, uncommitted narrative, index freshness, narrative problems."}, s.status),
		addTool(s, toolDef{Name: ToolStageStart, Title: "Start a staging session", Annotations: add, Description: "Start a staging session for a task (ctx stage start): every write becomes a step of it until stage_compact squashes them into one commit."}, s.stageStart),
		addTool(s, toolDef{Name: ToolStageCompact, Title: "Compact a staging session", Annotations: add, Description: "Squash a staging session's steps into one commit on main, with a summary in today's log (ctx stage compact); the session ends unless continue is set."}, s.stageCompact),
		addTool(s, toolDef{Name: ToolActivate, Title: "Activate in the working set", Annotations: addIdem, Description: "Load objects of an agent session's working set into its active content (ctx context activate): files (an [unread] stub is read first) or tool outputs, by id, tool call id or path."}, s.activate),
		addTool(s, toolDef{Name: ToolDeactivate, Title: "Deactivate in the working set", Annotations: addIdem, Description: "Take objects out of an agent session's active content (ctx context deactivate); they stay in its metadata pool."}, s.deactivate),
	)
}

// QueryInput is the query tool's arguments.
type QueryInput struct {
	Query            string `json:"query,omitempty" jsonschema:"What to retrieve context for, in natural language (never parsed as syntax)."`
	Where            string `json:"where,omitempty" jsonschema:"Only narrative nodes matching this filter expression, and no code (docs/QUERY.md), e.g. type:decision AND created:>7d."`
	Budget           int    `json:"budget,omitempty" jsonschema:"Token budget of the pack (default: the store's [retrieval] default_budget, 16000)."`
	Depth            int    `json:"depth,omitempty" jsonschema:"Graph expansion depth in edges (default: [retrieval] default_depth, 2)."`
	Format           string `json:"format,omitempty" jsonschema:"Rendering: markdown (default), json or text."`
	IncludeNarrative *bool  `json:"include_narrative,omitempty" jsonschema:"Add the narrative: active task, matching decisions and notes, recent log (default: [retrieval] include_narrative)."`
	NoGraph          bool   `json:"no_graph,omitempty" jsonschema:"Skip the graph expansion."`
	Explain          bool   `json:"explain,omitempty" jsonschema:"Say why each chunk is there and what the budget cut."`
}

func (s *Server) query(ctx context.Context, in QueryInput) (string, error) {
	switch {
	case strings.TrimSpace(in.Query) == "" && strings.TrimSpace(in.Where) == "":
		return "", fmt.Errorf("%w: give query, where, or both", ErrInvalidArgument)
	case in.Budget < 0 || in.Depth < 0:
		return "", fmt.Errorf("%w: budget and depth must not be negative", ErrInvalidArgument)
	}
	f := pack.Markdown
	if in.Format != "" {
		var err error
		if f, err = pack.ParseFormat(in.Format); err != nil {
			return "", fmt.Errorf("%w: format %q: want markdown, json or text", ErrInvalidArgument, in.Format)
		}
	}
	r, err := s.open()
	if err != nil {
		return "", err
	}
	now := s.opts.Clock.Now()
	o := pack.Options{
		Budget: in.Budget, Format: f, Depth: in.Depth, NoGraph: in.NoGraph, Explain: in.Explain,
		MinConfidence: graph.Medium, IncludeNarrative: r.Config.Retrieval.IncludeNarrative, Now: now,
	}
	if o.Budget == 0 {
		o.Budget = r.Config.Retrieval.DefaultBudget
	}
	if o.Depth == 0 {
		o.Depth = r.Config.Retrieval.DefaultDepth
	}
	if in.IncludeNarrative != nil {
		o.IncludeNarrative = *in.IncludeNarrative
	}
	if in.Where != "" {
		if o.Where, err = where.Parse(in.Where, now); err != nil {
			return "", fmt.Errorf("%w: where: %w", ErrInvalidArgument, err)
		}
	}
	p, err := pack.Query(ctx, r, in.Query, o, pack.QueryOptions{})
	if err != nil {
		return "", err
	}
	return pack.Render(p, f)
}

// SearchInput is the search tool's arguments.
type SearchInput struct {
	Query             string   `json:"query" jsonschema:"Words to find; \"exact phrases\" in quotes, -word to exclude; filters type:KIND, tag:TAG, path:PREFIX."`
	Types             []string `json:"types,omitempty" jsonschema:"Keep only hits of these kinds: item, file, diagnostic, or a node type (task, decision, …)."`
	Tags              []string `json:"tags,omitempty" jsonschema:"Keep only narrative nodes with every one of these tags."`
	Limit             int      `json:"limit,omitempty" jsonschema:"Number of hits (default 10)."`
	IncludeSuperseded bool     `json:"include_superseded,omitempty" jsonschema:"Also nodes another node superseded."`
}

// queryLimit checks the query and limit arguments of search and recall:
// the query trimmed, not empty; the limit not negative, def when 0. what
// names what the limit counts.
func queryLimit(query string, limit, def int, what string) (string, int, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return "", 0, fmt.Errorf("%w: query is empty", ErrInvalidArgument)
	}
	if limit < 0 {
		return "", 0, fmt.Errorf("%w: limit %d: want a positive number of %s", ErrInvalidArgument, limit, what)
	}
	if limit == 0 {
		limit = def
	}
	return q, limit, nil
}

func (s *Server) search(ctx context.Context, in SearchInput) (string, error) {
	var err error
	if _, in.Limit, err = queryLimit(in.Query, in.Limit, 10, "hits"); err != nil {
		return "", err
	}
	r, err := s.open()
	if err != nil {
		return "", err
	}
	var hits []reader.Hit
	var matched int
	err = index.Use(ctx, r, index.BuildOptions{}, func(ix *index.Index) (err error) {
		hits, matched, err = ix.Index.Search(in.Query, index.SearchOptions{Limit: in.Limit, Kinds: in.Types, Tags: in.Tags, IncludeSuperseded: in.IncludeSuperseded})
		return err
	})
	if errors.Is(err, index.ErrInvalidQuery) {
		return "", fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	if err != nil {
		return "", err
	}
	out := reader.NewResult(in.Query, matched, hits)
	return jsonText(out)
}

// Node is a narrative node as the tools return it: ctx show --json's
// shape.
type Node struct {
	*narrative.Node
	Tier   narrative.Tier `json:"tier,omitempty"`
	Tokens int            `json:"tokens"`
	Active bool           `json:"active"`
	File   string         `json:"file"` // relative to the project directory
}

func nodeOf(n *narrative.Node) Node {
	if n.Tags == nil {
		n.Tags = []string{}
	}
	return Node{Node: n, Tier: n.Tier(), Tokens: n.Tokens(), Active: n.Active(), File: ".ctx/narrative/" + n.Path}
}

// RememberInput is the remember tool's arguments.
type RememberInput struct {
	Type        string   `json:"type,omitempty" jsonschema:"fact, decision, pattern, observation (note; the default), hypothesis, open-question (question), task, summary or source."`
	Content     string   `json:"content" jsonschema:"The content, Markdown; its first line is the title."`
	Tags        []string `json:"tags,omitempty" jsonschema:"Tags, namespace:value; tier:pinned|reference|working|off-context sets the tier."`
	DerivedFrom []string `json:"derived_from,omitempty" jsonschema:"Ids (or unique prefixes) of nodes this one is derived from (a summary's sources)."`
	Stream      string   `json:"stream,omitempty" jsonschema:"main (default) or feature-<slug>."`
}

// RememberResult is the remember tool's result.
type RememberResult struct {
	Node Node `json:"node"`
	// Redacted says what secrets were withheld from the content.
	Redacted []string `json:"redacted,omitempty"`
	// Step is the staging session step that recorded the node, if a
	// session is active.
	Step *Step `json:"step,omitempty"`
}

// Step names a step of a staging session.
type Step struct {
	Session string    `json:"session"`
	ID      object.ID `json:"id"`
}

func (s *Server) remember(ctx context.Context, in RememberInput) (string, error) {
	typ := narrative.Observation
	if in.Type != "" {
		t, err := narrative.ParseType(in.Type)
		if err != nil {
			return "", fmt.Errorf("%w: %w", ErrInvalidArgument, err)
		}
		typ = t
	}
	if strings.TrimSpace(in.Content) == "" {
		return "", fmt.Errorf("%w: content is empty: nothing to remember", ErrInvalidArgument)
	}
	if len(in.Content) > narrative.MaxContent {
		return "", fmt.Errorf("%w: content holds more than the %d MiB a node may hold", ErrInvalidArgument, narrative.MaxContent>>20)
	}
	for _, t := range in.Tags {
		if _, err := narrative.ParseTag(t); err != nil {
			return "", fmt.Errorf("%w: %w", ErrInvalidArgument, err)
		}
	}
	if _, err := narrative.StreamDir(in.Stream); err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	var res RememberResult
	content := in.Content
	if red, found := secrets.Redact([]byte(content)); len(found) > 0 {
		content = string(red)
		for _, f := range found {
			res.Redacted = append(res.Redacted, fmt.Sprintf("line %d: %s", f.Line, f.Reason))
		}
	}
	w, err := s.lock(ctx, ToolRemember)
	if err != nil {
		return "", err
	}
	defer s.unlock(w)
	// A narrative write in a session records a step: refuse before
	// writing if the session cannot take one (as the CLI does).
	sess, err := w.ActiveSession()
	if err != nil {
		return "", err
	}
	nn := narrative.NewNode{Stream: in.Stream, Type: typ, Content: content, Tags: in.Tags}
	if len(in.DerivedFrom) > 0 {
		cat, err := w.Narrative().Load()
		if err != nil {
			return "", err
		}
		for _, id := range in.DerivedFrom {
			src, err := cat.Resolve(id)
			if err != nil {
				return "", fmt.Errorf("derived_from: %w", err)
			}
			nn.DerivedFrom = append(nn.DerivedFrom, src.ID)
		}
	}
	n, err := w.Narrative().Add(nn)
	if n == nil && err != nil {
		return "", err
	}
	if err != nil {
		// The node exists; only its journal line is missing. Failing
		// would invite a retry that makes a second node.
		s.log.Warn("journal line not written", "node", n.ID, "err", err)
	}
	res.Node = nodeOf(n)
	if res.Step, err = s.step(ctx, w, sess, ToolRemember); err != nil {
		return "", err
	}
	return jsonText(res)
}

// step records the narrative changes of a write as a step of sess, the
// active staging session, if there is one (as ctx add does in a
// session); outside a session the narrative waits for ctx commit.
func (s *Server) step(ctx context.Context, w *repo.Writer, sess *repo.Session, tool string) (*Step, error) {
	res, err := w.NarrativeStep(ctx, sess, "ctx mcp "+tool, "", object.StepNote)
	if err != nil || res == nil || !res.Committed {
		return nil, err // outside a session, or nothing changed
	}
	return &Step{Session: res.Session, ID: res.Step}, nil
}

// RecallInput is the recall tool's arguments.
type RecallInput struct {
	Query string `json:"query" jsonschema:"A filter expression (type:decision AND tag:x, created:>7d; docs/QUERY.md), or words every node returned must hold."`
	Limit int    `json:"limit,omitempty" jsonschema:"At most this many nodes (default 20)."`
}

// RecallResult is the recall tool's result.
type RecallResult struct {
	Query string `json:"query"`
	// Note says the query was not a filter expression, and why, when
	// words were matched instead.
	Note    string `json:"note,omitempty"`
	Matched int    `json:"matched"`
	Nodes   []Node `json:"nodes"`
}

func (s *Server) recall(ctx context.Context, in RecallInput) (string, error) {
	q, limit, err := queryLimit(in.Query, in.Limit, 20, "nodes")
	if err != nil {
		return "", err
	}
	in.Limit = limit
	r, err := s.open()
	if err != nil {
		return "", err
	}
	cat, err := r.Narrative().Load()
	if err != nil {
		return "", err
	}
	nodes, notFilter, err := hook.Recall(ctx, r, cat, q, s.opts.Clock.Now())
	if err != nil {
		return "", err
	}
	out := RecallResult{Query: q, Matched: len(nodes), Nodes: []Node{}}
	if notFilter != nil {
		out.Note = "not a filter expression (" + notFilter.Error() + "): nodes holding every word"
	}
	if len(nodes) > in.Limit {
		nodes = nodes[:in.Limit]
	}
	for _, n := range nodes {
		out.Nodes = append(out.Nodes, nodeOf(n))
	}
	return jsonText(out)
}

// RelateInput is the relate tool's arguments.
type RelateInput struct {
	From       string `json:"from" jsonschema:"A node: narrative node id or prefix, file or directory path, node title, symbol, commit id prefix; or kind:NAME with kind file, dir, item, commit or node."`
	Label      string `json:"label" jsonschema:"The relation: DEPENDS_ON, DERIVED_FROM, RELATES_TO, CHILD_OF, SUPERSEDES, Imports, References, Calls, Mentions, … (case, _ and - do not matter)."`
	To         string `json:"to" jsonschema:"The other end, named as from is."`
	Confidence string `json:"confidence,omitempty" jsonschema:"high, medium (default) or low."`
	Evidence   string `json:"evidence,omitempty" jsonschema:"Why the edge holds; stored as a blob the edge's evidence names."`
	Message    string `json:"message,omitempty" jsonschema:"Commit message (default: the edge)."`
}

func (s *Server) relate(ctx context.Context, in RelateInput) (string, error) {
	l, err := graph.ParseLabel(in.Label)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	conf := graph.Medium
	switch c := graph.Confidence(strings.ToLower(in.Confidence)); c {
	case "":
	case graph.High, graph.Medium, graph.Low:
		conf = c
	default:
		return "", fmt.Errorf("%w: confidence %q: want high, medium or low", ErrInvalidArgument, in.Confidence)
	}
	if strings.TrimSpace(in.From) == "" || strings.TrimSpace(in.To) == "" {
		return "", fmt.Errorf("%w: from and to name the edge's two ends", ErrInvalidArgument)
	}
	w, err := s.lock(ctx, ToolRelate)
	if err != nil {
		return "", err
	}
	defer s.unlock(w)
	cat, err := w.Narrative().Load()
	if err != nil {
		return "", err
	}
	g, err := w.Graph(ctx, repo.GraphOptions{Catalog: cat})
	if err != nil {
		return "", err
	}
	wd := s.opts.Wd
	if wd == "" {
		wd = w.ProjectRoot()
	}
	var ends [2]graph.NodeID
	for i, a := range []string{in.From, in.To} {
		if ends[i], err = w.ResolveNode(g, a, wd); err != nil {
			return "", err
		}
	}
	if ends[0].ID == ends[1].ID {
		return "", fmt.Errorf("%w: %s and %s are the same node: an edge joins two nodes", ErrInvalidArgument, in.From, in.To)
	}
	e := graph.Edge{From: ends[0], To: ends[1], Label: l, Evidence: graph.Evidence{Tool: graph.ToolLLM, Confidence: conf}}
	res, err := w.Link(ctx, g, []graph.Edge{e}, repo.EdgeOptions{Message: in.Message, Note: in.Evidence})
	if err != nil {
		return "", err
	}
	return jsonText(res)
}

// ShowInput is the show tool's arguments.
type ShowInput struct {
	ID        string `json:"id" jsonschema:"The node's id or a unique prefix of it (at least 4 characters); [type:id] as renderings write it is accepted too."`
	WithEdges bool   `json:"with_edges,omitempty" jsonschema:"Also list the node's edges, out and in, with their evidence (as ctx edges does)."`
}

// ShowResult is the show tool's result: the node, and with with_edges
// its edges (ctx show --with-edges --json's shape).
type ShowResult struct {
	Node
	Edges *[]repo.NodeEdge `json:"edges,omitempty"`
}

func (s *Server) show(ctx context.Context, in ShowInput) (string, error) {
	id := strings.Trim(strings.TrimSpace(in.ID), "[]")
	if t, rest, ok := strings.Cut(id, ":"); ok {
		if _, err := narrative.ParseType(t); err == nil {
			id = rest
		}
	}
	if id == "" {
		return "", fmt.Errorf("%w: id is empty", ErrInvalidArgument)
	}
	r, err := s.open()
	if err != nil {
		return "", err
	}
	cat, err := r.Narrative().Load()
	if err != nil {
		return "", err
	}
	n, err := cat.Resolve(id)
	if err != nil {
		return "", err
	}
	out := ShowResult{Node: nodeOf(n)}
	if in.WithEdges {
		g, err := r.Graph(ctx, repo.GraphOptions{Catalog: cat})
		if err != nil {
			return "", err
		}
		rows := g.EdgesOf(graph.NarrativeNode(string(n.Type), string(n.ID)), graph.Both, nil)
		out.Edges = &rows
	}
	return jsonText(out)
}

// StatusInput is the status tool's arguments: none.
type StatusInput struct{}

// StatusResult is the status tool's result, ctx status --json's shape.
type StatusResult struct {
	*repo.Status
	Index *index.Status `json:"index"`
}

func (s *Server) status(ctx context.Context, _ StatusInput) (string, error) {
	r, err := s.open()
	if err != nil {
		return "", err
	}
	st, err := r.Status(ctx)
	if err != nil {
		return "", err
	}
	ist, err := index.Check(r)
	if err != nil && st.SessionProblem != "" {
		ist, err = &index.Status{Reason: "the selected session does not read"}, nil
	}
	if err != nil {
		return "", err
	}
	return jsonText(StatusResult{Status: st, Index: ist})
}

// StageStartInput is the stage_start tool's arguments.
type StageStartInput struct {
	Task   string `json:"task" jsonschema:"What the session is for. A task node's id or exact title ties the session to that task."`
	ID     string `json:"id,omitempty" jsonschema:"The session's id (a-z 0-9 . _ -, at most 64); default: made from the task."`
	Detach bool   `json:"detach,omitempty" jsonschema:"Leave STAGE alone: the session is then used only by processes that name it (CTX_SESSION), not by this server's later calls."`
}

func (s *Server) stageStart(ctx context.Context, in StageStartInput) (string, error) {
	if strings.TrimSpace(in.Task) == "" {
		return "", fmt.Errorf("%w: task is empty", ErrInvalidArgument)
	}
	w, err := s.lock(ctx, ToolStageStart)
	if err != nil {
		return "", err
	}
	defer s.unlock(w)
	res, err := w.StartSession(ctx, repo.StartOptions{Task: in.Task, ID: in.ID, Detach: in.Detach})
	if err != nil {
		return "", err
	}
	return jsonText(res)
}

// StageCompactInput is the stage_compact tool's arguments.
type StageCompactInput struct {
	ID       string `json:"id,omitempty" jsonschema:"The session (default: the server's session, else the one STAGE names)."`
	Message  string `json:"message,omitempty" jsonschema:"The commit's message (default: the task and the session's id)."`
	Continue bool   `json:"continue,omitempty" jsonschema:"Keep the session going on the new commit instead of ending it."`
}

func (s *Server) stageCompact(ctx context.Context, in StageCompactInput) (string, error) {
	w, err := s.lock(ctx, ToolStageCompact)
	if err != nil {
		return "", err
	}
	defer s.unlock(w)
	id := in.ID
	if id == "" {
		if id, err = w.SelectedSession(); err != nil {
			return "", err
		}
		if id == "" {
			return "", fmt.Errorf("%w: no session is active: start one with stage_start", repo.ErrSessionState)
		}
	}
	res, err := w.CompactSession(ctx, id, repo.CompactOptions{Message: in.Message, Continue: in.Continue})
	if err != nil {
		return "", err
	}
	return jsonText(res)
}

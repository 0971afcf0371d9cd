package demo

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/index"
	"github.com/ctx-dev/ctx/internal/clock"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/pack"
	"github.com/ctx-dev/ctx/repo"
)

// connectKey is the stable key of the demo's Client.Connect.
const connectKey = "example.com/netlib/net.Client.Connect"

// Options configure Run.
type Options struct {
	// Dir is an existing, empty directory for the project.
	Dir string
	// Out receives the narration.
	Out io.Writer
	// Clock times the commits; nil means the wall clock.
	Clock clock.Clock
}

// Summary is what the demo produced.
type Summary struct {
	Dir     string    `json:"dir"`
	Store   string    `json:"store"`
	Files   int       `json:"files"`
	Commit  object.ID `json:"commit"`
	Tree    object.ID `json:"tree"`
	Objects int       `json:"objects"`
	OK      bool      `json:"ok"`
}

// Run extracts the demo project into opts.Dir, creates a store, snapshots
// the project into it as one commit on main, and checks the store,
// narrating each step with the equivalent commands.
func Run(ctx context.Context, opts Options) (*Summary, error) {
	out := opts.Out
	if out == nil {
		out = io.Discard
	}
	step := func(format string, args ...any) { fmt.Fprintf(out, "\n$ "+format+"\n", args...) }
	if err := Extract(opts.Dir); err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "demo project: %s (a Go networking library, %d files)\n", opts.Dir, len(Files()))

	step("ctx init")
	r, err := repo.Init(opts.Dir, repo.InitOptions{Options: repo.Options{Clock: opts.Clock}})
	if err != nil {
		return nil, err
	}
	base, err := r.Resolve("main")
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "Initialized empty ctx store in %s\nrefs/main -> %s (the root commit every store shares)\n", r.Root, base.Short())

	step("ctx add code")
	w, err := r.Lock(ctx, repo.LockOptions{Timeout: repo.DefaultLockTimeout, Command: "ctx demo"})
	if err != nil {
		return nil, err
	}
	res, err := w.Ingest(ctx, repo.IngestOptions{Wd: opts.Dir, Semantics: true, Message: "Snapshot the demo project", Author: "ctx demo"})
	if uerr := w.Unlock(); err == nil {
		err = uerr
	}
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "%d files: %d added; %d new objects; read %d code files: %d items, %d edges\n",
		res.Files, res.Added, res.NewObjects, res.Parsed, res.Items, res.Edges)
	commit := *res.ID
	fmt.Fprintf(out, "[main %s] %s\n", commit.Short(), res.Message)

	step("ctx cat-object -p main")
	_, payload, err := r.Objects.Get(commit)
	if err != nil {
		return nil, err
	}
	js, err := object.ToJSON(payload, true)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "%s\n", js)
	c, err := r.ReadCommit(commit)
	if err != nil {
		return nil, err
	}
	files, err := object.ListTree(r.Objects, c.RootTree, "")
	if err != nil {
		return nil, err
	}

	step("ctx cat-object -p main:retry/backoff.go")
	if _, content, err := r.Objects.Get(files["retry/backoff.go"].ID); err == nil {
		lines := strings.SplitAfter(string(content), "\n")
		fmt.Fprintf(out, "%s  ...\n", strings.Join(lines[:min(8, len(lines))], ""))
	} else {
		return nil, err
	}

	step("ctx edges Client.Connect   # what the parser found")
	g, err := r.Graph(ctx, repo.GraphOptions{})
	if err != nil {
		return nil, err
	}
	if i, ok := g.Lookup(graph.ItemNode(r.Config.Repo.ID, connectKey).ID); ok {
		for _, e := range g.Out(i) {
			v := g.View(e)
			fmt.Fprintf(out, "  -> %-10s %s  (%s, %s)\n", v.Label, v.To.Name(), v.Evidence.Tool, v.Evidence.Confidence)
		}
	}

	if err := narrate(ctx, r, out, step); err != nil {
		return nil, err
	}
	if err := query(ctx, r, out, step, opts.Clock); err != nil {
		return nil, err
	}

	step("ctx verify")
	rep, err := r.Verify(ctx, repo.VerifyOptions{})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "checked %d objects (%d blobs, %d typed): ", rep.Objects, rep.Blobs, rep.Objects-rep.Blobs)
	if rep.OK() {
		fmt.Fprintln(out, "no problems found")
	} else {
		fmt.Fprintf(out, "%d problem(s): %v\n", len(rep.Problems), rep.Problems[0])
	}
	return &Summary{Dir: opts.Dir, Store: r.Root, Files: res.Files, Commit: commit, Tree: c.RootTree, Objects: rep.Objects, OK: rep.OK()}, nil
}

// narrate records the task, the decision and a note of the retry feature
// (design appendix A.5 steps 1, 11 and 12), commits them and lists them.
func narrate(ctx context.Context, r *repo.Repo, out io.Writer, step func(string, ...any)) error {
	w, err := r.Lock(ctx, repo.LockOptions{Timeout: repo.DefaultLockTimeout, Command: "ctx demo"})
	if err != nil {
		return err
	}
	defer w.Unlock()
	sp := w.Narrative()
	adds := []struct {
		shown string
		node  narrative.NewNode
	}{
		{`ctx add task "Add connection retry with exponential backoff" --body "…" -t tier:working`, narrative.NewNode{
			Type:    narrative.Task,
			Content: "Add connection retry with exponential backoff\n\n## Objective\nRetry Client.Connect with exponential backoff.\n\n## Files likely involved\n- `net/client.go`\n- `retry/backoff.go`",
			Tags:    []string{"tier:working"},
		}},
		{`ctx add decision "Retry strategy: exponential backoff with jitter" --body "…" -t tier:reference`, narrative.NewNode{
			Type:    narrative.Decision,
			Content: "Retry strategy: exponential backoff with jitter\n\n## Decision\nDelays double from Backoff.Initial up to Backoff.Cap, plus up to 10% jitter.\n\n## Rationale\nJitter keeps many clients from retrying in lockstep (the thundering herd).",
			Tags:    []string{"tier:reference", "project:netlib"},
		}},
		{`ctx add note "Connect gives up with ErrTimeout after Backoff.Max attempts"`, narrative.NewNode{
			Type:    narrative.Observation,
			Content: "Connect gives up with ErrTimeout after Backoff.Max attempts",
		}},
	}
	var added []*narrative.Node
	for _, a := range adds {
		step("%s", a.shown)
		n, err := sp.Add(a.node)
		if err != nil {
			return err
		}
		fmt.Fprintln(out, n.ID)
		added = append(added, n)
	}
	step("ctx commit -m 'Record the retry task and decision'")
	res, err := w.Commit(ctx, repo.CommitOptions{Message: "Record the retry task and decision", Author: "ctx demo"})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "[main %s] Record the retry task and decision\n", res.ID.Short())
	for _, ch := range res.Changes {
		fmt.Fprintf(out, "  %-9s narrative/%s\n", ch.Status, ch.Path)
	}
	step("ctx list")
	cat, err := sp.Load()
	if err != nil {
		return err
	}
	for _, n := range cat.List(narrative.Filter{}) {
		tags := ""
		if len(n.Tags) > 0 {
			tags = "  [" + strings.Join(n.Tags, " ") + "]"
		}
		fmt.Fprintf(out, "%s  %-12s %s%s\n", n.ID, n.Type, n.Title, tags)
	}
	step("cat .ctx/narrative/decisions.md")
	b, err := os.ReadFile(filepath.Join(r.Root, "narrative", "decisions.md"))
	if err != nil {
		return err
	}
	fmt.Fprint(out, string(b))
	return relate(ctx, w, out, step, added[0], added[2], added[1])
}

// relate links the task to the code it touches and the note to the
// decision it follows from (design appendix A.5 step 7), then lists the
// task's edges: the asserted ones and those its body declares.
func relate(ctx context.Context, w *repo.Writer, out io.Writer, step func(string, ...any), task, note, decision *narrative.Node) error {
	g, err := w.Graph(ctx, repo.GraphOptions{})
	if err != nil {
		return err
	}
	client := graph.FileNode(w.Config.Repo.ID, "net/client.go")
	connect := graph.ItemNode(w.Config.Repo.ID, connectKey)
	human := graph.Evidence{Tool: graph.ToolHuman, Confidence: graph.High}
	links := []struct {
		shown string
		edge  graph.Edge
	}{
		{fmt.Sprintf("ctx relate %s Mentions net/client.go", task.ID), graph.Edge{From: graph.NarrativeNode(string(task.Type), string(task.ID)), To: client, Label: graph.Mentions, Evidence: human}},
		{fmt.Sprintf("ctx relate %s Mentions Client.Connect", task.ID), graph.Edge{From: graph.NarrativeNode(string(task.Type), string(task.ID)), To: connect, Label: graph.Mentions, Evidence: human}},
		{fmt.Sprintf("ctx link %s %s --type DEPENDS_ON", note.ID, decision.ID), graph.Edge{From: graph.NarrativeNode(string(note.Type), string(note.ID)), To: graph.NarrativeNode(string(decision.Type), string(decision.ID)), Label: graph.DependsOn, Evidence: human}},
	}
	for _, l := range links {
		step("%s", l.shown)
		res, err := w.Link(ctx, g, []graph.Edge{l.edge}, repo.EdgeOptions{Author: "ctx demo"})
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "[main %s] %s\n", res.Commit.ID.Short(), res.Commit.Commit.Message)
	}
	step("ctx edges %s", task.ID)
	if g, err = w.Graph(ctx, repo.GraphOptions{}); err != nil {
		return err
	}
	i, _ := g.Lookup(graph.NarrativeNode(string(task.Type), string(task.ID)).ID)
	for _, e := range g.Out(i) {
		v := g.View(e)
		how := "named in the task's body"
		if v.Origin.Commit != nil {
			how = "asserted in commit " + v.Origin.Commit.Short()
		}
		fmt.Fprintf(out, "  -> %-9s %s  (%s)\n", v.Label, v.To.Name(), how)
	}
	return nil
}

// demoQuestion is what the demo asks of its store.
const demoQuestion = "Why and how does Connect retry when the server is down?"

// query builds a small prompt pack for a question about the retry
// feature and shows what it holds: the code and narrative an agent would
// get, within its budget (design §12).
func query(ctx context.Context, r *repo.Repo, out io.Writer, step func(string, ...any), clk clock.Clock) error {
	step("ctx query %q --format text --budget 2500   # a prompt pack: what an agent gets", demoQuestion)
	ix, _, err := index.Open(ctx, r, index.BuildOptions{})
	if err != nil {
		return err
	}
	defer ix.Close()
	gx, err := index.OpenGraph(ctx, r)
	if err != nil {
		return err
	}
	defer gx.Close()
	cat, err := r.Narrative().Load()
	if err != nil {
		return err
	}
	head, err := r.Resolve("main")
	if err != nil {
		return err
	}
	if clk == nil {
		clk = clock.Real{}
	}
	p, err := pack.Build(ctx, pack.Source{Repo: r, Index: ix, Graph: gx, Catalog: cat, Head: head}, demoQuestion,
		pack.Options{Budget: 2500, Format: pack.Text, IncludeNarrative: true, Now: clk.Now()})
	if err != nil {
		return err
	}
	for i, c := range p.Retrieved {
		fmt.Fprintf(out, "%d. %s  [%s]\n", i+1, c.Title, c.ChunkKind)
	}
	fmt.Fprintf(out, "(%d chunks; %d of %d tokens, %d kept for the answer; --format json or markdown for the content)\n",
		len(p.Retrieved), p.TokenBudget.Used, p.TokenBudget.Total, p.TokenBudget.ReservedForResponse)
	return nil
}

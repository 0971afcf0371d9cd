package demo

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/internal/clock"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
	"github.com/ctx-dev/ctx/repo"
)

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

	paths, err := projectFiles(opts.Dir)
	if err != nil {
		return nil, err
	}
	step("ctx hash-object -w --stdin-paths   # %d files, made durable with one sync", len(paths))
	abs := make([]string, len(paths))
	for i, p := range paths {
		abs[i] = filepath.Join(opts.Dir, filepath.FromSlash(p))
	}
	b := r.Objects.NewBatch()
	ids, err := object.PutFiles(ctx, b, abs, 0)
	if err != nil {
		b.Abort()
		return nil, err
	}
	files := make(map[string]object.ID, len(paths))
	for i, p := range paths {
		files[p] = ids[i]
		fmt.Fprintf(out, "%s  %s\n", ids[i].Short(), p)
	}
	tree, err := object.WriteTree(b, files)
	if err != nil {
		b.Abort()
		return nil, err
	}
	if err := b.Commit(); err != nil {
		return nil, err
	}

	step("ctx commit-tree %s -p main -m 'Snapshot the demo project'", tree.Short())
	commit, err := r.CommitTree(tree, []object.ID{base}, "Snapshot the demo project", "ctx demo")
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(out, commit)

	step("ctx update-ref main %s %s", commit.Short(), base.Short())
	w, err := r.Lock(ctx, repo.LockOptions{Timeout: repo.DefaultLockTimeout, Command: "ctx demo"})
	if err != nil {
		return nil, err
	}
	err = w.UpdateRef(refs.Main, commit, refs.Among(base))
	if uerr := w.Unlock(); err == nil {
		err = uerr
	}
	if err != nil {
		return nil, err
	}

	step("ctx log --oneline")
	entries, err := r.Log(ctx, []object.ID{commit}, 0)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		fmt.Fprintf(out, "%s %s\n", e.ID.Short(), e.Commit.Message)
	}

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

	step("ctx cat-object -p main:retry/backoff.go")
	if _, content, err := r.Objects.Get(files["retry/backoff.go"]); err == nil {
		lines := strings.SplitAfter(string(content), "\n")
		fmt.Fprintf(out, "%s  ...\n", strings.Join(lines[:min(8, len(lines))], ""))
	} else {
		return nil, err
	}

	if err := narrate(ctx, r, out, step); err != nil {
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
	return &Summary{Dir: opts.Dir, Store: r.Root, Files: len(paths), Commit: commit, Tree: tree, Objects: rep.Objects, OK: rep.OK()}, nil
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
	connect := graph.ItemNode(w.Config.Repo.ID, "netlib/net.Client.Connect")
	human := graph.Evidence{Tool: graph.ToolHuman, Confidence: graph.High}
	links := []struct {
		shown string
		edge  graph.Edge
	}{
		{fmt.Sprintf("ctx relate %s Mentions net/client.go", task.ID), graph.Edge{From: graph.NarrativeNode(string(task.Type), string(task.ID)), To: client, Label: graph.Mentions, Evidence: human}},
		{fmt.Sprintf("ctx relate %s Mentions item:netlib/net.Client.Connect", task.ID), graph.Edge{From: graph.NarrativeNode(string(task.Type), string(task.ID)), To: connect, Label: graph.Mentions, Evidence: human}},
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

// projectFiles lists the regular files under dir, outside .ctx, as sorted
// slash-separated relative paths.
func projectFiles(dir string) ([]string, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == repo.DirName {
			return fs.SkipDir
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			paths = append(paths, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(paths)
	return paths, err
}

package repo

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/graph/diag"
	"github.com/ctx-dev/ctx/internal/secrets"
	"github.com/ctx-dev/ctx/object"
)

// DiagnosticsSnapshot is what a commit's diagnostics_snapshot names: the
// latest recorded run of each command, by name. Stored under the type
// name "diagnostics_snapshot".
type DiagnosticsSnapshot struct {
	// Runs are sorted by name, one per name.
	Runs []RunRef `json:"runs"`
}

// RunRef is the latest run of a command.
type RunRef struct {
	Name string    `json:"name"`
	Run  object.ID `json:"run"`
}

// TypeName returns "diagnostics_snapshot".
func (*DiagnosticsSnapshot) TypeName() string { return "diagnostics_snapshot" }

// Links returns the runs.
func (s *DiagnosticsSnapshot) Links() []object.Link {
	ls := make([]object.Link, len(s.Runs))
	for i, r := range s.Runs {
		ls[i] = object.Link{Field: fmt.Sprintf("runs[%d].run", i), ID: r.Run, Kind: object.KindTyped, Type: "command_run"}
	}
	return ls
}

// Validate checks the order and the ids.
func (s *DiagnosticsSnapshot) Validate() error {
	for i, r := range s.Runs {
		switch {
		case r.Name == "":
			return fmt.Errorf("runs[%d]: empty name", i)
		case r.Run.IsZero():
			return fmt.Errorf("runs[%d]: zero id", i)
		case i > 0 && s.Runs[i-1].Name >= r.Name:
			return fmt.Errorf("runs[%d] %q: out of order or repeated", i, r.Name)
		}
	}
	return nil
}

// CommandOptions configure Writer.RecordCommand.
type CommandOptions struct {
	// Name is the command as the user gives it ("go test ./...").
	Name string
	// Argv is the argument vector when ctx ran the command itself.
	Argv []string
	// Dir is the absolute directory the command ran in (default: the
	// project root); relative paths in its output are read from there.
	Dir      string
	Output   []byte
	ExitCode int
	Started  time.Time
	Duration time.Duration
	// AllowSecrets stores the output, name, arguments and message as they
	// are; otherwise secrets found in them are redacted first.
	AllowSecrets    bool
	Message, Author string
}

// CommandResult is what RecordCommand did.
type CommandResult struct {
	Committed bool             `json:"committed"`
	ID        *object.ID       `json:"id,omitempty"`
	Ref       string           `json:"ref"`
	Message   string           `json:"message,omitempty"`
	RunID     object.ID        `json:"run_id"`
	Run       *diag.CommandRun `json:"run"`
	// KeptLines counts the lines of output stored.
	KeptLines int `json:"kept_lines"`
	// Redacted lists the secrets replaced in the stored output.
	Redacted []Skipped `json:"redacted"`
}

// RecordCommand records a command run (design A.5 steps 8 and 10, §16.3):
// its diagnostics, parsed from the output, and the part of the output
// worth keeping (all of a failure up to max_log_lines, a short summary of
// a success), with secrets redacted. The run becomes the command's latest
// in the diagnostics snapshot of a new commit; each diagnostic that names
// a file of the project references it (and the item at that line).
func (w *Writer) RecordCommand(ctx context.Context, opts CommandOptions) (*CommandResult, error) {
	name := strings.Join(strings.Fields(opts.Name), " ")
	if name == "" {
		return nil, fmt.Errorf("%w: a command needs a name (--name)", ErrInvalidArgument)
	}
	res := &CommandResult{Redacted: []Skipped{}}
	out, argv, message := opts.Output, opts.Argv, opts.Message
	if !opts.AllowSecrets {
		red, found := secrets.Redact(out)
		for _, f := range found {
			res.Redacted = append(res.Redacted, Skipped{Path: fmt.Sprintf("output line %d", f.Line), Reason: f.Reason})
		}
		out = red
		// A command line holds secrets as often as its output does
		// (curl -H "Authorization: …", --password=…), and the name
		// goes into the run, the snapshot and the commit message.
		redact := func(what, s string) string {
			red, found := secrets.Redact([]byte(s))
			for _, f := range found {
				res.Redacted = append(res.Redacted, Skipped{Path: what, Reason: f.Reason})
			}
			return string(red)
		}
		name = redact("command name", name)
		argv = slices.Clone(argv)
		for i := range argv {
			argv[i] = redact(fmt.Sprintf("argument %d", i), argv[i])
		}
		message = redact("message", message)
	}
	parsed := w.parseOutput(name, out, opts.Dir)
	kept, truncated := diag.Keep(out, opts.ExitCode, parsed, w.Config.Ingestion.MaxLogLines)
	run := &diag.CommandRun{
		Name: name, Argv: argv, ExitCode: opts.ExitCode, StartedAt: opts.Started.Unix(),
		DurationMS: opts.Duration.Milliseconds(), Truncated: truncated && len(kept) > 0,
		Summary: parsed.Summary, Diagnostics: parsed.Diagnostics,
	}
	if run.Diagnostics == nil {
		run.Diagnostics = []diag.Diagnostic{}
	}
	if opts.Started.IsZero() {
		run.StartedAt = w.Clock.Now().Unix()
	}
	t, err := w.currentTip(ctx, object.StepCommandRun)
	if err != nil {
		return nil, err
	}
	base, head := t.commit, t.head
	res.Ref = t.label
	b := w.Objects.NewBatch()
	defer b.Abort()
	if len(kept) > 0 {
		id, err := b.Put(object.KindBlob, kept)
		if err != nil {
			return nil, err
		}
		run.Output = &id
		res.KeptLines = strings.Count(string(kept), "\n")
	}
	rid, err := object.PutTyped(b, run)
	if err != nil {
		return nil, fmt.Errorf("repo: command run: %w", err)
	}
	res.RunID, res.Run = rid, run
	snap := &DiagnosticsSnapshot{}
	if base.DiagnosticsSnapshot != nil {
		if err := object.GetTyped(w.Objects, *base.DiagnosticsSnapshot, snap); err != nil {
			return nil, fmt.Errorf("repo: diagnostics snapshot of %s: %w", head.Short(), err)
		}
	}
	snap.Runs = slices.DeleteFunc(snap.Runs, func(r RunRef) bool { return r.Name == name })
	snap.Runs = append(snap.Runs, RunRef{Name: name, Run: rid})
	slices.SortFunc(snap.Runs, func(a, b RunRef) int { return strings.Compare(a.Name, b.Name) })
	sid, err := object.PutTyped(b, snap)
	if err != nil {
		return nil, err
	}
	msg := message
	if msg == "" {
		msg = fmt.Sprintf("Run %s: exit %d", name, opts.ExitCode)
		if run.Summary.Text != "" {
			msg += "; " + run.Summary.Text
		}
	}
	c := t.child(w, opts.Author, msg)
	c.DiagnosticsSnapshot = &sid
	id, err := w.advance(b, t, c)
	if err != nil {
		return nil, err
	}
	res.Committed, res.ID, res.Message = true, &id, msg
	return res, nil
}

// parseOutput parses the output of a command that ran in dir and makes
// the diagnostics' paths relative to the project root.
func (w *Writer) parseOutput(name string, out []byte, dir string) *diag.Result {
	root := w.ProjectRoot()
	if dir == "" {
		dir = root
	}
	parsed := diag.Parse(name, out, dir)
	sub, err := filepath.Rel(root, dir)
	if err != nil || sub == "." || sub == ".." || strings.HasPrefix(sub, ".."+string(filepath.Separator)) {
		return parsed
	}
	sub = filepath.ToSlash(sub)
	for i := range parsed.Diagnostics {
		d := &parsed.Diagnostics[i]
		switch {
		case d.Path == "":
		case !d.External:
			d.Path = path.Join(sub, d.Path)
		case path.IsAbs(d.Path) && strings.HasPrefix(d.Path, filepath.ToSlash(root)+"/"):
			d.Path, d.External = strings.TrimPrefix(d.Path, filepath.ToSlash(root)+"/"), false
		case strings.HasPrefix(d.Path, "../"):
			if p := path.Join(sub, d.Path); p != ".." && !strings.HasPrefix(p, "../") {
				d.Path, d.External = p, false
			}
		}
	}
	return parsed
}

// diagInfo is what Describe shows of a diagnostic node.
type diagInfo struct {
	severity diag.Severity
	code     string
	message  string
	command  string
}

// diagnosticEdges adds the edges of the heads' latest command runs: each
// diagnostic that names a file of the project references the file and,
// when a semantic snapshot says which item spans that line, the item.
func (r *Repo) diagnosticEdges(g *Graph) error {
	return r.DiagnosticEdges(g.Heads, g.itemAt, func(rid object.ID, run *diag.CommandRun, i int, edges []graph.Edge) {
		d := &run.Diagnostics[i]
		g.diags[graph.DiagnosticNode(rid, i).ID] = diagInfo{severity: d.Severity, code: d.Code, message: d.Message, command: run.Name}
		origin := EdgeOrigin{Snapshot: &rid, Derived: "command " + run.Name}
		for _, e := range edges {
			g.edges = append(g.edges, e)
			g.origins = append(g.origins, origin)
		}
	})
}

// DiagnosticEdges calls fn with each diagnostic of the latest command runs
// of the heads (each diagnostics snapshot once, in head order) and its
// edges: a diagnostic that names a file of the project references the
// file and, when itemAt (the key of the innermost item of a file spanning
// a line, "" for none: ItemAt) knows one, the item at its line.
func (r *Repo) DiagnosticEdges(heads []object.ID, itemAt func(path string, line uint32) (string, error), fn func(run object.ID, cr *diag.CommandRun, i int, edges []graph.Edge)) error {
	seen := map[object.ID]bool{}
	for _, h := range heads {
		c, err := r.ReadCommit(h)
		if err != nil {
			return err
		}
		if c.DiagnosticsSnapshot == nil || seen[*c.DiagnosticsSnapshot] {
			continue
		}
		seen[*c.DiagnosticsSnapshot] = true
		snap := new(DiagnosticsSnapshot)
		if err := object.GetTyped(r.Objects, *c.DiagnosticsSnapshot, snap); err != nil {
			return fmt.Errorf("diagnostics snapshot of %s: %w", h.Short(), err)
		}
		for _, ref := range snap.Runs {
			run := new(diag.CommandRun)
			if err := object.GetTyped(r.Objects, ref.Run, run); err != nil {
				if errors.Is(err, object.ErrNotFound) {
					return fmt.Errorf("command run %s of %q: %w", ref.Run.Short(), ref.Name, err)
				}
				return err
			}
			rid := ref.Run
			for i, d := range run.Diagnostics {
				node := graph.DiagnosticNode(rid, i)
				var edges []graph.Edge
				if d.Path != "" && !d.External {
					ev := graph.Evidence{Tool: graph.ToolCommand, Confidence: graph.High}
					if d.Line > 0 {
						end := d.EndLine
						if end < d.Line {
							end = d.Line
						}
						ev.Span = &graph.Span{StartLine: uint32(d.Line), StartCol: uint32(d.Col), EndLine: uint32(end), EndCol: uint32(d.EndCol)}
					}
					edges = append(edges, graph.Edge{From: node, To: graph.FileNode(r.Config.Repo.ID, d.Path), Label: graph.References, Evidence: ev})
					if d.Line > 0 {
						key, err := itemAt(d.Path, uint32(d.Line))
						if err != nil {
							return err
						}
						if key != "" {
							ev.Confidence = graph.Medium
							edges = append(edges, graph.Edge{From: node, To: graph.ItemNode(r.Config.Repo.ID, key), Label: graph.References, Evidence: ev})
						}
					}
				}
				fn(rid, run, i, edges)
			}
		}
	}
	return nil
}

package main

import (
	"fmt"
	"io"

	"github.com/ctx-dev/ctx/internal/secrets"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/repo"
)

// AddCmd is `ctx add`: knowledge nodes in the narrative.
type AddCmd struct {
	Note        addNote        `cmd:"" help:"Add a note (an observation) to today's log."`
	Observation addObservation `cmd:"" help:"Add an observation."`
	Fact        addFact        `cmd:"" help:"Add a fact: stable knowledge about the project or its people."`
	Decision    addDecision    `cmd:"" help:"Add a decision with its rationale; also listed in decisions.md."`
	Pattern     addPattern     `cmd:"" help:"Add a pattern: a recurring approach or structure."`
	Hypothesis  addHypothesis  `cmd:"" help:"Add a hypothesis: an idea not yet validated."`
	Question    addQuestion    `cmd:"" help:"Add an open question."`
	Task        addTask        `cmd:"" help:"Add a task: a file of its own in tasks/."`
	Summary     addSummary     `cmd:"" help:"Add a summary of other nodes (--from ID...)."`
	Source      addSource      `cmd:"" help:"Add a source: external content worth keeping."`
	File        addFile        `cmd:"" help:"Snapshot files and directories of the project (--extract-semantics reads their code)."`
	Code        addCode        `cmd:"" help:"Ingest the whole project (or paths) with its code's semantics, incrementally."`
	Go          addGo          `cmd:"" help:"Record the Go build graph (go list): packages, modules, targets, dependencies."`
	Cargo       addCargo       `cmd:"" help:"Record the Cargo workspace graph (cargo metadata): packages, targets, crates, dependencies."`
	Command     addCommand     `cmd:"" help:"Record a command's output read from stdin (--stdin --name NAME): its diagnostics and exit status."`
	Node        addNode        `cmd:"" default:"withargs" hidden:"" help:"Add a node of --type TYPE."`
}

// nodeArgs are the inputs every add command takes.
type nodeArgs struct {
	Text   string   `arg:"" optional:"" help:"The content; its first line is the title. Omit with --stdin."`
	Body   string   `placeholder:"TEXT" help:"More content after the title (Markdown)."`
	Tags   []string `short:"t" name:"tag" placeholder:"TAG" help:"A tag, namespace:value (tier:pinned|reference|working|off-context sets the tier). Repeatable."`
	Meta   []string `name:"meta" sep:"none" placeholder:"KEY=VALUE" help:"A metadata pair. Repeatable."`
	Stdin  bool     `help:"Read the content from standard input."`
	From   []string `name:"from" placeholder:"ID" help:"A node this one is derived from (a summary's sources). Repeatable."`
	Stream string   `placeholder:"STREAM" help:"main (default) or feature-<slug>: a feature's narrative, under narrative/feature/<slug>/."`
	secretsFlag
}

// Validate checks the arguments before the store is locked.
func (a *nodeArgs) Validate() error {
	switch {
	case a.Stdin && a.Text != "":
		return fmt.Errorf("give the content as an argument or with --stdin, not both")
	case !a.Stdin && a.Text == "":
		return fmt.Errorf("missing content: ctx add TYPE \"text\" (or --stdin)")
	}
	for _, t := range a.Tags {
		if _, err := narrative.ParseTag(t); err != nil {
			return err
		}
	}
	for _, m := range a.Meta {
		if _, _, err := narrative.ParseMeta(m); err != nil {
			return err
		}
	}
	_, err := narrative.StreamDir(a.Stream)
	return err
}

func (a *nodeArgs) add(app *App, w *repo.Writer, t narrative.Type) error {
	content := a.Text
	if a.Stdin {
		var err error
		if content, err = readContent(app.Stdin); err != nil {
			return err
		}
	}
	if a.Body != "" {
		content += "\n\n" + a.Body
	}
	content = a.screen(app, content)
	meta := map[string]string{}
	for _, m := range a.Meta {
		k, v, _ := narrative.ParseMeta(m)
		meta[k] = v
	}
	in := narrative.NewNode{Stream: a.Stream, Type: t, Content: content, Tags: a.Tags, Meta: meta}
	if len(a.From) > 0 {
		cat, err := loadCatalog(app, w.Repo)
		if err != nil {
			return err
		}
		for _, f := range a.From {
			src, err := cat.Resolve(f)
			if err != nil {
				return fmt.Errorf("--from: %w", err)
			}
			in.DerivedFrom = append(in.DerivedFrom, src.ID)
		}
	}
	n, err := w.Narrative().Add(in)
	if n == nil && err != nil {
		return err
	}
	if err != nil {
		// The node exists; only its journal line is missing. Failing now
		// would invite a retry that makes a second node.
		fmt.Fprintf(app.Stderr, "ctx: warning: %s was added, but its journal line was not: %s\n", n.ID, message(err))
	}
	if len(n.Content) > narrative.MaxRecommendedContent {
		fmt.Fprintf(app.Stderr, "ctx: warning: large content (%d bytes, ~%d tokens): it costs that much in every context it enters\n", len(n.Content), n.Tokens())
	}
	app.printf("%s\n", n.ID)
	return app.emit(viewOf(w.Repo, n))
}

// readContent reads node content from r, refusing more than a node may
// hold rather than cutting it.
func readContent(r io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, narrative.MaxContent+1))
	if err != nil {
		return "", err
	}
	if len(b) > narrative.MaxContent {
		return "", fmt.Errorf("%w: standard input holds more than the %d MiB a node may hold", narrative.ErrInvalidContent, narrative.MaxContent>>20)
	}
	return string(b), nil
}

type addNote struct{ nodeArgs }

// Run adds the node.
func (c *addNote) Run(app *App, w *repo.Writer) error { return c.add(app, w, narrative.Observation) }

type addObservation struct{ nodeArgs }

// Run adds the node.
func (c *addObservation) Run(app *App, w *repo.Writer) error {
	return c.add(app, w, narrative.Observation)
}

type addFact struct{ nodeArgs }

// Run adds the node.
func (c *addFact) Run(app *App, w *repo.Writer) error { return c.add(app, w, narrative.Fact) }

type addDecision struct{ nodeArgs }

// Run adds the node.
func (c *addDecision) Run(app *App, w *repo.Writer) error { return c.add(app, w, narrative.Decision) }

type addPattern struct{ nodeArgs }

// Run adds the node.
func (c *addPattern) Run(app *App, w *repo.Writer) error { return c.add(app, w, narrative.Pattern) }

type addHypothesis struct{ nodeArgs }

// Run adds the node.
func (c *addHypothesis) Run(app *App, w *repo.Writer) error {
	return c.add(app, w, narrative.Hypothesis)
}

type addQuestion struct{ nodeArgs }

// Run adds the node.
func (c *addQuestion) Run(app *App, w *repo.Writer) error {
	return c.add(app, w, narrative.OpenQuestion)
}

type addTask struct{ nodeArgs }

// Run adds the node.
func (c *addTask) Run(app *App, w *repo.Writer) error { return c.add(app, w, narrative.Task) }

type addSummary struct{ nodeArgs }

// Run adds the node.
func (c *addSummary) Run(app *App, w *repo.Writer) error { return c.add(app, w, narrative.Summary) }

type addSource struct{ nodeArgs }

// Run adds the node.
func (c *addSource) Run(app *App, w *repo.Writer) error { return c.add(app, w, narrative.Source) }

// addNode is `ctx add --type TYPE "text"`, the node-graph form. It also
// catches `ctx add WORD "text"` where WORD is no type, to say which types
// there are.
type addNode struct {
	Type string `placeholder:"TYPE" help:"fact, decision, pattern, observation (note), hypothesis, open-question (question), task, summary or source."`
	nodeArgs
	Rest []string `arg:"" optional:"" hidden:""`
}

// Validate checks the type and the arguments.
func (c *addNode) Validate() error {
	if c.Type == "" {
		_, err := narrative.ParseType(c.Text)
		return fmt.Errorf("%w; write ctx add TYPE \"text\" or ctx add --type TYPE \"text\"", err)
	}
	if len(c.Rest) > 0 {
		return fmt.Errorf("unexpected argument %q", c.Rest[0])
	}
	if _, err := narrative.ParseType(c.Type); err != nil {
		return err
	}
	return c.nodeArgs.Validate()
}

// Run adds the node.
func (c *addNode) Run(app *App, w *repo.Writer) error {
	t, err := narrative.ParseType(c.Type)
	if err != nil {
		return err
	}
	return c.add(app, w, t)
}

// secretsFlag screens narrative content for secrets: the narrative is
// Markdown that teams commit to git.
type secretsFlag struct {
	AllowSecrets bool `name:"allow-secrets" help:"Keep secrets found in the content (private keys, tokens, passwords); by default they are redacted."`
}

// screen returns content with the secrets found in it redacted, saying
// on stderr what was withheld, unless --allow-secrets.
func (f *secretsFlag) screen(app *App, content string) string {
	if f.AllowSecrets {
		return content
	}
	red, found := secrets.Redact([]byte(content))
	for _, s := range found {
		fmt.Fprintf(app.Stderr, "ctx: redacted a secret in the content (line %d): %s; --allow-secrets keeps it\n", s.Line, s.Reason)
	}
	if len(found) == 0 {
		return content
	}
	return string(red)
}

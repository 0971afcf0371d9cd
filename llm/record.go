package llm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/regfile"
	"github.com/ctx-dev/ctx/internal/secrets"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// Observation is what a response holds (design §14.3): its analysis, the
// text the store would keep and its blob id, and the mentions resolved.
type Observation struct {
	*Analysis
	// Stored is the response as the store keeps it: secrets redacted.
	Stored string `json:"-"`
	// Blob is the id Stored has as a blob (stored only by Record).
	Blob object.ID `json:"blob"`
	// Redacted says which secrets were replaced by [REDACTED:kind].
	Redacted []string `json:"redacted,omitempty"`
	// Mentions are the paths and symbols resolved; Unresolved the names
	// in backticks or links that named nothing.
	Mentions   []Mention    `json:"mentions"`
	Unresolved []Unresolved `json:"unresolved"`
}

// Observe analyses a response and resolves its mentions. Nothing is
// written.
func Observe(response string, o ResolveOptions) (*Observation, error) {
	red, found := secrets.Redact([]byte(response))
	ob := &Observation{Stored: string(red), Blob: object.Sum(object.KindBlob, red)}
	for _, f := range found {
		ob.Redacted = append(ob.Redacted, fmt.Sprintf("line %d: %s", f.Line, f.Reason))
	}
	ob.Analysis = Analyze(ob.Stored)
	var err error
	if ob.Mentions, ob.Unresolved, err = Resolve(ob.Candidates, o); err != nil {
		return nil, err
	}
	return ob, nil
}

// RecordOptions is what Record writes.
type RecordOptions struct {
	Prompt      Prompt
	Exchange    *Exchange
	Observation *Observation
	// Message is the commit message; "" means "llm: TASK" and a line on
	// the model.
	Message string
	Author  string
}

// Validate checks that there is something to record.
func (o RecordOptions) Validate() error {
	if o.Exchange == nil || o.Exchange.Response == nil || o.Observation == nil || o.Observation.Analysis == nil {
		return fmt.Errorf("%w: nothing to record (an exchange with its response and an observation are needed)", ErrInvalidOptions)
	}
	if strings.ContainsAny(o.Author, "\r\n") {
		return fmt.Errorf("%w: the author holds a line break", ErrInvalidOptions)
	}
	return nil
}

// Recorded is what Record wrote.
type Recorded struct {
	// Node is the note: the graph node the edges start from, its id and
	// its file (relative to narrative/).
	Node   graph.NodeID `json:"node"`
	NoteID narrative.ID `json:"note"`
	File   string       `json:"file"`
	// Blob is the stored response.
	Blob object.ID `json:"blob"`
	// Edges are the edges of the batch written.
	Edges []graph.Edge `json:"edges"`
	// LogLine is the summary line appended to today's log.
	LogLine string `json:"log_line"`
	// Commit is the commit made: on the ref HEAD names, or, in a staging
	// session, on the session's line (Session and Step then say which
	// session and which work commit).
	Commit  *repo.CommitResult `json:"commit"`
	Session string             `json:"session,omitempty"`
	Step    *object.ID         `json:"step,omitempty"`
}

// Tag is the tag of the notes Record writes.
const Tag = "llm"

// Record writes an exchange to the store, with w's lock held (design
// §14.3, steps 2 and 4-6):
//
//  1. a note (an observation node) titled "LLM: TASK" and tagged llm:
//     the response's first paragraph, its decisions, and metadata naming
//     the model, API, endpoint and response blob — with its line in
//     today's log;
//  2. a summary line in today's log: "llm [ID](…) MODEL: tokens, code
//     blocks, decisions, mentions";
//  3. one commit (a step of the staging session when one is active) that
//     records the narrative as it stands, the response as a blob, and an
//     edge batch: the note derived_from the commit the prompt's context
//     came from (evidence tool llm, confidence high), and the note
//     mentions each resolved path (medium) and symbol (low); every edge's
//     evidence names the response blob, which keeps it reachable.
//
// A session that cannot take a step fails before anything is written.
// If a later write fails, the note's file and its log lines are taken
// back, so that nothing is left half-recorded (a crash in between leaves
// a note that `ctx commit` records, as after `ctx add note`).
func Record(ctx context.Context, w *repo.Writer, o RecordOptions) (*Recorded, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	sess, err := w.ActiveSession()
	if err != nil {
		return nil, err
	}
	head := promptHead(w.Repo, o.Prompt.Head)
	ob, x := o.Observation, o.Exchange
	space := w.Narrative()
	in := narrative.NewNode{
		Type: narrative.Observation,
		Tags: []string{Tag},
		Meta: map[string]string{"llm.api": string(x.API), "llm.endpoint": metaValue(x.Endpoint), "llm.response": ob.Blob.String()},
	}
	if m := metaValue(x.Model); m != "" {
		in.Meta["llm.model"] = m
	}
	in.Content = noteContent(o.Prompt.Task, ob, x, true)
	today := w.Clock.Now().UTC().Format("2006-01-02")
	_, statErr := os.Lstat(logPath(space, today))
	existed := map[string]bool{today: statErr == nil}
	n, err := space.Add(in)
	if n == nil && errors.Is(err, narrative.ErrInvalidContent) {
		// The response's text broke a rule of node content (an HTML
		// block left open, a ctx marker): keep the note to its metadata.
		in.Content = noteContent(o.Prompt.Task, ob, x, false)
		n, err = space.Add(in)
	}
	if n == nil {
		return nil, err
	}
	undo := func() { takeBack(space, n, []string{today, w.Clock.Now().UTC().Format("2006-01-02")}, existed) }
	if err != nil {
		undo()
		return nil, err
	}
	rec := &Recorded{Node: graph.NarrativeNode(string(n.Type), string(n.ID)), NoteID: n.ID, File: n.Path, Blob: ob.Blob}
	rec.LogLine = summaryLine(n, ob, x)
	if err := space.Journal(rec.LogLine); err != nil {
		undo()
		return nil, err
	}
	blob := ob.Blob
	batch := &graph.EdgeBatch{CreatedAt: w.Clock.Now().Unix()}
	if !head.IsZero() {
		batch.Edges = append(batch.Edges, graph.Edge{From: rec.Node, To: graph.CommitNode(head), Label: graph.DerivedFrom,
			Evidence: graph.Evidence{Tool: graph.ToolLLM, Confidence: graph.High, BlobID: &blob}})
	}
	for _, m := range ob.Mentions {
		batch.Edges = append(batch.Edges, graph.Edge{From: rec.Node, To: m.Node, Label: graph.Mentions,
			Evidence: graph.Evidence{Tool: graph.ToolLLM, Confidence: m.Confidence, BlobID: &blob}})
	}
	co := repo.CommitOptions{Message: o.Message, Author: o.Author, Step: object.StepNote}
	if co.Message == "" {
		co.Message = commitMessage(o.Prompt.Task, x)
	}
	if len(batch.Edges) > 0 {
		// Without an edge nothing would link the blob (a store always
		// has a commit, so this is the usual case).
		co.EdgeBatches = []*graph.EdgeBatch{batch}
		co.Blobs = [][]byte{[]byte(ob.Stored)}
	}
	res, err := w.Commit(ctx, co)
	if err != nil {
		undo()
		return nil, err
	}
	rec.Commit, rec.Edges = res, batch.Edges
	if rec.Edges == nil {
		rec.Edges = []graph.Edge{}
	}
	if sess != nil {
		rec.Session = sess.ID
		if s, err := w.OpenSession(sess.ID); err == nil {
			step := s.State.Head
			rec.Step = &step
		}
	}
	return rec, nil
}

// promptHead returns the commit the prompt's context came from: the
// pack's head_commit when this store has it, else the first working head
// (zero in a store without one).
func promptHead(r *repo.Repo, head string) object.ID {
	if id, err := object.ParseID(head); err == nil {
		if _, err := r.ReadCommit(id); err == nil {
			return id
		}
	}
	_, heads, err := r.WorkingHeads()
	if err != nil || len(heads) == 0 {
		return object.Zero // no head to derive from; the note stands alone
	}
	return heads[0]
}

// noteContent is the note's title and body: the response's first
// paragraph and decisions (with text), and where the response is.
func noteContent(task string, ob *Observation, x *Exchange, withText bool) string {
	title := "LLM: " + clip(oneLine(task), 150)
	if strings.TrimSpace(task) == "" {
		title = "LLM response " + ob.Blob.Short()
	}
	var b strings.Builder
	b.WriteString(safe(title) + "\n\n")
	if withText {
		if p := firstParagraph(ob.Stored); p != "" {
			b.WriteString(safe(p) + "\n\n")
		}
		if len(ob.Decisions) > 0 {
			b.WriteString("Decisions:\n\n")
			for _, d := range ob.Decisions {
				b.WriteString("- " + safe(d) + "\n")
			}
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "Response of model %s (%s, %s): blob %s, %s; %s.",
		safe(x.Model), x.API, safe(x.Endpoint), ob.Blob, tokenText(x.Response.Usage), countText(len(ob.CodeBlocks), "code block"))
	return b.String()
}

// summaryLine is the log line of a recorded response.
func summaryLine(n *narrative.Node, ob *Observation, x *Exchange) string {
	var b strings.Builder
	fmt.Fprintf(&b, "llm [%s](../%s) %s: %s; %s; %s", n.ID, n.Path, oneLine(x.Model), tokenText(x.Response.Usage),
		countText(len(ob.CodeBlocks), "code block"), countText(len(ob.Decisions), "decision"))
	if len(ob.Decisions) > 0 {
		fmt.Fprintf(&b, " (%q)", clip(ob.Decisions[0], 120))
	}
	if len(ob.Mentions) > 0 {
		names := make([]string, 0, 5)
		for i, m := range ob.Mentions {
			if i == 5 {
				names = append(names, fmt.Sprintf("+%d", len(ob.Mentions)-5))
				break
			}
			names = append(names, m.Node.Key)
		}
		b.WriteString("; mentions " + strings.Join(names, ", "))
	}
	return clip(safe(strings.Join(strings.Fields(b.String()), " ")), 500)
}

func commitMessage(task string, x *Exchange) string {
	t := clip(oneLine(task), 150)
	if t == "" {
		t = "response"
	}
	return fmt.Sprintf("llm: %s\n\nModel %s (%s, %s); %s.", t, x.Model, x.API, x.Endpoint, tokenText(x.Response.Usage))
}

func tokenText(u Usage) string {
	if !u.Reported {
		return "tokens not reported"
	}
	return fmt.Sprintf("%d prompt tokens (%d cached, %d new), %d generated", u.PromptTokens, u.CachedTokens, u.NewTokens, u.CompletionTokens)
}

func countText(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// firstParagraph returns the response's first paragraph of prose (not a
// heading, code block, table or HTML), on one line, at most 400 bytes.
func firstParagraph(text string) string {
	var para []string
	fence := ""
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(line)
		if fence != "" {
			if closesFence(line, fence) {
				fence = ""
			}
			continue
		}
		if m := fenceOpen.FindStringSubmatch(line); m != nil {
			if len(para) > 0 {
				break
			}
			fence = m[1]
			continue
		}
		switch {
		case t == "":
			if len(para) > 0 {
				return clip(strings.Join(para, " "), 400)
			}
			continue
		case strings.HasPrefix(t, "#"), strings.HasPrefix(t, "|"), strings.HasPrefix(t, "<"):
			if len(para) > 0 {
				return clip(strings.Join(para, " "), 400)
			}
			continue
		}
		para = append(para, t)
	}
	return clip(strings.Join(para, " "), 400)
}

// safe keeps text from ending a node's metadata comment or looking like
// one of ctx's comments.
func safe(s string) string {
	return strings.NewReplacer("<!--", "<!- -", "-->", "- ->").Replace(s)
}

// metaValue is a metadata value: one line, without "-->".
func metaValue(s string) string { return clip(safe(oneLine(s)), 200) }

func logPath(space *narrative.Space, day string) string {
	return filepath.Join(space.Root, "log", day+".md")
}

// takeBack removes a note Record wrote and the log lines naming it, when
// a later write failed: the log files of the days given, one that did not
// exist before (existed) removed if nothing else is left in it.
func takeBack(space *narrative.Space, n *narrative.Node, days []string, existed map[string]bool) {
	_ = atomicfile.Remove(filepath.Join(space.Root, filepath.FromSlash(n.Path)))
	marker := "[" + string(n.ID) + "]"
	days = append(days, n.Created.UTC().Format("2006-01-02"))
	done := map[string]bool{}
	for _, day := range days {
		if done[day] {
			continue
		}
		done[day] = true
		p := logPath(space, day)
		data, err := regfile.Read(p, narrativeMax)
		if err != nil {
			continue
		}
		var keep []string
		content := false
		for _, l := range strings.SplitAfter(string(data), "\n") {
			if strings.Contains(l, marker) {
				continue
			}
			keep = append(keep, l)
			if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "# ") {
				content = true
			}
		}
		if !content && !existed[day] {
			_ = atomicfile.Remove(p) // Record created it
			continue
		}
		if out := strings.Join(keep, ""); out != string(data) {
			_ = atomicfile.Write(p, []byte(out), 0o644)
		}
	}
}

// narrativeMax bounds a log file read back.
const narrativeMax = 16 << 20

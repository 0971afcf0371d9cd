package llm

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/index"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
	"github.com/ctx-dev/ctx/repo"
)

var project = map[string]string{
	"go.mod": "module example.com/netlib\n\ngo 1.22\n",
	"net/client.go": `package net

import "example.com/netlib/retry"

// Client dials a server and retries with backoff.
type Client struct {
	Addr    string
	Backoff retry.Backoff
}

// Connect dials Addr.
func (c *Client) Connect() error { return nil }
`,
	"retry/backoff.go": `package retry

// Backoff says how long to wait.
type Backoff struct{ Base int }

// NextDelay is the delay before attempt n.
func NextDelay(n int) int { return n * 2 }
`,
	"pool/pool.go": `package pool

// Connect opens a pooled connection.
func Connect() {}
`,
}

// store is a store with the project ingested, locked, and its index.
func store(t *testing.T) (*repo.Writer, *index.Index) {
	t.Helper()
	r := repo.NewTestRepo(t)
	root := filepath.Dir(r.Root)
	for p, c := range project {
		f := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := r.Lock(t.Context(), repo.LockOptions{Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Unlock() })
	if _, err := w.Ingest(t.Context(), repo.IngestOptions{Semantics: true}); err != nil {
		t.Fatal(err)
	}
	ix, _, err := index.Open(t.Context(), w.Repo, index.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return w, ix
}

const reply = "The `Client` struct (`net/client.go`) holds `Addr` and a `retry.Backoff`; `Client.Connect` dials.\n" +
	"See also retry/backoff.go and `Connect`.\n\n" +
	"```go\nc := &net.Client{Addr: \"x\"}\n```\n\n" +
	"Decision: keep the backoff in the struct.\n" +
	"A token slipped in: ghp_abcdefghijklmnopqrstuvwxyz0123456789.\n"

func exchange(resp string) *Exchange {
	return &Exchange{Endpoint: "http://127.0.0.1:8080/completion", API: LlamaCPP, Model: "default",
		Response: &Response{Text: resp, Slot: 0, Usage: Usage{Reported: true, PromptTokens: 900, CachedTokens: 600, NewTokens: 300, CompletionTokens: 40}}}
}

func observe(t *testing.T, w *repo.Writer, ix *index.Index, text string) *Observation {
	t.Helper()
	ob, err := Observe(text, ResolveOptions{Index: ix, Project: filepath.Dir(w.Root), RepoID: w.Config.Repo.ID})
	if err != nil {
		t.Fatal(err)
	}
	return ob
}

func TestObserve(t *testing.T) {
	w, ix := store(t)
	ob := observe(t, w, ix, reply)
	var got []string
	for _, m := range ob.Mentions {
		got = append(got, m.Node.Name()+" "+string(m.Confidence))
	}
	want := []string{
		"item:example.com/netlib/net.Client low",
		"file:net/client.go medium",
		"item:example.com/netlib/retry.Backoff low",
		"item:example.com/netlib/net.Client.Connect low",
		"file:retry/backoff.go medium",
	}
	if !slices.Equal(got, want) {
		t.Errorf("mentions\n%q\nwant\n%q", got, want)
	}
	var un []string
	for _, u := range ob.Unresolved {
		un = append(un, u.Text)
	}
	if !slices.Equal(un, []string{"Addr", "Connect"}) {
		t.Errorf("unresolved %q (Addr is a field, Connect two functions)", un)
	}
	if len(ob.CodeBlocks) != 1 || ob.CodeBlocks[0].Lang != "go" || len(ob.Decisions) != 1 {
		t.Errorf("code blocks %+v, decisions %q", ob.CodeBlocks, ob.Decisions)
	}
	if strings.Contains(ob.Stored, "ghp_") || len(ob.Redacted) != 1 || ob.Blob != object.Sum(object.KindBlob, []byte(ob.Stored)) {
		t.Errorf("stored %q, redacted %q", ob.Stored, ob.Redacted)
	}
}

func TestRecord(t *testing.T) {
	w, ix := store(t)
	before := head(t, w.Repo)
	ob := observe(t, w, ix, reply)
	p := Prompt{Task: "Explain the Client struct", Head: before.String()}
	rec, err := Record(t.Context(), w, RecordOptions{Prompt: p, Exchange: exchange(reply), Observation: ob})
	if err != nil {
		t.Fatal(err)
	}
	// The note: a file in observations/, tagged llm, naming the blob.
	note, err := os.ReadFile(filepath.Join(w.Root, "narrative", rec.File))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"# LLM: Explain the Client struct", "tags: [llm]", "meta.llm.response: " + ob.Blob.String(),
		"meta.llm.model: default", "- keep the backoff in the struct.", "The `Client` struct", "900 prompt tokens (600 cached, 300 new), 40 generated"} {
		if !strings.Contains(string(note), s) {
			t.Errorf("the note lacks %q:\n%s", s, note)
		}
	}
	if !strings.HasPrefix(rec.File, "observations/llm-explain-the-client-struct-") || rec.Node.Kind != graph.NodeObservation {
		t.Errorf("note %s, node %v", rec.File, rec.Node)
	}
	// Today's log: the note's line and the summary line.
	log := todaysLog(t, w.Repo)
	if !strings.Contains(log, "observation ["+string(rec.NoteID)+"]") || !strings.Contains(log, "- 22:13 "+rec.LogLine) {
		t.Errorf("log:\n%s\nwant the summary %q", log, rec.LogLine)
	}
	for _, s := range []string{"llm [" + string(rec.NoteID) + "]", "default: 900 prompt tokens", "1 code block; 1 decision", "mentions example.com/netlib/net.Client, net/client.go"} {
		if !strings.Contains(rec.LogLine, s) {
			t.Errorf("summary %q lacks %q", rec.LogLine, s)
		}
	}
	// One commit on main: the blob, one batch, the narrative.
	after := head(t, w.Repo)
	c, err := w.ReadCommit(after)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Commit.ID != after || !slices.Equal(c.Parents, []object.ID{before}) || len(c.EdgeBatches) != 1 {
		t.Fatalf("commit %s: parents %v, batches %v", after.Short(), c.Parents, c.EdgeBatches)
	}
	if !strings.HasPrefix(c.Message, "llm: Explain the Client struct\n") {
		t.Errorf("message %q", c.Message)
	}
	paths := map[string]bool{}
	for _, nr := range c.NarrativeRefs {
		paths[nr.Path] = true
	}
	if !paths[rec.File] || !paths["log/"+repo.TestTime.Format("2006-01-02")+".md"] {
		t.Errorf("narrative recorded: %v", paths)
	}
	kind, blob, err := w.Objects.Get(ob.Blob)
	if err != nil || kind != object.KindBlob || string(blob) != ob.Stored {
		t.Fatalf("blob %s: %q, %v", ob.Blob.Short(), blob, err)
	}
	var batch graph.EdgeBatch
	if err := object.GetTyped(w.Objects, c.EdgeBatches[0], &batch); err != nil {
		t.Fatal(err)
	}
	if len(batch.Edges) != 1+len(ob.Mentions) {
		t.Fatalf("%d edges", len(batch.Edges))
	}
	d := batch.Edges[0]
	if d.Label != graph.DerivedFrom || d.To != graph.CommitNode(before) || d.Evidence.Confidence != graph.High {
		t.Errorf("first edge %+v", d)
	}
	for i, e := range batch.Edges {
		if e.From != rec.Node || e.Evidence.Tool != graph.ToolLLM || e.Evidence.BlobID == nil || *e.Evidence.BlobID != ob.Blob {
			t.Errorf("edge %d: %+v", i, e)
		}
		if i > 0 && (e.Label != graph.Mentions || e.To != ob.Mentions[i-1].Node || e.Evidence.Confidence != ob.Mentions[i-1].Confidence) {
			t.Errorf("edge %d: %+v", i, e)
		}
	}
	// The graph shows them, and the store verifies.
	g, err := w.Graph(t.Context(), repo.GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Has(rec.Node.ID, graph.FileNode("test", "net/client.go").ID, graph.Mentions)) != 1 {
		t.Error("the graph lacks note mentions net/client.go")
	}
	rep, err := w.Verify(t.Context(), repo.VerifyOptions{})
	if err != nil || len(rep.Problems) > 0 {
		t.Errorf("verify: %+v, %v", rep.Problems, err)
	}
}

// In a staging session the record is a step: main stays put.
func TestRecordInSession(t *testing.T) {
	w, ix := store(t)
	main := head(t, w.Repo)
	if _, err := w.StartSession(t.Context(), repo.StartOptions{Task: "Explain things", ID: "explain"}); err != nil {
		t.Fatal(err)
	}
	rec, err := Record(t.Context(), w, RecordOptions{Prompt: Prompt{Task: "Explain the Client struct"}, Exchange: exchange(reply), Observation: observe(t, w, ix, reply)})
	if err != nil {
		t.Fatal(err)
	}
	if head(t, w.Repo) != main {
		t.Error("main moved during a session")
	}
	if rec.Session != "explain" || rec.Step == nil || !strings.HasPrefix(rec.Commit.Ref, "session/") {
		t.Errorf("session %q, step %v, ref %q", rec.Session, rec.Step, rec.Commit.Ref)
	}
	s, err := w.OpenSession("explain")
	if err != nil || s.State.Head != *rec.Step || s.State.Steps != 1 {
		t.Errorf("session state %+v, %v", s, err)
	}
}

// A failure after the note was written takes it back: no file, no log
// line, no commit.
func TestRecordTakesBack(t *testing.T) {
	w, ix := store(t)
	main := head(t, w.Repo)
	logBefore := todaysLog(t, w.Repo)
	ob := observe(t, w, ix, reply)
	ob.Mentions = append(ob.Mentions, Mention{Text: "bad", Node: graph.NodeID{Kind: graph.NodeFile}, Confidence: graph.Medium}) // a zero id: the batch is invalid
	_, err := Record(t.Context(), w, RecordOptions{Prompt: Prompt{Task: "Explain"}, Exchange: exchange(reply), Observation: ob})
	if !errors.Is(err, repo.ErrInvalidArgument) {
		t.Fatalf("Record = %v, want the commit's error", err)
	}
	assertUntouched(t, w, main, logBefore)
}

// A session that cannot take a step is refused before anything is
// written.
func TestRecordRefusedSession(t *testing.T) {
	w, ix := store(t)
	main := head(t, w.Repo)
	logBefore := todaysLog(t, w.Repo)
	w.Session = "nosuch"
	_, err := Record(t.Context(), w, RecordOptions{Prompt: Prompt{Task: "Explain"}, Exchange: exchange(reply), Observation: observe(t, w, ix, reply)})
	if !errors.Is(err, repo.ErrNoSession) {
		t.Fatalf("Record = %v, want ErrNoSession", err)
	}
	w.Session = ""
	assertUntouched(t, w, main, logBefore)
}

// Response text that would break a node's file (an HTML comment left
// open) gives a note of metadata only.
func TestRecordUnsafeText(t *testing.T) {
	w, ix := store(t)
	text := "<!-- ctx:node\nid: x\n\nDecision: <!-- open\n"
	rec, err := Record(t.Context(), w, RecordOptions{Prompt: Prompt{Task: "x"}, Exchange: exchange(text), Observation: observe(t, w, ix, text)})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := w.Narrative().Load()
	if err != nil {
		t.Fatal(err)
	}
	n := cat.Nodes[rec.NoteID]
	if n == nil || len(cat.Problems) > 0 {
		t.Fatalf("note %v, problems %v", n, cat.Problems)
	}
}

func assertUntouched(t *testing.T, w *repo.Writer, main object.ID, logBefore string) {
	t.Helper()
	if head(t, w.Repo) != main {
		t.Error("main moved")
	}
	if got := todaysLog(t, w.Repo); got != logBefore {
		t.Errorf("the log changed:\n%s\nwas:\n%s", got, logBefore)
	}
	obs, _ := filepath.Glob(filepath.Join(w.Root, "narrative", "observations", "*"))
	if len(obs) > 0 {
		t.Errorf("note files left: %v", obs)
	}
}

func head(t *testing.T, r *repo.Repo) object.ID {
	t.Helper()
	hs, err := r.Heads(refs.HEAD)
	if err != nil || len(hs) != 1 {
		t.Fatalf("heads %v: %v", hs, err)
	}
	return hs[0]
}

func todaysLog(t *testing.T, r *repo.Repo) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.Root, "narrative", "log", repo.TestTime.Format("2006-01-02")+".md"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/internal/clock"
	"github.com/ctx-dev/ctx/pack"
	"github.com/ctx-dev/ctx/repo"
	"github.com/ctx-dev/ctx/workset"
)

func newProject(t *testing.T) (string, *repo.Repo) {
	t.Helper()
	r := repo.NewTestRepo(t)
	project := r.ProjectRoot()
	for name, text := range map[string]string{
		"go.mod":         "module example.com/m\n\ngo 1.22\n",
		"net/client.go":  "package net\n\n// Client dials.\ntype Client struct{ Addr string }\n\n// Connect dials with exponential backoff.\nfunc (c *Client) Connect() error { return nil }\n",
		"retry/retry.go": "package retry\n\n// Backoff doubles the delay.\nfunc Backoff(d int) int { return 2 * d }\n",
	} {
		p := filepath.Join(project, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return project, r
}

// TestContract runs every call of the contract on a store, outside and
// inside a staging session, and checks what each wrote.
func TestContract(t *testing.T) {
	ctx := context.Background()
	project, r := newProject(t)
	// The clock of the store, so that no age trigger compacts the session.
	s, err := Open(filepath.Join(project, "net"), Options{Agent: "a1", Clock: clock.Fixed(repo.TestTime)})
	if err != nil {
		t.Fatal(err)
	}

	// A file read: the working set has it active; the store snapshots it.
	read, err := s.ObserveFileRead(ctx, "net/client.go")
	if err != nil {
		t.Fatal(err)
	}
	if read.Working.Outcome != workset.Created || read.Snapshot == nil || !read.Snapshot.Committed {
		t.Fatalf("read: %+v %+v", read.Working, read.Snapshot)
	}
	ws, err := workset.Open(r.Root, workset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := ws.Load("a1")
	if err != nil || len(st.Active) != 1 || st.Active[0] != read.Working.ID {
		t.Fatalf("working set of a1: %+v %v", st, err)
	}
	// Again, unchanged: nothing new.
	if again, err := s.ObserveFileRead(ctx, filepath.Join(project, "net", "client.go")); err != nil || again.Working.Outcome != workset.Unchanged || again.Snapshot.Committed {
		t.Fatalf("second read: %+v %v", again, err)
	}

	// A file written: ctx writes it, the working set and the store follow.
	body := "package retry\n\n// Backoff doubles the delay up to a cap.\nfunc Backoff(d, max int) int { return min(2*d, max) }\n"
	wrote, err := s.ObserveFileWrite(ctx, "retry/retry.go", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(project, "retry", "retry.go")); string(got) != body {
		t.Fatalf("the file holds %q", got)
	}
	if wrote.Working.Outcome != workset.Updated && wrote.Working.Outcome != workset.Created || !wrote.Snapshot.Committed {
		t.Fatalf("write: %+v %+v", wrote.Working, wrote.Snapshot)
	}

	// A command and its diagnostics.
	cmd, err := s.ObserveCommand(ctx, "go vet ./...", []byte("net/client.go:7:1: receiver name should be consistent\n"), 1)
	if err != nil || !cmd.Committed {
		t.Fatalf("command: %+v %v", cmd, err)
	}

	// A note, outside a session: written, waiting for ctx commit.
	note, err := s.ObserveNote(ctx, "Connect retries with exponential backoff")
	if err != nil || note.Node == nil || note.Step != nil {
		t.Fatalf("note: %+v %v", note, err)
	}

	// A relation, then the same again: present, not written twice.
	from := graph.NarrativeNode(string(note.Node.Type), string(note.Node.ID))
	to := graph.FileNode(r.Config.Repo.ID, "net/client.go")
	edge := graph.Edge{From: from, To: to, Label: graph.Mentions, Evidence: graph.Evidence{Tool: graph.ToolLLM, Confidence: graph.Medium}}
	rel, err := s.ObserveRelations(ctx, []graph.Edge{edge})
	if err != nil || len(rel.Added) != 1 {
		t.Fatalf("relate: %+v %v", rel, err)
	}
	if rel, err = s.ObserveRelations(ctx, []graph.Edge{edge}); err != nil || len(rel.Added) != 0 || len(rel.Present) != 1 {
		t.Fatalf("relate again: %+v %v", rel, err)
	}

	// A pack that finds the code.
	p, err := s.BuildPack(ctx, "How does Connect retry?", 4000)
	if err != nil {
		t.Fatal(err)
	}
	text, err := pack.Render(p, "markdown")
	if err != nil || !strings.Contains(text, "Connect") {
		t.Fatalf("pack: %v\n%s", err, text)
	}
	if st, err := s.RebuildIndex(ctx); err != nil || st == nil || st.Docs == 0 {
		t.Fatalf("rebuild: %+v %v", st, err)
	}

	// No session: flush and compact refuse.
	if _, err := s.FlushStep(ctx); !errors.Is(err, repo.ErrSessionState) {
		t.Fatalf("flush without a session: %v", err)
	}
	if _, err := s.CompactSession(ctx); !errors.Is(err, repo.ErrSessionState) {
		t.Fatalf("compact without a session: %v", err)
	}

	// In a session: a note is a step; a hand edit is flushed; compaction
	// makes one commit.
	w, err := r.Lock(ctx, repo.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.StartSession(ctx, repo.StartOptions{Task: "Tune retries", ID: "tune"}); err != nil {
		t.Fatal(err)
	}
	w.Unlock()
	note2, err := s.ObserveNote(ctx, "The cap is 30 seconds")
	if err != nil || note2.Step == nil || note2.Step.Session != "tune" || !note2.Step.Committed {
		t.Fatalf("note in a session: %+v %v", note2, err)
	}
	file := filepath.Join(r.Narrative().Root, filepath.FromSlash(note2.Node.Path))
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\nMeasured on staging.\n")
	f.Close()
	flushed, err := s.FlushStep(ctx)
	if err != nil || !flushed.Committed {
		t.Fatalf("flush: %+v %v", flushed, err)
	}
	res, err := s.CompactSession(ctx)
	if err != nil || res.Steps != 2 || !res.Ended || len(res.Changes) == 0 {
		t.Fatalf("compact: %+v %v", res, err)
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	project, _ := newProject(t)
	if _, err := Open(t.TempDir(), Options{}); !errors.Is(err, repo.ErrNotAStore) {
		t.Errorf("Open outside a store: %v", err)
	}
	if _, err := Open(project, Options{LockTimeout: -1}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("negative lock timeout: %v", err)
	}
	s, err := Open(project, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ObserveFileRead(ctx, "../elsewhere.go"); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("a file outside the project: %v", err)
	}
	if _, err := s.ObserveFileRead(ctx, "no/such.go"); err == nil {
		t.Error("a missing file: no error")
	}
	if _, err := s.ObserveCommand(ctx, "", nil, 0); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("an empty command: %v", err)
	}
	if _, err := s.ObserveRelations(ctx, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("no edges: %v", err)
	}
	if _, err := s.ObserveNote(ctx, "   "); err == nil {
		t.Error("an empty note: no error")
	}
	if _, err := s.BuildPack(ctx, "x", -1); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("a negative budget: %v", err)
	}
}

package repo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/refs"
)

func addNode(t *testing.T, w *Writer, typ narrative.Type, content string, tags ...string) *narrative.Node {
	t.Helper()
	n, err := w.Narrative().Add(narrative.NewNode{Type: typ, Content: content, Tags: tags})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func commit(t *testing.T, w *Writer, opts CommitOptions) *CommitResult {
	t.Helper()
	res, err := w.Commit(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func changedPaths(res *CommitResult) string {
	var ps []string
	for _, c := range res.Changes {
		ps = append(ps, c.Status+" "+c.Path)
	}
	return strings.Join(ps, ", ")
}

func TestCommitNarrative(t *testing.T) {
	r := NewTestRepo(t)
	w := lock(t, r)
	dec := addNode(t, w, narrative.Decision, "Use backoff\n\nBecause.", "tier:reference")

	res := commit(t, w, CommitOptions{Message: "first", Author: "ada"})
	if !res.Committed {
		t.Fatal("nothing committed")
	}
	if got, want := changedPaths(res), "new README.md, new decisions.md, new "+dec.Path+", new log/2023-11-14.md"; got != want {
		t.Errorf("changes: %s\nwant:    %s", got, want)
	}
	c := res.Commit
	if len(c.Parents) != 1 || c.Parents[0] != res.Previous || c.Author != "ada" || c.TimestampUnix != TestTime.Unix() {
		t.Errorf("commit %+v", c)
	}
	for _, nr := range c.NarrativeRefs {
		role, stream := narrative.Classify(nr.Path)
		if nr.Role != role || nr.Stream != stream {
			t.Errorf("%s: role %q stream %q, want %q %q", nr.Path, nr.Role, nr.Stream, role, stream)
		}
		_, data, err := r.Objects.Get(nr.BlobID)
		if err != nil {
			t.Fatal(err)
		}
		disk, _ := os.ReadFile(filepath.Join(r.Root, "narrative", filepath.FromSlash(nr.Path)))
		if string(data) != string(disk) {
			t.Errorf("%s: snapshot differs from the file", nr.Path)
		}
	}
	if head, _ := r.Resolve("main"); head != res.ID {
		t.Errorf("main = %s, want %s", head, res.ID)
	}

	// Nothing changed: no commit; today's log alone does not make one.
	again := commit(t, w, CommitOptions{Message: "again", Always: []string{"log/2023-11-14.md"}})
	if again.Committed {
		t.Error("committed with nothing changed")
	}
	empty := commit(t, w, CommitOptions{Message: "empty", AllowEmpty: true, Always: []string{"log/2023-11-14.md"}})
	if !empty.Committed || len(empty.Commit.NarrativeRefs) != 1 || empty.Commit.NarrativeRefs[0].Path != "log/2023-11-14.md" {
		t.Errorf("allow-empty commit: %+v", empty.Commit)
	}

	// A change to one node records only its file (and today's log).
	if _, err := w.Narrative().Change(dec, narrative.OpTag, "tier:pinned"); err != nil {
		t.Fatal(err)
	}
	res2 := commit(t, w, CommitOptions{Message: "pin", Always: []string{"log/2023-11-14.md"}})
	if got := changedPaths(res2); got != "modified "+dec.Path {
		t.Errorf("changes: %s", got)
	}
	if len(res2.Commit.NarrativeRefs) != 2 {
		t.Errorf("refs: %+v", res2.Commit.NarrativeRefs)
	}

	// Amend: same parents, the amended commit's refs kept, new ones added.
	note := addNode(t, w, narrative.Observation, "Tests pass")
	am := commit(t, w, CommitOptions{Message: "pin, and a note", Amend: true})
	if am.Commit.Parents[0] != res2.Commit.Parents[0] {
		t.Errorf("amend parents %v, want %v", am.Commit.Parents, res2.Commit.Parents)
	}
	paths := map[string]bool{}
	for _, nr := range am.Commit.NarrativeRefs {
		paths[nr.Path] = true
	}
	if !paths[dec.Path] || !paths[note.Path] {
		t.Errorf("amended refs lack the decision or the note: %v", paths)
	}

	// History of the decision: the first commit and the pin (amended).
	heads, _ := r.Heads(refs.Main)
	hist, err := r.NodeHistory(t.Context(), heads, dec.ID, dec.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 2 || !hist[0].Node.HasTag("tier:pinned") || !hist[1].Node.HasTag("tier:reference") {
		t.Fatalf("history: %+v", hist)
	}
	old, err := r.NodeAt(t.Context(), res.ID, dec.ID, "")
	if err != nil || old.Tier() != narrative.Reference {
		t.Fatalf("NodeAt first commit: %+v, %v", old, err)
	}
	if _, err := r.NodeAt(t.Context(), res.ID, note.ID, note.Path); err == nil {
		t.Error("the note exists at the first commit")
	}

	if _, err := w.Commit(t.Context(), CommitOptions{}); err == nil {
		t.Error("commit without a message succeeded")
	}
}

func TestCommitReconcilesFirst(t *testing.T) {
	r := NewTestRepo(t)
	root, _ := r.Resolve("main")
	a := CommitFiles(t, r, TestTime, map[string]string{"a": "1"}, "a", root)
	b := CommitFiles(t, r, TestTime, map[string]string{"b": "2"}, "b", root)
	AddHead(t, r, refs.Main, a)
	AddHead(t, r, refs.Main, b)
	if err := r.refStore.Delete(refs.Main, refs.Among(root)); err != nil {
		t.Fatal(err)
	}
	w := lock(t, r)
	addNode(t, w, narrative.Fact, "Both lines merged")
	res := commit(t, w, CommitOptions{Message: "after the merge"})
	if len(res.Reconciled) != 1 || !res.Reconciled[0].Merged {
		t.Fatalf("reconciled: %+v", res.Reconciled)
	}
	if res.Commit.Parents[0] != res.Reconciled[0].Result {
		t.Errorf("commit parent %s, want the merge %s", res.Commit.Parents[0], res.Reconciled[0].Result)
	}
	if got := TreeFiles(t, r, res.ID); got["a"] != "1" || got["b"] != "2" {
		t.Errorf("tree: %v", got)
	}
}

func TestStatus(t *testing.T) {
	r := NewTestRepo(t)
	w := lock(t, r)
	addNode(t, w, narrative.Fact, "Port 8080", "tier:reference")
	d := addNode(t, w, narrative.Decision, "Use Go", "tier:pinned")
	x := addNode(t, w, narrative.Hypothesis, "Cache too small")
	if _, err := w.Narrative().Change(x, narrative.OpDelete, ""); err != nil {
		t.Fatal(err)
	}
	y := addNode(t, w, narrative.Fact, "Old fact")
	if _, err := w.Narrative().Change(y, narrative.OpSupersede, string(d.ID)); err != nil {
		t.Fatal(err)
	}
	// A broken file is a problem, not a failure.
	if err := os.WriteFile(filepath.Join(r.Root, "narrative", "facts", "broken.md"), []byte("# x\n\n<!-- ctx:node\ntype: fact\n-->\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := r.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Nodes.Active != 2 || st.Nodes.Deleted != 1 || st.Nodes.Superseded != 1 {
		t.Errorf("counts %+v", st.Nodes)
	}
	tiers := map[string]int{}
	for _, g := range st.Nodes.ByTier {
		tiers[g.Name] = g.Nodes
	}
	if tiers["pinned"] != 1 || tiers["reference"] != 1 || tiers["(none)"] != 0 {
		t.Errorf("tiers %v", tiers)
	}
	if st.Nodes.Tokens != (len("Port 8080")+3)/4+(len("Use Go")+3)/4 {
		t.Errorf("tokens %d", st.Nodes.Tokens)
	}
	if len(st.Problems) != 1 || st.Problems[0].Path != "facts/broken.md" {
		t.Errorf("problems %v", st.Problems)
	}
	if len(st.Changes) == 0 || st.Objects < 2 || st.Ref != "refs/main" || len(st.Heads) != 1 {
		t.Errorf("status %+v", st)
	}
}

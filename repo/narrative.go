package repo

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
)

// Narrative returns the store's narrative space. Its write methods need
// the writer lock: call them through a Writer.
func (r *Repo) Narrative() *narrative.Space {
	return &narrative.Space{Root: filepath.Join(r.Root, "narrative"), Clock: r.Clock}
}

// NarrativeAt returns the narrative recorded by the commits ids and their
// ancestors: for each path, the newest NarrativeRef (commits are taken in
// log order, so where two merged lines of history both snapshotted a path,
// the newer commit wins). A path whose newest ref records its deletion is
// left out.
func (r *Repo) NarrativeAt(ctx context.Context, ids ...object.ID) (map[string]object.NarrativeRef, error) {
	entries, err := r.Log(ctx, ids, 0)
	if err != nil {
		return nil, err
	}
	state := map[string]object.NarrativeRef{}
	for _, e := range entries {
		if e.Commit == nil {
			continue
		}
		for _, nr := range e.Commit.NarrativeRefs {
			if _, seen := state[nr.Path]; !seen {
				state[nr.Path] = nr
			}
		}
	}
	for p, nr := range state {
		if nr.Deleted {
			delete(state, p)
		}
	}
	return state, nil
}

// CatalogAt returns the narrative as the commits ids and their ancestors
// recorded it, parsed like the working narrative.
func (r *Repo) CatalogAt(ctx context.Context, ids ...object.ID) (*narrative.Catalog, error) {
	state, err := r.NarrativeAt(ctx, ids...)
	if err != nil {
		return nil, err
	}
	files := make([]narrative.FileSource, 0, len(state))
	for p, nr := range state {
		if !strings.HasSuffix(p, ".md") {
			continue
		}
		_, data, err := r.Objects.Get(nr.BlobID)
		if err != nil {
			return nil, fmt.Errorf("narrative/%s as recorded: %w", p, err)
		}
		files = append(files, narrative.FileSource{Path: p, Src: data})
	}
	return narrative.CatalogOf(files), nil
}

// Change is a narrative file that differs from what the head commit
// recorded.
type Change struct {
	Path   string    `json:"path"`
	Role   string    `json:"role"`
	Stream string    `json:"stream"`
	Status string    `json:"status"` // "new", "modified" or "removed"
	Blob   object.ID `json:"blob"`   // the content; for "removed", the last recorded
}

// NarrativeChanges compares the narrative files with what the commits up
// to heads recorded. With w non-nil the changed contents are stored in it
// as blobs; otherwise they are only hashed.
func (r *Repo) NarrativeChanges(ctx context.Context, w object.StreamPutter, heads ...object.ID) ([]Change, error) {
	state, err := r.NarrativeAt(ctx, heads...)
	if err != nil {
		return nil, err
	}
	files, err := r.Narrative().Files()
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = filepath.Join(r.Root, "narrative", filepath.FromSlash(f.Path))
	}
	ids, err := object.PutFiles(ctx, w, paths, 0)
	if err != nil {
		return nil, err
	}
	var out []Change
	present := make(map[string]bool, len(files))
	for i, f := range files {
		present[f.Path] = true
		old, seen := state[f.Path]
		if seen && old.BlobID == ids[i] {
			continue
		}
		status := "new"
		if seen {
			status = "modified"
		}
		out = append(out, Change{Path: f.Path, Role: f.Role, Stream: f.Stream, Status: status, Blob: ids[i]})
	}
	for p, nr := range state {
		if !present[p] {
			out = append(out, Change{Path: p, Role: nr.Role, Stream: nr.Stream, Status: "removed", Blob: nr.BlobID})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// CommitOptions configure Writer.Commit.
type CommitOptions struct {
	Message string
	Author  string
	// Amend replaces the head commit: same parents, its narrative and
	// edge batches kept, the new changes added.
	Amend bool
	// NoNarrative records no narrative files.
	NoNarrative bool
	// AllowEmpty makes a commit even when no narrative changed.
	AllowEmpty bool
	// Always lists more narrative paths to record even if unchanged;
	// today's log of every stream is always recorded (design §8.5).
	Always []string
	// EdgeBatches are edge batches the commit introduces; a commit with
	// batches is made even when no narrative changed.
	EdgeBatches []*graph.EdgeBatch
	// Blobs are stored with the commit: texts the batches' evidence names.
	Blobs [][]byte
	// Step is the kind of step the commit is in a staging session:
	// object.StepNote when empty.
	Step object.StepKind
}

// Validate checks the options.
func (o CommitOptions) Validate() error {
	if o.Message == "" {
		return fmt.Errorf("%w: empty commit message", ErrInvalidArgument)
	}
	return nil
}

// CommitResult is what Commit did.
type CommitResult struct {
	Committed  bool           `json:"committed"` // false: nothing changed, no commit made
	ID         object.ID      `json:"id"`
	Commit     *object.Commit `json:"commit,omitempty"`
	Changes    []Change       `json:"changes"`
	Ref        string         `json:"ref"`
	Reconciled []Reconciled   `json:"reconciled,omitempty"`
	Previous   object.ID      `json:"previous"`
}

// Commit snapshots the changed narrative files into blobs and writes a
// commit on the ref HEAD names, moving it atomically. Several heads left
// by a git merge are reconciled first.
func (w *Writer) Commit(ctx context.Context, opts CommitOptions) (*CommitResult, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	kind := opts.Step
	if kind == "" {
		kind = object.StepNote
	}
	t, err := w.currentTip(ctx, kind)
	if err != nil {
		return nil, err
	}
	return w.commitAt(ctx, t, opts)
}

// commitMain is Commit on the main tip, whatever session is active.
func (w *Writer) commitMain(ctx context.Context, opts CommitOptions) (*CommitResult, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	t, err := w.mainTip(ctx)
	if err != nil {
		return nil, err
	}
	return w.commitAt(ctx, t, opts)
}

func (w *Writer) commitAt(ctx context.Context, t *tip, opts CommitOptions) (*CommitResult, error) {
	if opts.Amend && t.sess != nil && t.head == t.sess.State.Base {
		return nil, fmt.Errorf("%w: session %s has no step since its base to amend; amending the base would rewrite main's history", ErrSessionState, t.sess.ID)
	}
	var err error
	head, prev := t.head, t.commit
	res := &CommitResult{Ref: t.label, Reconciled: t.reconciled, Previous: head, Changes: []Change{}}
	b := w.Objects.NewBatch()
	defer b.Abort() // a no-op after Commit
	if !opts.NoNarrative {
		if res.Changes, err = w.NarrativeChanges(ctx, b, head); err != nil {
			return nil, err
		}
	}
	refsByPath := map[string]object.NarrativeRef{}
	// The code snapshots carry over: a commit of the narrative or of edges
	// does not change the code it describes.
	c := t.child(w, opts.Author, opts.Message)
	c.EdgeBatches, c.NarrativeRefs = nil, nil
	if opts.Amend {
		c.Parents = prev.Parents
		c.EdgeBatches = prev.EdgeBatches
		for _, nr := range prev.NarrativeRefs {
			refsByPath[nr.Path] = nr
		}
	}
	for _, ch := range res.Changes {
		refsByPath[ch.Path] = object.NarrativeRef{Path: ch.Path, Stream: ch.Stream, Role: ch.Role, BlobID: ch.Blob, Deleted: ch.Status == "removed"}
	}
	if len(res.Changes) == 0 && len(opts.EdgeBatches) == 0 && !opts.AllowEmpty && !opts.Amend {
		return res, nil
	}
	for _, data := range opts.Blobs {
		if _, err := b.Put(object.KindBlob, data); err != nil {
			return nil, err
		}
	}
	for _, eb := range opts.EdgeBatches {
		if err := eb.Validate(); err != nil {
			return nil, fmt.Errorf("%w: edge batch: %w", ErrInvalidArgument, err)
		}
		id, err := object.PutTyped(b, eb)
		if err != nil {
			return nil, err
		}
		c.EdgeBatches = append(c.EdgeBatches, id)
	}
	if !opts.NoNarrative {
		w.addAlways(b, append(w.todaysLogs(), opts.Always...), refsByPath)
	}
	for _, nr := range refsByPath {
		c.NarrativeRefs = append(c.NarrativeRefs, nr)
	}
	sort.Slice(c.NarrativeRefs, func(i, j int) bool { return c.NarrativeRefs[i].Path < c.NarrativeRefs[j].Path })
	id, err := w.advance(b, t, c)
	if err != nil {
		return nil, err
	}
	res.Committed, res.ID, res.Commit = true, id, c
	return res, nil
}

// todaysLogs returns today's (UTC) log of every stream that has one.
func (w *Writer) todaysLogs() []string {
	day := w.Clock.Now().UTC().Format("2006-01-02") + ".md"
	files, err := w.Narrative().Files()
	if err != nil {
		return nil
	}
	var out []string
	for _, f := range files {
		if f.Role == "log" && path.Base(f.Path) == day && path.Base(path.Dir(f.Path)) == "log" {
			out = append(out, f.Path)
		}
	}
	return out
}

// addAlways records the given narrative paths, if they exist, even when
// unchanged.
func (w *Writer) addAlways(b *object.Batch, paths []string, into map[string]object.NarrativeRef) {
	for _, p := range paths {
		if _, ok := into[p]; ok {
			continue
		}
		full := filepath.Join(w.Root, "narrative", filepath.FromSlash(p))
		id, err := object.PutFile(b, full)
		if err != nil {
			continue // absent today: nothing to record
		}
		role, stream := narrative.Classify(p)
		into[p] = object.NarrativeRef{Path: p, Stream: stream, Role: role, BlobID: id}
	}
}

package repo

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/refs"
	"github.com/ctx-dev/ctx/staging"
)

// Problem is one thing Verify found wrong. Err wraps the sentinel that
// classifies it (object.ErrHashMismatch, ErrDanglingLink, …).
type Problem struct {
	Path string    // relative to the .ctx directory, e.g. "objects/ab/ab12…"
	ID   object.ID // the object concerned, if any
	Err  error
}

// Error describes the problem, prefixed by its path.
func (p Problem) Error() string {
	if p.Path == "" {
		return p.Err.Error()
	}
	return p.Path + ": " + p.Err.Error()
}

// Unwrap returns the classified error.
func (p Problem) Unwrap() error { return p.Err }

// Report is the result of Verify.
type Report struct {
	Objects      int            `json:"objects"`
	Blobs        int            `json:"blobs"`
	Typed        map[string]int `json:"typed"` // count per type name
	PayloadBytes uint64         `json:"payload_bytes"`
	StoredBytes  int64          `json:"stored_bytes"`
	Refs         []refs.Ref     `json:"-"`
	Problems     []Problem      `json:"-"`
	Warnings     []string       `json:"warnings"`
}

// OK reports whether Verify found no problem.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

// VerifyOptions configure Verify.
type VerifyOptions struct {
	// Workers bounds the objects checked at once; 0 means twice the
	// number of CPUs (reads overlap with hashing).
	Workers int
}

type checked struct {
	info  object.Info
	links []object.Link
	err   error
	warn  string
}

// Verify checks the whole store: every object's hash, envelope and (for a
// typed object) canonical encoding and schema; that every reference from a
// commit, tree, work commit or edge batch names an existing object of the
// right kind; that every ref file is well formed and names an existing
// object. Temporary files left by interrupted writes and refs with several
// heads are warnings, not problems, and so are narrative files that do not
// parse. Verify only reads; it takes no lock.
func (r *Repo) Verify(ctx context.Context, opts VerifyOptions) (*Report, error) {
	rep := &Report{Typed: make(map[string]int)}
	ids, strays, err := r.Objects.List(ctx)
	if err != nil {
		return nil, err
	}
	results := make([]checked, len(ids))
	workers := opts.Workers
	if workers <= 0 {
		workers = 2 * runtime.GOMAXPROCS(0)
	}
	g, gctx := errgroup.WithContext(ctx)
	var next int
	var mu sync.Mutex
	for w := 0; w < workers; w++ {
		g.Go(func() error {
			for {
				if err := gctx.Err(); err != nil {
					return err
				}
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(ids) {
					return nil
				}
				results[i] = r.checkObject(ids[i])
			}
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}

	infos := make(map[object.ID]object.Info, len(ids))
	for i, c := range results {
		if c.err != nil {
			rep.Problems = append(rep.Problems, Problem{Path: object.RelPath(ids[i]), ID: ids[i], Err: c.err})
			continue
		}
		if c.warn != "" {
			rep.Warnings = append(rep.Warnings, object.RelPath(ids[i])+": "+c.warn)
		}
		infos[ids[i]] = c.info
		rep.Objects++
		rep.PayloadBytes += c.info.Size
		rep.StoredBytes += c.info.Stored
		if c.info.Kind == object.KindBlob {
			rep.Blobs++
		} else {
			rep.Typed[c.info.Type]++
		}
	}
	for i, c := range results {
		for _, l := range c.links {
			if p := checkLink(infos, results, ids, l); p != nil {
				rep.Problems = append(rep.Problems, Problem{Path: object.RelPath(ids[i]), ID: ids[i], Err: p})
			}
		}
	}
	// The trees each commit reaches hold what its fields say they hold.
	sc := newSnapshotChecker(r, infos)
	for i, c := range results {
		if c.err != nil || c.info.Type != "commit" {
			continue
		}
		cm, err := r.ReadCommit(ids[i])
		if err != nil {
			continue
		}
		for _, err := range sc.commit(cm) {
			rep.Problems = append(rep.Problems, Problem{Path: object.RelPath(ids[i]), ID: ids[i], Err: err})
		}
	}
	for _, s := range strays {
		if strings.HasSuffix(s, ".tmp") {
			rep.Warnings = append(rep.Warnings, s+": temporary file left by an interrupted write (safe to delete)")
		} else {
			rep.Warnings = append(rep.Warnings, s+": unexpected file in the object store (not an object)")
		}
	}
	for _, err := range r.Objects.VerifyPacks() {
		rep.Problems = append(rep.Problems, Problem{Path: "objects/pack", Err: err})
	}
	r.verifyRefs(rep, infos)
	r.findTemps(rep)
	r.checkAttributes(rep)
	if w := r.Config.UnknownKeysWarning(); w != "" {
		rep.Warnings = append(rep.Warnings, w)
	}
	// Narrative files are edited by hand: one that does not parse is a
	// warning to fix, not damage to the store.
	if cat, err := r.Narrative().Load(); err == nil {
		for _, p := range cat.Problems {
			rep.Warnings = append(rep.Warnings, p.Error())
		}
	}
	sort.SliceStable(rep.Problems, func(i, j int) bool { return rep.Problems[i].Path < rep.Problems[j].Path })
	return rep, nil
}

func (r *Repo) checkObject(id object.ID) checked {
	info, payload, err := r.Objects.Verify(id)
	c := checked{info: info}
	if err != nil {
		c.err = err
		return c
	}
	if info.Kind != object.KindTyped {
		return c
	}
	wrap := func(err error) error {
		return &object.Error{Op: "decode", ID: id, Path: object.RelPath(id), Err: err}
	}
	// Decode checks the encoding is canonical and the schema holds.
	v, err := r.Types.Decode(payload)
	if err != nil {
		c.err = wrap(err)
		return c
	}
	if unknown := object.UnknownKeys(payload, v); len(unknown) > 0 {
		sort.Strings(unknown)
		c.warn = fmt.Sprintf("%s has fields this version of ctx does not know (written by a newer ctx?): %s", info.Type, strings.Join(unknown, ", "))
	}
	c.links = v.Links()
	return c
}

// checkLink reports a link whose target is missing or of the wrong kind.
func checkLink(infos map[object.ID]object.Info, results []checked, ids []object.ID, l object.Link) error {
	t, ok := infos[l.ID]
	if !ok {
		// A target that exists but failed its own check is reported once,
		// for itself.
		i := sort.Search(len(ids), func(i int) bool { return ids[i].Compare(l.ID) >= 0 })
		if i < len(ids) && ids[i] == l.ID && results[i].err != nil {
			return nil
		}
		if l.Type == "commit" && strings.HasPrefix(l.Field, "parents[") {
			return fmt.Errorf("%w: %s %s is missing", ErrOrphanCommit, l.Field, l.ID)
		}
		return fmt.Errorf("%w: %s %s is missing", ErrDanglingLink, l.Field, l.ID)
	}
	if l.Kind != object.KindInvalid && (t.Kind != l.Kind || l.Type != "" && t.Type != l.Type) {
		got := t.Kind.String()
		if t.Kind == object.KindTyped {
			got = t.Type
		}
		return fmt.Errorf("%w: %s %s is a %s, want a %s", ErrWrongTarget, l.Field, l.ID.Short(), got, l.Want())
	}
	return nil
}

func (r *Repo) verifyRefs(rep *Report, infos map[object.ID]object.Info) {
	for _, err := range r.Refs.Check() {
		rep.Problems = append(rep.Problems, Problem{Err: err})
	}
	all, err := r.Refs.List()
	if err != nil {
		rep.Problems = append(rep.Problems, Problem{Err: err})
		return
	}
	rep.Refs = all
	for _, ref := range all {
		for _, h := range ref.Heads {
			if _, ok := infos[h]; !ok {
				rep.Problems = append(rep.Problems, Problem{Path: ref.Name.String(), ID: h,
					Err: fmt.Errorf("%w: head %s is missing or damaged", refs.ErrCorrupt, h)})
			}
		}
		if ref.Name.Shared() && len(ref.Heads) > 1 {
			if eff, err := r.effective(ref.Heads); err == nil && len(eff) == 1 {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s has %d stale head(s) left by an interrupted update; the next update of the ref or `ctx reconcile` removes them", ref.Name, len(ref.Heads)-1))
			} else {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s has %d heads (after a git merge); `ctx reconcile` merges them", ref.Name, len(ref.Heads)))
			}
		}
	}
	if target, err := r.Refs.Target(); err == nil {
		if _, err := r.Refs.Heads(target); err != nil {
			rep.Problems = append(rep.Problems, Problem{Path: "HEAD", Err: fmt.Errorf("HEAD names %s: %w", target, err)})
		}
	}
	r.verifySessions(rep, infos)
}

// verifySessions checks every staging session's newest state and the
// steps since its base, and that STAGE names a session that exists. A
// torn last journal line is a warning: it is a step never reported
// written, which the next step or ctx stage recover cuts off.
func (r *Repo) verifySessions(rep *Report, infos map[object.ID]object.Info) {
	ids, err := staging.List(r.Root)
	if err != nil {
		rep.Problems = append(rep.Problems, Problem{Path: staging.DirName, Err: err})
		return
	}
	for _, id := range ids {
		path := staging.DirName + "/" + id
		s, err := r.OpenSession(id)
		if err == nil {
			_, err = r.SessionSteps(s)
		}
		if err != nil {
			rep.Problems = append(rep.Problems, Problem{Path: path, Err: fmt.Errorf("%w: %w (ctx stage recover)", ErrSessionDamaged, err)})
			continue
		}
		if s.State.Mode == staging.ModeCompacting {
			// Every object is in place: the store is consistent, and
			// recover decides from main which way the compaction goes.
			rep.Warnings = append(rep.Warnings, path+": a compaction was interrupted; ctx stage recover finishes or undoes it (commands refuse the session until then)")
		}
		if j, err := staging.ReadJournal(r.Root, id); err == nil && (j.Torn || j.Damaged > 0) {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %d damaged line(s), torn tail %t: the session reads at its newest whole state; ctx stage recover cleans the journal", path, j.Damaged, j.Torn))
		}
	}
	if id, err := r.StageSession(); err != nil {
		// A missing or damaged object, or a bad STAGE file, is reported
		// as a bad ref above.
		if heads, herr := r.Refs.Heads(refs.STAGE); herr == nil {
			if _, intact := infos[heads[0]]; intact {
				rep.Problems = append(rep.Problems, Problem{Path: "STAGE", Err: err})
			}
		}
	} else if id != "" && !slices.Contains(ids, id) {
		rep.Problems = append(rep.Problems, Problem{Path: "STAGE", Err: fmt.Errorf("%w: STAGE names session %s, which has no journal (ctx stage recover clears it)", ErrSessionDamaged, id)})
	}
}

// checkAttributes warns when a store shared through git lacks a line of
// the .gitattributes this version writes (a store made by an older ctx).
func (r *Repo) checkAttributes(rep *Report) {
	have, err := os.ReadFile(filepath.Join(r.Root, ".gitattributes"))
	if err != nil {
		return // a --no-git store, or none at all: nothing to merge
	}
	for _, line := range strings.Split(GitAttributes, "\n") {
		if line != "" && !strings.HasPrefix(line, "#") && !strings.Contains(string(have), line) {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf(".gitattributes lacks %q, which git merges of the store need: add that line", line))
		}
	}
}

// findTemps reports temporary files outside objects/ (which List covers)
// and the index.
func (r *Repo) findTemps(rep *Report) {
	_ = filepath.WalkDir(r.Root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && path != r.Root && (d.Name() == "objects" || d.Name() == "index") && filepath.Dir(path) == r.Root {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".tmp") {
			rep.Warnings = append(rep.Warnings, r.Rel(path)+": temporary file left by an interrupted write (safe to delete)")
		}
		return nil
	})
}

package repo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctx-dev/ctx/graph/extract"
	"github.com/ctx-dev/ctx/internal/clock"
	"github.com/ctx-dev/ctx/internal/ignore"
	"github.com/ctx-dev/ctx/internal/parallel"
	"github.com/ctx-dev/ctx/internal/regfile"
	"github.com/ctx-dev/ctx/internal/secrets"
	"github.com/ctx-dev/ctx/object"
)

// IngestOptions configure Writer.Ingest.
type IngestOptions struct {
	// Paths are the files and directories to snapshot, as given on the
	// command line: relative to Wd when Wd is inside the project, else to
	// the project root. None means the whole project.
	Paths []string
	Wd    string
	// Semantics reads the code of the files (design §7.2): file versions
	// with items, imports and code edges.
	Semantics bool
	// Budget applies the per-step budgets of config.toml [ingestion]
	// (design §16.4 gate 2) to the files that changed; Force overrides it.
	Budget, Force bool
	// AllowSecrets stores files in which secrets were found.
	AllowSecrets bool
	// KeepLow keeps low-confidence edges (design §16.4 gate 3).
	KeepLow bool
	// Reparse reads every code file in the paths again, changed or not
	// (after a change of KeepLow, or of ctx's extractors).
	Reparse bool
	// Message and Author of the commit; an empty message is made up.
	Message, Author string
	// Progress, if set, is called now and then with the files done and
	// the files found so far, from several goroutines at once: it must
	// be safe for concurrent use.
	Progress func(done, total int)
	// PackAbove makes a step that stores more than this many files write
	// its objects into a new pack (FORMAT.md §3.4) instead of loose files;
	// 0 means DefaultPackAbove, a negative value never.
	PackAbove int
}

// DefaultPackAbove is the number of files above which a step writes a
// pack: a large import (the first ctx add code of a project) makes two
// files instead of tens of thousands.
const DefaultPackAbove = 1000

// Skipped is a file ingestion left out, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// IngestResult is what Ingest did.
type IngestResult struct {
	Committed bool       `json:"committed"`
	ID        *object.ID `json:"id,omitempty"`
	Ref       string     `json:"ref"`
	Previous  object.ID  `json:"previous"`
	Message   string     `json:"message,omitempty"`
	// Files counts the files in the paths ingested; Added, Modified and
	// Removed those that differ from the previous snapshot.
	Files int `json:"files"`
	// Hashed counts the files read from the disk and hashed; the others
	// were known unchanged from the stat cache.
	Hashed   int `json:"hashed"`
	Added    int `json:"added"`
	Modified int `json:"modified"`
	Removed  int `json:"removed"`
	// NewObjects counts the objects written, NewBytes the content bytes of
	// the files stored.
	NewObjects int   `json:"new_objects"`
	NewBytes   int64 `json:"new_bytes"`
	// Parsed counts the files whose code was read; Items and Edges what
	// they declare and relate.
	Parsed       int            `json:"parsed"`
	Items        int            `json:"items"`
	Edges        int            `json:"edges"`
	SyntaxErrors int            `json:"syntax_errors"`
	Languages    map[string]int `json:"languages,omitempty"`
	// Skipped lists files left out (too large, symbolic links, names a
	// tree cannot hold); Withheld those holding secrets.
	Skipped  []Skipped `json:"skipped"`
	Withheld []Skipped `json:"withheld"`
	// Unread lists code files stored whose parser failed outright (not
	// syntax errors, which are counted): their versions hold no code.
	Unread     []Skipped    `json:"unread,omitempty"`
	Reconciled []Reconciled `json:"reconciled,omitempty"`
	Seconds    float64      `json:"seconds"`
}

// ErrBudgetExceeded means an ingestion step would store more than the
// per-step budget allows (E010).
var ErrBudgetExceeded = errors.New("repo: step budget exceeded")

// scanned is one file found on disk.
type scanned struct {
	path string
	info fs.FileInfo
	blob object.ID
	data []byte // content, when read
	read bool   // data holds the content
}

// Ingest snapshots files of the project into a commit on the ref HEAD
// names (design §7.2, §13.2.2). For each path it records the files under
// it as they are now: new and changed files are stored, files gone from
// the disk are removed from the snapshot, the rest of the snapshot is
// kept. Files git ignores (.gitignore, .git/info/exclude), config.toml's
// ignore_globs, .git/ and .ctx/, files larger than max_file_bytes,
// well-known secret files and files in which secrets are found are left
// out and reported. With Semantics, the code of the changed files is read
// and the semantic snapshot updated: for a file whose unit (a Go package,
// a module elsewhere) has a changed file, every file of the unit is read
// again, because names resolve across it; other units keep their file
// versions (design §16.4 gate 4).
//
// Nothing is written when a budget is exceeded; a crash leaves the store
// as it was or with the new commit.
func (w *Writer) Ingest(ctx context.Context, opts IngestOptions) (*IngestResult, error) {
	start := clock.Real{}.Now() // elapsed time, not a date
	res := &IngestResult{Skipped: []Skipped{}, Withheld: []Skipped{}}
	scopes, err := w.ingestScopes(opts)
	if err != nil {
		return nil, err
	}
	t, err := w.currentTip(ctx, object.StepFileWrite)
	if err != nil {
		return nil, err
	}
	base, head := t.commit, t.head
	res.Reconciled, res.Ref, res.Previous = t.reconciled, t.label, head

	// What the snapshot has, and what the disk has, under the scopes. The
	// listings of the trees, the stat cache and the walk of the disk are
	// independent, and all the work of a run that finds no change: they
	// run at once.
	var (
		before, versions       map[string]object.TreeEntry
		beforeErr, versionsErr error
		cache                  *statCache
		lists                  sync.WaitGroup
	)
	lists.Add(2)
	go func() {
		defer lists.Done()
		before, beforeErr = object.ListTree(w.Objects, base.RootTree, "")
		cache = w.loadStatCache()
	}()
	go func() {
		defer lists.Done()
		versions, versionsErr = object.ListTree(w.Objects, semanticRoot(base), "")
	}()
	found, walkErr := w.walkScopes(scopes, opts, res)
	lists.Wait()
	if beforeErr != nil {
		return nil, fmt.Errorf("repo: read the snapshot: %w", beforeErr)
	}
	if versionsErr != nil {
		return nil, fmt.Errorf("repo: read the semantic snapshot: %w", versionsErr)
	}
	// A path that is neither on the disk nor in the snapshot is a typo,
	// not a removal: say so, as git add does, rather than do nothing.
	for _, s := range scopes {
		if _, err := os.Lstat(filepath.Join(w.ProjectRoot(), filepath.FromSlash(s))); s == "" || !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		known := false
		for p := range before {
			if known = inScopes(p, []string{s}); known {
				break
			}
		}
		if !known {
			return nil, fmt.Errorf("%w: %s matches no file, on the disk or in the snapshot", ErrInvalidArgument, s)
		}
	}
	if walkErr != nil {
		return nil, walkErr
	}
	res.Files = len(found)
	if err := w.hashFiles(ctx, found, cache, before, opts, res); err != nil {
		return nil, err
	}
	onDisk := map[string]*scanned{}
	kept := found[:0]
	for _, f := range found {
		if !f.blob.IsZero() {
			onDisk[f.path] = f
			kept = append(kept, f)
		}
	}
	found = kept
	res.Files = len(found)
	changes := map[string]*object.TreeEntry{}
	var newBytes int64
	for _, f := range found {
		old, ok := before[f.path]
		switch {
		case !ok:
			res.Added++
		case old.ID != f.blob || old.Kind != object.EntryBlob:
			res.Modified++
		default:
			continue
		}
		changes[f.path] = &object.TreeEntry{Kind: object.EntryBlob, ID: f.blob}
		newBytes += f.info.Size()
	}
	for p := range before {
		if onDisk[p] == nil && inScopes(p, scopes) {
			changes[p] = nil
			res.Removed++
		}
	}
	if opts.Budget && !opts.Force {
		where := "config.toml [ingestion] max_files_per_step, max_bytes_per_step"
		cfg := w.Config.Ingestion
		if t.sess != nil {
			where = "the budgets of session " + t.sess.ID + ", from config.toml [ingestion] when it started"
			cfg.MaxFilesPerStep, cfg.MaxBytesPerStep = t.sess.State.Budgets.MaxFilesPerStep, t.sess.State.Budgets.MaxBytesPerStep
		}
		if n := res.Added + res.Modified; cfg.MaxFilesPerStep > 0 && n > cfg.MaxFilesPerStep || cfg.MaxBytesPerStep > 0 && newBytes > cfg.MaxBytesPerStep {
			return nil, fmt.Errorf("%w: this step stores %d file(s), %s, over the budget of %d file(s), %s per step (%s); pass --force to store them anyway, or ingest the whole project with ctx add code",
				ErrBudgetExceeded, n, humanBytes(newBytes), cfg.MaxFilesPerStep, humanBytes(cfg.MaxBytesPerStep), where)
		}
	}

	packAbove := opts.PackAbove
	if packAbove == 0 {
		packAbove = DefaultPackAbove
	}
	b := w.Objects.NewBatch()
	if packAbove > 0 && res.Added+res.Modified > packAbove {
		b = w.Objects.NewPackBatch()
	}
	defer b.Abort()
	put := b.Put
	// Store the new contents.
	if err := parallel.Do(ctx, len(found), func(i int) error {
		f := found[i]
		if c := changes[f.path]; c == nil || !f.read {
			return nil
		}
		if _, err := put(object.KindBlob, f.data); err != nil {
			return fmt.Errorf("store %s: %w", f.path, err)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	for _, f := range found {
		if changes[f.path] != nil {
			res.NewBytes += f.info.Size()
		}
	}
	newRoot, err := object.EditTree(b, base.RootTree, changes)
	if err != nil {
		return nil, err
	}

	// The semantic snapshot: file versions matching the new tree.
	var sem *object.ID
	if base.SemanticSnapshot != nil {
		id := *base.SemanticSnapshot
		sem = &id
	}
	after := make(map[string]object.ID, len(before)+len(changes))
	for p, e := range before {
		after[p] = e.ID
	}
	for p, e := range changes {
		if e == nil {
			delete(after, p)
		} else {
			after[p] = e.ID
		}
	}
	if newSem, err := w.semanticSnapshot(ctx, b, put, base, versions, after, onDisk, changes, scopes, opts, res); err != nil {
		return nil, err
	} else {
		sem = newSem
	}

	unchanged := newRoot == base.RootTree && sameID(sem, base.SemanticSnapshot)
	if !unchanged {
		msg := opts.Message
		if msg == "" {
			msg = ingestMessage(res, scopes)
		}
		c := t.child(w, opts.Author, msg)
		c.RootTree, c.SemanticSnapshot = newRoot, sem
		id, err := object.PutTyped(b, c)
		if err != nil {
			return nil, err
		}
		res.NewObjects = b.Len() // objects not already in the store
		if err := w.install(b, t, id); err != nil {
			return nil, err
		}
		res.Committed, res.ID, res.Message = true, &id, msg
	}
	// Remember what was hashed, for the next run. A cache that would not
	// change is not rewritten, so that a run finding nothing new writes
	// nothing (no fsync): every file came from the cache, whose entries
	// and time stay as valid as they were; a file read again (changed, or
	// racy at the cache's time) makes it dirty.
	dirty := false
	for _, f := range found {
		e := statEntryWith(f)
		if old, ok := cache.entries[f.path]; f.read || !ok || old != e {
			cache.entries[f.path] = e
			dirty = true
		}
	}
	for p, e := range changes {
		if _, ok := cache.entries[p]; e == nil && ok {
			delete(cache.entries, p)
			dirty = true
		}
	}
	if dirty {
		cache.written = start.UnixNano()
		if err := w.saveStatCache(cache); err != nil {
			return res, err // the commit is made; only the cache is lost
		}
	}
	res.Seconds = clock.Real{}.Now().Sub(start).Seconds()
	return res, nil
}

func statEntryWith(f *scanned) statEntry {
	e := statOf(f.info)
	e.blob = f.blob
	return e
}

func sameID(a, b *object.ID) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// ingestScopes turns the paths into clean project paths ("" for the whole
// project), refusing paths outside the project and symbolic links that
// lead out of it.
func (w *Writer) ingestScopes(opts IngestOptions) ([]string, error) {
	if len(opts.Paths) == 0 {
		return []string{""}, nil
	}
	root := w.ProjectRoot()
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("repo: %w", err)
	}
	var out []string
	for _, arg := range opts.Paths {
		p, ok := w.projectPath(arg, opts.Wd)
		if !ok {
			// Resolve a relative path as projectPath does, to tell a path
			// in the store from one outside the project.
			abs := filepath.FromSlash(arg)
			if !filepath.IsAbs(abs) {
				base := root
				if rel, err := filepath.Rel(root, opts.Wd); opts.Wd != "" && err == nil && filepath.IsLocal(rel) {
					base = opts.Wd
				}
				abs = filepath.Join(base, abs)
			}
			if rel, err := filepath.Rel(root, abs); err == nil && (rel == DirName || strings.HasPrefix(rel, DirName+string(filepath.Separator))) {
				return nil, fmt.Errorf("%w: %s is inside the store (.ctx/), which is never ingested", ErrInvalidArgument, arg)
			}
			return nil, fmt.Errorf("%w: %s is outside the project %s", ErrInvalidArgument, arg, root)
		}
		if p == "." {
			p = ""
		}
		full := filepath.Join(root, filepath.FromSlash(p))
		if real, err := filepath.EvalSymlinks(full); err == nil {
			if rel, err := filepath.Rel(realRoot, real); err != nil || !filepath.IsLocal(rel) && rel != "." {
				return nil, fmt.Errorf("%w: %s leads outside the project through a symbolic link (to %s)", ErrInvalidArgument, arg, real)
			}
		}
		if st, err := os.Lstat(full); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%w: %s is a symbolic link; ctx stores files: name the file it points to", ErrInvalidArgument, arg)
		}
		// A path through a linked directory would store files under a
		// name the project's own walk never gives them (it does not
		// follow links), and .git/ is never ingested (issue #5).
		if link := linkOnPath(root, p); link != "" {
			return nil, fmt.Errorf("%w: %s goes through the symbolic link %s; name the path without it", ErrInvalidArgument, arg, link)
		}
		if slices.Contains(strings.Split(p, "/"), ".git") {
			return nil, fmt.Errorf("%w: %s is inside a .git directory, which is never ingested", ErrInvalidArgument, arg)
		}
		out = append(out, p)
	}
	sort.Strings(out)
	// Drop scopes inside other scopes.
	var kept []string
	for _, p := range out {
		if len(kept) > 0 && inScopes(p, kept) {
			continue
		}
		kept = append(kept, p)
	}
	return kept, nil
}

// linkOnPath returns the first directory on the project path p (p itself
// excluded) that is a symbolic link, "" if none is. It stops at the first
// directory that does not exist.
func linkOnPath(root, p string) string {
	dirs := strings.Split(p, "/")
	for i := 1; i < len(dirs); i++ {
		d := strings.Join(dirs[:i], "/")
		st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(d)))
		if err != nil {
			return ""
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return d
		}
	}
	return ""
}

// inScopes reports whether a path is at or under one of the scopes.
func inScopes(p string, scopes []string) bool {
	for _, s := range scopes {
		if s == "" || p == s || strings.HasPrefix(p, s+"/") {
			return true
		}
	}
	return false
}

// walkScopes lists the regular files under the scopes that ingestion
// takes: not ignored, not too large, not secret files, with names a tree
// can hold.
func (w *Writer) walkScopes(scopes []string, opts IngestOptions, res *IngestResult) ([]*scanned, error) {
	root := w.ProjectRoot()
	m := ignore.New(root, w.Config.Ingestion.IgnoreGlobs)
	var out []*scanned
	seen := map[string]bool{}
	consider := func(rel string, info fs.FileInfo) {
		if seen[rel] {
			return
		}
		seen[rel] = true
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			res.Skipped = append(res.Skipped, Skipped{rel, "symbolic link (not followed)"})
			return
		case !info.Mode().IsRegular():
			if !info.IsDir() {
				res.Skipped = append(res.Skipped, Skipped{rel, "not a regular file"})
			}
			return
		case object.CheckRelPath(rel) != nil:
			res.Skipped = append(res.Skipped, Skipped{rel, "a name a tree cannot hold (backslash, or not UTF-8)"})
			return
		case info.Size() > w.Config.Ingestion.MaxFileBytes:
			res.Skipped = append(res.Skipped, Skipped{rel, fmt.Sprintf("larger than max_file_bytes (%s > %s)", humanBytes(info.Size()), humanBytes(w.Config.Ingestion.MaxFileBytes))})
			return
		}
		if reason, secret := secrets.SecretFile(rel); secret && !opts.AllowSecrets {
			res.Withheld = append(res.Withheld, Skipped{rel, reason + " (--allow-secrets stores it)"})
			return
		}
		out = append(out, &scanned{path: rel, info: info})
	}
	for _, s := range scopes {
		full := filepath.Join(root, filepath.FromSlash(s))
		info, err := os.Lstat(full)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed: the snapshot drops what it had there
		}
		if err != nil {
			return nil, fmt.Errorf("repo: %w", err)
		}
		// A path named on the command line is ignored as the walk of
		// the project would ignore it: say so rather than take it, or
		// take nothing, without a word.
		if s != "" && m.Ignored(s, info.IsDir()) {
			res.Skipped = append(res.Skipped, Skipped{s, "ignored (.gitignore, .git/info/exclude or config.toml ignore_globs)"})
			continue
		}
		if !info.IsDir() {
			consider(s, info)
			continue
		}
		err = m.Walk(s, func(rel string, d fs.DirEntry) error {
			if d.IsDir() {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			consider(rel, info)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("repo: walk %s: %w", s, err)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, nil
}

// hashFiles gives every file its blob id: from the stat cache when its
// stat data are unchanged, else by reading it (and screening it for
// secrets). A file that vanished or holds secrets keeps the zero id.
func (w *Writer) hashFiles(ctx context.Context, found []*scanned, cache *statCache, before map[string]object.TreeEntry, opts IngestOptions, res *IngestResult) error {
	root := w.ProjectRoot()
	var mu sync.Mutex
	var done, hashed atomic.Int64
	defer func() { res.Hashed = int(hashed.Load()) }()
	total := len(found)
	err := parallel.Do(ctx, len(found), func(i int) error {
		f := found[i]
		defer func() {
			if n := done.Add(1); opts.Progress != nil && (n%256 == 0 || int(n) == total) {
				opts.Progress(int(n), total)
			}
		}()
		if id, ok := cache.lookup(f.path, statOf(f.info)); ok {
			if old, inTree := before[f.path]; inTree && old.ID == id {
				f.blob = id
				return nil
			}
		}
		hashed.Add(1)
		data, err := regfile.Read(filepath.Join(root, filepath.FromSlash(f.path)), w.Config.Ingestion.MaxFileBytes)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			mu.Lock()
			res.Skipped = append(res.Skipped, Skipped{f.path, "unreadable: " + err.Error()})
			mu.Unlock()
			return nil
		}
		if !opts.AllowSecrets {
			if fs := secrets.Scan(data); len(fs) > 0 {
				mu.Lock()
				res.Withheld = append(res.Withheld, Skipped{f.path, describeFindings(fs) + " (--allow-secrets stores it)"})
				mu.Unlock()
				return nil
			}
		}
		if st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(f.path))); err == nil {
			f.info = st // the stat data of what was read
		}
		f.data, f.read = data, true
		f.blob = object.Sum(object.KindBlob, data)
		return nil
	})
	sort.Slice(res.Skipped, func(i, j int) bool { return res.Skipped[i].Path < res.Skipped[j].Path })
	sort.Slice(res.Withheld, func(i, j int) bool { return res.Withheld[i].Path < res.Withheld[j].Path })
	return err
}

// describeFindings says what secrets a file holds, by kind and line.
func describeFindings(fs []secrets.Finding) string {
	parts := make([]string, 0, len(fs))
	for i, f := range fs {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(fs)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%s on line %d", f.Reason, f.Line))
	}
	return "holds a secret: " + strings.Join(parts, ", ")
}

// humanBytes writes a size for people: 512 B, 3.1 KiB, 2.0 MiB.
func humanBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// ingestMessage makes up a commit message.
func ingestMessage(res *IngestResult, scopes []string) string {
	what := "the project"
	if !(len(scopes) == 1 && scopes[0] == "") {
		what = strings.Join(scopes, ", ")
		if len(what) > 60 {
			what = fmt.Sprintf("%d paths", len(scopes))
		}
	}
	msg := fmt.Sprintf("Snapshot %s: %d added, %d modified, %d removed", what, res.Added, res.Modified, res.Removed)
	if res.Parsed > 0 {
		msg += fmt.Sprintf("; %d files read, %d items, %d edges", res.Parsed, res.Items, res.Edges)
	}
	return msg
}

// ingestProject is the project seen by the languages during one
// ingestion: files as the new snapshot has them, read from the disk when
// in hand, else from the store.
type ingestProject struct {
	r      *Repo
	after  map[string]object.ID
	onDisk map[string]*scanned
	memo   sync.Map
}

func (p *ingestProject) ReadFile(rel string) ([]byte, error) {
	if f := p.onDisk[rel]; f != nil && f.read {
		return f.data, nil
	}
	id, ok := p.after[rel]
	if !ok {
		// Outside the snapshot (a go.mod or Cargo.toml above the paths
		// ingested): the project's file as it is on disk.
		full, err := p.diskPath(rel)
		if err != nil {
			return nil, err
		}
		return regfile.Read(full, p.r.Config.Ingestion.MaxFileBytes)
	}
	if f := p.onDisk[rel]; f != nil {
		data, err := regfile.Read(filepath.Join(p.r.ProjectRoot(), filepath.FromSlash(rel)), p.r.Config.Ingestion.MaxFileBytes)
		if err == nil && object.Sum(object.KindBlob, data) == id {
			return data, nil
		}
	}
	_, data, err := p.r.Objects.Get(id)
	return data, err
}

// diskPath returns the path on disk of a project-relative path, which
// must stay inside the project and out of .ctx and .git.
func (p *ingestProject) diskPath(rel string) (string, error) {
	clean := path.Clean(rel)
	if clean != rel || rel == "." || path.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") ||
		strings.HasPrefix(rel, ".ctx/") || strings.HasPrefix(rel, ".git/") {
		return "", fs.ErrNotExist
	}
	return filepath.Join(p.r.ProjectRoot(), filepath.FromSlash(rel)), nil
}

func (p *ingestProject) Exists(rel string) bool {
	if _, ok := p.after[rel]; ok {
		return true
	}
	if full, err := p.diskPath(rel); err == nil {
		if _, err := os.Lstat(full); err == nil {
			return true
		}
	}
	prefix := rel + "/"
	for q := range p.after {
		if strings.HasPrefix(q, prefix) {
			return true
		}
	}
	return false
}

func (p *ingestProject) Memo(key string, compute func() any) any {
	if v, ok := p.memo.Load(key); ok {
		return v
	}
	v, _ := p.memo.LoadOrStore(key, compute())
	return v
}

// semanticRoot returns the tree of the commit's semantic snapshot, the
// zero ID (an empty tree) for none.
func semanticRoot(c *object.Commit) object.ID {
	if c.SemanticSnapshot == nil {
		return object.Zero
	}
	return *c.SemanticSnapshot
}

// semanticSnapshot updates the semantic snapshot (a tree of file_version
// objects by path; versions lists base's) to match the new tree. Without
// Semantics it only drops the versions of files that changed or went
// away, so that every version it keeps matches the tree's content.
func (w *Writer) semanticSnapshot(ctx context.Context, b *object.Batch, put func(object.Kind, []byte) (object.ID, error),
	base *object.Commit, versions map[string]object.TreeEntry, after map[string]object.ID, onDisk map[string]*scanned, changes map[string]*object.TreeEntry,
	scopes []string, opts IngestOptions, res *IngestResult) (*object.ID, error) {
	baseSem := semanticRoot(base)
	semChanges := map[string]*object.TreeEntry{}
	for p, e := range changes {
		if _, had := versions[p]; had && (e == nil || !opts.Semantics) {
			semChanges[p] = nil
		}
	}
	if opts.Semantics {
		proj := &ingestProject{r: w.Repo, after: after, onDisk: onDisk}
		if err := w.readCode(ctx, put, proj, after, versions, changes, scopes, opts, res, semChanges); err != nil {
			return nil, err
		}
	}
	if len(semChanges) == 0 {
		if base.SemanticSnapshot == nil {
			return nil, nil
		}
		id := *base.SemanticSnapshot
		return &id, nil
	}
	id, err := object.EditTree(b, baseSem, semChanges)
	if err != nil {
		return nil, err
	}
	if t := new(object.Tree); object.GetTyped(b, id, t) == nil && len(t.Entries) == 0 {
		return nil, nil
	}
	return &id, nil
}

// codeFile is a file of a dirty unit.
type codeFile struct {
	path string
	blob object.ID
	lang extract.Language
	mi   extract.ModuleInfo
	res  *extract.Result
	src  []byte
}

// readCode reads the files in the scopes that need a new version, and
// every file of their units, and records their versions in semChanges.
func (w *Writer) readCode(ctx context.Context, put func(object.Kind, []byte) (object.ID, error), proj *ingestProject,
	after map[string]object.ID, versions map[string]object.TreeEntry, changes map[string]*object.TreeEntry,
	scopes []string, opts IngestOptions, res *IngestResult, semChanges map[string]*object.TreeEntry) error {
	if len(changes) == 0 && !opts.Reparse && versionsCover(after, versions, scopes) {
		return nil // nothing to read: spare a run that finds no change the units' look-up
	}
	// The units of the snapshot's code files.
	units := map[string][]string{}
	unitOf := map[string]string{}
	for p := range after {
		lang := extract.ForPath(p)
		if lang == nil {
			continue
		}
		u := lang.Name() + ":" + lang.Module(proj, p).Unit
		units[u] = append(units[u], p)
		unitOf[p] = u
	}
	// Files in scope needing a version: changed, or without a current one.
	need := map[string]bool{}
	dirty := map[string]bool{}
	for p := range after {
		if !inScopes(p, scopes) {
			continue
		}
		// Ingestion keeps every version matching the tree's content (it
		// drops the versions of files it stores without reading), so a
		// version present is current.
		_, ok := versions[p]
		if _, changed := changes[p]; changed || !ok || opts.Reparse {
			need[p] = true
			if u := unitOf[p]; u != "" {
				dirty[u] = true
			}
		}
	}
	for p, e := range changes {
		if e == nil {
			if u := unitOfPath(proj, p); u != "" {
				dirty[u] = true
			}
		}
	}
	// Every file of a dirty unit is read again.
	var files []*codeFile
	for u := range dirty {
		for _, p := range units[u] {
			need[p] = true
		}
	}
	for p := range need {
		lang := extract.ForPath(p)
		f := &codeFile{path: p, blob: after[p], lang: lang}
		if lang != nil {
			f.mi = lang.Module(proj, p)
		}
		files = append(files, f)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	var unreadMu sync.Mutex
	if err := parallel.Do(ctx, len(files), func(i int) error {
		f := files[i]
		src, err := proj.ReadFile(f.path)
		if err != nil {
			return fmt.Errorf("read %s: %w", f.path, err)
		}
		f.src = src
		if f.lang == nil || isBinary(src) {
			return nil
		}
		r, err := f.lang.Extract(&extract.File{Path: f.path, Src: src, ModuleInfo: f.mi})
		if err != nil {
			unreadMu.Lock()
			res.Unread = append(res.Unread, Skipped{Path: f.path, Reason: fmt.Sprintf("%s parser failed: %v", f.lang.Name(), err)})
			unreadMu.Unlock()
			return nil
		}
		f.res = r
		return nil
	}); err != nil {
		return err
	}
	sort.Slice(res.Unread, func(i, j int) bool { return res.Unread[i].Path < res.Unread[j].Path })
	// Resolve unit by unit.
	byUnit := map[string][]*codeFile{}
	for _, f := range files {
		if f.res != nil {
			u := unitOf[f.path]
			byUnit[u] = append(byUnit[u], f)
		}
	}
	unitNames := make([]string, 0, len(byUnit))
	unitBytes := make(map[string]int, len(byUnit))
	for u, fs := range byUnit {
		unitNames = append(unitNames, u)
		for _, f := range fs {
			unitBytes[u] += len(f.src)
		}
	}
	// The largest units first: a large one (Go's cmd/compile/internal/ssa
	// takes half a second) started last would leave the other cores idle.
	sort.Slice(unitNames, func(i, j int) bool {
		a, b := unitNames[i], unitNames[j]
		return unitBytes[a] > unitBytes[b] || unitBytes[a] == unitBytes[b] && a < b
	})
	edges := map[string][]extract.Edge{}
	var mu sync.Mutex
	if err := parallel.Do(ctx, len(unitNames), func(i int) error {
		fs := byUnit[unitNames[i]]
		rs := make([]*extract.Result, len(fs))
		for k, f := range fs {
			rs[k] = f.res
		}
		out := extract.Resolve(rs, extract.ResolveOptions{KeepLow: opts.KeepLow})
		mu.Lock()
		for k, f := range fs {
			edges[f.path] = out[k]
		}
		mu.Unlock()
		return nil
	}); err != nil {
		return err
	}
	// Store the versions.
	ids := make([]object.ID, len(files))
	if err := parallel.Do(ctx, len(files), func(i int) error {
		f := files[i]
		v := extract.NewFileVersion(f.path, f.blob, f.src, f.res, edges[f.path])
		if f.res == nil && isBinary(f.src) {
			v.Binary = true
		}
		payload, err := object.Encode(v)
		if err != nil {
			return fmt.Errorf("file version of %s: %w", f.path, err)
		}
		id, err := put(object.KindTyped, payload)
		ids[i] = id
		return err
	}); err != nil {
		return err
	}
	res.Languages = map[string]int{}
	for i, f := range files {
		semChanges[f.path] = &object.TreeEntry{Kind: object.EntryTyped, ID: ids[i]}
		if f.res != nil {
			res.Parsed++
			res.Items += len(f.res.Items)
			res.Edges += len(edges[f.path])
			res.SyntaxErrors += f.res.SyntaxErrors
			res.Languages[f.res.Language]++
		}
	}
	return nil
}

// versionsCover reports whether every file of the snapshot in the scopes
// has a version.
func versionsCover(after map[string]object.ID, versions map[string]object.TreeEntry, scopes []string) bool {
	for p := range after {
		if _, ok := versions[p]; !ok && inScopes(p, scopes) {
			return false
		}
	}
	return true
}

// unitOfPath returns the unit of a code file, "" for other files.
func unitOfPath(p extract.Project, rel string) string {
	lang := extract.ForPath(rel)
	if lang == nil {
		return ""
	}
	return lang.Name() + ":" + lang.Module(p, rel).Unit
}

// isBinary reports whether content looks binary: a NUL byte in its first
// 8 KiB, as git decides.
func isBinary(src []byte) bool {
	return bytes.IndexByte(src[:min(len(src), 8000)], 0) >= 0
}

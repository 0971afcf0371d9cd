package index

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/graph/diag"
	"github.com/ctx-dev/ctx/graph/extract"
	"github.com/ctx-dev/ctx/index/reader"
	"github.com/ctx-dev/ctx/internal/parallel"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// DocKind is what a document of the index stands for (reader.DocKind).
type DocKind = reader.DocKind

// The document kinds. Narrative nodes use their node type ("task",
// "decision", "observation", …).
const (
	DocFile       = reader.DocFile       // a file of the snapshot: its path
	DocItem       = reader.DocItem       // a function, type, … : its source span
	DocDiagnostic = reader.DocDiagnostic // a diagnostic of a recorded command run
)

// Doc is one document of the full-text index and of the node metadata
// lookups: a code chunk (an item's span), a file path, a narrative node,
// or a diagnostic.
type Doc struct {
	Kind DocKind
	// Node is the graph node the document stands for.
	Node graph.NodeID
	// Title is what a hit shows first: an item's key, a node's title, a
	// path, a diagnostic's message.
	Title string
	// Path and lines locate a code chunk or a diagnostic in the project
	// (1-based, inclusive; 0 when unknown).
	Path               string
	StartLine, EndLine uint32
	// Text is what the tokenizer reads.
	Text string
	// Tags, Updated (Unix seconds) and Superseded are the metadata
	// filters use; Tokens estimates the document's size in a context.
	Tags       []string
	Updated    int64
	Superseded bool
	Tokens     int
}

// maxChunkBytes bounds the source text of one item indexed: a generated
// 10,000-line function is indexed by its first part.
const maxChunkBytes = 16 << 10

// Collect gathers the documents of the store as it stands: the code
// documents of CollectCode, then the narrative's of CollectNarrative.
func Collect(ctx context.Context, r *repo.Repo) ([]Doc, error) {
	_, heads, err := r.WorkingHeads()
	if err != nil {
		return nil, err
	}
	code, err := CollectCode(ctx, r, heads)
	if err != nil {
		return nil, err
	}
	narr, err := CollectNarrative(r)
	if err != nil {
		return nil, err
	}
	return append(code, narr...), nil
}

// CollectCode gathers the documents of the code of heads: files, items
// with their source spans, and the diagnostics of the latest command
// runs, sorted by kind, then node key.
func CollectCode(ctx context.Context, r *repo.Repo, heads []object.ID) ([]Doc, error) {
	return collectCode(ctx, r, heads, newVersions(r, false).get)
}

func collectCode(ctx context.Context, r *repo.Repo, heads []object.ID, load func(object.ID) (*extract.FileVersion, error)) ([]Doc, error) {
	repoID := r.Config.Repo.ID
	var docs []Doc
	seenPath := map[string]bool{}
	seenRun := map[object.ID]bool{}
	for _, h := range heads {
		c, err := r.ReadCommit(h)
		if err != nil {
			return nil, err
		}
		files, err := object.ListTree(r.Objects, c.RootTree, "")
		if err != nil {
			return nil, fmt.Errorf("index: root tree of %s: %w", h.Short(), err)
		}
		var versions map[string]object.TreeEntry
		if c.SemanticSnapshot != nil {
			if versions, err = object.ListTree(r.Objects, *c.SemanticSnapshot, ""); err != nil {
				return nil, fmt.Errorf("index: semantic snapshot of %s: %w", h.Short(), err)
			}
		}
		paths := make([]string, 0, len(files))
		for p := range files {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		var fresh []pathFile
		for _, p := range paths {
			if !seenPath[p] {
				seenPath[p] = true
				fresh = append(fresh, pathFile{path: p, version: versions[p].ID})
			}
		}
		// Reading the versions and their content is most of the work.
		if docs, err = appendPathDocs(ctx, docs, r, repoID, fresh, load); err != nil {
			return nil, err
		}
		if c.DiagnosticsSnapshot != nil {
			ds, err := diagnosticDocs(r, repoID, *c.DiagnosticsSnapshot, seenRun)
			if err != nil {
				return nil, err
			}
			docs = append(docs, ds...)
		}
	}
	sortDocs(docs)
	return docs, nil
}

// CollectNarrative gathers the documents of the working narrative: every
// node not deleted, sorted by kind, then id.
func CollectNarrative(r *repo.Repo) ([]Doc, error) {
	docs, _, err := collectNarrative(r.Narrative())
	return docs, err
}

// collectNarrative is CollectNarrative, also returning the hidden ids
// (Manifest.Hidden).
func collectNarrative(sp *narrative.Space) ([]Doc, []HiddenID, error) {
	cat, err := sp.Load()
	if err != nil {
		return nil, nil, err
	}
	docs, hidden := narrativeDocs(cat)
	return docs, hidden, nil
}

// narrativeDocs returns the documents of a catalog's nodes, sorted, and
// its hidden ids with their files: those of deleted nodes and those in
// several files.
func narrativeDocs(cat *narrative.Catalog) ([]Doc, []HiddenID) {
	var docs []Doc
	var hidden []HiddenID
	for _, id := range cat.Duplicated() {
		for _, p := range cat.DuplicatedIn(id) {
			hidden = append(hidden, HiddenID{ID: string(id), Path: p})
		}
	}
	for _, id := range cat.IDs() {
		n := cat.Nodes[id]
		if n.Deleted {
			hidden = append(hidden, HiddenID{ID: string(id), Path: n.Path})
			continue
		}
		docs = append(docs, narrativeDoc(n))
	}
	sortDocs(docs)
	slices.SortFunc(hidden, compareHidden)
	return docs, slices.Compact(hidden)
}

// sortDocs orders docs by docOrder, then as collected. It sorts numbers
// and moves each document once: documents are large to swap.
func sortDocs(docs []Doc) {
	// The keys in a slice of their own: the sort reads a document's key
	// once a word of it, and a document is 176 bytes, a cache miss each.
	ids := make([]uint32, len(docs))
	keys := make([]string, len(docs))
	for i := range ids {
		ids[i], keys[i] = uint32(i), docs[i].Node.Key
	}
	sortKinded(ids,
		func(id uint32) string { return string(docs[id].Kind) },
		func(id uint32) string { return keys[id] },
		func(a, b uint32) int {
			if c := docOrder(&docs[a], &docs[b]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
	permute(docs, ids)
}

// permute moves docs so that position k takes the document at order[k],
// which it overwrites.
func permute(docs []Doc, order []uint32) {
	// Apply the permutation in place, a cycle at a time (a copy of the
	// documents, 58 MB on Go's tree, would be new memory to fault in):
	// position k takes the document at order[k].
	const placed = ^uint32(0)
	for k := range order {
		if order[k] == placed || int(order[k]) == k {
			continue
		}
		held := docs[k]
		j := k
		for {
			next := int(order[j])
			order[j] = placed
			if next == k {
				docs[j] = held
				break
			}
			docs[j] = docs[next]
			j = next
		}
	}
}

// docOrder is the order of a segment's documents: by kind, node key,
// path, then first line. Documents of different files never tie (a file's
// path and an item's key and line tell them apart; a diagnostic's key is
// its run's and its number), so a delta segment can insert a changed
// file's documents where a full build would put them (docs/INDEX.md,
// "Delta segments").
func docOrder(a, b *Doc) int {
	if c := strings.Compare(string(a.Kind), string(b.Kind)); c != 0 {
		return c
	}
	if c := strings.Compare(a.Node.Key, b.Node.Key); c != 0 {
		return c
	}
	if c := strings.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	return cmp.Compare(a.StartLine, b.StartLine)
}

// pathFile is a file whose documents are to be collected: its path and
// its file version (Zero: none).
type pathFile struct {
	path    string
	version object.ID
}

// appendPathDocs appends to docs the documents of files, in their order
// (pathDocs'), reading them on every core. The versions are read first,
// which tells how many documents each file has, so that every document is
// written once, where it ends up: documents are large (58 MB of them on
// Go's tree), and gathering them per file and then copying them was as
// much fresh memory again to fault in.
func appendPathDocs(ctx context.Context, docs []Doc, r *repo.Repo, repoID string, files []pathFile, load func(object.ID) (*extract.FileVersion, error)) ([]Doc, error) {
	fvs := make([]*extract.FileVersion, len(files))
	if err := parallel.Do(ctx, len(files), func(i int) error {
		if files[i].version.IsZero() {
			return nil
		}
		fv, err := load(files[i].version)
		if err != nil {
			return fmt.Errorf("index: file version of %s: %w", files[i].path, err)
		}
		fvs[i] = fv
		return nil
	}); err != nil {
		return nil, err
	}
	offs := make([]int, len(files)+1)
	offs[0] = len(docs)
	for i, fv := range fvs {
		offs[i+1] = offs[i] + 1
		if fv != nil {
			offs[i+1] += len(fv.Items)
		}
	}
	docs = slices.Grow(docs, offs[len(files)]-len(docs))[:offs[len(files)]]
	if err := parallel.Do(ctx, len(files), func(i int) error {
		return pathDocs(docs[offs[i]:offs[i+1]], r, repoID, files[i].path, fvs[i])
	}); err != nil {
		return nil, err
	}
	return docs, nil
}

// pathDocs writes into dst the documents of the file at p, whose file
// version is fv (nil: none): the file's (its path and outline), then one
// per item: its key, kind, doc comment and source lines. dst holds one
// document more than fv has items.
func pathDocs(dst []Doc, r *repo.Repo, repoID, p string, fv *extract.FileVersion) error {
	if fv == nil || len(fv.Items) == 0 {
		fileDocs(dst, repoID, p, nil, nil)
		return nil
	}
	// The content is lent (View): every item's text is a copy.
	err := r.Objects.View(fv.Blob, func(_ object.Kind, src []byte) error {
		fileDocs(dst, repoID, p, fv.Items, src)
		return nil
	})
	if err != nil {
		return fmt.Errorf("index: content of %s: %w", p, err)
	}
	return nil
}

// fileDocs writes into dst, which has room for one more than items, the
// documents of the file at p with the items given and content src, which
// it does not keep.
func fileDocs(dst []Doc, repoID, p string, items []extract.StoredItem, src []byte) {
	var lines []int
	if len(items) > 0 {
		buf := lineBufs.Get().(*[]int)
		defer lineBufs.Put(buf)
		lines = appendLineStarts((*buf)[:0], src)
		*buf = lines
	}
	for i, it := range items {
		body := cutLines(src, lines, it.Span.StartLine, it.Span.EndLine)
		if len(body) > maxChunkBytes {
			body = body[:maxChunkBytes]
		}
		// The title ("func net.Dial") and the text in one allocation.
		var b strings.Builder
		b.Grow(len(it.Kind) + 1 + 2*len(it.Key) + len(it.Doc) + len(body) + 2)
		b.WriteString(string(it.Kind))
		b.WriteByte(' ')
		b.WriteString(it.Key)
		title := b.Len()
		b.WriteString(it.Key)
		b.WriteByte('\n')
		if it.Doc != "" {
			b.WriteString(it.Doc)
			b.WriteByte('\n')
		}
		b.Write(body)
		both := b.String()
		dst[1+i] = Doc{
			Kind: DocItem, Node: graph.ItemNode(repoID, it.Key), Title: both[:title],
			Path: p, StartLine: it.Span.StartLine, EndLine: it.Span.EndLine, Text: both[title:],
			Tokens: (len(body) + 3) / 4,
		}
	}
	dst[0] = Doc{Kind: DocFile, Node: graph.FileNode(repoID, p), Title: p, Path: p, Text: outline(p, dst[1:1+len(items)])}
}

// versions reads the file versions of one build: laxly (object.DecodeLax:
// the index derives data from thousands of them), and, with keep, each
// once, for the graph segment built after the text.
type versions struct {
	r    *repo.Repo
	keep bool
	m    sync.Map // object.ID → *kept
	// readers is how many of the build's readers have not yet released
	// the versions (2 with keep).
	readers atomic.Int32
}

// kept is a file version read once for both of a build's readers (the
// code's text and the code graph): the second to get it drops it, so
// that its memory (about 200 MB of them on Go's tree) is free before the
// text is tokenized. A third get reads it again.
type kept struct {
	fv   *extract.FileVersion
	gets atomic.Int32
}

func newVersions(r *repo.Repo, keep bool) *versions {
	vs := &versions{r: r, keep: keep}
	if keep {
		vs.readers.Store(2)
	}
	return vs
}

// release tells vs that a reader is done with the versions. When both
// are, the versions (200 MB on Go's tree) and what reading them left are
// garbage that the text's postings, built next, would otherwise be given
// fresh memory beside: a collection now lets them reuse it, where the
// process would not collect before its heap passed ctx's floor.
func (vs *versions) release() {
	if vs.readers.Add(-1) == 0 {
		runtime.GC()
	}
}

func (vs *versions) get(id object.ID) (*extract.FileVersion, error) {
	if v, ok := vs.m.Load(id); ok {
		k := v.(*kept)
		if k.gets.Add(1) == 2 {
			vs.m.Delete(id)
		}
		return k.fv, nil
	}
	fv := new(extract.FileVersion)
	if err := object.GetTypedLax(vs.r.Objects, id, fv); err != nil {
		return nil, err
	}
	if vs.keep {
		vs.m.Store(id, &kept{fv: fv})
	}
	return fv, nil
}

// prefetch reads the file versions of the heads' semantic snapshots on
// every core, keeping them for get.
func (vs *versions) prefetch(ctx context.Context, heads []object.ID) error {
	var ids []object.ID
	seen := map[object.ID]bool{}
	for _, h := range heads {
		c, err := vs.r.ReadCommit(h)
		if err != nil {
			return err
		}
		if c.SemanticSnapshot == nil {
			continue
		}
		list, err := object.ListTree(vs.r.Objects, *c.SemanticSnapshot, "")
		if err != nil {
			return fmt.Errorf("index: semantic snapshot of %s: %w", h.Short(), err)
		}
		for _, e := range list {
			if e.Kind == object.EntryTyped && !seen[e.ID] {
				seen[e.ID] = true
				ids = append(ids, e.ID)
			}
		}
	}
	return parallel.Do(ctx, len(ids), func(i int) error {
		if _, err := vs.get(ids[i]); err != nil {
			return fmt.Errorf("index: file version %s: %w", ids[i].Short(), err)
		}
		return nil
	})
}

// outline is the text of a file's document: its path, then the last
// names of the items it declares, each once, in order.
func outline(p string, items []Doc) string {
	if len(items) == 0 {
		return p
	}
	size := len(p)
	for _, it := range items {
		size += 1 + len(LastName(it.Node.Key))
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(p)
	b.WriteByte('\n')
	seen := outlineSeen.Get().(map[string]bool)
	defer func() { clear(seen); outlineSeen.Put(seen) }()
	for _, it := range items {
		name := LastName(it.Node.Key)
		if name == "" || seen[name] {
			continue
		}
		if len(seen) > 0 {
			b.WriteByte(' ')
		}
		seen[name] = true
		b.WriteString(name)
	}
	return b.String()
}

// outlineSeen are outline's sets of names, reused from file to file.
var outlineSeen = sync.Pool{New: func() any { return map[string]bool{} }}

// lineBufs are fileDocs' line tables, reused from file to file: every
// file's content of a build is cut into lines (24 MB of them on Go's
// tree), and none is kept.
var lineBufs = sync.Pool{New: func() any { return new([]int) }}

// lineStarts returns the byte offset of each line's start.
func lineStarts(src []byte) []int { return appendLineStarts(nil, src) }

// appendLineStarts is lineStarts into starts' memory. The lines are
// counted first and found with bytes.IndexByte, both vectorised: every
// file's content of a build goes through here.
func appendLineStarts(starts []int, src []byte) []int {
	starts = append(slices.Grow(starts[:0], 1+bytes.Count(src, newline)), 0)
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 || i+j+1 == len(src) {
			return starts
		}
		i += j + 1
		starts = append(starts, i)
	}
}

var newline = []byte{'\n'}

// cutLines returns lines from..to (1-based, inclusive) of src.
func cutLines(src []byte, starts []int, from, to uint32) []byte {
	if from == 0 || int(from) > len(starts) {
		return nil
	}
	if to < from {
		to = from
	}
	begin := starts[from-1]
	end := len(src)
	if int(to) < len(starts) {
		end = starts[to]
	}
	return bytes.TrimRight(src[begin:end], "\n")
}

// diagnosticDocs returns a document per diagnostic of the snapshot's
// runs not yet seen.
func diagnosticDocs(r *repo.Repo, repoID string, id object.ID, seen map[object.ID]bool) ([]Doc, error) {
	snap := new(repo.DiagnosticsSnapshot)
	if err := object.GetTyped(r.Objects, id, snap); err != nil {
		return nil, fmt.Errorf("index: diagnostics snapshot %s: %w", id.Short(), err)
	}
	var docs []Doc
	for _, ref := range snap.Runs {
		if seen[ref.Run] {
			continue
		}
		seen[ref.Run] = true
		run := new(diag.CommandRun)
		if err := object.GetTyped(r.Objects, ref.Run, run); err != nil {
			return nil, fmt.Errorf("index: command run %q: %w", ref.Name, err)
		}
		for i, d := range run.Diagnostics {
			title := string(d.Severity)
			if d.Code != "" {
				title += " " + d.Code
			}
			title += ": " + d.Message
			text := strings.Join([]string{title, d.Path, run.Name}, "\n")
			docs = append(docs, Doc{
				Kind: DocDiagnostic, Node: graph.DiagnosticNode(ref.Run, i), Title: title,
				Path: d.Path, StartLine: uint32(max(d.Line, 0)), EndLine: uint32(max(d.EndLine, d.Line, 0)),
				Text: text, Updated: run.StartedAt,
			})
		}
	}
	return docs, nil
}

// narrativeDoc returns the document of a narrative node.
func narrativeDoc(n *narrative.Node) Doc {
	return Doc{
		Kind: DocKind(n.Type), Node: graph.NarrativeNode(string(n.Type), string(n.ID)), Title: n.Title,
		Path: narrativePath(n.Path), Text: n.Content,
		Tags: n.Tags, Updated: n.Updated.Unix(), Superseded: n.SupersededBy != "", Tokens: n.Tokens(),
	}
}

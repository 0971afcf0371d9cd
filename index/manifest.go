package index

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/index/reader"
	"github.com/ctx-dev/ctx/index/text"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/repo"
)

// manifestVersion heads a manifest file. It changes with what segments
// hold, so that a segment built by an older ctx reads as stale and is
// rebuilt: 2 added the names a file declares to its document, 3 the
// confidence of edges to the adjacency, 4 the code key (and the commits
// table moved to the graph segment), 5 the code graph segment, 6 the
// skip tables of long postings lists, 7 the order of documents by path
// and line after kind and key, the file keys and delta segments, 8 the
// code graph's table of repeated edges (mult.tbl) and its delta segments,
// 9 the narrative's file keys, hidden ids and delta segments, 10 the
// change time and inode of narrative files and the files of hidden ids,
// 11 the hash of racily clean narrative files and the repository id, 12
// the flags of document records, node ids as bytes in the keys, and
// "unread" for narrative files a build found but could not read.
const manifestVersion = "ctx-index-manifest 12"

// Manifest is what an index was built from: the ref and its heads, and
// the stat data of every narrative file. Reading commands compare it with
// Current to notice, without reading any object, that the index no
// longer matches the store: a new commit, heads a git pull brought, a
// narrative file added, removed or edited by hand.
type Manifest struct {
	// Tokenizer is the text.Version the terms were made with.
	Tokenizer int
	Ref       string
	Heads     []object.ID // sorted
	// Repo is the repository id (config.toml's repo.id) the code and
	// graph nodes' ids derive from, in the manifests of the segments that
	// hold them; it is part of Code and CodeGraph.
	Repo string
	// Code names what the code segment's documents derive from: the
	// repository id, and the heads' root trees, semantic snapshots and
	// diagnostics snapshots, in head order (a hash of them). A commit that changes only the
	// narrative or edges (a note, a relate, a session's note step) leaves
	// it, and the code segment, as they were.
	Code object.ID
	// CodeGraph names what the code graph segment derives from: the
	// repository id, and the heads' semantic, build and diagnostics
	// snapshots (a hash of them, zero IDs for none, in head order).
	CodeGraph object.ID
	// Nodes is, in a code graph segment's manifest, its count of nodes;
	// in a graph segment's, that of the code graph it extends (whose
	// nodes it numbers after).
	Nodes uint32
	// Base is, in a delta segment's manifest, the name of the segment it
	// extends (its directory under .ctx/index/).
	Base string
	// Hidden is, in a narrative segment's manifest, the node ids that
	// narrative files hold but that have no document in the segment,
	// with the files holding them: deleted nodes, and ids found in more
	// than one file (the segment holds the first by path, if not
	// deleted); sorted by id, then path. A narrative delta that touches
	// one of the ids or files is not built.
	Hidden    []HiddenID
	Narrative []FileStat // sorted by path

	// racy hashes narrative files for comparisons with a built manifest,
	// in a manifest taken now (currentManifest); nil in one read.
	racy *racyCheck
	// since is, in a manifest a kept build starts from, the file system's
	// time at its start (Unix nanoseconds): files with a time at or after
	// it are racy (racy.go). 0 in others.
	since int64
}

// FileStat is what a manifest keeps of a narrative file: enough that an
// edit shows even when it keeps the size and the modification time (a
// tool that sets the time back, a file renamed over another): the
// change time, which only the kernel sets, and the inode. Systems other
// than Linux, macOS, the BSDs and Solaris record 0 for both. Sum is the hash of the content of a file
// whose stat data a build could not trust (racy.go), else empty.
type FileStat struct {
	Path       string // relative to narrative/, slash-separated
	Size       int64
	ModNano    int64
	ChangeNano int64
	Ino        uint64
	Sum        string // an object.ID in hex, unreadSum, or ""
}

// HiddenID is a node id a narrative file holds but which has no document
// in the narrative segment, with that file: a deleted node's, or an id
// in several files (a line for each).
type HiddenID struct {
	ID   string
	Path string // relative to narrative/, slash-separated
}

// CurrentManifest reads the manifest of the store as it stands.
func CurrentManifest(r *repo.Repo) (*Manifest, error) { return currentManifest(r, nil) }

// currentManifest is CurrentManifest, taking the code keys from built (a
// manifest an index was built as; nil for none) when built has the
// store's heads: the keys are a function of the heads' commits, which
// never change, so those need not be read again. A command that finds the
// index fresh then reads no object at all.
func currentManifest(r *repo.Repo, built *Manifest) (*Manifest, error) {
	name, heads, err := r.WorkingHeads()
	if err != nil {
		return nil, err
	}
	m := &Manifest{Tokenizer: text.Version, Ref: name, Heads: slices.Clone(heads), Repo: r.Config.Repo.ID}
	slices.SortFunc(m.Heads, func(a, b object.ID) int { return a.Compare(b) })
	if built != nil && built.Tokenizer == m.Tokenizer && !built.Code.IsZero() && !built.CodeGraph.IsZero() && slices.Equal(built.Heads, m.Heads) && built.Repo == m.Repo {
		m.Code, m.CodeGraph = built.Code, built.CodeGraph
	} else if m.Code, m.CodeGraph, err = codeKeys(r, m.Heads); err != nil {
		return nil, err
	}
	root := r.Narrative().Root
	if m.Narrative, err = statNarrative(root); err != nil {
		return nil, fmt.Errorf("index: narrative files: %w", err)
	}
	m.racy = newRacyCheck(root)
	return m, nil
}

// codeKeys hashes what the code segment's documents derive from (the
// repository id; per head, its root tree, semantic snapshot and
// diagnostics snapshot, zero for none) and what the code graph derives
// from (the repository id; per head, its semantic, build and diagnostics
// snapshots). It reads one commit per head.
func codeKeys(r *repo.Repo, heads []object.ID) (code, graph object.ID, err error) {
	// The repository id first: every code and graph node id derives from
	// it (config.toml can change it).
	b := append(append(make([]byte, 0, len(heads)*3*object.IDSize+64), r.Config.Repo.ID...), 0)
	gb := slices.Clone(b)
	for _, h := range heads {
		c, err := r.ReadCommit(h)
		if err != nil {
			return object.Zero, object.Zero, err
		}
		b = append(b, c.RootTree[:]...)
		for _, id := range []object.ID{object.OrZero(c.SemanticSnapshot), object.OrZero(c.DiagnosticsSnapshot)} {
			b = append(b, id[:]...)
		}
		for _, id := range []object.ID{object.OrZero(c.SemanticSnapshot), object.OrZero(c.BuildSnapshot), object.OrZero(c.DiagnosticsSnapshot)} {
			gb = append(gb, id[:]...)
		}
	}
	return object.Sum(object.KindBlob, b), object.Sum(object.KindBlob, append([]byte("graph\n"), gb...)), nil
}

// Equal reports whether two manifests describe the same store state.
func (m *Manifest) Equal(o *Manifest) bool {
	return m.Tokenizer == o.Tokenizer && m.Ref == o.Ref && slices.Equal(m.Heads, o.Heads) && m.Code == o.Code &&
		m.CodeGraph == o.CodeGraph && m.Repo == o.Repo && m.Nodes == o.Nodes && m.Base == o.Base && slices.Equal(m.Hidden, o.Hidden) && slices.Equal(m.Narrative, o.Narrative)
}

// textEqual reports whether the text index built as m (its code and
// narrative segments) answers for the store as o describes it: the same
// code key and narrative files; the heads may differ.
func (m *Manifest) textEqual(o *Manifest) bool {
	return m.Tokenizer == o.Tokenizer && m.Code == o.Code && narrativeEqual(m, o)
}

// ChangedNarrative returns the narrative files added, removed or changed
// from m to o (a racy one whose content differs from its hash included).
func (m *Manifest) ChangedNarrative(o *Manifest) []string {
	c := checkOf(m, o)
	var out []string
	i, j := 0, 0
	for i < len(m.Narrative) || j < len(o.Narrative) {
		switch {
		case j == len(o.Narrative) || i < len(m.Narrative) && m.Narrative[i].Path < o.Narrative[j].Path:
			out = append(out, m.Narrative[i].Path)
			i++
		case i == len(m.Narrative) || o.Narrative[j].Path < m.Narrative[i].Path:
			out = append(out, o.Narrative[j].Path)
			j++
		default:
			if !sameFile(m.Narrative[i], o.Narrative[j], c) {
				out = append(out, m.Narrative[i].Path)
			}
			i++
			j++
		}
	}
	return out
}

// MarshalText writes the manifest: a version line, the ref, a line per
// head, the keys, the base, a line per hidden id and file (tab-separated),
// a line per narrative file (tab-separated size, mtime, ctime, inode,
// hash or "-", path).
func (m *Manifest) MarshalText() ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\ntokenizer %d\nref %s\n", manifestVersion, m.Tokenizer, m.Ref)
	for _, h := range m.Heads {
		fmt.Fprintf(&b, "head %s\n", h)
	}
	if m.Repo != "" {
		fmt.Fprintf(&b, "repo %s\n", escapePath(m.Repo))
	}
	if !m.Code.IsZero() {
		fmt.Fprintf(&b, "code %s\n", m.Code)
	}
	if !m.CodeGraph.IsZero() {
		fmt.Fprintf(&b, "codegraph %s\n", m.CodeGraph)
	}
	if m.Nodes != 0 {
		fmt.Fprintf(&b, "nodes %d\n", m.Nodes)
	}
	if m.Base != "" {
		fmt.Fprintf(&b, "base %s\n", m.Base)
	}
	for _, h := range m.Hidden {
		fmt.Fprintf(&b, "hidden %s\t%s\n", h.ID, escapePath(h.Path))
	}
	for _, f := range m.Narrative {
		sum := f.Sum
		if sum == "" {
			sum = "-"
		}
		fmt.Fprintf(&b, "file %d\t%d\t%d\t%d\t%s\t%s\n", f.Size, f.ModNano, f.ChangeNano, f.Ino, sum, escapePath(f.Path))
	}
	return b.Bytes(), nil
}

// UnmarshalText reads a manifest MarshalText wrote.
func (m *Manifest) UnmarshalText(data []byte) error {
	bad := func(line int, what string) error {
		return fmt.Errorf("%w: manifest line %d: %s", ErrCorrupt, line, what)
	}
	*m = Manifest{}
	// One string for the whole text: the paths are parts of it. A store
	// of thousands of notes has a line per narrative file, and every
	// reading command parses two or three manifests.
	text := string(data)
	if k := strings.Count(text, "\nfile "); k > 0 {
		m.Narrative = make([]FileStat, 0, k)
	}
	n := 0
	for text != "" {
		n++
		var line string
		line, text, _ = strings.Cut(text, "\n")
		line = strings.TrimSuffix(line, "\r")
		switch {
		case n == 1:
			if line != manifestVersion {
				return bad(n, "not a manifest of this version")
			}
		case n == 2:
			v, ok := strings.CutPrefix(line, "tokenizer ")
			t, err := strconv.Atoi(v)
			if !ok || err != nil || t < 0 || strconv.Itoa(t) != v {
				return bad(n, "no tokenizer version")
			}
			m.Tokenizer = t
		case n == 3:
			ref, ok := strings.CutPrefix(line, "ref ")
			if !ok || ref == "" || strings.IndexFunc(ref, func(r rune) bool { return r <= ' ' }) >= 0 {
				return bad(n, "no ref")
			}
			m.Ref = ref
		case strings.HasPrefix(line, "head "):
			id, err := object.ParseID(line[len("head "):])
			if err != nil || len(m.Narrative) > 0 || len(m.Heads) > 0 && m.Heads[len(m.Heads)-1].Compare(id) >= 0 {
				return bad(n, "bad or unordered head")
			}
			m.Heads = append(m.Heads, id)
		case strings.HasPrefix(line, "code "):
			id, err := object.ParseID(line[len("code "):])
			if err != nil || id.IsZero() || !m.Code.IsZero() || !m.CodeGraph.IsZero() || m.Nodes != 0 || len(m.Narrative) > 0 {
				return bad(n, "bad or repeated code key")
			}
			m.Code = id
		case strings.HasPrefix(line, "codegraph "):
			id, err := object.ParseID(line[len("codegraph "):])
			if err != nil || id.IsZero() || !m.CodeGraph.IsZero() || m.Nodes != 0 || len(m.Narrative) > 0 {
				return bad(n, "bad or repeated code graph key")
			}
			m.CodeGraph = id
		case strings.HasPrefix(line, "nodes "):
			v := line[len("nodes "):]
			f, err := strconv.ParseUint(v, 10, 32)
			if err != nil || f == 0 || strconv.FormatUint(f, 10) != v || m.Nodes != 0 || len(m.Narrative) > 0 {
				return bad(n, "bad or repeated node count")
			}
			m.Nodes = uint32(f)
		case strings.HasPrefix(line, "repo "):
			id, ok := unescapePath(line[len("repo "):])
			if !ok || id == "" || m.Repo != "" {
				return bad(n, "bad or repeated repository id")
			}
			m.Repo = id
		case strings.HasPrefix(line, "base "):
			v := line[len("base "):]
			if !strings.HasPrefix(v, segPrefix) || strings.ContainsAny(v, "/\\ \t") || m.Base != "" || len(m.Narrative) > 0 {
				return bad(n, "bad or repeated base segment")
			}
			m.Base = v
		case strings.HasPrefix(line, "hidden "):
			id, escaped, _ := strings.Cut(line[len("hidden "):], "\t")
			path, ok := unescapePath(escaped)
			h := HiddenID{ID: id, Path: path}
			if !ok || id == "" || path == "" || strings.IndexFunc(id, func(r rune) bool { return r <= ' ' }) >= 0 || len(m.Narrative) > 0 ||
				len(m.Hidden) > 0 && compareHidden(m.Hidden[len(m.Hidden)-1], h) >= 0 {
				return bad(n, "bad or unordered hidden id")
			}
			m.Hidden = append(m.Hidden, h)
		case strings.HasPrefix(line, "file "):
			var f [5]string
			rest, ok := line[len("file "):], true
			for i := range f {
				if f[i], rest, ok = strings.Cut(rest, "\t"); !ok {
					break
				}
			}
			path, escapedOK := unescapePath(rest)
			if !ok || !escapedOK || path == "" {
				return bad(n, "bad file line")
			}
			size, err1 := strconv.ParseInt(f[0], 10, 64)
			mod, err2 := strconv.ParseInt(f[1], 10, 64)
			change, err3 := strconv.ParseInt(f[2], 10, 64)
			ino, err4 := strconv.ParseUint(f[3], 10, 64)
			sum := f[4]
			switch id, err := object.ParseID(sum); {
			case sum == "-":
				sum = ""
			case sum == unreadSum:
			case err != nil || id.String() != sum:
				return bad(n, "bad file hash")
			}
			if err1 != nil || err2 != nil || err3 != nil || err4 != nil || size < 0 {
				return bad(n, "bad file stat")
			}
			if k := len(m.Narrative); k > 0 && m.Narrative[k-1].Path >= path {
				return bad(n, "unordered file")
			}
			m.Narrative = append(m.Narrative, FileStat{Path: path, Size: size, ModNano: mod, ChangeNano: change, Ino: ino, Sum: sum})
		default:
			return bad(n, "unknown line")
		}
	}
	if n < 3 {
		return bad(n, "truncated")
	}
	return nil
}

// escapePath writes a file name on one manifest line: a backslash, tab,
// newline or carriage return (all legal in a file name) as \\, \t, \n,
// \r.
func escapePath(p string) string {
	if !strings.ContainsAny(p, "\\\t\n\r") {
		return p
	}
	return pathEscaper.Replace(p)
}

var pathEscaper = strings.NewReplacer("\\", `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)

// unescapePath reverses escapePath; false for a text it cannot have
// written.
func unescapePath(s string) (string, bool) {
	if !strings.ContainsAny(s, "\\\t") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\t' {
			return "", false
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i++; i == len(s) {
			return "", false
		}
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			return "", false
		}
	}
	return b.String(), true
}

// compareHidden orders hidden ids by id, then path.
func compareHidden(a, b HiddenID) int {
	return cmp.Or(strings.Compare(a.ID, b.ID), strings.Compare(a.Path, b.Path))
}

// ErrCorrupt means an index file is damaged; the index is rebuilt.
var ErrCorrupt = reader.ErrCorrupt

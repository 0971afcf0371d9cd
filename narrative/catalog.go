package narrative

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/parallel"
	"github.com/ctx-dev/ctx/internal/regfile"
)

// Catalog is every node of a narrative space, as its files say now.
type Catalog struct {
	Nodes    map[ID]*Node
	Problems []Problem       // files or comments that did not parse; their nodes may be missing
	ids      []ID            // sorted
	dups     map[ID][]string // the files of each id in several, the first first
}

// Load parses every Markdown file of the space. A file that does not parse
// is reported in Catalog.Problems and the rest still loads; a node ID found
// in two files keeps the first (by path) and reports the second.
func (s *Space) Load() (*Catalog, error) {
	files, err := s.Files()
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	return s.LoadFiles(paths), nil
}

// LoadFiles parses the files of the space at paths (relative to its root,
// slash-separated), as Load parses them all: files not ending in .md and
// those Files does not list (hidden, temporary) are skipped, a file
// missing is left out, and of two files with one node id the first by
// path wins.
func (s *Space) LoadFiles(paths []string) *Catalog {
	paths = slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return !strings.HasSuffix(p, ".md") || !listed(p) })
	slices.Sort(paths)
	// Files are read and parsed on every core, then added in path order,
	// so that which of two copies of a node wins stays the same.
	parsed := make([]parsedFile, len(paths))
	_ = parallel.Do(context.Background(), len(paths), func(i int) error {
		parsed[i] = s.parseFile(paths[i])
		return nil
	})
	c := &Catalog{Nodes: map[ID]*Node{}}
	for _, p := range parsed {
		c.add(p)
	}
	c.finish()
	return c
}

// parseFile reads and parses the narrative file at path (relative to the
// space's root).
func (s *Space) parseFile(path string) parsedFile {
	src, err := regfile.Read(filepath.Join(s.Root, filepath.FromSlash(path)), maxFile)
	if err != nil {
		if s.OnUnread != nil {
			s.OnUnread(path, err)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return parsedFile{} // removed while we walked: nothing to add
		}
		msg := "cannot be read"
		switch {
		case errors.Is(err, regfile.ErrTooLarge):
			msg = fmt.Sprintf("larger than %d MiB: not read", maxFile>>20)
		case errors.Is(err, regfile.ErrNotRegular):
			msg = "not a regular file: not read"
		}
		return parsedFile{problems: []Problem{{Path: path, Msg: msg}}}
	}
	if s.OnRead != nil {
		s.OnRead(path, src)
	}
	return parse(path, src)
}

// FileSource is the content of a narrative file, for CatalogOf.
type FileSource struct {
	Path string // relative to narrative/, '/'-separated
	Src  []byte
}

// CatalogOf parses narrative files given by content (as a commit recorded
// them, say) like Load parses the files on disk. Files not ending in .md
// are skipped.
func CatalogOf(files []FileSource) *Catalog {
	files = slices.Clone(files)
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	c := &Catalog{Nodes: map[ID]*Node{}}
	for _, f := range files {
		if strings.HasSuffix(f.Path, ".md") {
			c.add(parse(f.Path, f.Src))
		}
	}
	c.finish()
	return c
}

// ConflictHelp explains git conflict markers in a narrative file.
const ConflictHelp = "git conflict markers (<<<<<<<, =======, >>>>>>>): a merge found two people changing the same lines of this file. " +
	"Keep the text you want between the markers, delete the three marker lines, then run ctx commit (and commit to git). " +
	"Until then ctx reads the file with the markers as text; the rest of the store works as usual"

// ConflictLine returns the line of the first git conflict marker
// ("<<<<<<< " at the start of a line, followed by "=======" and ">>>>>>> "
// lines), or 0 when src has none.
func ConflictLine(src []byte) int {
	start, stage := 0, 0
	for i, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSuffix(line, "\r")
		switch {
		case stage == 0 && strings.HasPrefix(line, "<<<<<<< ") || line == "<<<<<<<":
			start, stage = i+1, 1
		case stage == 1 && line == "=======":
			stage = 2
		case stage == 2 && (strings.HasPrefix(line, ">>>>>>> ") || line == ">>>>>>>"):
			return start
		}
	}
	return 0
}

// parsedFile is one narrative file, parsed.
type parsedFile struct {
	node     *Node // nil if the file holds no node, or a broken one
	problems []Problem
}

// parse parses one file.
func parse(path string, src []byte) parsedFile {
	var p parsedFile
	if line := ConflictLine(src); line > 0 {
		p.problems = append(p.problems, Problem{Path: path, Line: line, Msg: ConflictHelp})
	}
	n, probs := ParseNode(path, src)
	p.node, p.problems = n, append(p.problems, probs...)
	return p
}

// add adds a parsed file to the catalog; files come in path order.
func (c *Catalog) add(p parsedFile) {
	c.Problems = append(c.Problems, p.problems...)
	n := p.node
	if n == nil {
		return
	}
	if first, dup := c.Nodes[n.ID]; dup {
		if c.dups == nil {
			c.dups = map[ID][]string{}
		}
		if len(c.dups[n.ID]) == 0 {
			c.dups[n.ID] = []string{first.Path}
		}
		c.dups[n.ID] = append(c.dups[n.ID], n.Path)
		c.Problems = append(c.Problems, Problem{Path: n.Path, Line: n.Line,
			Msg: fmt.Sprintf("node id %s is also in %s (copied file?): this one is ignored; give it a new id", n.ID, first.Path)})
		return
	}
	c.Nodes[n.ID] = n
	c.ids = append(c.ids, n.ID)
}

func (c *Catalog) finish() {
	sort.Slice(c.ids, func(i, j int) bool { return c.ids[i] < c.ids[j] })
	c.findCycles()
}

// IDs returns every node's ID, sorted.
func (c *Catalog) IDs() []ID { return c.ids }

// Duplicated returns, sorted, the IDs found in more than one file: the
// catalog holds each from its first file by path and ignores the others.
func (c *Catalog) Duplicated() []ID {
	return slices.Sorted(maps.Keys(c.dups))
}

// DuplicatedIn returns the files (relative to the space's root) that
// hold id, when it is in more than one, in path order: the first is the
// one the catalog holds.
func (c *Catalog) DuplicatedIn(id ID) []string { return c.dups[id] }

// findCycles reports supersede chains that loop back (two teammates each
// superseded one node by the other): every node in the loop is hidden
// until one of the supersedes is undone.
func (c *Catalog) findCycles() {
	done := map[ID]bool{}
	for _, id := range c.ids {
		if done[id] {
			continue
		}
		var chain []ID
		onChain := map[ID]int{}
		for x := id; x != "" && !done[x]; {
			if i, ok := onChain[x]; ok {
				loop := chain[i:]
				n := c.Nodes[loop[0]]
				ids := make([]string, len(loop))
				for k, l := range loop {
					ids[k] = string(l)
				}
				c.Problems = append(c.Problems, Problem{Path: n.Path, Line: n.Line,
					Msg: fmt.Sprintf("supersede cycle %s -> %s: these nodes hide each other; undo one with ctx supersede --undo ID", strings.Join(ids, " -> "), ids[0])})
				break
			}
			onChain[x] = len(chain)
			chain = append(chain, x)
			n, ok := c.Nodes[x]
			if !ok {
				break
			}
			x = n.SupersededBy
		}
		for _, x := range chain {
			done[x] = true
		}
	}
}

// Resolve returns the node whose ID is id or starts with it (at least
// MinIDPrefix characters), deleted and superseded nodes included.
func (c *Catalog) Resolve(prefix string) (*Node, error) {
	p := strings.ToLower(prefix)
	if n, ok := c.Nodes[ID(p)]; ok {
		return n, nil
	}
	if !isIDText(p) || len(p) > IDLen {
		return nil, fmt.Errorf("%w: %q is not a node id or id prefix", ErrInvalidID, prefix)
	}
	if len(p) < MinIDPrefix {
		return nil, fmt.Errorf("%w: prefix %q is shorter than %d characters", ErrInvalidID, prefix, MinIDPrefix)
	}
	i := sort.Search(len(c.ids), func(i int) bool { return string(c.ids[i]) >= p })
	var found []ID
	for ; i < len(c.ids) && strings.HasPrefix(string(c.ids[i]), p); i++ {
		found = append(found, c.ids[i])
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("%w: %s", ErrNotFound, prefix)
	case 1:
		return c.Nodes[found[0]], nil
	}
	return nil, &AmbiguousError{Prefix: p, Candidates: found}
}

// Filter selects nodes for listings.
type Filter struct {
	Streams           []string  // any of these; none means all
	Types             []Type    // any of these; none means all
	Tags              []string  // all of these
	Since             time.Time // created or updated at or after; zero means any
	Limit             int       // 0 means no limit
	IncludeSuperseded bool
	IncludeDeleted    bool
}

// List returns the nodes the filter selects, most recently updated first
// (ties by ID).
func (c *Catalog) List(f Filter) []*Node {
	var out []*Node
	for _, id := range c.ids {
		n := c.Nodes[id]
		if n.Deleted && !f.IncludeDeleted || n.SupersededBy != "" && !f.IncludeSuperseded {
			continue
		}
		if len(f.Types) > 0 && !slices.Contains(f.Types, n.Type) {
			continue
		}
		if len(f.Streams) > 0 && !slices.Contains(f.Streams, n.Stream) {
			continue
		}
		if !f.Since.IsZero() && n.Updated.Before(f.Since) {
			continue
		}
		ok := true
		for _, t := range f.Tags {
			if !n.HasTag(t) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, n)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Updated.Equal(out[j].Updated) {
			return out[i].Updated.After(out[j].Updated)
		}
		return out[i].ID < out[j].ID
	})
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out
}

// TagCount is a tag and how many active nodes carry it.
type TagCount struct {
	Tag   string `json:"tag"`
	Nodes int    `json:"nodes"`
}

// Tags counts the tags of active nodes, optionally only those starting
// with prefix, sorted by tag.
func (c *Catalog) Tags(prefix string) []TagCount {
	counts := map[string]int{}
	for _, n := range c.Nodes {
		if !n.Active() {
			continue
		}
		for _, t := range n.Tags {
			if strings.HasPrefix(t, prefix) {
				counts[t]++
			}
		}
	}
	out := make([]TagCount, 0, len(counts))
	for t, k := range counts {
		out = append(out, TagCount{t, k})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tag < out[j].Tag })
	return out
}

// DerivedFrom returns the nodes derived from id (directly) that are not
// deleted; superseded ones included, so that a cascading delete reaches
// them.
func (c *Catalog) DerivedFrom(id ID) []*Node {
	var out []*Node
	for _, cid := range c.ids {
		n := c.Nodes[cid]
		if n.Deleted {
			continue
		}
		for _, d := range n.DerivedFrom {
			if d == id {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

// ParseSince reads a --since value: a duration back from now ("90m", "1h",
// "7d", "2w") or a date or time ("2026-01-20", RFC 3339).
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if len(s) >= 2 {
		unit := s[len(s)-1]
		var n int
		if _, err := fmt.Sscanf(s[:len(s)-1], "%d", &n); err == nil && n >= 0 && n <= 100000 && fmt.Sprint(n) == s[:len(s)-1] {
			switch unit {
			// In days of the calendar, not a time.Duration: 100000w
			// would overflow one.
			case 'd':
				return now.AddDate(0, 0, -n), nil
			case 'w':
				return now.AddDate(0, 0, -7*n), nil
			}
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("narrative: --since %q: want a duration like 90m, 1h, 7d, 2w or a date like 2026-01-20", s)
}

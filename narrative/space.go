package narrative

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/clock"
	"github.com/ctx-dev/ctx/internal/lazyre"
	"github.com/ctx-dev/ctx/internal/regfile"
)

// MaxFileBytes bounds the narrative files ctx reads: a larger one is
// reported, not parsed.
const MaxFileBytes = 16 << 20

const maxFile = MaxFileBytes

// Space is the narrative directory of a store (.ctx/narrative/). Its write
// methods must be called with the store's writer lock held.
type Space struct {
	// Root is the narrative directory.
	Root string
	// Clock times new nodes and events.
	Clock clock.Clock
	// Rand supplies IDs; nil means crypto/rand.
	Rand io.Reader
	// OnRead, if set, is called with the path (relative to Root,
	// slash-separated) and the bytes of each file Load and LoadFiles
	// parse, as they read them: from several goroutines at once.
	OnRead func(path string, src []byte)
	// OnUnread, if set, is called with the path and the error of each
	// file Load and LoadFiles were to parse but could not read: removed
	// while they walked (fs.ErrNotExist), too large, not a regular file,
	// unreadable. From several goroutines at once.
	OnUnread func(path string, err error)
}

// NewNode is what Add needs to create a node.
type NewNode struct {
	// Stream is "main" (or "") or "feature-<slug>": where the node's file
	// and journal lines go (design §8.4).
	Stream      string
	Type        Type
	Content     string
	Tags        []string
	Meta        map[string]string
	DerivedFrom []ID
}

// Add creates a node: its file in the type's directory, a line in today's
// log, and for a decision a line in decisions.md. The inputs are checked
// first; on any error nothing is written.
func (s *Space) Add(in NewNode) (*Node, error) {
	if !in.Type.Valid() {
		return nil, fmt.Errorf("%w: %q", ErrInvalidType, in.Type)
	}
	content, err := CheckContent(in.Content)
	if err != nil {
		return nil, err
	}
	content = joinContent(splitContent(content)) // as the file will store it
	if err := checkNoMarkers(content); err != nil {
		return nil, err
	}
	n := &Node{Type: in.Type, Content: content, Meta: map[string]string{}, DerivedFrom: in.DerivedFrom}
	n.Title, _ = splitContent(content)
	if err := n.setTagsMeta(in.Tags, in.Meta); err != nil {
		return nil, err
	}
	base, err := StreamDir(in.Stream)
	if err != nil {
		return nil, err
	}
	if n.ID, err = NewID(s.Rand); err != nil {
		return nil, err
	}
	n.Created = s.now()
	n.Updated = n.Created
	n.Path = path.Join(base, in.Type.Dir(), fileName(n.Title, n.ID))
	_, n.Stream = Classify(n.Path)
	data := renderNode(n)
	if err := s.writeNew(n.Path, data); err != nil {
		return nil, err
	}
	// Return the node as every later read will see it (mentions, line).
	if p, _ := ParseNode(n.Path, data); p != nil {
		n = p
	}
	if err := s.journal(base, n.Created, fmt.Sprintf("%s %s %s", in.Type, link(n, base), oneLine(n.Title))); err != nil {
		return n, err
	}
	if in.Type == Decision {
		rel := strings.TrimPrefix(n.Path, base+"/")
		line := fmt.Sprintf("- %s [%s](%s) `%s`", n.Created.Format("2006-01-02"), oneLine(n.Title), rel, n.ID)
		if err := s.appendLine(path.Join(base, "decisions.md"), decisionsHeader, line); err != nil {
			return n, err
		}
	}
	return n, nil
}

// StreamDir returns the directory of a stream under narrative/: "" for
// "main" (or ""), "feature/<slug>" for "feature-<slug>".
func StreamDir(stream string) (string, error) {
	switch {
	case stream == "" || stream == "main":
		return "", nil
	case strings.HasPrefix(stream, "feature-"):
		slug := strings.TrimPrefix(stream, "feature-")
		if len(slug) <= 64 && streamSlug.MatchString(slug) {
			return "feature/" + slug, nil
		}
	}
	return "", fmt.Errorf("%w: stream %q: use main or feature-<slug> (lowercase letters, digits and '-')", ErrInvalidStream, stream)
}

const decisionsHeader = "# Decisions\n\nArchitectural decisions and their rationale, oldest first. Each links to\nits file in decisions/, which ctx keeps; `ctx list --type decision` lists them.\n"

// Change records an event on a node: appends its line to the node's file
// and, for supersede and delete, a line to today's log. n is updated to
// the new state, so that further changes follow this one.
func (s *Space) Change(n *Node, op Op, arg string) (Event, error) {
	eid, err := NewID(s.Rand)
	if err != nil {
		return Event{}, err
	}
	e := Event{Time: s.now(), Seq: nextSeq(n.Events), ID: string(eid[:8]), Op: op, Arg: arg}
	probe := *n
	probe.Meta = copyMeta(n.Meta)
	probe.Tags = append([]string(nil), n.Tags...)
	if err := probe.apply(e); err != nil {
		return Event{}, err
	}
	// An event is one line of a UTF-8 file: a line break in the argument
	// would split the line (and lose the event on the next read), invalid
	// UTF-8 would make the whole file unreadable.
	if strings.ContainsAny(arg, "\r\n") || !utf8.ValidString(arg) || strings.Contains(arg, "-->") {
		return Event{}, fmt.Errorf("%w: %s %q: an event's argument must be one line of UTF-8 without \"-->\"", ErrInvalidMeta, op, arg)
	}
	// The new line must read back as this event: a hand edit that left a
	// code fence or comment open in the body would swallow it.
	readBack := func(data []byte) error {
		got, _ := ParseNode(n.Path, data)
		if got != nil {
			for _, x := range got.Events {
				if x.ID == e.ID {
					return nil
				}
			}
		}
		return fmt.Errorf("%w: narrative/%s: an event appended now would not be read back (a code fence, <pre> or comment left open in the body swallows it): close it, then retry", ErrMalformed, n.Path)
	}
	if err := s.appendLineChecked(n.Path, "", renderEvent(e), readBack); err != nil {
		return Event{}, err
	}
	_ = n.apply(e) // probe.apply succeeded: so does this
	n.Events = append(n.Events, e)
	base, _ := StreamDir(n.Stream)
	switch op {
	case OpSupersede:
		err = s.journal(base, e.Time, fmt.Sprintf("superseded %s by %s", link(n, base), arg))
	case OpDelete:
		err = s.journal(base, e.Time, fmt.Sprintf("deleted %s %s", link(n, base), oneLine(n.Title)))
	}
	return e, err
}

// Edit replaces a node's content. The file keeps its metadata comment and
// events as they are, gets the new title and body, and an edit event.
func (s *Space) Edit(n *Node, content string) error {
	content, err := CheckContent(content)
	if err != nil {
		return err
	}
	content = joinContent(splitContent(content)) // as the file will store it
	if err := checkNoMarkers(content); err != nil {
		return err
	}
	src, err := regfile.Read(filepath.Join(s.Root, filepath.FromSlash(n.Path)), maxFile)
	if err != nil {
		return fmt.Errorf("narrative: %w", err)
	}
	header, events := rawComments(src)
	if header == "" {
		return fmt.Errorf("%w: %s has lost its ctx:node comment", ErrMalformed, n.Path)
	}
	eid, err := NewID(s.Rand)
	if err != nil {
		return err
	}
	e := Event{Time: s.now(), Seq: nextSeq(n.Events), ID: string(eid[:8]), Op: OpEdit}
	events = append(events, renderEvent(e))
	title, body := splitContent(content)
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n%s\n", titleLine(title), strings.TrimRight(header, "\n"))
	if body != "" {
		fmt.Fprintf(&b, "\n%s\n", body)
	}
	fmt.Fprintf(&b, "\n%s\n", changesLine)
	for _, line := range events {
		fmt.Fprintf(&b, "%s\n", line)
	}
	if err := s.write(n.Path, []byte(b.String())); err != nil {
		return err
	}
	n.Content, n.Title = content, title
	_ = n.apply(e)
	n.Events = append(n.Events, e)
	return nil
}

// rawComments returns the text of a file's ctx:node comment and its event
// lines, as they are.
func rawComments(src []byte) (header string, events []string) {
	doc := md.Parser().Parse(textReader(src))
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		if b, ok := c.(htmlBlock); ok {
			sp := blockSpan(src, b)
			raw := string(src[sp.start:sp.end])
			switch {
			case strings.HasPrefix(raw, nodeMarker) && header == "":
				header = raw
			case strings.HasPrefix(raw, eventMarker):
				events = append(events, strings.TrimSpace(raw))
			}
		}
	}
	return header, events
}

// nextSeq returns the sequence number of a new event after events.
func nextSeq(events []Event) int {
	seq := 1
	for _, e := range events {
		if e.Seq >= seq {
			seq = e.Seq + 1
		}
	}
	return seq
}

// checkNoMarkers refuses content with a line that ctx would take for one of
// its comments, and content that leaves a Markdown block open.
func checkNoMarkers(content string) error {
	for _, line := range strings.Split(content, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), ctxMarker) {
			return fmt.Errorf("%w: a line may not start with %q (ctx's own comments)", ErrInvalidContent, ctxMarker)
		}
	}
	// The changes line follows the body: an unclosed ``` fence, <pre> or
	// comment in the body would run on over it and swallow every event
	// appended after it, so the changes line must parse as a block of its own.
	_, body := splitContent(content)
	src := []byte(body + "\n\n" + changesLine + "\n")
	if b, ok := md.Parser().Parse(textReader(src)).LastChild().(htmlBlock); ok {
		if sp := blockSpan(src, b); string(src[sp.start:sp.end]) == changesLine+"\n" {
			return nil
		}
	}
	return fmt.Errorf("%w: the content leaves a code block, HTML block or comment open; close it", ErrInvalidContent)
}

func (s *Space) now() time.Time { return s.Clock.Now().UTC().Truncate(time.Second) }

// Journal appends "- HH:MM text" to today's log of the main stream:
// text must be one line, unique among the log's lines (a session's
// summary names the session).
func (s *Space) Journal(text string) error {
	if strings.ContainsAny(text, "\r\n") || strings.TrimSpace(text) == "" {
		return fmt.Errorf("%w: a journal line must be one non-empty line", ErrInvalidContent)
	}
	return s.journal("", s.now(), text)
}

// journal appends "- HH:MM text" to today's log of the stream in base,
// base/log/YYYY-MM-DD.md (UTC days, so that teammates in different time
// zones share day files).
func (s *Space) journal(base string, t time.Time, text string) error {
	day := t.UTC().Format("2006-01-02")
	return s.appendLine(path.Join(base, "log", day+".md"), "# "+day+"\n", fmt.Sprintf("- %s %s", t.UTC().Format("15:04"), text))
}

// appendLine appends a line to a narrative file, creating it with header
// when it does not exist. The file is rewritten atomically; its other text
// is kept byte for byte.
//
// Journal lines are single lines with a unique id in them: .ctx/
// .gitattributes merges narrative files with git's union driver, which is
// only safe for such lines (it interleaves multi-line entries that share
// lines; see docs/FORMAT.md).
func (s *Space) appendLine(rel, header, line string) error {
	return s.appendLineChecked(rel, header, line, nil)
}

// appendLineChecked is appendLine that first lets check refuse the new
// content; nothing is written then.
func (s *Space) appendLineChecked(rel, header, line string, check func([]byte) error) error {
	p := filepath.Join(s.Root, filepath.FromSlash(rel))
	old, err := regfile.Read(p, maxFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = []byte(header)
		if header != "" {
			old = append(old, '\n')
		}
	case err != nil:
		return fmt.Errorf("narrative: %w", err)
	}
	if len(old) > 0 && old[len(old)-1] != '\n' {
		old = append(old, '\n')
	}
	data := append(old, line+"\n"...)
	if check != nil {
		if err := check(data); err != nil {
			return err
		}
	}
	return s.write(rel, data)
}

// writeNew writes a file that must not exist yet.
func (s *Space) writeNew(rel string, data []byte) error {
	p := filepath.Join(s.Root, filepath.FromSlash(rel))
	if _, err := os.Lstat(p); err == nil {
		return fmt.Errorf("narrative: %s exists already", rel)
	}
	return s.write(rel, data)
}

func (s *Space) write(rel string, data []byte) error {
	p := filepath.Join(s.Root, filepath.FromSlash(rel))
	if err := atomicfile.MkdirAll(filepath.Dir(p)); err != nil {
		return fmt.Errorf("narrative: %w", err)
	}
	if err := atomicfile.Write(p, data, 0o644); err != nil {
		return fmt.Errorf("narrative: %w", err)
	}
	return nil
}

var (
	nonSlug    = lazyre.New(`[^a-z0-9]+`)
	streamSlug = lazyre.New(`^[a-z0-9][a-z0-9-]*$`)
)

// fileName is "<slug>-<id>.md", the slug made of the title's first words,
// so that a directory listing reads like a table of contents.
func fileName(title string, id ID) string {
	slug := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(title), "-"), "-")
	if len(slug) > 48 {
		slug = strings.TrimRight(slug[:48], "-")
		if i := strings.LastIndexByte(slug, '-'); i > 24 {
			slug = slug[:i]
		}
	}
	if slug == "" {
		return string(id) + ".md"
	}
	return slug + "-" + string(id) + ".md"
}

// link is a Markdown link to a node's file from the log directory of the
// stream in base.
func link(n *Node, base string) string {
	return fmt.Sprintf("[%s](../%s)", n.ID, strings.TrimPrefix(n.Path, base+"/"))
}

func oneLine(s string) string {
	return Truncate(strings.Join(strings.Fields(s), " "), 120)
}

// Truncate shortens s to at most max bytes, cutting between characters
// and ending in "..." when it cuts.
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

func copyMeta(m map[string]string) map[string]string {
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// File is a narrative file and what it is for.
type File struct {
	Path   string // relative to narrative/, '/'-separated
	Role   string // overview, decision, log, task, work, doc, or a node type
	Stream string // main, work, or feature-<slug>
}

// Files lists the narrative's regular files, sorted, skipping hidden and
// temporary ones.
func (s *Space) Files() ([]File, error) {
	var out []File
	err := filepath.WalkDir(s.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == s.Root {
				return fs.SkipDir
			}
			return err
		}
		if p != s.Root && !ListedName(d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(s.Root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		role, stream := Classify(rel)
		out = append(out, File{Path: rel, Role: role, Stream: stream})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("narrative: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// ListedName reports whether Files lists a file or directory of this
// name (and looks into it): not a hidden one (a leading dot: an editor's
// swap file, git's or ctx's own) nor a temporary file of a write.
func ListedName(name string) bool {
	return !strings.HasPrefix(name, ".") && !strings.HasSuffix(name, ".tmp")
}

// listed reports whether Files lists the file at rel (slash-separated,
// relative to the root) when it is a regular file: every part of its
// path is ListedName's.
func listed(rel string) bool {
	for part := range strings.SplitSeq(rel, "/") {
		if !ListedName(part) {
			return false
		}
	}
	return true
}

// Classify returns the role and stream of a narrative path (design §8.3,
// §8.4).
func Classify(rel string) (role, stream string) {
	stream = "main"
	switch {
	case strings.HasPrefix(rel, "work/"):
		return "work", "work"
	case strings.HasPrefix(rel, "feature/"):
		rest := strings.TrimPrefix(rel, "feature/")
		slug, sub, ok := strings.Cut(rest, "/")
		if !ok {
			return "doc", "main"
		}
		stream, rel = "feature-"+slug, sub
	}
	first, _, nested := strings.Cut(rel, "/")
	switch {
	case rel == "README.md":
		return "overview", stream
	case rel == "decisions.md":
		return "decision", stream
	case first == "log" && nested:
		return "log", stream
	case nested:
		for _, t := range Types {
			if first == t.Dir() {
				return string(t), stream
			}
		}
	}
	return "doc", stream
}

// setTagsMeta adds tags and metadata given by a caller to a new node,
// checking each.
func (n *Node) setTagsMeta(tags []string, meta map[string]string) error {
	for _, t := range tags {
		tag, err := ParseTag(t)
		if err != nil {
			return err
		}
		n.addTag(tag)
	}
	for k, v := range meta {
		if err := checkMetaKey(k); err != nil {
			return err
		}
		v = strings.TrimSpace(v)
		if err := checkMetaValue(k, v); err != nil {
			return err
		}
		n.Meta[k] = v
	}
	return nil
}

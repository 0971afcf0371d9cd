package narrative

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
)

// Body returns the node's body: its content after the title. A node
// without a title (a hand-written file with no level-1 heading) is all
// body.
func (n *Node) Body() string {
	if n.Title == "" {
		return n.Content
	}
	body, ok := strings.CutPrefix(n.Content, n.Title)
	if !ok {
		return n.Content
	}
	return strings.TrimLeft(body, "\n")
}

// State is everything that makes a node what it is, as an export records
// it: Draft recreates a node file from it.
type State struct {
	ID           ID
	Type         Type
	Stream       string // main (or ""), work, or feature-<slug>
	Title        string
	Body         string
	Tags         []string
	Meta         map[string]string
	Created      time.Time
	Updated      time.Time
	SupersededBy ID
	Deleted      bool
	DerivedFrom  []ID
}

// Draft is a node file rendered from a State, checked to read back as
// exactly that state, and not yet written: Space.Put writes it. Drafting
// every node of an import before writing any is what lets an import
// refuse a bad file without writing half of it.
type Draft struct {
	// Node is the node as the file will read back.
	Node *Node
	// Path is the file, relative to narrative/.
	Path string
	data []byte
}

// Draft renders the file of a node with the given state: the title, a
// metadata comment with its id, type, created time (and updated time when
// later), tags, derived-from and metadata, the body, and one event per
// state the header cannot say (superseded, deleted), timed at the node's
// updated time. The state is canonicalised first (titles and bodies
// trimmed, tags parsed and sorted, times in whole UTC seconds); a state
// that would still not read back as given (a body that leaves a code block
// open, a title with a line break) is an error naming the field. Draft
// writes nothing; event ids come from s.Rand.
func (s *Space) Draft(st State) (*Draft, error) {
	if _, err := ParseID(string(st.ID)); err != nil || st.ID == "" {
		return nil, fmt.Errorf("%w: %q", ErrInvalidID, st.ID)
	}
	if !st.Type.Valid() {
		return nil, fmt.Errorf("%w: %q", ErrInvalidType, st.Type)
	}
	base, stream, err := streamBase(st.Stream)
	if err != nil {
		return nil, err
	}
	title := strings.TrimSpace(st.Title)
	if strings.ContainsAny(title, "\r\n") {
		return nil, fmt.Errorf("%w: the title must be one line", ErrInvalidContent)
	}
	content, err := CheckContent(joinContent(title, trimBody(strings.ReplaceAll(st.Body, "\r\n", "\n"))))
	if err != nil {
		return nil, err
	}
	if title != "" {
		content = joinContent(splitContent(content))
	}
	if err := checkNoMarkers(content); err != nil {
		return nil, err
	}
	n := &Node{ID: st.ID, Type: st.Type, Title: title, Content: content, Meta: map[string]string{}, Stream: stream}
	if err := n.setTagsMeta(st.Tags, st.Meta); err != nil {
		return nil, err
	}
	for _, d := range st.DerivedFrom {
		if _, err := ParseID(string(d)); err != nil || d == "" {
			return nil, fmt.Errorf("%w: derived-from %q", ErrInvalidID, d)
		}
	}
	n.DerivedFrom = slices.Clone(st.DerivedFrom)
	if st.Created.IsZero() {
		return nil, fmt.Errorf("%w: the created time is missing", ErrInvalidContent)
	}
	n.Created = st.Created.UTC().Truncate(time.Second)
	n.Updated = st.Updated.UTC().Truncate(time.Second)
	if st.Updated.IsZero() {
		n.Updated = n.Created
	}
	if n.Updated.Before(n.Created) {
		return nil, fmt.Errorf("%w: updated %s is before created %s", ErrInvalidContent, n.Updated.Format(time.RFC3339), n.Created.Format(time.RFC3339))
	}
	if st.SupersededBy != "" {
		if _, err := ParseID(string(st.SupersededBy)); err != nil {
			return nil, fmt.Errorf("%w: superseded-by %q", ErrInvalidID, st.SupersededBy)
		}
		if st.SupersededBy == st.ID {
			return nil, fmt.Errorf("%w: the node supersedes itself", ErrInvalidID)
		}
	}
	n.SupersededBy, n.Deleted = st.SupersededBy, st.Deleted
	n.Path = path.Join(base, st.Type.Dir(), fileName(title, n.ID))

	var b strings.Builder
	if title != "" {
		fmt.Fprintf(&b, "%s\n\n", titleLine(title))
	}
	header := renderHeader(n)
	if n.Updated.After(n.Created) {
		created := fmt.Sprintf("created: %s\n", n.Created.Format(time.RFC3339))
		header = strings.Replace(header, created, created+fmt.Sprintf("updated: %s\n", n.Updated.Format(time.RFC3339)), 1)
	}
	b.WriteString(header)
	if _, body := splitTitle(title, content); body != "" {
		fmt.Fprintf(&b, "\n%s\n", body)
	}
	fmt.Fprintf(&b, "\n%s\n", changesLine)
	var events []Event
	add := func(op Op, arg string) error {
		eid, err := NewID(s.Rand)
		if err != nil {
			return err
		}
		e := Event{Time: n.Updated, Seq: len(events) + 1, ID: string(eid[:8]), Op: op, Arg: arg}
		events = append(events, e)
		fmt.Fprintf(&b, "%s\n", renderEvent(e))
		return nil
	}
	if n.SupersededBy != "" {
		if err := add(OpSupersede, string(n.SupersededBy)); err != nil {
			return nil, err
		}
	}
	if n.Deleted {
		if err := add(OpDelete, ""); err != nil {
			return nil, err
		}
	}
	data := []byte(b.String())
	got, probs := ParseNode(n.Path, data)
	if len(probs) > 0 {
		return nil, fmt.Errorf("%w: the node would not read back: %s", ErrInvalidContent, probs[0].Msg)
	}
	if field := differs(got, n); field != "" {
		return nil, fmt.Errorf("%w: the node's %s would not read back as given (a body that opens a heading, code block or comment it does not close?)", ErrInvalidContent, field)
	}
	return &Draft{Node: got, Path: n.Path, data: data}, nil
}

// splitTitle returns the body of content whose title is title ("" when the
// node has none).
func splitTitle(title, content string) (string, string) {
	if title == "" {
		return "", content
	}
	return splitContent(content)
}

// streamBase returns the directory under narrative/ of a stream and the
// stream's name as Classify gives it: main, work or feature-<slug>.
func streamBase(stream string) (base, name string, err error) {
	if stream == "work" {
		return "work", "work", nil
	}
	base, err = StreamDir(stream)
	if err != nil {
		return "", "", err
	}
	if stream == "" {
		stream = "main"
	}
	return base, stream, nil
}

// differs names the first field in which got (a file read back) differs
// from want, or returns "".
func differs(got, want *Node) string {
	switch {
	case got == nil:
		return "file"
	case got.ID != want.ID:
		return "id"
	case got.Type != want.Type:
		return "type"
	case got.Title != want.Title:
		return "title"
	case got.Content != want.Content:
		return "body"
	case !slices.Equal(got.Tags, want.Tags):
		return "tags"
	case !sameMeta(got.Meta, want.Meta):
		return "meta"
	case !got.Created.Equal(want.Created):
		return "created time"
	case !got.Updated.Equal(want.Updated):
		return "updated time"
	case got.SupersededBy != want.SupersededBy:
		return "superseded-by"
	case got.Deleted != want.Deleted:
		return "deleted state"
	case !slices.Equal(got.DerivedFrom, want.DerivedFrom):
		return "derived-from"
	case got.Stream != want.Stream:
		return "stream"
	}
	return ""
}

func sameMeta(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Put writes a draft's file, which must not exist yet, and for a decision
// its line in decisions.md. A node file with the draft's id elsewhere in
// the space is the caller's to rule out (Load, then look the id up).
func (s *Space) Put(d *Draft) error {
	if err := s.writeNew(d.Path, d.data); err != nil {
		return err
	}
	n := d.Node
	if n.Type == Decision {
		base, _, _ := streamBase(n.Stream)
		rel := strings.TrimPrefix(n.Path, base+"/")
		line := fmt.Sprintf("- %s [%s](%s) `%s`", n.Created.Format("2006-01-02"), oneLine(n.Title), rel, n.ID)
		return s.appendLine(path.Join(base, "decisions.md"), decisionsHeader, line)
	}
	return nil
}

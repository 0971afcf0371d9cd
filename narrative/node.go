package narrative

import (
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxRecommendedContent is the content size above which ctx warns: such a
// node costs over ~12,500 tokens in every context it enters.
const MaxRecommendedContent = 50000

// MaxContent is the largest content a node may have.
const MaxContent = 8 << 20

// Node is one piece of knowledge, as its narrative file describes it after
// its events are applied.
type Node struct {
	ID           ID                `json:"id"`
	Type         Type              `json:"type"`
	Title        string            `json:"title"`
	Content      string            `json:"content"` // the title, then a blank line and the body
	Tags         []string          `json:"tags"`    // sorted
	Meta         map[string]string `json:"meta"`
	Created      time.Time         `json:"created"`
	Updated      time.Time         `json:"updated"`
	SupersededBy ID                `json:"superseded_by,omitempty"`
	Deleted      bool              `json:"deleted,omitempty"`
	DerivedFrom  []ID              `json:"derived_from,omitempty"`
	Mentions     []string          `json:"mentions,omitempty"` // code spans and link targets of the body
	Stream       string            `json:"stream"`             // main, work or feature-<slug>
	Path         string            `json:"path"`               // relative to narrative/
	Line         int               `json:"line"`               // of the metadata comment
	Events       []Event           `json:"events,omitempty"`
}

// Tokens estimates the node's size in tokens: characters / 4, rounded up.
func (n *Node) Tokens() int {
	return (utf8.RuneCountInString(n.Content) + 3) / 4
}

// Tier returns the node's tier, or "" if it has none.
func (n *Node) Tier() Tier {
	for _, t := range n.Tags {
		if tier, ok := strings.CutPrefix(t, TierPrefix); ok {
			return Tier(tier)
		}
	}
	return ""
}

// HasTag reports whether the node carries tag.
func (n *Node) HasTag(tag string) bool {
	i := sort.SearchStrings(n.Tags, tag)
	return i < len(n.Tags) && n.Tags[i] == tag
}

// Active reports whether the node is neither deleted nor superseded:
// what default listings and queries show.
func (n *Node) Active() bool { return !n.Deleted && n.SupersededBy == "" }

// Op is what an event does to a node.
type Op string

// The event operations.
const (
	OpTag         Op = "tag"         // add a tag (a tier tag replaces the node's tier)
	OpUntag       Op = "untag"       // remove a tag
	OpMeta        Op = "meta"        // set metadata key=value; "key=" removes the key
	OpType        Op = "type"        // change the type
	OpSupersede   Op = "supersede"   // superseded by the node given
	OpDelete      Op = "delete"      // hidden from listings; the file and history stay
	OpRestore     Op = "restore"     // undo a delete
	OpEdit        Op = "edit"        // the content was rewritten (records when)
	OpUnsupersede Op = "unsupersede" // undo a supersede
)

var ops = []Op{OpTag, OpUntag, OpMeta, OpType, OpSupersede, OpDelete, OpRestore, OpEdit, OpUnsupersede}

func (o Op) valid() bool {
	for _, x := range ops {
		if o == x {
			return true
		}
	}
	return false
}

// Event is one change to a node, recorded as a line
//
//	<!-- ctx:event TIME SEQ EVENTID OP [ARG] -->
//
// appended to its file. SEQ is one more than the largest SEQ in the file
// when the event is written (a Lamport clock): every event a writer could
// see gets a smaller SEQ, so a writer's events apply in the order it made
// them even within one second. Events are applied in (SEQ, TIME, EVENTID)
// order, so the state does not depend on the order git put the lines in;
// events two teammates made concurrently may share a SEQ.
type Event struct {
	Time time.Time `json:"time"`
	Seq  int       `json:"seq"`
	ID   string    `json:"id"` // random, so that every event line is unique
	Op   Op        `json:"op"`
	Arg  string    `json:"arg,omitempty"`
	Line int       `json:"line"`
}

// less orders events for applying them.
func (e Event) less(o Event) bool {
	switch {
	case e.Seq != o.Seq:
		return e.Seq < o.Seq
	case !e.Time.Equal(o.Time):
		return e.Time.Before(o.Time)
	}
	return e.ID < o.ID
}

// apply changes n by e. It returns an error for an event that makes no
// sense (an unknown type, say); the event is then ignored.
func (n *Node) apply(e Event) error {
	switch e.Op {
	case OpTag:
		tag, err := ParseTag(e.Arg)
		if err != nil {
			return err
		}
		n.addTag(tag)
	case OpUntag:
		tag, err := ParseTag(e.Arg)
		if err != nil {
			return err
		}
		n.removeTag(tag)
	case OpMeta:
		k, v, ok := strings.Cut(e.Arg, "=")
		if !ok {
			return fmt.Errorf("meta event %q is not key=value", e.Arg)
		}
		if err := checkMetaKey(k); err != nil {
			return err
		}
		if err := checkMetaValue(k, v); err != nil {
			return err
		}
		if v == "" {
			delete(n.Meta, k)
		} else {
			n.Meta[k] = v
		}
	case OpType:
		t, err := ParseType(e.Arg)
		if err != nil {
			return err
		}
		n.Type = t
	case OpSupersede:
		id, err := ParseID(e.Arg)
		if err != nil {
			return err
		}
		n.SupersededBy = id
	case OpUnsupersede:
		n.SupersededBy = ""
	case OpDelete:
		n.Deleted = true
	case OpRestore:
		n.Deleted = false
	case OpEdit:
	default:
		return fmt.Errorf("unknown event %q", e.Op)
	}
	if e.Time.After(n.Updated) {
		n.Updated = e.Time
	}
	return nil
}

func (n *Node) addTag(tag string) {
	if strings.HasPrefix(tag, TierPrefix) {
		// One tier at a time: setting a tier replaces the old one.
		kept := n.Tags[:0]
		for _, t := range n.Tags {
			if !strings.HasPrefix(t, TierPrefix) {
				kept = append(kept, t)
			}
		}
		n.Tags = kept
	}
	if !n.HasTag(tag) {
		n.Tags = append(n.Tags, tag)
		sort.Strings(n.Tags)
	}
}

func (n *Node) removeTag(tag string) {
	for i, t := range n.Tags {
		if t == tag {
			n.Tags = append(n.Tags[:i], n.Tags[i+1:]...)
			return
		}
	}
}

// checkMetaKey validates a metadata key: lowercase letters, digits, '_',
// '-' and '.', starting with a letter.
func checkMetaKey(k string) error {
	if k == "" || len(k) > 64 || !('a' <= k[0] && k[0] <= 'z') {
		return fmt.Errorf("%w: key %q must start with a lowercase letter (1-64 of a-z 0-9 _ - .)", ErrInvalidMeta, k)
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !isAlnum(c) && c != '_' && c != '-' && c != '.' {
			return fmt.Errorf("%w: key %q has %q (use a-z 0-9 _ - .)", ErrInvalidMeta, k, c)
		}
	}
	return nil
}

// ParseMeta parses "key=value" for --meta. The value is one line of UTF-8.
func ParseMeta(s string) (key, value string, err error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return "", "", fmt.Errorf("%w: %q is not key=value", ErrInvalidMeta, s)
	}
	k = strings.ToLower(strings.TrimSpace(k))
	if err := checkMetaKey(k); err != nil {
		return "", "", err
	}
	v = strings.TrimSpace(v)
	if err := checkMetaValue(k, v); err != nil {
		return "", "", err
	}
	return k, v, nil
}

// checkMetaValue checks a metadata value: it is written on one line of a
// comment, so it must be one line of UTF-8 without "-->" (which would end
// the comment there).
func checkMetaValue(k, v string) error {
	if strings.ContainsAny(v, "\r\n") || !utf8.ValidString(v) || strings.Contains(v, "-->") {
		return fmt.Errorf("%w: the value of %s must be one line of UTF-8 without \"-->\"", ErrInvalidMeta, k)
	}
	return nil
}

// CheckContent validates node content: non-empty after trimming, UTF-8,
// no NUL.
func CheckContent(s string) (string, error) {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
	switch {
	case s == "":
		return "", fmt.Errorf("%w: content is empty", ErrInvalidContent)
	case len(s) > MaxContent:
		return "", fmt.Errorf("%w: content is %d bytes, more than the %d MiB a node may hold (store large files with hash-object)", ErrInvalidContent, len(s), MaxContent>>20)
	case !utf8.ValidString(s):
		return "", fmt.Errorf("%w: content is not UTF-8", ErrInvalidContent)
	case strings.ContainsRune(s, 0):
		return "", fmt.Errorf("%w: content contains a NUL byte", ErrInvalidContent)
	}
	return s, nil
}

// splitContent returns the title (first line) and the body (the rest,
// trimmed) of content.
func splitContent(content string) (title, body string) {
	title, body, _ = strings.Cut(content, "\n")
	return strings.TrimSpace(title), trimBody(body)
}

// trimBody drops the blank lines before a body and the white space after
// it, but keeps the indentation of its first line: a body may start with
// an indented code block.
func trimBody(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	for {
		line, rest, ok := strings.Cut(s, "\n")
		if !ok || strings.TrimSpace(line) != "" {
			return s
		}
		s = rest
	}
}

// joinContent is the inverse of splitContent as files store it.
func joinContent(title, body string) string {
	switch {
	case body == "":
		return title
	case title == "":
		return body
	}
	return title + "\n\n" + body
}

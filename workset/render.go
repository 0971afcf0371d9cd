package workset

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Tokens estimates the tokens of text as ctx counts them everywhere
// (pack.Tokens, view.Tokens): characters / 4, rounded up.
func Tokens(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }

// The names of the four sections, in their order (seed §4.1).
const (
	SectionSystem = "system"
	SectionPool   = "metadata_pool"
	SectionChat   = "chat"
	SectionActive = "active_content"
)

// RenderOptions configure Render.
type RenderOptions struct {
	// Budget is the most tokens (Tokens) the whole text may take; 0 means
	// no limit.
	Budget int
}

// Validate checks the options.
func (o RenderOptions) Validate() error {
	if o.Budget < 0 {
		return fmt.Errorf("%w: negative budget", ErrInvalid)
	}
	return nil
}

// Section describes one rendered section.
type Section struct {
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
	// Items counts the section's lines (pool), turns (chat) or blocks
	// (active content).
	Items int `json:"items"`
}

// Omission is an active object left out for the budget.
type Omission struct {
	ID     ID     `json:"id"`
	Reason string `json:"reason"` // "budget"
}

// Rendered is the assembled context.
type Rendered struct {
	Text     string    `json:"text"`
	Tokens   int       `json:"tokens"`
	Budget   int       `json:"budget"`
	Sections []Section `json:"sections"`
	// OmittedTurns counts the oldest chat turns left out for the budget.
	OmittedTurns int `json:"omitted_turns"`
	// Omitted are the active objects left out for the budget.
	Omitted []Omission `json:"omitted"`
	// Stopped says why something was left out: "budget", or "".
	Stopped string `json:"stopped,omitempty"`
}

// Render assembles the session's context in the four sections of seed
// §4.1, in this order, so that what changes least comes first and a
// provider's prefix cache keeps it (§4.2):
//
//	SYSTEM_PROMPT            the system prompt
//	METADATA_POOL            one line per object of the pool, in the order met
//	CHAT                     the turns; tool outputs as toolcall_ref lines
//	ACTIVE_CONTENT id=…      one block per active object, in activation order
//
// Tool outputs appear only in the active content section, never inline in
// the chat: the chat is then append-only and collapsing an output changes
// only the last section. Under a budget the system prompt and the pool
// must fit (else ErrBudget); the oldest turns go first, then active blocks
// from the least recently activated; the result never exceeds the budget.
func (s *Session) Render(opts RenderOptions) (*Rendered, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	limit := -1 // runes
	if opts.Budget > 0 {
		limit = opts.Budget * 4
	}
	res := &Rendered{Budget: opts.Budget, Omitted: []Omission{}}

	var sys strings.Builder
	sys.WriteString("SYSTEM_PROMPT\n")
	if s.System != nil {
		b, err := s.store.blob(*s.System)
		if err != nil {
			return nil, err
		}
		sys.WriteString(withNL(string(b)))
	}
	sys.WriteString("\n")

	var pool strings.Builder
	pool.WriteString("METADATA_POOL\n")
	for _, id := range s.Pool {
		line, err := s.poolLine(id)
		if err != nil {
			return nil, err
		}
		pool.WriteString(line + "\n")
	}
	pool.WriteString("\n")

	const chatHead, chatTail = "CHAT\n", "\n"
	used := runes(sys.String()) + runes(pool.String()) + runes(chatHead) + runes(chatTail)
	least := used // with every turn left out
	if len(s.Turns) > 0 {
		least += runes(omittedLine(len(s.Turns)))
	}
	if limit >= 0 && least > limit {
		return nil, fmt.Errorf("%w: the system prompt and the metadata pool take %d tokens, the budget is %d", ErrBudget, (least+3)/4, opts.Budget)
	}

	turns := make([]string, len(s.Turns))
	for i, t := range s.Turns {
		turns[i] = s.renderTurn(t)
	}
	first := 0 // the oldest turn kept
	total := used
	for _, t := range turns {
		total += runes(t)
	}
	for limit >= 0 && total > limit && first < len(turns) {
		total -= runes(turns[first])
		first++
		if first == 1 {
			total += runes(omittedLine(len(turns)))
		}
	}
	var chat strings.Builder
	chat.WriteString(chatHead)
	if first > 0 {
		chat.WriteString(omittedLine(first))
		res.OmittedTurns = first
		res.Stopped = "budget"
	}
	for _, t := range turns[first:] {
		chat.WriteString(t)
	}
	chat.WriteString(chatTail)
	used = runes(sys.String()) + runes(pool.String()) + runes(chat.String())

	blocks := make([]string, len(s.Active))
	keep := make([]bool, len(s.Active))
	for i := len(s.Active) - 1; i >= 0; i-- {
		b, err := s.activeBlock(s.Active[i])
		if err != nil {
			return nil, err
		}
		if limit >= 0 && used+runes(b) > limit {
			res.Omitted = append(res.Omitted, Omission{ID: s.Active[i], Reason: "budget"})
			res.Stopped = "budget"
			continue
		}
		blocks[i], keep[i] = b, true
		used += runes(b)
	}
	var active strings.Builder
	n := 0
	for i, b := range blocks {
		if keep[i] {
			active.WriteString(b)
			n++
		}
	}
	res.Text = sys.String() + pool.String() + chat.String() + active.String()
	res.Tokens = Tokens(res.Text)
	res.Sections = []Section{
		{SectionSystem, Tokens(sys.String()), 1},
		{SectionPool, Tokens(pool.String()), len(s.Pool)},
		{SectionChat, Tokens(chat.String()), len(turns) - first},
		{SectionActive, Tokens(active.String()), n},
	}
	return res, nil
}

func runes(s string) int { return utf8.RuneCountInString(s) }

func withNL(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

func omittedLine(n int) string { return "[" + strconv.Itoa(n) + " earlier turns omitted]\n" }

func (s *Session) renderTurn(t Turn) string {
	var b strings.Builder
	fmt.Fprintf(&b, "TURN %d\n", t.N)
	for _, e := range t.Entries {
		switch e.Role {
		case RoleTool:
			if c := s.call(*e.Ref); c != nil {
				fmt.Fprintf(&b, "toolcall_ref id=%s tool=%s status=%s\n", c.ID.Short(), c.Tool, c.Status)
			}
		default:
			b.WriteString(e.Role + ": " + withNL(e.Text))
		}
	}
	return b.String()
}

// poolLine is the metadata line of an object (seed §4.1).
func (s *Session) poolLine(id ID) (string, error) {
	if c := s.call(id); c != nil {
		return fmt.Sprintf("id=%s type=toolcall tool=%s status=%s", id.Short(), c.Tool, c.Status), nil
	}
	f, err := s.store.File(id)
	if err != nil {
		return "", err
	}
	l := f.Latest()
	line := fmt.Sprintf("id=%s type=file path=%s file_type=%s", id.Short(), s.Mounts.Reverse(f.Source.Path, f.Source.FilesystemID), l.FileType)
	switch {
	case l.Stub():
		return line + " [unread]", nil
	case l.Deleted:
		return line + " [deleted]", nil
	case l.Binary:
		return line + " [binary]", nil
	}
	return line + " char_count=" + strconv.Itoa(l.CharCount), nil
}

// activeBlock is an active object's block.
func (s *Session) activeBlock(id ID) (string, error) {
	head := "ACTIVE_CONTENT id=" + id.Short() + "\n"
	if c := s.call(id); c != nil {
		b, err := s.store.blob(c.Blob)
		if err != nil {
			return "", err
		}
		return head + withNL(string(b)) + "\n", nil
	}
	f, err := s.store.File(id)
	if err != nil {
		return "", err
	}
	l := f.Latest()
	b, err := s.store.Content(l)
	if err != nil {
		return "", err
	}
	switch {
	case l.Deleted:
		return head + "[deleted]\n\n", nil
	case l.Binary:
		return head + "[binary]\n\n", nil
	case l.Stub():
		return head + "[unread]\n\n", nil
	}
	return head + withNL(string(b)) + "\n", nil
}

// Item is one content object of the session, as Show lists it.
type Item struct {
	ID   ID     `json:"id"`
	Type string `json:"type"`
	// Level is "active", "metadata" or "indexed" (seed §3.2).
	Level  string `json:"level"`
	Pinned bool   `json:"pinned"`
	// File objects:
	Path      string `json:"path,omitempty"`
	FileType  string `json:"file_type,omitempty"`
	CharCount int    `json:"char_count"`
	State     string `json:"state,omitempty"` // "read", "unread", "deleted", "binary"
	Versions  int    `json:"versions,omitempty"`
	// Tool calls:
	Tool   string `json:"tool,omitempty"`
	CallID string `json:"call_id,omitempty"`
	Status string `json:"status,omitempty"`
	Turn   int    `json:"turn,omitempty"`
}

// Items lists the session index in the order met.
func (s *Session) Items() ([]Item, error) {
	items := make([]Item, 0, len(s.Index))
	for _, id := range s.Index {
		it := Item{ID: id, Level: "indexed", Pinned: has(s.Pinned, id)}
		switch {
		case has(s.Active, id):
			it.Level = "active"
		case has(s.Pool, id):
			it.Level = "metadata"
		}
		if c := s.call(id); c != nil {
			it.Type, it.Tool, it.CallID, it.Status, it.Turn, it.CharCount = "toolcall", c.Tool, c.CallID, c.Status, c.Turn, c.CharCount
		} else {
			f, err := s.store.File(id)
			if err != nil {
				return nil, err
			}
			l := f.Latest()
			it.Type, it.Path, it.FileType, it.CharCount, it.Versions = "file", s.Mounts.Reverse(f.Source.Path, f.Source.FilesystemID), l.FileType, l.CharCount, len(f.Versions)
			switch {
			case l.Stub():
				it.State = "unread"
			case l.Deleted:
				it.State = "deleted"
			case l.Binary:
				it.State = "binary"
			default:
				it.State = "read"
			}
		}
		items = append(items, it)
	}
	return items, nil
}

package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Turn is what Text found.
type Turn struct {
	// Text is the text blocks of the assistant's entries, in order,
	// separated by blank lines.
	Text string
	// Last is the uuid of the conversation's last entry: the cursor to
	// give the next read. "" when the transcript has no conversation.
	Last string
	// Entries counts the assistant entries whose text was taken.
	Entries int
}

// entry is the part of a transcript line that Text reads.
type entry struct {
	Type        string  `json:"type"`
	UUID        string  `json:"uuid"`
	ParentUUID  *string `json:"parentUuid"`
	IsSidechain bool    `json:"isSidechain"`
	IsMeta      bool    `json:"isMeta"`
	Message     *struct {
		ID      string          `json:"id"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type block struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// errShort means the data given does not reach back to the turn's start.
var errShort = errors.New("transcript: the turn starts before the data read")

// Text returns the assistant's text of the last turn of a transcript
// (JSONL), after the entry whose uuid is cursor ("" for none): if the
// cursor is on the conversation, everything after it, else the last turn.
func Text(data []byte, cursor string) Turn {
	t, _ := text(data, cursor, true)
	return t
}

// text is Text; with complete false, data may begin in the middle of the
// file and errShort says that the turn may start before it.
func text(data []byte, cursor string, complete bool) (Turn, error) {
	byID := map[string]*entry{}
	var leaf *entry
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		e := new(entry)
		if json.Unmarshal(line, e) != nil || e.UUID == "" {
			continue
		}
		byID[e.UUID] = e
		switch e.Type {
		case "user", "assistant", "system":
			if !e.IsSidechain && !e.IsMeta {
				leaf = e
			}
		}
	}
	if leaf == nil {
		if complete {
			return Turn{}, nil
		}
		return Turn{}, errShort
	}
	// Walk back from the leaf to the cursor or, failing that, to the
	// user's last prompt.
	var chain []*entry // leaf first
	turnStart := -1    // index in chain of the prompt that starts the turn
	seen := map[string]bool{}
	for e := leaf; e != nil && !seen[e.UUID]; {
		seen[e.UUID] = true
		if e.UUID == cursor {
			return collect(chain, leaf), nil
		}
		if turnStart < 0 && isPrompt(e) {
			turnStart = len(chain)
			if cursor == "" {
				break
			}
		}
		chain = append(chain, e)
		if e.ParentUUID == nil || *e.ParentUUID == "" {
			break
		}
		p, ok := byID[*e.ParentUUID]
		if !ok {
			if turnStart < 0 && !complete {
				return Turn{}, errShort
			}
			break // a parent not in the file: the chain ends here
		}
		e = p
	}
	if turnStart >= 0 {
		chain = chain[:turnStart]
	}
	return collect(chain, leaf), nil
}

// collect returns the text of the assistant entries of chain (leaf
// first).
func collect(chain []*entry, leaf *entry) Turn {
	t := Turn{Last: leaf.UUID}
	var parts []string
	seen := map[string]bool{} // message id + text: a block written twice
	for i := len(chain) - 1; i >= 0; i-- {
		e := chain[i]
		if e.Type != "assistant" || e.IsSidechain || e.Message == nil {
			continue
		}
		took := false
		for _, s := range texts(e.Message.Content) {
			k := e.Message.ID + "\x00" + s
			if e.Message.ID != "" && seen[k] {
				continue
			}
			seen[k] = true
			parts = append(parts, s)
			took = true
		}
		if took {
			t.Entries++
		}
	}
	t.Text = strings.Join(parts, "\n\n")
	return t
}

// texts returns the text of a message's content: the string itself, or
// its text blocks.
func texts(raw json.RawMessage) []string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) != "" {
			return []string{s}
		}
		return nil
	}
	var blocks []block
	if json.Unmarshal(raw, &blocks) != nil {
		return nil
	}
	var out []string
	for _, b := range blocks {
		if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
			out = append(out, b.Text)
		}
	}
	return out
}

// isPrompt reports whether e is a prompt of the user: a user message
// whose content is text, not tool results, and not meta.
func isPrompt(e *entry) bool {
	if e.Type != "user" || e.IsMeta || e.Message == nil {
		return false
	}
	raw := bytes.TrimSpace(e.Message.Content)
	if len(raw) > 0 && raw[0] == '"' {
		return true
	}
	var blocks []block
	if json.Unmarshal(raw, &blocks) != nil {
		return false
	}
	for _, b := range blocks {
		if b.Type == "tool_result" {
			return false
		}
	}
	return true
}

// firstWindow is how much of the end of a transcript ReadFile reads
// first; it doubles while the turn starts before what it read.
const firstWindow = 256 << 10

// ReadFile returns Text of the transcript file at path, reading from its
// end only as much as the turn needs.
func ReadFile(path, cursor string) (Turn, error) {
	f, err := os.Open(path)
	if err != nil {
		return Turn{}, fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Turn{}, fmt.Errorf("transcript: %w", err)
	}
	if !st.Mode().IsRegular() {
		return Turn{}, fmt.Errorf("transcript: %s is not a regular file", path)
	}
	size := st.Size()
	for w := int64(firstWindow); ; w *= 2 {
		start := size - w
		if start < 0 {
			start = 0
		}
		buf := make([]byte, size-start)
		if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
			return Turn{}, fmt.Errorf("transcript: read %s: %w", path, err)
		}
		if start > 0 {
			// Drop the partial first line.
			if i := bytes.IndexByte(buf, '\n'); i >= 0 {
				buf = buf[i+1:]
			} else {
				buf = nil
			}
		}
		t, err := text(buf, cursor, start == 0)
		if err == nil {
			return t, nil
		}
	}
}

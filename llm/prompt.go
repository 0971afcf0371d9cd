package llm

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/zeebo/blake3"

	"github.com/ctx-dev/ctx/pack"
)

// DefaultSystemPrefix starts a prompt when config.toml's [llm]
// system_prefix is empty.
const DefaultSystemPrefix = "You are a coding assistant working on a software project. " +
	"The context below was retrieved from the project's ctx store: source code with its paths and line numbers, " +
	"and the team's notes and decisions. Rely on it, and say so when it does not hold the answer.\n\n"

// DefaultResponseInstruction ends a prompt when config.toml's [llm]
// response_instruction is empty. It asks for the forms Observe reads:
// paths and symbols in backticks, code in fenced blocks, decisions on
// lines starting "Decision:".
const DefaultResponseInstruction = "## Response\n\n" +
	"Answer the task above. Name files by their paths and symbols by their names, in backticks " +
	"(`net/client.go`, `net.Client.Connect`). Put code in fenced blocks. " +
	"State each decision you make or recommend on a line of its own starting with \"Decision:\".\n"

// MaxInputBytes bounds the pack or text a prompt is composed from.
const MaxInputBytes = 32 << 20

// PromptConfig is the configurable text around a prompt (config.toml
// [llm] system_prefix and response_instruction). Empty fields mean the
// defaults.
type PromptConfig struct {
	SystemPrefix        string
	ResponseInstruction string
}

func (c PromptConfig) prefix() string {
	if c.SystemPrefix == "" {
		return DefaultSystemPrefix
	}
	return c.SystemPrefix
}

func (c PromptConfig) instruction() string {
	if c.ResponseInstruction == "" {
		return DefaultResponseInstruction
	}
	return c.ResponseInstruction
}

// The section names, in prompt order.
const (
	SectionSystem      = "system"
	SectionTask        = "task"
	SectionContext     = "context"
	SectionNotes       = "notes"
	SectionInput       = "input" // ComposeText's whole input
	SectionInstruction = "instruction"
)

// Section is a named part of a prompt.
type Section struct {
	Name string
	Text string
}

// Prompt is a composed prompt: its sections, concatenated in order.
type Prompt struct {
	Sections []Section
	// Task is what the prompt asks, one line: the pack's task, or what
	// ComposeText found. Record titles its note with it.
	Task string
	// Head is the commit the pack was built from ("" when unknown).
	Head string
}

// Text returns the whole prompt.
func (p Prompt) Text() string {
	var b strings.Builder
	for _, s := range p.Sections {
		b.WriteString(s.Text)
	}
	return b.String()
}

// System returns the system prefix section's text; the chat API sends it
// as the system message and the rest (User) as the user message.
func (p Prompt) System() string {
	if len(p.Sections) > 0 && p.Sections[0].Name == SectionSystem {
		return p.Sections[0].Text
	}
	return ""
}

// User returns the text after the system prefix.
func (p Prompt) User() string {
	var b strings.Builder
	for i, s := range p.Sections {
		if i == 0 && s.Name == SectionSystem {
			continue
		}
		b.WriteString(s.Text)
	}
	return b.String()
}

// Tokens estimates the prompt's tokens as ctx counts them everywhere:
// characters / 4, rounded up.
func (p Prompt) Tokens() int { return pack.Tokens(p.Text()) }

// Mark is a prefix of a prompt that ends at a section boundary: the
// section it ends with, the BLAKE3-256 hash of its text (hex) and its
// estimated tokens.
type Mark struct {
	Section string `json:"section"`
	Hash    string `json:"hash"`
	Tokens  int    `json:"tokens"`
}

// Marks returns the prompt's prefixes at each section boundary: the
// first ends after the system prefix, the last is the whole prompt. Two
// prompts share a prefix up to the last mark they have in common.
func (p Prompt) Marks() []Mark {
	h := blake3.New()
	var text strings.Builder
	out := make([]Mark, 0, len(p.Sections))
	for _, s := range p.Sections {
		_, _ = h.WriteString(s.Text)
		text.WriteString(s.Text)
		out = append(out, Mark{Section: s.Name, Hash: hex.EncodeToString(h.Sum(nil)), Tokens: pack.Tokens(text.String())})
	}
	return out
}

// Compose turns a pack into a prompt (design §14.2): the system prefix,
// "## Task", "## Retrieved Context" with each chunk under "### TITLE" in a
// code fence, "## Recent Notes" when the pack has a recent log, and the
// response instruction. The same pack and config give the same bytes.
func Compose(p *pack.Pack, c PromptConfig) Prompt {
	var ctxt strings.Builder
	ctxt.WriteString("## Retrieved Context\n\n")
	if len(p.Retrieved) == 0 {
		ctxt.WriteString("(nothing was retrieved)\n\n")
	}
	for _, ch := range p.Retrieved {
		fence := fenceFor(ch.Snippet)
		snippet := ch.Snippet
		if snippet != "" && !strings.HasSuffix(snippet, "\n") {
			snippet += "\n"
		}
		fmt.Fprintf(&ctxt, "### %s\n\n%s\n%s%s\n\n", oneLine(ch.Title), fence, snippet, fence)
	}
	task := strings.TrimSpace(p.Task)
	secs := []Section{
		{SectionSystem, c.prefix()},
		{SectionTask, "## Task\n\n" + task + "\n\n"},
		{SectionContext, ctxt.String()},
	}
	if notes := strings.TrimSpace(p.RecentNarrative); notes != "" {
		secs = append(secs, Section{SectionNotes, "## Recent Notes\n\n" + demote(notes) + "\n\n"})
	}
	secs = append(secs, Section{SectionInstruction, c.instruction()})
	return Prompt{Sections: secs, Task: oneLine(task), Head: p.HeadCommit}
}

// ComposeText makes a prompt of input that is not a JSON pack (a Markdown
// or text pack, or any text): the system prefix, the input as it is, and
// the response instruction. Its task is the line after a "# Task"
// heading (a Markdown pack's), else the input's first line that is not
// blank, a heading marker alone or an HTML comment.
func ComposeText(input string, c PromptConfig) Prompt {
	in := strings.TrimSpace(input) + "\n\n"
	return Prompt{
		Sections: []Section{{SectionSystem, c.prefix()}, {SectionInput, in}, {SectionInstruction, c.instruction()}},
		Task:     taskOf(input),
	}
}

// Read composes a prompt from what `ctx llm` reads (a file, standard
// input): a JSON pack (`ctx query`'s default format) is composed by
// Compose, anything else by ComposeText. Empty input, input that is not
// UTF-8 and input over MaxInputBytes are ErrInvalidInput.
func Read(data []byte, c PromptConfig) (Prompt, error) {
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		return Prompt{}, fmt.Errorf("%w: the prompt pack is empty", ErrInvalidInput)
	case len(data) > MaxInputBytes:
		return Prompt{}, fmt.Errorf("%w: the prompt pack holds more than %d MiB", ErrInvalidInput, MaxInputBytes>>20)
	case !utf8.Valid(data):
		return Prompt{}, fmt.Errorf("%w: the prompt pack is not UTF-8 text", ErrInvalidInput)
	}
	if p, ok := parsePack(data); ok {
		return Compose(p, c), nil
	}
	return ComposeText(string(data), c), nil
}

// parsePack reads a JSON pack: an object with a "task" string and a
// "retrieved" array. Any other JSON, or text, is not a pack.
func parsePack(data []byte) (*pack.Pack, bool) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, false
	}
	var probe struct {
		Task      *string          `json:"task"`
		Retrieved *json.RawMessage `json:"retrieved"`
	}
	if json.Unmarshal(trimmed, &probe) != nil || probe.Task == nil || probe.Retrieved == nil {
		return nil, false
	}
	var p pack.Pack
	if json.Unmarshal(trimmed, &p) != nil {
		return nil, false
	}
	return &p, true
}

// taskOf finds the task of a text input.
func taskOf(input string) string {
	lines := strings.Split(strings.ReplaceAll(input, "\r\n", "\n"), "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "# Task" {
			for _, next := range lines[i+1:] {
				if t := strings.TrimSpace(next); t != "" {
					return oneLine(t)
				}
			}
		}
	}
	for _, l := range lines {
		t := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#"))
		if t == "" || strings.HasPrefix(t, "<!--") || t == "Task" {
			continue
		}
		return oneLine(t)
	}
	return ""
}

// fenceFor returns a code fence longer than any run of backticks in s.
func fenceFor(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// demote makes the recent log's day headings (## DATE) subsections of
// the prompt's "## Recent Notes".
func demote(log string) string {
	if strings.HasPrefix(log, "## ") {
		log = "#" + log
	}
	return strings.ReplaceAll(log, "\n## ", "\n### ")
}

// oneLine collapses white space and cuts s at 200 characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > 200 {
		s = string([]rune(s)[:200]) + "…"
	}
	return s
}

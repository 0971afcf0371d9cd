package llm

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// Limits of what Analyze keeps of one response.
const (
	maxDecisions   = 20
	maxDecision    = 300 // bytes of one decision
	maxCandidates  = 200
	maxCandidate   = 200 // bytes of one mention
	maxCodeBlocks  = 100
	maxInlineSpans = 1000
)

// CodeBlock is a fenced code block of a response.
type CodeBlock struct {
	// Lang is the first word of the fence's info string ("go"); Info
	// the whole of it.
	Lang string `json:"lang,omitempty"`
	Info string `json:"info,omitempty"`
	// StartLine and EndLine are the lines of the code (1-based,
	// inclusive; the fences excluded). An empty block has EndLine =
	// StartLine - 1.
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Code      string `json:"code"`
}

// Candidate is a name in a response that may be a project path or a
// symbol.
type Candidate struct {
	// Text is the name as cleaned up (see Analyze).
	Text string `json:"text"`
	// Quoted is true for a name in backticks or a link destination;
	// names found in plain prose are only used when they resolve.
	Quoted bool `json:"quoted"`
}

// Analysis is what Analyze finds in a response.
type Analysis struct {
	CodeBlocks []CodeBlock `json:"code_blocks"`
	Decisions  []string    `json:"decisions"`
	Candidates []Candidate `json:"-"`
}

var (
	fenceOpen = lazyre.New("^ {0,3}(`{3,}|~{3,})(.*)$")
	listMark  = lazyre.New(`^\s*(?:[-*+]|\d{1,9}[.)])\s+`)
	heading   = lazyre.New(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	// decisionLead: a line stating a decision by its first words.
	decisionLead = lazyre.New(`(?i)^(?:\*\*|__)?(?:decision|decided)(?:\*\*|__)?\s*:(?:\*\*|__)?\s*(.+)$`)
	// decisionPhrase: a sentence a decision is made in.
	decisionPhrase = lazyre.New(`(?i)\b(?:we|i)(?: have|'ve)? (?:decided|chose|chosen|choose)\b|\b(?:we|i)(?: will|'ll) go with\b|\bthe decision is\b`)
	// decisionHeading: a heading whose section lists decisions.
	decisionHeading = lazyre.New(`(?i)^(?:decisions?|decided|the decision)\b`)
	// proseName: a path or a qualified name in plain prose.
	proseName = lazyre.New(`[A-Za-z0-9_][A-Za-z0-9_.\-]*(?:/[A-Za-z0-9_.\-]+)+|[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)+`)
	// urlRE: a URL in prose, whose path is no project path.
	urlRE = lazyre.New(`[A-Za-z][A-Za-z0-9+.\-]*://\S*`)
	// linkDest: the destination of an inline Markdown link.
	linkDest = lazyre.New(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)
)

// Analyze reads a response (design §14.3, step 1):
//
//   - Code blocks: fenced with ``` or ~~~ (three or more, indented at most
//     three spaces), closed by a fence of the same character at least as
//     long, or by the end of the response.
//   - Decisions, outside code blocks, each at most 300 bytes and 20 in
//     all: a line starting "Decision:" or "Decided:" (after a list marker,
//     bold allowed) gives the text after the colon; a sentence containing
//     "we decided", "we have decided", "we chose", "I decided", "we'll go
//     with", "the decision is" (any case) gives that sentence; under a
//     heading "Decision", "Decisions" or "Decided", each list item and
//     paragraph gives its first line.
//   - Mention candidates, outside code blocks: the text of each inline
//     code span (`net/client.go`, `Client.Connect`), each link
//     destination that is a relative path, and in prose each path with a
//     '/' (net/client.go) or qualified name (retry.NextDelay,
//     net::Client). They are cleaned: surrounding quotes and
//     punctuation, a leading "./", "*" or "&", a line suffix (:12,
//     :12:3, #L12-L20) and a call's parentheses ("Connect()",
//     "(*Client).Connect" → "Client.Connect") go.
func Analyze(text string) *Analysis {
	a := &Analysis{CodeBlocks: []CodeBlock{}, Decisions: []string{}}
	seenCand := map[string]int{}
	seenDec := map[string]bool{}
	addDecision := func(s string) {
		s = clip(strings.Trim(oneLine(stripEmphasis(s)), " "), maxDecision)
		if s == "" || seenDec[s] || len(a.Decisions) >= maxDecisions {
			return
		}
		seenDec[s] = true
		a.Decisions = append(a.Decisions, s)
	}
	addCand := func(s string, quoted bool) {
		s = cleanName(s)
		if s == "" || len(s) > maxCandidate || !nameLike(s) {
			return
		}
		if i, ok := seenCand[s]; ok {
			a.Candidates[i].Quoted = a.Candidates[i].Quoted || quoted
			return
		}
		if len(a.Candidates) >= maxCandidates {
			return
		}
		seenCand[s] = len(a.Candidates)
		a.Candidates = append(a.Candidates, Candidate{Text: s, Quoted: quoted})
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var (
		block        *CodeBlock
		fence        string
		code         []string
		underHeading bool // in a section under a decision heading
		paraStart    = true
	)
	for i, line := range lines {
		n := i + 1
		if block != nil {
			if closesFence(line, fence) {
				block.Code = strings.Join(code, "\n")
				block.EndLine = n - 1
				if len(a.CodeBlocks) < maxCodeBlocks {
					a.CodeBlocks = append(a.CodeBlocks, *block)
				}
				block, code, paraStart = nil, nil, true
				continue
			}
			code = append(code, line)
			continue
		}
		if m := fenceOpen.FindStringSubmatch(line); m != nil && !(m[1][0] == '`' && strings.Contains(m[2], "`")) {
			info := strings.TrimSpace(m[2])
			lang, _, _ := strings.Cut(info, " ")
			block, fence = &CodeBlock{Lang: lang, Info: info, StartLine: n + 1}, m[1]
			continue
		}
		if strings.TrimSpace(line) == "" {
			paraStart = true
			continue
		}
		if m := heading.FindStringSubmatch(line); m != nil {
			underHeading = decisionHeading.MatchString(stripEmphasis(m[2]))
			paraStart = true
			continue
		}
		spans, prose := inlineSpans(line)
		for _, s := range spans {
			addCand(s, true)
		}
		for _, m := range linkDest.FindAllStringSubmatch(prose, -1) {
			if d := m[1]; !strings.Contains(d, "://") && !strings.HasPrefix(d, "#") && !strings.HasPrefix(d, "mailto:") {
				addCand(d, true)
			}
		}
		for _, m := range proseName.Regexp().FindAllString(urlRE.ReplaceAllString(prose, " "), -1) {
			addCand(m, false)
		}
		body := listMark.ReplaceAllString(line, "")
		isItem := body != line
		if m := decisionLead.FindStringSubmatch(strings.TrimSpace(body)); m != nil {
			addDecision(m[1])
		} else if underHeading && (isItem || paraStart) {
			addDecision(body)
		} else if decisionPhrase.MatchString(line) {
			for _, s := range sentences(body) {
				if decisionPhrase.MatchString(s) {
					addDecision(s)
				}
			}
		}
		paraStart = false
	}
	if block != nil { // a fence left open runs to the end
		block.Code = strings.Join(code, "\n")
		block.EndLine = len(lines)
		if len(a.CodeBlocks) < maxCodeBlocks {
			a.CodeBlocks = append(a.CodeBlocks, *block)
		}
	}
	return a
}

// closesFence reports whether line closes a block opened by fence.
func closesFence(line, fence string) bool {
	t := strings.TrimRight(line, " \t")
	trimmed := strings.TrimLeft(t, " ")
	if len(t)-len(trimmed) > 3 {
		return false
	}
	run := len(trimmed) - len(strings.TrimLeft(trimmed, fence[:1]))
	return run >= len(fence) && run == len(trimmed)
}

// inlineSpans returns the contents of the line's code spans, and the line
// with them blanked out.
func inlineSpans(line string) (spans []string, prose string) {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		j := i
		for j < len(line) && line[j] == '`' {
			j++
		}
		ticks := line[i:j]
		end := strings.Index(line[j:], ticks)
		// The closing run must be exactly as long.
		for end >= 0 && j+end+len(ticks) < len(line) && line[j+end+len(ticks)] == '`' {
			next := strings.Index(line[j+end+len(ticks)+1:], ticks)
			if next < 0 {
				end = -1
				break
			}
			end += len(ticks) + 1 + next
		}
		if end < 0 {
			b.WriteString(ticks)
			i = j
			continue
		}
		if len(spans) < maxInlineSpans {
			spans = append(spans, strings.TrimSpace(line[j:j+end]))
		}
		b.WriteByte(' ')
		i = j + end + len(ticks)
	}
	return spans, b.String()
}

var (
	lineSuffix = lazyre.New(`(?::\d+(?:[-:]\d+)*|#L\d+(?:-L?\d+)?)$`)
	derefType  = lazyre.New(`^\(\*?([A-Za-z_][A-Za-z0-9_]*)\)\.`)
)

// cleanName trims what surrounds a name in text.
func cleanName(s string) string {
	s = strings.TrimSpace(s)
	s = strings.Trim(s, "\"'“”‘’<>,;!?")
	s = strings.TrimRight(s, ".:")
	s = derefType.ReplaceAllString(s, "$1.") // (*Client).Connect
	if i := strings.IndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") {
		s = s[:i] // Connect(), NextDelay(attempt)
	}
	s = strings.TrimSuffix(s, "{}")
	s = strings.TrimLeft(s, "([{")
	s = strings.TrimRight(s, ")]}")
	s = strings.TrimPrefix(s, "./")
	s = strings.TrimLeft(s, "*&")
	s = lineSuffix.ReplaceAllString(s, "")
	return strings.TrimRight(s, "/.")
}

// nameLike reports whether s can be a project path or a symbol: no white
// space, and made of the characters paths and qualified names use, with a
// letter, digit or '_' somewhere.
func nameLike(s string) bool {
	if !utf8.ValidString(s) || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "-") {
		return false
	}
	word := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '_':
			word = true
		case strings.ContainsRune("./-:#@+~", r):
		default:
			return false
		}
	}
	return word && path.Clean(s) != ".."
}

// sentences splits a line at ". ", "! " and "? ".
func sentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i+1] == ' ' {
			out = append(out, s[start:i+1])
			start = i + 2
		}
	}
	return append(out, s[start:])
}

// stripEmphasis drops Markdown bold and italic markers.
func stripEmphasis(s string) string {
	return strings.NewReplacer("**", "", "__", "").Replace(s)
}

// clip cuts s to at most n bytes at a character boundary, marking the
// cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

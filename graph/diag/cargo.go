package diag

import (
	"encoding/json"
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

var (
	// rustHeader starts a rustc diagnostic: "error[E0433]: msg",
	// "warning: msg".
	rustHeader = lazyre.New(`^(error|warning|note|help|failure-note)(?:\[([\w:]+)\])?: (.*)$`)
	// rustArrow is the primary location: " --> src/lib.rs:3:5".
	rustArrow = lazyre.New(`^\s*--> (.+?):(\d+):(\d+)$`)
	// rustNote is a note or help line inside a diagnostic.
	rustNote = lazyre.New(`^\s*= (note|help): (.*)$|^(note|help): (.*)$`)
	// rustLint names the lint behind a warning: "#[warn(unused_variables)]".
	rustLint = lazyre.New("#\\[(?:warn|deny|forbid)\\(([\\w:]+)\\)\\]")
	// rustMeta are rustc and cargo lines that summarise, not diagnose.
	rustMeta = lazyre.New(`^(error|warning): (could not compile|aborting due to|build failed|test failed, to rerun|doctest failed|\d+ targets? failed|\d+ warnings? emitted|.* generated \d+ warnings?|Recipe|process didn't exit successfully)`)
	// rustTest is a test harness result line.
	rustTest = lazyre.New(`^test (.+?) \.\.\. (ok|FAILED|ignored(?:, .*)?)$`)
	// rustTestResult is the harness summary of one test binary.
	rustTestResult = lazyre.New(`^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored`)
	// rustSection starts the captured output of a failed test.
	rustSection = lazyre.New(`^---- (.+?) std(out|err) ----$`)
	// rustPanic is where a test panicked; since Rust 1.73 the message
	// follows on the next lines, before that it was quoted on the line.
	rustPanic         = lazyre.New(`^thread '(.*?)'(?: \(\d+\))? panicked at (.+?):(\d+):(\d+):$`)
	rustPanicOld      = lazyre.New(`^thread '(.*?)' panicked at '(.*)', (.+?):(\d+):(\d+)$`)
	rustPanicOldStart = lazyre.New(`^thread '(.*?)' panicked at '(.*)$`)
	rustPanicOldEnd   = lazyre.New(`^(.*)', (.+?):(\d+):(\d+)$`)
	// rustSnippet is a line of the source excerpt of a diagnostic.
	rustSnippet = lazyre.New(`^\s*(\d+\s*)?[|+~-]|^\s*(-->|:::)|^\s*\.\.\.$|^\s+\^`)
)

// cargoParser reads cargo and rustc output: human diagnostics, the
// --message-format=json lines mixed into it, and the test harness.
type cargoParser struct {
	c       *collector
	cur     *goMsg // the open diagnostic
	section string // the failed test whose output is being read
	panic   *goMsg // the panic being read
	// oldPanic: panic is in the format before Rust 1.73, whose message
	// is quoted and followed by the location.
	oldPanic bool
	failed   []string
	failedL  map[string]int
	found    map[string]bool // tests with a diagnostic
	results  bool            // a "test result:" line was seen
	counts   struct{ passed, failed, ignored int }
	loose    map[string][]string
}

func parseCargo(c *collector, tool string, lines []string) {
	p := &cargoParser{c: c, failedL: map[string]int{}, found: map[string]bool{}, loose: map[string][]string{}}
	for i, s := range lines {
		if strings.HasPrefix(s, "{") && p.jsonLine(i, s) {
			continue
		}
		p.line(i, s)
	}
	p.close()
	p.endPanic()
	if p.results {
		count(&c.passed, p.counts.passed)
		count(&c.failed, p.counts.failed)
		count(&c.skipped, p.counts.ignored)
	}
	for _, t := range p.failed {
		if !p.results {
			count(&c.failed, 1)
		}
		if p.found[t] {
			continue
		}
		c.add(failedTest(t, p.loose[t]), p.failedL[t], p.failedL[t])
	}
}

func (p *cargoParser) line(i int, s string) {
	if m := rustHeader.FindStringSubmatch(s); m != nil {
		if rustMeta.MatchString(s) {
			p.close()
			p.c.summaryLine(i)
			return
		}
		if m[1] == "help" || m[1] == "note" {
			if p.cur != nil {
				p.cur.d.Detail = joinDetail(p.cur.d.Detail, s)
				p.cur.to = i
			} else {
				// cargo's and the harness's hints ("note: run with
				// `RUST_BACKTRACE=1` …") are not diagnostics.
				p.endPanic()
			}
			return
		}
		p.close()
		p.endPanic()
		if m[1] == "failure-note" {
			return
		}
		sev := map[string]Severity{"error": SeverityError, "warning": SeverityWarning, "note": SeverityInfo, "help": SeverityHint}[m[1]]
		p.cur = &goMsg{d: Diagnostic{Severity: sev, Code: m[2], Message: m[3], Test: p.section}, from: i, to: i}
		return
	}
	if p.cur != nil {
		if s == "" {
			p.close()
			return
		}
		p.cur.to = i
		if m := rustArrow.FindStringSubmatch(s); m != nil && p.cur.d.Path == "" {
			p.cur.d.Path, p.cur.d.Line, p.cur.d.Col = m[1], atoi(m[2]), atoi(m[3])
			return
		}
		if m := rustNote.FindStringSubmatch(s); m != nil {
			p.cur.d.Detail = joinDetail(p.cur.d.Detail, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "= ")))
			if l := rustLint.FindStringSubmatch(s); l != nil && p.cur.d.Code == "" {
				p.cur.d.Code = l[1]
			}
		} else if !rustSnippet.MatchString(s) {
			// cargo's own errors explain on plain lines ("Caused by:").
			p.cur.d.Detail = joinDetail(p.cur.d.Detail, strings.TrimSpace(s))
		}
		return
	}
	switch {
	case strings.HasPrefix(s, "Some errors have detailed explanations") || strings.HasPrefix(s, "For more information about"):
		return
	case rustTestResult.MatchString(s):
		m := rustTestResult.FindStringSubmatch(s)
		p.endPanic()
		p.section = ""
		p.results = true
		p.counts.passed += atoi(m[2])
		p.counts.failed += atoi(m[3])
		p.counts.ignored += atoi(m[4])
		p.c.summaryLine(i)
		return
	case rustTest.MatchString(s):
		m := rustTest.FindStringSubmatch(s)
		if m[2] == "FAILED" {
			if _, ok := p.failedL[m[1]]; !ok {
				p.failed = append(p.failed, m[1])
			}
			p.failedL[m[1]] = i
		}
		return
	case rustSection.MatchString(s):
		p.endPanic()
		p.section = rustSection.FindStringSubmatch(s)[1]
		return
	case s == "failures:" || strings.HasPrefix(s, "running ") && strings.HasSuffix(s, " tests") || strings.HasPrefix(s, "running 1 test"):
		p.endPanic()
		p.section = ""
		return
	}
	if m := rustPanic.FindStringSubmatch(s); m != nil {
		p.endPanic()
		p.panic = &goMsg{d: Diagnostic{Severity: SeverityError, Path: m[2], Line: atoi(m[3]), Col: atoi(m[4]), Test: p.testOf(m[1])}, from: i, to: i}
		return
	}
	if m := rustPanicOld.FindStringSubmatch(s); m != nil {
		p.endPanic()
		p.add(&goMsg{d: Diagnostic{Severity: SeverityError, Message: m[2], Path: m[3], Line: atoi(m[4]), Col: atoi(m[5]), Test: p.testOf(m[1])}, from: i, to: i})
		return
	}
	if m := rustPanicOldStart.FindStringSubmatch(s); m != nil {
		// The quoted message runs over several lines; the location ends
		// the last.
		p.endPanic()
		p.panic = &goMsg{d: Diagnostic{Severity: SeverityError, Message: m[2], Test: p.testOf(m[1])}, from: i, to: i}
		p.oldPanic = true
		return
	}
	if p.panic != nil && p.oldPanic {
		p.panic.to = i
		if m := rustPanicOldEnd.FindStringSubmatch(s); m != nil {
			p.panic.d.Detail = joinDetail(p.panic.d.Detail, m[1])
			p.panic.d.Path, p.panic.d.Line, p.panic.d.Col = m[2], atoi(m[3]), atoi(m[4])
			p.endPanic()
		} else {
			p.panic.d.Detail = joinDetail(p.panic.d.Detail, s)
		}
		return
	}
	if p.panic != nil {
		switch {
		case s == "" || strings.HasPrefix(s, "note: run with `RUST_BACKTRACE") || s == "stack backtrace:":
			p.endPanic()
		case p.panic.d.Message == "":
			p.panic.d.Message, p.panic.to = s, i
		default:
			p.panic.d.Detail, p.panic.to = joinDetail(p.panic.d.Detail, s), i
		}
		return
	}
	if p.section != "" && s != "" && len(p.loose[p.section]) < MaxDetailLines {
		p.loose[p.section] = append(p.loose[p.section], s)
	}
}

// testOf returns the test a panicking thread belongs to: the harness
// names a test's thread after the test; other threads panic inside the
// section of the test that spawned them.
func (p *cargoParser) testOf(thread string) string {
	if thread == "main" || thread == "<unnamed>" || thread == "" {
		return p.section
	}
	return thread
}

func (p *cargoParser) close() {
	if p.cur != nil {
		p.add(p.cur)
		p.cur = nil
	}
}

func (p *cargoParser) endPanic() {
	p.oldPanic = false
	if p.panic != nil {
		if p.panic.d.Message == "" {
			p.panic.d.Message = "panicked"
		}
		p.add(p.panic)
		p.panic = nil
	}
}

func (p *cargoParser) add(m *goMsg) {
	if m.d.Test != "" {
		p.found[m.d.Test] = true
	}
	p.c.add(m.d, m.from, m.to)
}

// cargoLine is one line of cargo --message-format=json output, or of the
// test harness's unstable --format json.
type cargoLine struct {
	Reason  string     `json:"reason"`
	Message *rustcDiag `json:"message"`
	Success *bool      `json:"success"`
	// libtest JSON
	Type   string `json:"type"`
	Event  string `json:"event"`
	Name   string `json:"name"`
	Stdout string `json:"stdout"`
	Passed *int   `json:"passed"`
	Failed *int   `json:"failed"`
	Ignore *int   `json:"ignored"`
}

// rustcDiag is rustc's JSON diagnostic.
type rustcDiag struct {
	Message  string                 `json:"message"`
	Code     *struct{ Code string } `json:"code"`
	Level    string                 `json:"level"`
	Spans    []rustSpan             `json:"spans"`
	Children []rustcDiag            `json:"children"`
}

type rustSpan struct {
	FileName    string `json:"file_name"`
	LineStart   int    `json:"line_start"`
	LineEnd     int    `json:"line_end"`
	ColumnStart int    `json:"column_start"`
	ColumnEnd   int    `json:"column_end"`
	IsPrimary   bool   `json:"is_primary"`
	Expansion   *struct {
		Span rustSpan `json:"span"`
	} `json:"expansion"`
}

// jsonLine handles a JSON line and reports whether it was one.
func (p *cargoParser) jsonLine(i int, s string) bool {
	var probe struct {
		MessageType string `json:"$message_type"`
	}
	if json.Unmarshal([]byte(s), &probe) != nil {
		return false
	}
	if probe.MessageType == "diagnostic" {
		// rustc --error-format=json: each line is a diagnostic.
		var d rustcDiag
		if json.Unmarshal([]byte(s), &d) != nil {
			return false
		}
		p.rustcDiag(i, &d)
		return true
	}
	var l cargoLine
	if json.Unmarshal([]byte(s), &l) != nil {
		return false
	}
	switch {
	case l.Reason == "compiler-message" && l.Message != nil:
		p.rustcDiag(i, l.Message)
	case l.Reason == "build-finished":
		p.c.summaryLine(i)
	case l.Reason != "":
	case l.Type == "test" && l.Event == "failed":
		p.failed = append(p.failed, l.Name)
		p.failedL[l.Name] = i
		p.section = l.Name
		for _, t := range strings.Split(strings.TrimSuffix(l.Stdout, "\n"), "\n") {
			p.line(i, t)
		}
		p.endPanic()
		p.section = ""
	case l.Type == "suite" && (l.Event == "ok" || l.Event == "failed"):
		p.results = true
		p.c.summaryLine(i)
		if l.Passed != nil {
			p.counts.passed += *l.Passed
		}
		if l.Failed != nil {
			p.counts.failed += *l.Failed
		}
		if l.Ignore != nil {
			p.counts.ignored += *l.Ignore
		}
	case l.Type != "":
	default:
		return false
	}
	return true
}

func (p *cargoParser) rustcDiag(i int, m *rustcDiag) {
	sev, ok := map[string]Severity{"error": SeverityError, "error: internal compiler error": SeverityError,
		"warning": SeverityWarning, "note": SeverityInfo, "help": SeverityHint}[m.Level]
	if !ok || len(m.Spans) == 0 && rustMeta.MatchString(m.Level+": "+m.Message) {
		return
	}
	d := Diagnostic{Severity: sev, Message: m.Message}
	if m.Code != nil {
		d.Code = m.Code.Code
	}
	for k := range m.Spans {
		if sp := &m.Spans[k]; sp.IsPrimary {
			for depth := 0; strings.HasPrefix(sp.FileName, "<") && sp.Expansion != nil && depth < 16; depth++ {
				sp = &sp.Expansion.Span // a macro's span: report where it was called
			}
			d.Path, d.Line, d.Col, d.EndLine, d.EndCol = sp.FileName, sp.LineStart, sp.ColumnStart, sp.LineEnd, sp.ColumnEnd
			break
		}
	}
	for _, ch := range m.Children {
		d.Detail = joinDetail(d.Detail, ch.Level+": "+ch.Message)
	}
	p.c.add(d, i, i)
}

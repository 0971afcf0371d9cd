package diag

import (
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

var (
	// pytestBanner is a section banner: "==== FAILURES ====".
	pytestBanner = lazyre.New(`^={3,} ?(.*?) ?={3,}$`)
	// pytestHeader starts one report inside a section: "____ test_x ____".
	pytestHeader = lazyre.New(`^_{3,} (.+?) _{3,}$`)
	// pytestCaptured starts captured output inside a report.
	pytestCaptured = lazyre.New(`^-{3,} ?(.*?) ?-{3,}$`)
	// pytestLoc is a traceback location: "tests/test_x.py:12: AssertionError"
	// for the raising frame, "shop/cart.py:8: in total" for the others.
	pytestLoc = lazyre.New(`^(\S+\.py):(\d+): (.+)$`)
	// pytestFileLine is a SyntaxError's location in an E line.
	pytestFileLine = lazyre.New(`File "(.+?)", line (\d+)`)
	// pytestShort is a line of the short test summary.
	pytestShort = lazyre.New(`^(FAILED|ERROR) (.+?)(?: - (.*))?$`)
	// pytestCounts is the final summary: "1 failed, 14 passed in 0.12s",
	// with or without the = banner.
	pytestCounts = lazyre.New(`^=*\s*((?:\d+ \w+|no tests ran)(?:, \d+ \w+)*) in [\d.]+s\b.*?=*$`)
	pytestCount  = lazyre.New(`(\d+) (\w+)`)
	// pytestWarning is a warning in the warnings summary.
	pytestWarning = lazyre.New(`^\s+(\S+\.py):(\d+): (\w+): (.*)$`)
)

// pytestReport is one report of the FAILURES or ERRORS section.
type pytestReport struct {
	name     string // the header: "test_x", "TestCart.test_add", "ERROR collecting tests/test_x.py"
	from, to int
	e        []string // the E lines
	path     string
	line     int
	exc      string // the exception, from the raising frame's location line
	frame    string // the last frame's location, if no raising frame
	fline    int
	used     bool
}

// parsePytest reads pytest's terminal report: the FAILURES and ERRORS
// sections (the raising frame and the E lines), the short test summary
// (the test ids), the warnings summary and the final counts. A failure
// appears in both the section and the summary; they are joined by name.
func parsePytest(c *collector, lines []string) {
	var reports []*pytestReport
	var cur *pytestReport
	section := ""
	warnTests := []string{}
	type short struct {
		kind, id, msg string
		at            int
	}
	var shorts []short
	for i, s := range lines {
		if m := pytestCounts.FindStringSubmatch(s); m != nil && !strings.HasPrefix(s, " ") {
			pytestTally(c, m[1])
			c.summaryLine(i)
			cur = nil
			continue
		}
		if m := pytestBanner.FindStringSubmatch(s); m != nil {
			section, cur = strings.ToLower(m[1]), nil
			continue
		}
		if strings.HasPrefix(s, "!!!!") { // "!!! Interrupted: 1 error during collection !!!"
			continue
		}
		switch section {
		case "failures", "errors":
			if m := pytestHeader.FindStringSubmatch(s); m != nil {
				cur = &pytestReport{name: m[1], from: i, to: i}
				reports = append(reports, cur)
				continue
			}
			if cur == nil {
				if m := pytestLoc.FindStringSubmatch(s); m != nil && section == "failures" {
					// --tb=line: one "path:line: message" line per failure,
					// without a header.
					reports = append(reports, &pytestReport{from: i, to: i, path: m[1], line: atoi(m[2]), e: []string{m[3]}})
				}
				continue
			}
			if pytestCaptured.MatchString(s) {
				cur = nil // captured stdout/log of the test: not the failure
				continue
			}
			cur.to = i
			if strings.HasPrefix(s, "E ") || s == "E" {
				cur.e = append(cur.e, strings.TrimRight(strings.TrimPrefix(s, "E"), " "))
				continue
			}
			if m := pytestLoc.FindStringSubmatch(s); m != nil {
				if strings.HasPrefix(m[3], "in ") {
					cur.frame, cur.fline = m[1], atoi(m[2])
				} else {
					cur.path, cur.line, cur.exc = m[1], atoi(m[2]), m[3]
				}
			}
		case "short test summary info":
			if m := pytestShort.FindStringSubmatch(s); m != nil {
				shorts = append(shorts, short{m[1], m[2], m[3], i})
			}
		case "warnings summary":
			switch m := pytestWarning.FindStringSubmatch(s); {
			case m != nil:
				// The tests that raised the warning come first, one a line.
				d := Diagnostic{Severity: SeverityWarning, Code: m[3], Message: m[4], Path: m[1], Line: atoi(m[2])}
				if len(warnTests) > 0 {
					d.Test = warnTests[0]
				}
				if len(warnTests) > 1 {
					d.Detail = "also raised by: " + strings.Join(warnTests[1:], ", ")
				}
				c.add(d, i-len(warnTests), i)
				warnTests = warnTests[:0]
			case s != "" && !strings.HasPrefix(s, " ") && !strings.HasPrefix(s, "-- Docs"):
				warnTests = append(warnTests, strings.TrimSpace(s))
			}
		}
	}
	for _, sh := range shorts {
		r := matchReport(reports, sh.kind, sh.id)
		d := Diagnostic{Severity: SeverityError, Test: sh.id, Message: sh.msg}
		file, _, _ := strings.Cut(sh.id, "::")
		if strings.HasSuffix(file, ".py") {
			d.Path = file
		}
		if sh.kind == "ERROR" && !strings.Contains(sh.id, "::") {
			d.Test = "" // a collection error: the id is a file, not a test
		}
		from, to := sh.at, sh.at
		if r != nil {
			r.used = true
			fillFromReport(&d, r)
			from, to = r.from, r.to
		}
		if d.Message == "" {
			d.Message = "test failed"
			if sh.kind == "ERROR" {
				d.Message = "error"
			}
		}
		c.add(d, from, to)
		if from != sh.at {
			c.add(d, sh.at, sh.at) // deduplicated; keeps the summary line with the report
		}
	}
	for _, r := range reports {
		if r.used {
			continue
		}
		// No short summary (-rN, old pytest): the report stands alone.
		d := Diagnostic{Severity: SeverityError, Test: r.name}
		if r.name == "" {
			d.Test = ""
		}
		if rest, ok := strings.CutPrefix(r.name, "ERROR collecting "); ok {
			d.Test, d.Path = "", rest
		} else if _, rest, ok := strings.Cut(r.name, " of "); ok && strings.HasPrefix(r.name, "ERROR at ") {
			d.Test = rest
		}
		fillFromReport(&d, r)
		if d.Message == "" {
			d.Message = "test failed"
		}
		c.add(d, r.from, r.to)
	}
}

// matchReport finds the report of a short-summary entry: a failure's
// header is the test's name within its file ("TestCart.test_add" for
// tests/test_cart.py::TestCart::test_add), an error's names the phase.
func matchReport(reports []*pytestReport, kind, id string) *pytestReport {
	file, name, _ := strings.Cut(id, "::")
	name = strings.ReplaceAll(name, "::", ".")
	for _, r := range reports {
		if r.used {
			continue
		}
		switch {
		case kind == "FAILED" && (r.name == name || r.name == ""),
			kind == "ERROR" && name == "" && r.name == "ERROR collecting "+file,
			kind == "ERROR" && name != "" && strings.HasPrefix(r.name, "ERROR at ") && strings.HasSuffix(r.name, " of "+name):
			return r
		}
	}
	return nil
}

// fillFromReport takes the location, exception and E lines of a report.
func fillFromReport(d *Diagnostic, r *pytestReport) {
	dedent(r.e)
	d.Path, d.Line = r.path, r.line
	if d.Path == "" {
		d.Path, d.Line = r.frame, r.fline
	}
	if d.Path == "" {
		if file, _, _ := strings.Cut(d.Test, "::"); strings.HasSuffix(file, ".py") {
			d.Path = file
		}
	}
	for _, e := range r.e {
		if m := pytestFileLine.FindStringSubmatch(e); m != nil {
			d.Path, d.Line = m[1], atoi(m[2]) // a SyntaxError: where the bad source is
		}
	}
	if r.exc != "" && !strings.ContainsAny(r.exc, " ") {
		d.Code = r.exc
	}
	if d.Code == "" {
		for _, l := range r.e {
			if exc, _, ok := strings.Cut(l, ": "); ok && strings.HasSuffix(exc, "Error") && !strings.ContainsAny(exc, " .") {
				d.Code = exc
			}
		}
	}
	// The E lines end with the exception ("E   ModuleNotFoundError: …")
	// or start with the failed assertion ("E   assert 1 == 2"); the short
	// summary, if any, already chose one of them as the message.
	msg := -1
	for k, l := range r.e {
		switch {
		case d.Message != "" && l == d.Message:
			msg = k
		case d.Message == "" && d.Code != "" && strings.HasPrefix(l, d.Code+":"):
			msg = k
		}
	}
	if d.Message == "" && len(r.e) > 0 {
		msg = max(msg, 0)
		d.Message = r.e[msg]
	}
	e := make([]string, 0, len(r.e))
	for k, l := range r.e {
		if k != msg {
			e = append(e, l)
		}
	}
	d.Detail = strings.Join(e, "\n")
}

// pytestTally reads the counts of the final summary.
func pytestTally(c *collector, s string) {
	c.passed, c.failed, c.skipped = 0, 0, 0
	for _, m := range pytestCount.FindAllStringSubmatch(s, -1) {
		n := atoi(m[1])
		switch m[2] {
		case "passed", "xpassed":
			c.passed += n
		case "failed":
			c.failed += n
		case "skipped", "xfailed":
			c.skipped += n
		}
	}
}

// dedent removes the indentation the E lines share, keeping the rest (a
// SyntaxError's caret, pytest's "+  where" explanations).
func dedent(lines []string) {
	n := -1
	for _, l := range lines {
		if strings.TrimSpace(l) != "" && (n < 0 || indent(l) < n) {
			n = indent(l)
		}
	}
	for k, l := range lines {
		lines[k] = trimIndent(l, n)
	}
}

package diag

import (
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

var (
	// tscPlain is tsc's default form when not on a terminal:
	// "src/a.ts(3,5): error TS2304: msg".
	tscPlain = lazyre.New(`^(.+?)\((\d+),(\d+)\): (error|warning|message) (TS\d+): (.*)$`)
	// tscPretty is the --pretty form: "src/a.ts:3:5 - error TS2304: msg".
	tscPretty = lazyre.New(`^(.+?):(\d+):(\d+) - (error|warning|message) (TS\d+): (.*)$`)
	// tscGlobal is a diagnostic without a file: "error TS5058: msg".
	tscGlobal = lazyre.New(`^(error|warning|message) (TS\d+): (.*)$`)
	// tscRelated is related information in the pretty form:
	// "  src/a.ts:9:32 - 'age' is declared here."
	tscRelated = lazyre.New(`^\s+(.+?):(\d+):(\d+) - (.*)$`)
	// tscFound is the pretty summary: "Found 6 errors in 2 files.",
	// "[12:00:00 PM] Found 0 errors. Watching for file changes."
	tscFound = lazyre.New(`(^|\] )Found \d+ errors?\b`)
	// tscSnippet is a source line or an underline of the pretty form.
	tscSnippet = lazyre.New(`^\s*\d+ |^\s*~+\s*$|^\s+[\s~]*~[\s~]*$`)
)

// parseTsc reads tsc output in both forms. A message chain continues on
// lines indented by two spaces; the pretty form then shows the source
// and related locations, which go into Detail too.
func parseTsc(c *collector, lines []string) {
	var cur *goMsg
	snippet := false // cur's header was followed by a blank line
	flush := func() {
		if cur != nil {
			c.add(cur.d, cur.from, cur.to)
			cur = nil
		}
	}
	for i, s := range lines {
		var m []string
		if m = tscPlain.FindStringSubmatch(s); m == nil {
			m = tscPretty.FindStringSubmatch(s)
		}
		if m != nil {
			flush()
			cur = &goMsg{d: Diagnostic{Severity: tscSeverity(m[4]), Code: m[5], Message: m[6], Path: m[1], Line: atoi(m[2]), Col: atoi(m[3])}, from: i, to: i}
			snippet = false
			continue
		}
		if m := tscGlobal.FindStringSubmatch(s); m != nil {
			flush()
			cur = &goMsg{d: Diagnostic{Severity: tscSeverity(m[1]), Code: m[2], Message: m[3]}, from: i, to: i}
			snippet = false
			continue
		}
		if tscFound.MatchString(s) {
			flush()
			c.summaryLine(i)
			continue
		}
		if cur == nil {
			continue
		}
		switch {
		case s == "":
			snippet = true
		case tscRelated.MatchString(s) && !tscSnippet.MatchString(s):
			cur.d.Detail, cur.to = joinDetail(cur.d.Detail, strings.TrimSpace(s)), i
		case !snippet && strings.HasPrefix(s, "  "):
			cur.d.Detail, cur.to = joinDetail(cur.d.Detail, strings.TrimRight(s[2:], " ")), i
		case snippet && (tscSnippet.MatchString(s) || strings.HasPrefix(s, "  ")):
			cur.to = i
		default:
			flush()
		}
	}
	flush()
}

func tscSeverity(s string) Severity {
	switch s {
	case "warning":
		return SeverityWarning
	case "message":
		return SeverityInfo
	}
	return SeverityError
}

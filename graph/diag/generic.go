package diag

import (
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

var (
	// genericLine is "path:line:col: message" or "path:line: message", the
	// form of gcc, clang, mypy, shellcheck -f gcc, golangci-lint and many
	// more.
	genericLine = lazyre.New(`^([^\s:][^:]*?):(\d+)(?::(\d+))?:\s*(.*)$`)
	// genericLevel is a severity word at the start of the message:
	// "error: …", "warning[W0612]: …", "fatal error: …".
	genericLevel = lazyre.New(`^(?i)(fatal error|error|warning|warn|note|info|hint)(?:\[([^\]]+)\])?:\s*(.*)$`)
	// genericTag is a severity tag at the end: "… [error]", "… (warning)".
	genericTag = lazyre.New(`^(?i)(.*?)\s*[\[(](error|warning)[\])]$`)
	// genericCode is a rule or check code: a trailing "[return-value]"
	// (mypy) or "[-Wunused-variable]" (gcc), or a leading "F401" (flake8).
	genericCode     = lazyre.New(`^(.*?)\s+\[([\w-]+)\]$`)
	genericCodeHead = lazyre.New(`^([A-Z]{1,3}\d{2,4}) (.*)$`)
	// genericPath is what a file path looks like: it has a directory or
	// an extension, and starts with neither a digit nor a dash (times,
	// flags).
	genericPath = lazyre.New(`^[^\d\-][^\s]*(/[^\s/]+|\.[A-Za-z0-9]+)$`)
)

// parseGeneric reads "path:line[:col]: message" lines of any tool. A
// severity word at the start of the message ("error:", "warning:") or a
// tag at its end ("[error]") sets the severity; without one the finding
// is a warning, as most tools that print no level are linters. Indented
// lines after a finding become its detail.
func parseGeneric(c *collector, tool string, lines []string) {
	var cur *goMsg
	flush := func() {
		if cur != nil {
			c.add(cur.d, cur.from, cur.to)
			cur = nil
		}
	}
	for i, s := range lines {
		m := genericLine.FindStringSubmatch(s)
		if m == nil || !genericPath.MatchString(m[1]) || strings.Contains(m[1], "://") {
			if cur != nil && s != "" && (s[0] == ' ' || s[0] == '\t') {
				cur.d.Detail, cur.to = joinDetail(cur.d.Detail, strings.TrimRight(s, " \t")), i
				continue
			}
			flush()
			continue
		}
		flush()
		d := Diagnostic{Severity: SeverityWarning, Path: m[1], Line: atoi(m[2]), Col: atoi(m[3]), Message: m[4]}
		if l := genericLevel.FindStringSubmatch(d.Message); l != nil {
			d.Severity, d.Code, d.Message = genericSeverity(l[1]), l[2], l[3]
		} else if t := genericTag.FindStringSubmatch(d.Message); t != nil {
			d.Severity, d.Message = genericSeverity(t[2]), t[1]
		}
		if k := genericCode.FindStringSubmatch(d.Message); k != nil && d.Code == "" {
			d.Message, d.Code = k[1], k[2]
		} else if k := genericCodeHead.FindStringSubmatch(d.Message); k != nil && d.Code == "" {
			d.Code, d.Message = k[1], k[2]
		}
		cur = &goMsg{d: d, from: i, to: i}
	}
	flush()
}

func genericSeverity(word string) Severity {
	switch strings.ToLower(word) {
	case "error", "fatal error":
		return SeverityError
	case "note", "info":
		return SeverityInfo
	case "hint":
		return SeverityHint
	}
	return SeverityWarning
}

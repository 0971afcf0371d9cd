package diag

import (
	"encoding/json"
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

var (
	// eslintStylish is a message of the default formatter, under a line
	// naming the file: "  3:7  error  'x' is defined but never used  no-unused-vars".
	eslintStylish = lazyre.New(`^\s+(\d+):(\d+)\s+(error|warning)\s+(.*)$`)
	// eslintCompact: "/p/a.js: line 3, col 7, Error - msg (rule)".
	eslintCompact = lazyre.New(`^(.+?): line (\d+), col (\d+), (Error|Warning) - (.*)$`)
	// eslintUnix: "/p/a.js:3:7: msg [Error/rule]".
	eslintUnix = lazyre.New(`^(.+?):(\d+):(\d+): (.*) \[(Error|Warning)(?:/([^\]]+))?\]$`)
	// eslintRule is the shape of a rule id: "semi",
	// "@typescript-eslint/no-unused-vars", "react-hooks/exhaustive-deps".
	eslintRule = lazyre.New(`^@?[a-z0-9][\w.-]*(/[\w.-]+)*$`)
	// eslintSummary: "✖ 6 problems (3 errors, 3 warnings)", "6 problems".
	eslintSummary = lazyre.New(`^(✖ )?\d+ problems?( \(|$)`)
	// eslintSpaces separates the columns of the stylish formatter.
	eslintSpaces = lazyre.New(`\s{2,}`)
)

// eslintFile is one file of the json formatter's output.
type eslintFile struct {
	FilePath string `json:"filePath"`
	Messages []struct {
		RuleID    *string `json:"ruleId"`
		Severity  int     `json:"severity"`
		Message   string  `json:"message"`
		Line      int     `json:"line"`
		Column    int     `json:"column"`
		EndLine   int     `json:"endLine"`
		EndColumn int     `json:"endColumn"`
	} `json:"messages"`
}

// parseESLint reads the stylish (default), compact, unix and json
// formatters, and ESLint's own crash report.
func parseESLint(c *collector, lines []string) {
	file := ""
	for i := 0; i < len(lines); i++ {
		s := lines[i]
		if strings.HasPrefix(s, "[{") || s == "[]" {
			if end, ok := eslintJSON(c, lines, i); ok {
				i = end
				continue
			}
		}
		if m := eslintStylish.FindStringSubmatch(s); m != nil && file != "" {
			d := Diagnostic{Severity: eslintSeverity(m[3]), Path: file, Line: atoi(m[1]), Col: atoi(m[2])}
			cols := eslintSpaces.Split(strings.TrimSpace(m[4]), -1)
			if n := len(cols); n > 1 && eslintRule.MatchString(cols[n-1]) {
				d.Code, cols = cols[n-1], cols[:n-1]
			}
			d.Message = strings.Join(cols, "  ")
			c.add(d, i, i)
			continue
		}
		if m := eslintCompact.FindStringSubmatch(s); m != nil {
			d := Diagnostic{Severity: eslintSeverity(m[4]), Path: m[1], Line: atoi(m[2]), Col: atoi(m[3]), Message: m[5]}
			if j := strings.LastIndex(d.Message, " ("); j > 0 && strings.HasSuffix(d.Message, ")") && eslintRule.MatchString(d.Message[j+2:len(d.Message)-1]) {
				d.Code, d.Message = d.Message[j+2:len(d.Message)-1], d.Message[:j]
			}
			c.add(d, i, i)
			continue
		}
		if m := eslintUnix.FindStringSubmatch(s); m != nil {
			c.add(Diagnostic{Severity: eslintSeverity(m[5]), Code: m[6], Path: m[1], Line: atoi(m[2]), Col: atoi(m[3]), Message: m[4]}, i, i)
			continue
		}
		switch {
		case eslintSummary.MatchString(s):
			c.summaryLine(i)
			file = ""
		case strings.HasPrefix(s, "Oops! Something went wrong!"):
			// ESLint's crash report: the message follows after a blank
			// line and the version.
			d := Diagnostic{Severity: SeverityError, Message: s}
			end := i
			for k := i + 1; k < len(lines) && k <= i+MaxDetailLines; k++ {
				if l := strings.TrimSpace(lines[k]); l != "" && !strings.HasPrefix(l, "ESLint: ") {
					d.Detail = joinDetail(d.Detail, l)
					end = k
				}
			}
			if d.Detail != "" {
				d.Message, d.Detail, _ = strings.Cut(d.Detail, "\n")
			}
			c.add(d, i, end)
			i = end
		case s != "" && !strings.HasPrefix(s, " ") && !strings.HasPrefix(s, "\t"):
			file = s // stylish: the file the following messages are in
		case s == "":
			file = ""
		}
	}
}

// eslintJSON decodes the json formatter's array starting at line i and
// returns the last line it took.
func eslintJSON(c *collector, lines []string, i int) (int, bool) {
	text := strings.Join(lines[i:], "\n")
	dec := json.NewDecoder(strings.NewReader(text))
	var files []eslintFile
	if dec.Decode(&files) != nil {
		return i, false
	}
	end := i + strings.Count(text[:dec.InputOffset()], "\n")
	for _, f := range files {
		for _, m := range f.Messages {
			d := Diagnostic{Severity: SeverityWarning, Path: f.FilePath, Message: m.Message,
				Line: m.Line, Col: m.Column, EndLine: m.EndLine, EndCol: m.EndColumn}
			if m.Severity >= 2 {
				d.Severity = SeverityError
			}
			if m.RuleID != nil {
				d.Code = *m.RuleID
			}
			// The whole array is usually one line; find the file's line
			// when it is pretty-printed.
			at := i
			for k := i; k <= end; k++ {
				if strings.Contains(lines[k], f.FilePath) {
					at = k
					break
				}
			}
			c.add(d, at, at)
		}
	}
	c.summaryLine(end)
	return end, true
}

func eslintSeverity(s string) Severity {
	if strings.EqualFold(s, "warning") {
		return SeverityWarning
	}
	return SeverityError
}

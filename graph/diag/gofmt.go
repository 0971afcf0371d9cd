package diag

import "strings"

// parseGofmt reads gofmt output. With -l (and go fmt, which runs gofmt
// -l -w) each line names a file that is not formatted; syntax errors are
// "path:line:col: message" lines. Without -l gofmt prints source, which
// is not read.
func parseGofmt(c *collector, cmd command, lines []string) {
	list := cmd.hasFlag("-l", 'l')
	if !list {
		list = len(lines) > 0
		for _, s := range lines {
			if s != "" && (strings.ContainsAny(s, " \t") || !strings.HasSuffix(s, ".go")) && goBuildLine.FindStringSubmatch(s) == nil {
				list = false
				break
			}
		}
	}
	for i, s := range lines {
		if m := goBuildLine.FindStringSubmatch(s); m != nil && m[1] == "" && !strings.ContainsAny(m[2], " \t") {
			c.add(Diagnostic{Severity: SeverityError, Message: m[5], Path: m[2], Line: atoi(m[3]), Col: atoi(m[4])}, i, i)
			continue
		}
		if p := strings.TrimSpace(s); list && p != "" && !strings.ContainsAny(p, " \t") {
			c.add(Diagnostic{Severity: SeverityWarning, Message: "not gofmt-formatted", Path: p}, i, i)
		}
	}
}

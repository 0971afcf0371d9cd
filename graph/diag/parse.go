package diag

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// The tools Parse recognises; Summary.Tool and Diagnostic.Tool hold them.
const (
	ToolGoBuild = "go build"
	ToolGoVet   = "go vet"
	ToolGoTest  = "go test"
	ToolGofmt   = "gofmt"
	ToolCargo   = "cargo"
	ToolRustc   = "rustc"
	ToolTsc     = "tsc"
	ToolESLint  = "eslint"
	ToolPytest  = "pytest"
)

// Parse reads the output of the command name (as the user typed it: "go
// test ./...", "npx tsc --noEmit") that ran in the directory root, and
// returns its diagnostics and summary. It never fails: output it does not
// understand gives no diagnostics.
//
// The tool comes from the command name, with wrappers (npx, python -m,
// env assignments, …) skipped; when the name does not tell, from the
// output (cargo and go test JSON, tsc, pytest, eslint, cargo and go text).
// Output of any other tool goes through the generic parser, which reads
// "path:line:col: message" lines.
//
// For go test, the file names in test output are relative to the
// package's directory; Parse maps packages to directories from the output
// (build errors, stack traces) and from the module path in root/go.mod,
// the only file it reads.
func Parse(name string, output []byte, root string) *Result {
	lines := splitLines(output)
	cmd := parseCommand(name)
	c := newCollector(root)
	tool := cmd.tool
	if tool == "" {
		tool = sniff(lines)
	}
	switch tool {
	case ToolGoBuild, ToolGoVet, ToolGoTest:
		parseGo(c, tool, cmd, lines)
	case ToolGofmt:
		parseGofmt(c, cmd, lines)
	case ToolCargo, ToolRustc:
		parseCargo(c, tool, lines)
	case ToolTsc:
		parseTsc(c, lines)
	case ToolESLint:
		parseESLint(c, lines)
	case ToolPytest:
		parsePytest(c, lines)
	default:
		tool = cmd.prog
		parseGeneric(c, tool, lines)
	}
	return c.result(tool)
}

// command is what the command name says about the tool.
type command struct {
	prog string   // the program, after wrappers: "go", "eslint", "make"
	args []string // its arguments
	tool string   // the tool, if prog is one Parse knows
}

// hasFlag reports whether one of the arguments is the flag, alone or as
// part of a group of one-letter flags ("-l" in "-s -l" or "-lw").
func (c command) hasFlag(long string, short byte) bool {
	for _, a := range c.args {
		if a == "--" {
			break
		}
		if a == long || a == "-"+long {
			return true
		}
		if v, ok := strings.CutPrefix(strings.TrimPrefix(a, "-"), long+"="); ok {
			return v != "false" && v != "0"
		}
		if short != 0 && len(a) > 1 && a[0] == '-' && a[1] != '-' && !strings.Contains(a, "=") &&
			len(a) <= 4 && strings.IndexByte(a[1:], short) >= 0 {
			return true
		}
	}
	return false
}

// wrappers run another program named by their next non-flag argument.
var wrappers = map[string]bool{
	"env": true, "time": true, "sudo": true, "command": true, "exec": true, "nice": true, "nohup": true,
	"npx": true, "pnpx": true, "bunx": true, "uvx": true, "yarn": true, "pnpm": true, "bun": true,
}

// subWrappers run another program named after a subcommand: "npm exec
// tsc", "uv run pytest", "poetry run pytest".
var subWrappers = map[string]string{
	"npm": "exec x", "pnpm": "exec dlx", "yarn": "dlx exec", "bun": "x", "uv": "run", "poetry": "run",
	"pipenv": "run", "hatch": "run", "pdm": "run", "rye": "run",
}

func parseCommand(name string) command {
	f := strings.Fields(name)
	i := 0
	for i < len(f) {
		p := path.Base(f[i])
		switch {
		case strings.Contains(f[i], "=") && !strings.HasPrefix(f[i], "-"):
			i++ // VAR=value
			continue
		case subWrappers[p] != "" && i+1 < len(f) && slices.Contains(strings.Fields(subWrappers[p]), f[i+1]):
			i += 2
		case wrappers[p]:
			i++
		case strings.HasPrefix(p, "python") && i+2 < len(f) && f[i+1] == "-m":
			i += 2
		default:
			return newCommand(f[i:])
		}
		for i < len(f) && strings.HasPrefix(f[i], "-") {
			i++ // wrapper flags: npx --yes, env -i
		}
	}
	return command{}
}

func newCommand(f []string) command {
	prog := strings.TrimSuffix(path.Base(f[0]), ".exe")
	c := command{prog: prog, args: f[1:]}
	sub := ""
	for j, a := range c.args {
		if !strings.HasPrefix(a, "-") && (j == 0 || c.args[j-1] != "-C") {
			sub = a
			break
		}
	}
	switch prog {
	case "go":
		switch sub {
		case "test":
			c.tool = ToolGoTest
		case "vet":
			c.tool = ToolGoVet
		case "fmt":
			c.tool = ToolGofmt
			c.args = append(c.args, "-l") // go fmt runs gofmt -l -w
		default:
			c.tool = ToolGoBuild
		}
	case "gofmt", "goimports":
		c.tool = ToolGofmt
	case "cargo":
		c.tool = ToolCargo
	case "rustc", "clippy-driver":
		c.tool = ToolRustc
	case "tsc", "vue-tsc", "tsgo":
		c.tool = ToolTsc
	case "eslint":
		c.tool = ToolESLint
	case "pytest", "py.test":
		c.tool = ToolPytest
	}
	return c
}

// sniffLimit bounds how many lines sniff reads.
const sniffLimit = 5000

var (
	sniffTsc    = lazyre.New(`(\(\d+,\d+\): | - )(error|warning) TS\d+: `)
	sniffPytest = lazyre.New(`^=+ (test session starts|FAILURES|ERRORS|short test summary info) =+$|^(FAILED|ERROR) \S+\.py(::\S+)?( - |$)`)
	sniffRust   = lazyre.New(`^\s*--> \S.*:\d+:\d+$|^test result: (ok|FAILED)\. \d+ passed`)
	sniffESLint = lazyre.New(`^\s+\d+:\d+\s+(error|warning)\s+\S|^✖ \d+ problems? \(|: line \d+, col \d+, (Error|Warning) - |:\d+:\d+: .* \[(Error|Warning)(/[^\]]+)?\]$`)
	sniffGo     = lazyre.New(`^\s*--- (FAIL|PASS|SKIP): \S|^=== RUN\s|^(ok|FAIL)\s+\S+\s+(\d+\.\d+s|\(cached\)|\[build failed\])`)
	sniffGoPkg  = lazyre.New(`^# \S+$`)
)

// sniff guesses the tool from the output when the command name does not
// tell ("make test", "npm run lint"). Machine-readable formats are the
// surest signs, so they are looked for first.
func sniff(lines []string) string {
	if len(lines) > sniffLimit {
		lines = lines[:sniffLimit]
	}
	for _, s := range lines {
		switch {
		case strings.HasPrefix(s, `{"reason":"`):
			return ToolCargo
		case strings.HasPrefix(s, `{"Time":"`) && strings.Contains(s, `"Action":"`),
			strings.HasPrefix(s, `{"Action":"`), strings.HasPrefix(s, `{"ImportPath":"`):
			return ToolGoTest
		case strings.HasPrefix(s, `[{"filePath":"`):
			return ToolESLint
		}
	}
	for _, t := range []struct {
		re   *lazyre.RE
		tool string
	}{{sniffTsc, ToolTsc}, {sniffPytest, ToolPytest}, {sniffRust, ToolCargo}, {sniffESLint, ToolESLint}, {sniffGo, ToolGoTest}} {
		for _, s := range lines {
			if t.re.MatchString(s) {
				return t.tool
			}
		}
	}
	for i, s := range lines {
		if sniffGoPkg.MatchString(s) && i+1 < len(lines) && goBuildLine.MatchString(lines[i+1]) {
			return ToolGoBuild
		}
	}
	return ""
}

// ansi matches terminal escape sequences: CSI (colours, cursor motion)
// and OSC (hyperlinks, titles).
var ansi = lazyre.New("\x1b\\[[0-9;?]*[ -/]*[@-~]|\x1b\\][^\x07\x1b]*(\x07|\x1b\\\\)?|\x1b[@-Z\\\\-_]")

// splitLines splits output into lines without their ends, with escape
// sequences removed. A carriage return inside a line (a progress bar
// redrawn) keeps what the terminal would show last.
func splitLines(output []byte) []string {
	if len(output) == 0 {
		return nil
	}
	output = bytes.TrimSuffix(output, []byte("\n"))
	hasEsc := bytes.IndexByte(output, 0x1b) >= 0
	lines := strings.Split(string(output), "\n")
	for i, s := range lines {
		s = strings.TrimSuffix(s, "\r")
		if j := strings.LastIndexByte(s, '\r'); j >= 0 {
			s = s[j+1:]
		}
		if hasEsc {
			s = ansi.Regexp().ReplaceAllString(s, "")
		}
		lines[i] = s
	}
	return lines
}

// collector gathers what a parser finds and turns it into a Result.
type collector struct {
	root    string
	diags   []Diagnostic
	sources []span
	summary []int
	// tests counts tests; -1 means the output did not tell.
	passed, failed, skipped int
}

func newCollector(root string) *collector {
	root = strings.TrimSpace(root)
	if root != "" {
		root = path.Clean(root)
		if !path.IsAbs(root) {
			root = "" // relative roots cannot be matched against absolute paths
		}
	}
	return &collector{root: root, passed: -1, failed: -1, skipped: -1}
}

// add records d, found on output lines from to to (0-based, inclusive).
func (c *collector) add(d Diagnostic, from, to int) {
	if to < from {
		to = from
	}
	c.diags = append(c.diags, d)
	c.sources = append(c.sources, span{from, to})
}

// summaryLine marks output line i as one that summarises the run.
func (c *collector) summaryLine(i int) { c.summary = append(c.summary, i) }

// count adds to a test count that may still be unknown.
func count(n *int, k int) {
	if *n < 0 {
		*n = 0
	}
	*n += k
}

func (c *collector) result(tool string) *Result {
	r := &Result{Diagnostics: []Diagnostic{}}
	idx := make([]int, len(c.diags))
	for i := range idx {
		idx[i] = i
	}
	// Parsers that buffer (go test holds a package's messages until its
	// result line) may add out of order; the output order is the truth.
	slices.SortStableFunc(idx, func(a, b int) int { return c.sources[a].from - c.sources[b].from })
	seen := make(map[Diagnostic]bool, len(c.diags))
	for _, i := range idx {
		d := c.clean(c.diags[i], tool)
		if seen[d] {
			continue
		}
		seen[d] = true
		r.Diagnostics = append(r.Diagnostics, d)
		r.sources = append(r.sources, c.sources[i])
	}
	slices.Sort(c.summary)
	r.summaryLines = slices.Compact(c.summary)
	r.Summary = Summary{Tool: clip(oneLine(tool), 64), Passed: c.passed, Failed: c.failed, Skipped: c.skipped}
	for _, d := range r.Diagnostics {
		switch d.Severity {
		case SeverityError:
			r.Summary.Errors++
		case SeverityWarning:
			r.Summary.Warnings++
		}
	}
	r.Summary.Text = summaryText(r.Summary, r.Diagnostics)
	r.limit()
	return r
}

// limit keeps at most MaxDiagnostics diagnostics, errors first, in their
// order; the summary still counts them all.
func (r *Result) limit() {
	if len(r.Diagnostics) <= MaxDiagnostics {
		return
	}
	keep := make([]bool, len(r.Diagnostics))
	n := 0
	for pass := 0; pass < 2; pass++ {
		for i, d := range r.Diagnostics {
			if n < MaxDiagnostics && !keep[i] && (pass == 1 || d.Severity == SeverityError) {
				keep[i] = true
				n++
			}
		}
	}
	ds, srcs := r.Diagnostics[:0], r.sources[:0]
	for i := range keep {
		if keep[i] {
			ds, srcs = append(ds, r.Diagnostics[i]), append(srcs, r.sources[i])
		}
	}
	r.Diagnostics, r.sources = ds, srcs
}

// clean makes d valid: UTF-8 text, a one-line message within its limit,
// capped detail, a clean path and a consistent range.
func (c *collector) clean(d Diagnostic, tool string) Diagnostic {
	if !d.Severity.Valid() {
		d.Severity = SeverityError
	}
	if d.Tool == "" {
		d.Tool = tool
	}
	d.Tool = clip(oneLine(d.Tool), 64)
	d.Code = clip(oneLine(d.Code), 128)
	d.Test = clip(oneLine(d.Test), 512)
	msg := strings.TrimSpace(strings.ToValidUTF8(d.Message, "\uFFFD"))
	first, rest, _ := strings.Cut(msg, "\n")
	d.Message = clip(strings.TrimSpace(strings.TrimSuffix(first, "\r")), MaxMessageBytes)
	if d.Message == "" {
		d.Message = "(no message)"
		if d.Code != "" {
			d.Message = d.Code
		}
	}
	if rest != "" {
		d.Detail = strings.TrimRight(rest, "\n") + "\n" + d.Detail
	}
	d.Detail = capDetail(d.Detail)
	d.Path, d.External = normPath(d.Path, c.root)
	if d.Line < 0 {
		d.Line = 0
	}
	if d.Col < 0 || d.Line == 0 {
		d.Col = 0
	}
	if d.EndLine < d.Line || d.Line == 0 {
		d.EndLine = 0
	}
	if d.EndCol < 0 || d.EndLine == 0 || d.EndLine == d.Line && d.EndCol < d.Col {
		d.EndCol = 0
	}
	return d
}

// oneLine returns s as valid UTF-8 with line breaks replaced by spaces.
func oneLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.ContainsAny(s, "\r\n") {
		s = strings.Join(strings.Fields(s), " ")
	}
	return strings.TrimSpace(s)
}

// clip cuts s to at most n bytes, at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// capDetail trims detail to MaxDetailLines lines and MaxDetailBytes bytes,
// marking the cut.
func capDetail(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r", "")
	s = strings.Trim(s, "\n")
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	cut := false
	if len(lines) > MaxDetailLines {
		lines, cut = lines[:MaxDetailLines-1], true
	}
	var b strings.Builder
	for i, l := range lines {
		l = strings.TrimRight(l, " \t")
		if b.Len()+len(l)+1 > MaxDetailBytes-64 {
			cut = true
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
	}
	if cut {
		b.WriteString("\n…")
	}
	return b.String()
}

// normPath makes p root-relative and clean, and reports whether it lies
// outside the root.
func normPath(p, root string) (string, bool) {
	p = strings.TrimSpace(oneLine(p))
	p = strings.TrimPrefix(p, "file://")
	if p == "" {
		return "", false
	}
	p = path.Clean(p)
	switch {
	case strings.HasPrefix(p, "<"):
		return p, true // <anon>, <::core::macros>: not a file
	case path.IsAbs(p):
		switch {
		case root == "/":
			p = p[1:]
		case root != "" && p == root:
			p = "."
		case root != "" && strings.HasPrefix(p, root+"/"):
			p = p[len(root)+1:]
		default:
			return p, true
		}
	case p == ".." || strings.HasPrefix(p, "../"):
		return p, true
	}
	if p == "." {
		return "", false
	}
	return p, false
}

// summaryText writes Summary.Text: the tool, then the test counts when
// known, then the errors not tied to a failing test (their codes, if
// few) and the warnings.
func summaryText(s Summary, ds []Diagnostic) string {
	var parts []string
	if s.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", s.Failed))
	}
	if s.Passed > 0 || s.Passed == 0 && s.Failed == 0 {
		parts = append(parts, fmt.Sprintf("%d passed", s.Passed))
	}
	if s.Skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped", s.Skipped))
	}
	errs := 0
	var codes []string
	for _, d := range ds {
		if d.Severity != SeverityError || d.Test != "" && s.Failed > 0 {
			continue
		}
		errs++
		if d.Code != "" && !slices.Contains(codes, d.Code) {
			codes = append(codes, d.Code)
		}
	}
	if errs > 0 {
		e := plural(errs, "error")
		switch {
		case len(codes) > 3:
			e += " (" + strings.Join(codes[:3], ", ") + ", …)"
		case len(codes) > 0:
			e += " (" + strings.Join(codes, ", ") + ")"
		}
		parts = append(parts, e)
	}
	if s.Warnings > 0 {
		parts = append(parts, plural(s.Warnings, "warning"))
	}
	text := "no diagnostics"
	if len(parts) > 0 {
		text = strings.Join(parts, ", ")
	}
	if s.Tool != "" {
		text = s.Tool + ": " + text
	}
	return clip(text, 512)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// atoi parses a line or column number; anything else, or a number too
// large to be one, gives 0 (unknown).
func atoi(s string) int {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil || n < 0 {
		return 0
	}
	return int(n)
}

// indent returns the width of s's leading white space, a tab counting as
// four spaces.
func indent(s string) int {
	n := 0
	for _, r := range s {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

// joinDetail appends a line to a detail text being collected.
func joinDetail(detail, line string) string {
	if strings.Count(detail, "\n") > MaxDetailLines+1 {
		return detail // capDetail will mark the cut
	}
	if detail == "" {
		return line
	}
	return detail + "\n" + line
}

// failedTest is the diagnostic of a failed test that reported nothing
// with a location: its first line of output, if short and not a heading
// ("got:"), becomes part of the message.
func failedTest(test string, output []string) Diagnostic {
	d := Diagnostic{Severity: SeverityError, Message: "test failed", Test: test, Detail: strings.Join(output, "\n")}
	if len(output) > 0 {
		if l := strings.TrimSpace(output[0]); l != "" && len(l) < 200 && !strings.HasSuffix(l, ":") {
			d.Message, d.Detail = "test failed: "+l, strings.Join(output[1:], "\n")
		}
	}
	return d
}

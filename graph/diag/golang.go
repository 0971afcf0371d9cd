package diag

import (
	"encoding/json"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

var (
	// goHeader is the line go build prints before a package's errors:
	// "# example.com/m/pkg", "# example.com/m/pkg [example.com/m/pkg.test]",
	// or for vet inside go test "# [example.com/m/pkg]".
	goHeader = lazyre.New(`^# (\S+)(?: \[\S+\])?$`)
	// goBuildLine is a compiler or vet diagnostic, at the start of a line.
	goBuildLine = lazyre.New(`^(vet: )?([^\s:][^:]*?):(\d+)(?::(\d+))?: (.*)$`)
	// goTestMsg is a t.Error/t.Log line: indented, a file name and a line.
	goTestMsg = lazyre.New(`^(\s+)([^\s:][^:]*\.go):(\d+): ?(.*)$`)
	// goResult is a test's result line, indented by four spaces per level
	// of subtest.
	goResult = lazyre.New(`^\s*--- (FAIL|PASS|SKIP): (\S+)(?: \(.*\))?$`)
	// goRun is a -v progress line.
	goRun = lazyre.New(`^=== (RUN|CONT|NAME|PAUSE)\s+(\S+)`)
	// goPkgResult is a package's result line: "ok  \tpkg\t0.1s",
	// "FAIL\tpkg [build failed]", "?   \tpkg\t[no test files]".
	goPkgResult = lazyre.New(`^(ok|FAIL|\?)\s+(\S+)(?:\s+(.*))?$`)
	goPkgTail   = lazyre.New(`^(\d+\.\d+s|\(cached\)|\[)`)
	// goFrame is the file line of a stack frame.
	goFrame = lazyre.New(`^\t(\S+\.(?:go|s)):(\d+)(?: \+0x[0-9a-f]+)?$`)
	// goQuiet are go command lines that report progress, not problems.
	goQuiet = lazyre.New(`^go: (downloading|finding|extracting|found|added|upgraded|downgraded|removed|creating|to add|module \S+ found|updates to go.mod needed; to update it:)`)
)

// goEvent is one line of go test -json (cmd/test2json), including the
// build events of Go 1.24 and later.
type goEvent struct {
	Action  string
	Package string
	Test    string
	Output  *string
}

// goParser reads go build, go vet and go test output, plain or -json. A
// package's test output is held in a block until the package's result,
// which names the package (plain output names it last) and says which
// tests failed (-v prints t.Log lines of passing tests too).
type goParser struct {
	c           *collector
	tool        string
	vetJSONMode bool // go vet -json output
	modPath     string
	pkgDirs     map[string]string
	plain       *goBlock            // the block of plain output being read
	blocks      map[string]*goBlock // -json blocks by package
	// header is the package of the last "# pkg" line; build holds the
	// last build diagnostic, for its tab-indented continuation lines.
	header string
	build  *goMsg
	// built records the packages whose build errors the output shows, so
	// that their "[build failed]" result adds nothing.
	built map[string]bool
	// verbose: the output shows passing tests (-v or -json), so their
	// count is known.
	verbose bool
	lines   []string
	// relative are the diagnostics whose file is relative to their
	// package's directory, resolved when all output is read.
	relative []goRelative
}

type goRelative struct {
	diag      int // index in the collector
	pkg, file string
}

// goBlock is the output of one package's test binary.
type goBlock struct {
	pkg     string
	cur     string // the test the plain output is in
	msgs    []*goMsg
	open    map[string]*goMsg // by test: the message whose continuation lines follow
	panic   *goMsg
	results map[string]string // test → FAIL, PASS, SKIP
	order   []string          // tests in order of their results
	where   map[string]int    // test → the output line of its result
	loose   map[string][]string
	first   int // the block's first output line
	status  string
	statusL int
}

// goMsg is a located test message or a panic, not yet known to matter.
type goMsg struct {
	d        Diagnostic
	file     string // as printed: a name in the package directory, or a path
	from, to int
	indent   int
	panic    bool
	frames   []goFrameRef
	running  []string // tests running when a timeout panic struck
}

type goFrameRef struct {
	fn, file string
	line     int
}

func parseGo(c *collector, tool string, cmd command, lines []string) {
	g := &goParser{c: c, tool: tool, pkgDirs: map[string]string{}, built: map[string]bool{}, blocks: map[string]*goBlock{}, lines: lines}
	g.modPath = readModulePath(c.root)
	if tool == ToolGoTest {
		c.failed = 0
	}
	if tool == ToolGoVet && (cmd.hasFlag("-json", 0) || looksLikeVetJSON(lines)) {
		g.vetJSONMode = true
	}
	g.plain = g.newBlock("", 0)
	for i := 0; i < len(lines); i++ {
		s := lines[i]
		if g.vetJSONMode && s == "{" {
			i = g.vetJSON(i)
			continue
		}
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			var ev goEvent
			if json.Unmarshal([]byte(s), &ev) == nil && ev.Action != "" {
				g.event(i, &ev)
				continue
			}
		}
		g.text(g.plain, g.plain.cur, false, i, s)
	}
	g.finish(g.plain, "", "", len(lines)-1)
	for _, b := range g.sortedBlocks() {
		g.finish(b, b.pkg, "", len(lines)-1)
	}
	for _, r := range g.relative {
		if dir, ok := g.dirOf(r.pkg); ok {
			c.diags[r.diag].Path = path.Join(dir, r.file)
		}
	}
	if g.verbose && tool == ToolGoTest {
		if c.passed < 0 {
			c.passed = 0
		}
		if c.skipped < 0 {
			c.skipped = 0
		}
	}
}

// readModulePath returns the module path declared in root/go.mod, or "".
func readModulePath(root string) string {
	if root == "" {
		return ""
	}
	data, err := os.ReadFile(filepath.Join(filepath.FromSlash(root), "go.mod"))
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

func (g *goParser) newBlock(pkg string, first int) *goBlock {
	return &goBlock{pkg: pkg, first: first, open: map[string]*goMsg{}, results: map[string]string{},
		where: map[string]int{}, loose: map[string][]string{}}
}

func (g *goParser) sortedBlocks() []*goBlock {
	// Finish in order of first output, so that the result does not
	// depend on map order.
	return slices.SortedFunc(maps.Values(g.blocks), func(a, b *goBlock) int { return a.first - b.first })
}

// event handles one go test -json event on output line i.
func (g *goParser) event(i int, ev *goEvent) {
	g.verbose = true
	if ev.Action == "build-output" || ev.Action == "build-fail" {
		if ev.Output != nil {
			for _, s := range strings.Split(strings.TrimSuffix(*ev.Output, "\n"), "\n") {
				g.text(nil, "", true, i, s)
			}
		}
		return
	}
	if ev.Package == "" {
		return
	}
	b := g.blocks[ev.Package]
	if b == nil {
		b = g.newBlock(ev.Package, i)
		g.blocks[ev.Package] = b
	}
	switch ev.Action {
	case "output":
		if ev.Output != nil {
			for _, s := range strings.Split(strings.TrimSuffix(*ev.Output, "\n"), "\n") {
				g.text(b, ev.Test, true, i, s)
			}
		}
	case "pass", "fail", "skip":
		if ev.Test != "" {
			g.result(b, strings.ToUpper(ev.Action), ev.Test, i)
			return
		}
		delete(g.blocks, ev.Package)
		g.finish(b, ev.Package, strings.ToUpper(ev.Action), i)
	}
}

// text handles output line i, s, of block b (nil for build output) in
// test test. inJSON says the line came from a -json event, whose action
// events, not the "--- FAIL" lines, give the results.
func (g *goParser) text(b *goBlock, test string, inJSON bool, i int, s string) {
	if g.build != nil {
		if strings.HasPrefix(s, "\t") && strings.TrimSpace(s) != "" {
			g.build.d.Detail = joinDetail(g.build.d.Detail, strings.TrimSpace(s))
			g.build.to = i
			return
		}
		g.flushBuild()
	}
	if b != nil {
		if m := b.open[test]; m != nil {
			if indent(s) > m.indent && strings.TrimSpace(s) != "" && !goResult.MatchString(s) {
				m.d.Detail = joinDetail(m.d.Detail, trimIndent(s, m.indent+4))
				m.to = i
				return
			}
			delete(b.open, test)
		}
		if b.panic != nil {
			if _, _, ok := pkgResult(s); ok || s == "FAIL" || strings.HasPrefix(s, "exit status ") {
				g.endPanic(b)
			} else {
				g.panicLine(b.panic, i, s)
				return
			}
		}
	}
	switch m := goHeader.FindStringSubmatch(s); {
	case m != nil:
		g.header = strings.Trim(m[1], "[]")
		return
	case strings.TrimSpace(s) == "":
		return
	}
	if m := goRun.FindStringSubmatch(s); m != nil && b != nil {
		g.verbose = true
		g.header = "" // test output now, not build output
		if !inJSON {
			b.cur = m[2]
		}
		return
	}
	if m := goResult.FindStringSubmatch(s); m != nil && b != nil {
		g.header = ""
		if !inJSON {
			g.result(b, m[1], m[2], i)
			b.cur = m[2]
		}
		return
	}
	if pkg, status, ok := pkgResult(s); ok {
		g.header = ""
		g.c.summaryLine(i)
		if b != nil && !inJSON {
			g.finish(b, pkg, status, i)
			g.plain = g.newBlock("", i+1)
		} else if b != nil {
			b.status, b.statusL = status, i
		}
		return
	}
	if b != nil && (strings.HasPrefix(s, "panic: ") || strings.HasPrefix(s, "fatal error: ")) {
		b.panic = &goMsg{d: Diagnostic{Severity: SeverityError, Message: s, Test: test}, from: i, to: i, panic: true}
		return
	}
	if m := goBuildLine.FindStringSubmatch(s); m != nil && g.isBuildLine(m, test) {
		g.buildLine(i, m)
		return
	}
	if strings.HasPrefix(s, "go: ") {
		if !goQuiet.MatchString(s) {
			d := Diagnostic{Severity: SeverityError, Message: strings.TrimPrefix(s, "go: ")}
			if w, ok := strings.CutPrefix(d.Message, "warning: "); ok {
				d.Severity, d.Message = SeverityWarning, w
			}
			g.build = &goMsg{d: d, from: i, to: i}
		}
		return
	}
	if b == nil {
		return
	}
	if m := goTestMsg.FindStringSubmatch(s); m != nil {
		msg := &goMsg{d: Diagnostic{Severity: SeverityError, Message: m[4], Line: atoi(m[3]), Test: test},
			file: m[2], from: i, to: i, indent: indent(m[1])}
		b.msgs = append(b.msgs, msg)
		b.open[test] = msg
		return
	}
	if s != "FAIL" && s != "PASS" && !strings.HasPrefix(s, "exit status ") && !strings.HasPrefix(s, "testing: warning: no tests") {
		if len(b.loose[test]) < MaxDetailLines {
			b.loose[test] = append(b.loose[test], s)
		}
	}
}

// isBuildLine tells a compiler or vet diagnostic from a program's output
// that happens to look like one: it names a Go file, go.mod or go.work,
// or follows a "# pkg" header, and it is not test output.
func (g *goParser) isBuildLine(m []string, test string) bool {
	p := m[2]
	if strings.ContainsAny(p, " \t") {
		return false
	}
	base := path.Base(p)
	goFile := strings.HasSuffix(p, ".go") || base == "go.mod" || base == "go.work" || base == "go.sum"
	if test != "" && g.header == "" {
		return false // inside a test's output: printed by the test
	}
	return goFile || g.header != "" && strings.Contains(p, ".")
}

func (g *goParser) buildLine(i int, m []string) {
	msg := m[5]
	if msg == "too many errors" {
		return
	}
	d := Diagnostic{Severity: SeverityError, Message: msg, Path: m[2], Line: atoi(m[3]), Col: atoi(m[4])}
	if g.tool == ToolGoVet && m[1] == "" && g.header == "" {
		// An analyzer's finding. Type errors come after a "# pkg" header
		// or with a "vet: " prefix. (Before Go 1.26, go vet printed the
		// header before findings too; those count as errors.)
		d.Severity = SeverityWarning
	}
	if g.header != "" && strings.HasSuffix(m[2], ".go") {
		g.learnDir(g.header, m[2])
		g.built[strings.TrimSuffix(g.header, "_test")] = true
	}
	g.build = &goMsg{d: d, from: i, to: i}
}

func (g *goParser) flushBuild() {
	if g.build != nil {
		g.c.add(g.build.d, g.build.from, g.build.to)
		g.build = nil
	}
}

// learnDir records the directory of package pkg from a file of it.
func (g *goParser) learnDir(pkg, file string) {
	p, ext := normPath(file, g.c.root)
	if ext || p == "" {
		return
	}
	pkg = strings.TrimSuffix(pkg, "_test")
	if pkg == "main" || pkg == "command-line-arguments" {
		return // not import paths: they say nothing about the module
	}
	if _, ok := g.pkgDirs[pkg]; !ok {
		g.pkgDirs[pkg] = path.Dir(p)
	}
}

// dirOf returns the root-relative directory of package pkg, or false.
func (g *goParser) dirOf(pkg string) (string, bool) {
	if d, ok := g.pkgDirs[pkg]; ok {
		return d, true
	}
	mod := g.modPath
	if mod == "" {
		// Infer the module path from a package whose directory is known:
		// example.com/m/a/b in a/b means the module is example.com/m.
		for _, p := range slices.Sorted(maps.Keys(g.pkgDirs)) {
			d := g.pkgDirs[p]
			if d == "." {
				mod = p
				break
			}
			if strings.HasSuffix(p, "/"+d) {
				mod = strings.TrimSuffix(p, "/"+d)
				break
			}
		}
	}
	switch {
	case mod == "":
		return "", false
	case pkg == mod:
		return ".", true
	case strings.HasPrefix(pkg, mod+"/"):
		return pkg[len(mod)+1:], true
	}
	return "", false
}

func (g *goParser) result(b *goBlock, res, test string, i int) {
	if _, ok := b.results[test]; !ok {
		b.order = append(b.order, test)
	}
	b.results[test] = res
	b.where[test] = i
}

// panicLine reads line i of a panic's report: the goroutine stacks, and
// for a timeout the tests that were running.
func (g *goParser) panicLine(m *goMsg, i int, s string) {
	m.to = i
	m.d.Detail = joinDetail(m.d.Detail, s)
	switch {
	case strings.HasPrefix(s, "\t\t") && strings.HasPrefix(m.d.Message, "panic: test timed out"):
		if f := strings.Fields(s); len(f) > 0 {
			m.running = append(m.running, f[0])
		}
	case goFrame.MatchString(s):
		f := goFrame.FindStringSubmatch(s)
		fn := ""
		if k := i - 1; k >= 0 && k < len(g.lines) {
			fn = g.lines[k]
			if strings.HasPrefix(fn, "{") { // -json: the previous event's output
				var ev goEvent
				if json.Unmarshal([]byte(fn), &ev) == nil && ev.Output != nil {
					fn = strings.TrimSuffix(*ev.Output, "\n")
				}
			}
		}
		if j := strings.LastIndexByte(fn, '('); j > 0 {
			fn = fn[:j]
		}
		m.frames = append(m.frames, goFrameRef{fn: fn, file: f[1], line: atoi(f[2])})
		if pkg := funcPackage(fn); pkg != "" {
			g.learnDir(pkg, f[1])
		}
	}
}

// funcPackage returns the import path of a function in a stack trace:
// "example.com/m/pkg.(*T).M" → "example.com/m/pkg".
func funcPackage(fn string) string {
	fn = strings.TrimPrefix(fn, "created by ")
	slash := strings.LastIndexByte(fn, '/')
	dot := strings.IndexByte(fn[slash+1:], '.')
	if dot < 0 {
		return ""
	}
	return fn[:slash+1+dot]
}

// endPanic files the panic of block b, placed at the frame that most
// likely caused it: in the running test for a timeout, else the first
// frame in the root, else the first outside the standard library.
func (g *goParser) endPanic(b *goBlock) {
	m := b.panic
	b.panic = nil
	if len(m.running) > 0 && m.d.Test == "" {
		m.d.Test = m.running[0]
	}
	if _, ok := b.results[m.d.Test]; !ok && m.d.Test != "" {
		g.result(b, "FAIL", m.d.Test, m.from) // a timeout prints no result line
	}
	var pick *goFrameRef
	for k := range m.frames {
		f := &m.frames[k]
		for _, t := range m.running {
			if strings.HasSuffix(f.fn, "."+t) && pick == nil {
				pick = f
			}
		}
	}
	for k := range m.frames {
		f := &m.frames[k]
		if p, ext := normPath(f.file, g.c.root); pick == nil && !ext && p != "" && g.c.root != "" && path.Base(p) != "_testmain.go" {
			pick = f
		}
	}
	for k := range m.frames {
		f := &m.frames[k]
		pkg := funcPackage(f.fn)
		if first, _, _ := strings.Cut(pkg, "/"); pick == nil && strings.Contains(first, ".") {
			pick = f
		}
	}
	if pick != nil {
		m.file, m.d.Line = pick.file, pick.line
	}
	b.msgs = append(b.msgs, m)
}

// finish files the messages of block b, whose package is pkg and whose
// result line (i) says status; a message counts if its test failed.
func (g *goParser) finish(b *goBlock, pkg, status string, i int) {
	g.flushBuild()
	if b.panic != nil {
		g.endPanic(b)
	}
	if pkg == "" {
		pkg = b.pkg
	}
	at := i
	if b.status != "" { // -json: the result line says more than the action
		status, at = b.status, b.statusL
	}
	failed := map[string]bool{}
	for _, t := range b.order {
		switch b.results[t] {
		case "FAIL":
			failed[t] = true
			count(&g.c.failed, 1)
		case "PASS":
			count(&g.c.passed, 1)
		case "SKIP":
			count(&g.c.skipped, 1)
		}
	}
	pkgFailed := strings.HasPrefix(status, "FAIL")
	reported := map[string]bool{}
	n := 0
	for _, m := range b.msgs {
		if !m.panic && !failed[m.d.Test] && !(m.d.Test == "" && pkgFailed) {
			continue
		}
		d := m.d
		d.Path = m.file
		if m.file != "" && !strings.Contains(m.file, "/") {
			// A name in the package's directory, which a later package's
			// build errors or stack trace may yet reveal.
			g.relative = append(g.relative, goRelative{len(g.c.diags), pkg, m.file})
		}
		reported[d.Test] = true
		g.c.add(d, m.from, m.to)
		n++
	}
	// A parent test fails with its subtests; their messages say why.
	parents := map[string]bool{}
	for t := range failed {
		for j := strings.LastIndexByte(t, '/'); j > 0; j = strings.LastIndexByte(t[:j], '/') {
			parents[t[:j]] = true
		}
	}
	for _, t := range b.order {
		if !failed[t] || reported[t] || parents[t] {
			continue
		}
		g.c.add(failedTest(t, b.loose[t]), b.where[t], b.where[t])
		n++
	}
	if pkgFailed && n == 0 && pkg != "" && !g.built[pkg] {
		g.c.add(Diagnostic{Severity: SeverityError, Message: strings.TrimSpace("FAIL " + pkg + " " + strings.TrimSpace(strings.TrimPrefix(status, "FAIL"))),
			Detail: strings.Join(b.loose[""], "\n")}, at, at)
	}
	*b = *g.newBlock(pkg, b.first)
}

// pkgResult parses a package's result line. go test separates its fields
// with tabs; a line of a test's output that merely starts with "ok" has
// neither tabs nor a time after the package.
func pkgResult(s string) (pkg, status string, ok bool) {
	m := goPkgResult.FindStringSubmatch(s)
	if m == nil || !strings.Contains(s, "\t") && !goPkgTail.MatchString(m[3]) {
		return "", "", false
	}
	status = m[1]
	if strings.HasPrefix(m[3], "[") && m[1] == "FAIL" {
		status += " " + strings.TrimSpace(m[3])
	}
	return m[2], status, true
}

// trimIndent removes up to n columns of leading white space from s.
func trimIndent(s string, n int) string {
	i := 0
	for i < len(s) && n > 0 && (s[i] == ' ' || s[i] == '\t') {
		if s[i] == '\t' {
			n -= 4
		} else {
			n--
		}
		i++
	}
	return strings.TrimRight(s[i:], " \t")
}

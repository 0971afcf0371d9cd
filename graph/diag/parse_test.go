package diag

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestParseCommand(t *testing.T) {
	tests := []struct {
		name, prog, tool string
	}{
		{"go test ./...", "go", ToolGoTest},
		{"go test -json -run TestX ./pkg", "go", ToolGoTest},
		{"/usr/local/go/bin/go vet ./...", "go", ToolGoVet},
		{"go -C sub build ./...", "go", ToolGoBuild},
		{"go run ./cmd/x", "go", ToolGoBuild},
		{"go fmt ./...", "go", ToolGofmt},
		{"gofmt -l .", "gofmt", ToolGofmt},
		{"cargo test", "cargo", ToolCargo},
		{"RUST_BACKTRACE=1 cargo +nightly clippy --all-targets", "cargo", ToolCargo},
		{"rustc main.rs", "rustc", ToolRustc},
		{"npx tsc --noEmit", "tsc", ToolTsc},
		{"npx --yes tsc -p .", "tsc", ToolTsc},
		{"pnpm exec tsc", "tsc", ToolTsc},
		{"yarn tsc -w", "tsc", ToolTsc},
		{"./node_modules/.bin/eslint .", "eslint", ToolESLint},
		{"npm exec eslint src", "eslint", ToolESLint},
		{"pytest -q", "pytest", ToolPytest},
		{"python -m pytest tests", "pytest", ToolPytest},
		{"python3.12 -m pytest", "pytest", ToolPytest},
		{"uv run pytest", "pytest", ToolPytest},
		{"poetry run mypy shop", "mypy", ""},
		{"env -i CI=1 time make test", "make", ""},
		{"npm run lint", "npm", ""},
		{"", "", ""},
		{"   ", "", ""},
		{"FOO=bar", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := parseCommand(tt.name)
			if c.prog != tt.prog || c.tool != tt.tool {
				t.Errorf("parseCommand(%q) = prog %q tool %q, want %q %q", tt.name, c.prog, c.tool, tt.prog, tt.tool)
			}
		})
	}
}

func TestHasFlag(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"gofmt -l .", true},
		{"gofmt -s -l .", true},
		{"gofmt -sl .", true},
		{"gofmt -d .", false},
		{"gofmt -- -l", false},
		{"gofmt -l=false .", false},
		{"gofmt --l=true .", true},
	}
	for _, tt := range tests {
		if got := parseCommand(tt.name).hasFlag("-l", 'l'); got != tt.want {
			t.Errorf("%q: hasFlag(-l) = %v, want %v", tt.name, got, tt.want)
		}
	}
	if !parseCommand("go vet -json ./...").hasFlag("-json", 0) || parseCommand("go vet ./...").hasFlag("-json", 0) {
		t.Error("hasFlag(-json) is wrong")
	}
}

func TestNormPath(t *testing.T) {
	tests := []struct {
		p, root string
		want    string
		ext     bool
	}{
		{"src/a.go", "/home/dev/p", "src/a.go", false},
		{"./src/a.go", "/home/dev/p", "src/a.go", false},
		{"src//x/../a.go", "/home/dev/p", "src/a.go", false},
		{"/home/dev/p/src/a.go", "/home/dev/p", "src/a.go", false},
		{"/home/dev/p/src/a.go", "/home/dev/p/", "src/a.go", false},
		{"/home/dev/pq/a.go", "/home/dev/p", "/home/dev/pq/a.go", true},
		{"/usr/local/go/src/fmt/print.go", "/home/dev/p", "/usr/local/go/src/fmt/print.go", true},
		{"/abs/a.go", "", "/abs/a.go", true},
		{"../other/a.go", "/home/dev/p", "../other/a.go", true},
		{"./../other/a.go", "/home/dev/p", "../other/a.go", true},
		{"..", "/home/dev/p", "..", true},
		{"<anon>", "/home/dev/p", "<anon>", true},
		{"file:///home/dev/p/a.rs", "/home/dev/p", "a.rs", false},
		{"/home/dev/p", "/home/dev/p", "", false},
		{".", "/home/dev/p", "", false},
		{"", "/home/dev/p", "", false},
		{"/x/a.go", "/", "x/a.go", false},
		{"a.go", "relative/root", "a.go", false},
	}
	for _, tt := range tests {
		c := newCollector(tt.root)
		got, ext := normPath(tt.p, c.root)
		if got != tt.want || ext != tt.ext {
			t.Errorf("normPath(%q, %q) = %q, %v; want %q, %v", tt.p, tt.root, got, ext, tt.want, tt.ext)
		}
	}
}

func TestSplitLines(t *testing.T) {
	in := "a\r\nb\x1b[31mred\x1b[0m\r\nprogress 1\rprogress 2\n\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\\n"
	want := []string{"a", "bred", "progress 2", "link"}
	if got := splitLines([]byte(in)); !slices.Equal(got, want) {
		t.Errorf("splitLines = %q, want %q", got, want)
	}
	if got := splitLines(nil); got != nil {
		t.Errorf("splitLines(nil) = %q", got)
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		output string
		want   string
	}{
		{`{"reason":"compiler-artifact"}`, ToolCargo},
		{`{"Time":"2026-01-01T00:00:00Z","Action":"start","Package":"x"}`, ToolGoTest},
		{`[{"filePath":"/a.js","messages":[]}]`, ToolESLint},
		{"src/a.ts(3,5): error TS2304: Cannot find name 'x'.", ToolTsc},
		{"src/a.ts:3:5 - error TS2304: Cannot find name 'x'.", ToolTsc},
		{"==== test session starts ====", ToolPytest},
		{"FAILED tests/test_a.py::test_b - assert 1 == 2", ToolPytest},
		{"error[E0425]: cannot find value `x`\n --> src/main.rs:2:5", ToolCargo},
		{"test result: ok. 3 passed; 0 failed; 0 ignored", ToolCargo},
		{"/p/a.js\n  3:7  error  'x' is unused  no-unused-vars", ToolESLint},
		{"--- FAIL: TestX (0.00s)", ToolGoTest},
		{"ok  \texample.com/m\t0.01s", ToolGoTest},
		{"# example.com/m\nm.go:3:5: undefined: x", ToolGoBuild},
		{"src/main.c:3:5: error: x", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := sniff(splitLines([]byte(tt.output))); got != tt.want {
			t.Errorf("sniff(%q) = %q, want %q", tt.output, got, tt.want)
		}
	}
}

// TestGoModule checks that go test's file names, relative to a package's
// directory, are resolved with the module path in root/go.mod.
func TestGoModule(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module \"example.com/shop\"\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := "--- FAIL: TestA (0.00s)\n    a_test.go:7: boom\nFAIL\nFAIL\texample.com/shop/internal/a\t0.01s\n" +
		"--- FAIL: TestRoot (0.00s)\n    root_test.go:3: bang\nFAIL\nFAIL\texample.com/shop\t0.01s\n" +
		"--- FAIL: TestOther (0.00s)\n    o_test.go:3: bang\nFAIL\nFAIL\texample.org/other\t0.01s\n"
	res := Parse("go test ./...", []byte(out), filepath.ToSlash(root))
	var got []string
	for _, d := range res.Diagnostics {
		got = append(got, d.Path)
	}
	if want := []string{"internal/a/a_test.go", "root_test.go", "o_test.go"}; !slices.Equal(got, want) {
		t.Errorf("paths %q, want %q", got, want)
	}
	if res.Summary.Text != "go test: 3 failed" {
		t.Errorf("summary %q", res.Summary.Text)
	}
}

func TestParseEdgeCases(t *testing.T) {
	long := strings.Repeat("x", 3*MaxMessageBytes)
	tests := []struct {
		name, cmd, output string
		check             func(*Result) bool
	}{
		{"long message is clipped", "make", "a.c:1:2: error: " + long, func(r *Result) bool {
			return len(r.Diagnostics) == 1 && len(r.Diagnostics[0].Message) <= MaxMessageBytes &&
				strings.HasSuffix(r.Diagnostics[0].Message, "…")
		}},
		{"invalid UTF-8 is replaced", "make", "a.c:1:2: error: bad \xff byte", func(r *Result) bool {
			return len(r.Diagnostics) == 1 && r.Diagnostics[0].Message == "bad \uFFFD byte"
		}},
		{"huge line numbers are unknown", "make", "a.c:99999999999999999999:2: error: x", func(r *Result) bool {
			return len(r.Diagnostics) == 1 && r.Diagnostics[0].Line == 0 && r.Diagnostics[0].Col == 0
		}},
		{"duplicates are dropped", "make", "a.c:1:2: error: x\na.c:1:2: error: x\na.c:1:3: error: x", func(r *Result) bool {
			return len(r.Diagnostics) == 2 && r.Summary.Errors == 2
		}},
		{"detail is capped", "make", "a.c:1:2: error: x\n" + strings.Repeat("  more\n", 3*MaxDetailLines), func(r *Result) bool {
			d := r.Diagnostics[0].Detail
			return strings.Count(d, "\n") < MaxDetailLines && strings.HasSuffix(d, "…")
		}},
		{"passing go test -v counts", "go test -v ./...", "=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n    b_test.go:3: skipped\n--- SKIP: TestB (0.00s)\nPASS\nok  \texample.com/m\t0.01s\n",
			func(r *Result) bool {
				return len(r.Diagnostics) == 0 && r.Summary.Passed == 1 && r.Summary.Skipped == 1 && r.Summary.Failed == 0 &&
					r.Summary.Text == "go test: 1 passed, 1 skipped"
			}},
		{"a test's own output is not a build error", "go test ./...", "--- FAIL: TestA (0.00s)\nmain.go:3:4: printed by the test\nFAIL\nFAIL\texample.com/m\t0.01s\n",
			func(r *Result) bool {
				return len(r.Diagnostics) == 1 && r.Diagnostics[0].Message == "test failed: main.go:3:4: printed by the test"
			}},
		{"a package fails without a failing test", "go test ./...", "exit status 3\nFAIL\texample.com/m\t0.01s\n", func(r *Result) bool {
			return len(r.Diagnostics) == 1 && r.Diagnostics[0].Message == "FAIL example.com/m"
		}},
		{"build failed without its errors", "go test ./...", "FAIL\texample.com/m [setup failed]\n", func(r *Result) bool {
			return len(r.Diagnostics) == 1 && r.Diagnostics[0].Message == "FAIL example.com/m [setup failed]"
		}},
		{"go: errors and warnings", "go build ./...", "go: downloading example.com/x v1.0.0\ngo: warning: \"./...\" matched no packages\ngo: go.mod file not found in current directory or any parent directory; see 'go help modules'\n",
			func(r *Result) bool {
				return len(r.Diagnostics) == 2 && r.Diagnostics[0].Severity == SeverityWarning && r.Diagnostics[1].Severity == SeverityError &&
					strings.HasPrefix(r.Diagnostics[1].Message, "go.mod file not found")
			}},
		{"rustc JSON lines", "rustc --error-format=json x.rs", `{"$message_type":"diagnostic","message":"cannot find value ` + "`x`" + ` in this scope","code":{"code":"E0425","explanation":null},"level":"error","spans":[{"file_name":"x.rs","byte_start":16,"byte_end":17,"line_start":2,"line_end":2,"column_start":5,"column_end":6,"is_primary":true,"text":[],"label":"not found","suggested_replacement":null,"suggestion_applicability":null,"expansion":null}],"children":[],"rendered":"error[E0425]"}
{"$message_type":"diagnostic","message":"aborting due to 1 previous error","code":null,"level":"error","spans":[],"children":[],"rendered":"error: aborting"}`,
			func(r *Result) bool {
				return len(r.Diagnostics) == 1 && r.Diagnostics[0].Code == "E0425" && r.Diagnostics[0].Line == 2 && r.Diagnostics[0].EndCol == 6
			}},
		{"libtest JSON", "cargo test -- -Z unstable-options --format json", `{ "type": "suite", "event": "started", "test_count": 2 }
{ "type": "test", "event": "started", "name": "t::a" }
{ "type": "test", "name": "t::a", "event": "failed", "stdout": "\nthread 't::a' panicked at src/lib.rs:4:9:\nboom\nnote: run with ` + "`RUST_BACKTRACE=1`" + `\n" }
{ "type": "test", "event": "ok", "name": "t::b" }
{ "type": "suite", "event": "failed", "passed": 1, "failed": 1, "ignored": 0, "measured": 0, "filtered_out": 0, "exec_time": 0.001 }`,
			func(r *Result) bool {
				return len(r.Diagnostics) == 1 && r.Diagnostics[0].Message == "boom" && r.Diagnostics[0].Test == "t::a" &&
					r.Diagnostics[0].Line == 4 && r.Summary.Passed == 1 && r.Summary.Failed == 1
			}},
		{"a macro's span is where it was called", "cargo build --message-format=json", `{"reason":"compiler-message","message":{"message":"m","code":null,"level":"error","spans":[{"file_name":"<::core::macros>","line_start":1,"line_end":1,"column_start":1,"column_end":2,"is_primary":true,"expansion":{"span":{"file_name":"src/a.rs","line_start":9,"line_end":9,"column_start":5,"column_end":20,"is_primary":false,"expansion":null}}}],"children":[]}}`,
			func(r *Result) bool {
				return len(r.Diagnostics) == 1 && r.Diagnostics[0].Path == "src/a.rs" && r.Diagnostics[0].Line == 9
			}},
		{"gofmt without -l prints source", "gofmt main.go", "package main\n\nfunc main() {}\n", func(r *Result) bool {
			return len(r.Diagnostics) == 0
		}},
		{"gofmt file list without -l", "gofmt -w -l=false .", "a.go\nb/c.go\n", func(r *Result) bool {
			return len(r.Diagnostics) == 2
		}},
		{"too many diagnostics: errors first", "make", strings.Repeat("a.c:1:1: warning: w\nb.c:1:1: warning: w\n", 5) +
			func() string {
				var b strings.Builder
				for i := 1; i <= MaxDiagnostics+5; i++ {
					b.WriteString("a.c:" + strconv.Itoa(i) + ":1: error: e\n")
				}
				return b.String()
			}(),
			func(r *Result) bool {
				return len(r.Diagnostics) == MaxDiagnostics && r.Diagnostics[0].Severity == SeverityError &&
					r.Summary.Errors == MaxDiagnostics+5 && r.Summary.Warnings == 2
			}},
		{"unknown output", "npm test", "> jest\nall good\n", func(r *Result) bool {
			return len(r.Diagnostics) == 0 && r.Summary.Tool == "npm" && r.Summary.Text == "npm: no diagnostics"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Parse(tt.cmd, []byte(tt.output), "/home/dev/p")
			checkResult(t, res, []byte(tt.output))
			if !tt.check(res) {
				ds := res.Diagnostics
				if len(ds) > 5 {
					ds = ds[:5]
				}
				t.Errorf("unexpected result: %d diagnostics %+v…, summary %+v", len(res.Diagnostics), ds, res.Summary)
			}
		})
	}
}

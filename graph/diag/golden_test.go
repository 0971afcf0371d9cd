package diag

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ctx-dev/ctx/object"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// Each testdata/input/*.txtar holds a command's name, root and exit code
// in its comment and its output in the file "output". The outputs of go,
// cargo, rustc, tsc and eslint were captured from real runs on small
// broken projects (paths rewritten to /home/dev); the pytest outputs and
// the *_edge inputs were written by hand. testdata/golden holds, per
// input, the Result as JSON and what Keep keeps under goldenMaxLines.
const (
	inputDir       = "testdata/input"
	goldenDir      = "testdata/golden"
	goldenMaxLines = 30
)

// testCase is one input.
type testCase struct {
	file   string
	name   string
	root   string
	exit   int
	output []byte
}

func readCases(tb testing.TB) []testCase {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(inputDir, "*.txtar"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no inputs in %s: %v", inputDir, err)
	}
	var cases []testCase
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		tc := testCase{file: strings.TrimSuffix(filepath.Base(f), ".txtar")}
		for _, l := range strings.Split(string(ar.Comment), "\n") {
			k, v, ok := strings.Cut(l, ": ")
			switch {
			case !ok || strings.HasPrefix(l, "#"):
			case k == "name":
				tc.name = v
			case k == "root":
				tc.root = v
			case k == "exit":
				if tc.exit, err = strconv.Atoi(v); err != nil {
					tb.Fatalf("%s: exit: %v", f, err)
				}
			}
		}
		if len(ar.Files) != 1 || ar.Files[0].Name != "output" || tc.name == "" {
			tb.Fatalf("%s: want a name and one file named output", f)
		}
		tc.output = ar.Files[0].Data
		cases = append(cases, tc)
	}
	return cases
}

func TestGolden(t *testing.T) {
	if *update {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range readCases(t) {
		t.Run(tc.file, func(t *testing.T) {
			res := Parse(tc.name, tc.output, tc.root)
			checkResult(t, res, tc.output)
			got, err := json.MarshalIndent(res, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			kept, truncated := Keep(tc.output, tc.exit, res, goldenMaxLines)
			checkKept(t, tc.output, kept, truncated, tc.exit != 0 || res.HasErrors(), goldenMaxLines)
			compareGolden(t, tc.file+".json", got)
			compareGolden(t, tc.file+".kept", kept)

			run := &CommandRun{Name: tc.name, ExitCode: tc.exit, Summary: res.Summary, Diagnostics: res.Diagnostics}
			if _, err := object.Encode(run); err != nil {
				t.Errorf("Encode: %v", err)
			}
		})
	}
}

func compareGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join(goldenDir, name)
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./graph/diag -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test ./graph/diag -update if the change is intended)\n%s",
			name, firstDiff(string(got), string(want)))
	}
}

// checkResult checks what every Result must satisfy.
func checkResult(t testing.TB, res *Result, output []byte) {
	t.Helper()
	if res == nil {
		t.Fatal("Parse returned nil")
	}
	if len(res.sources) != len(res.Diagnostics) {
		t.Fatalf("%d sources for %d diagnostics", len(res.sources), len(res.Diagnostics))
	}
	lines := len(splitLines(output))
	seen := map[Diagnostic]bool{}
	errs, warns := 0, 0
	for i, d := range res.Diagnostics {
		if err := d.Validate(); err != nil {
			t.Errorf("diagnostic %d %+v: %v", i, d, err)
		}
		if seen[d] {
			t.Errorf("diagnostic %d is a duplicate: %+v", i, d)
		}
		seen[d] = true
		if s := res.sources[i]; s.from < 0 || s.to < s.from || s.to >= max(lines, 1) {
			t.Errorf("diagnostic %d: source lines %d-%d outside the %d lines", i, s.from, s.to, lines)
		}
		if i > 0 && res.sources[i].from < res.sources[i-1].from {
			t.Errorf("diagnostic %d comes from line %d, before its predecessor's %d", i, res.sources[i].from, res.sources[i-1].from)
		}
		switch d.Severity {
		case SeverityError:
			errs++
		case SeverityWarning:
			warns++
		}
	}
	s := res.Summary
	if err := s.Validate(); err != nil {
		t.Errorf("summary %+v: %v", s, err)
	}
	if len(res.Diagnostics) < MaxDiagnostics && (s.Errors != errs || s.Warnings != warns) {
		t.Errorf("summary counts %d errors, %d warnings; diagnostics have %d, %d", s.Errors, s.Warnings, errs, warns)
	}
	for _, l := range res.summaryLines {
		if l < 0 || l >= max(lines, 1) {
			t.Errorf("summary line %d outside the %d lines", l, lines)
		}
	}
}

// checkKept checks Keep's promises.
func checkKept(t testing.TB, output, kept []byte, truncated, failing bool, maxLines int) {
	t.Helper()
	n := lineCount(output)
	limit := maxLines
	if !failing {
		limit = min(maxLines, PassingLines)
	}
	switch {
	case n <= limit && (truncated || !bytes.Equal(kept, output)):
		t.Errorf("output of %d lines within the limit %d was cut", n, limit)
	case n > limit && !truncated:
		t.Errorf("output of %d lines over the limit %d was not cut", n, limit)
	case lineCount(kept) > limit:
		t.Errorf("kept %d lines, limit %d", lineCount(kept), limit)
	}
	if truncated {
		// Every line of the output is either kept or counted in a marker.
		omitted, shown := 0, 0
		for _, l := range strings.Split(strings.TrimSuffix(string(kept), "\n"), "\n") {
			var k int
			if _, err := fmt.Sscanf(l, "… %d line", &k); err == nil && strings.HasSuffix(l, " omitted …") {
				omitted += k
			} else {
				shown++
			}
		}
		if shown+omitted != n {
			t.Errorf("kept %d lines and omitted %d of %d", shown, omitted, n)
		}
	}
}

func lineCount(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	return strings.Count(strings.TrimSuffix(string(b), "\n"), "\n") + 1
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		if i >= len(g) || i >= len(w) || g[i] != w[i] {
			line := func(l []string) string {
				if i < len(l) {
					return fmt.Sprintf("%q", l[i])
				}
				return "(end of file)"
			}
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, line(g), line(w))
		}
	}
	return "(no line differs)"
}

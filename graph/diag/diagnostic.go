package diag

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"
)

// Severity says how bad a diagnostic is.
type Severity string

// The severities. The zero value is invalid.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
	SeverityHint    Severity = "hint"
)

// Severities lists every severity, most severe first.
var Severities = []Severity{SeverityError, SeverityWarning, SeverityInfo, SeverityHint}

// Valid reports whether s is a defined severity.
func (s Severity) Valid() bool {
	for _, v := range Severities {
		if s == v {
			return true
		}
	}
	return false
}

// String returns the severity's name.
func (s Severity) String() string { return string(s) }

// Limits on the text of a diagnostic. Parse cuts longer text; Validate
// rejects it, so that one runaway line cannot bloat the store.
const (
	// MaxMessageBytes bounds Message.
	MaxMessageBytes = 2048
	// MaxDetailLines bounds the lines of Detail.
	MaxDetailLines = 40
	// MaxDetailBytes bounds Detail.
	MaxDetailBytes = 8192
	// MaxDiagnostics bounds the diagnostics of a Result: a run that
	// reports more keeps its errors first; its summary counts them all.
	MaxDiagnostics = 1000
)

// Diagnostic is one finding of a tool. It is stored inside a CommandRun,
// so its json tags are the CBOR keys (FORMAT.md §4.1): optional fields are
// omitted when empty, and a line or column of 0 means unknown.
type Diagnostic struct {
	// Severity is error, warning, info or hint.
	Severity Severity `json:"severity"`
	// Code is the tool's name for the problem: a compiler error code
	// (E0433, TS2304), a vet analyzer, a lint rule, a Python exception.
	Code string `json:"code,omitempty"`
	// Message is one line, never empty.
	Message string `json:"message"`
	// Detail holds the lines after the first (notes, got/want, a stack),
	// at most MaxDetailLines lines and MaxDetailBytes bytes.
	Detail string `json:"detail,omitempty"`
	// Path is the file, slash-separated and clean; relative to the root
	// unless External.
	Path string `json:"path,omitempty"`
	// External says Path lies outside the root: an absolute path
	// elsewhere (the standard library, a dependency), "../x" or "<anon>".
	External bool `json:"external,omitempty"`
	// Line and Col are 1-based; 0 means unknown.
	Line int `json:"line,omitempty"`
	Col  int `json:"col,omitempty"`
	// EndLine and EndCol end the range, when the tool reports one.
	EndLine int `json:"end_line,omitempty"`
	EndCol  int `json:"end_col,omitempty"`
	// Test names the failing test the diagnostic belongs to, as the tool
	// names it: "TestTable/neg", "tests::adds",
	// "tests/test_cart.py::test_total".
	Test string `json:"test,omitempty"`
	// Tool is the tool that reported it (see the package doc).
	Tool string `json:"tool,omitempty"`
}

// Validate checks the invariants Parse guarantees: a known severity, a
// non-empty one-line message, clean paths, non-negative positions, a
// range that does not end before it starts, and UTF-8 text.
func (d *Diagnostic) Validate() error {
	if !d.Severity.Valid() {
		return fmt.Errorf("severity %q is not one of %v", d.Severity, Severities)
	}
	for _, f := range []struct{ name, s string }{
		{"code", d.Code}, {"message", d.Message}, {"detail", d.Detail}, {"path", d.Path}, {"test", d.Test}, {"tool", d.Tool},
	} {
		if !utf8.ValidString(f.s) {
			return fmt.Errorf("%s is not UTF-8", f.name)
		}
		if f.name != "detail" && strings.ContainsAny(f.s, "\n\r") {
			return fmt.Errorf("%s is more than one line", f.name)
		}
	}
	switch {
	case d.Message == "":
		return errors.New("message is empty")
	case len(d.Message) > MaxMessageBytes:
		return fmt.Errorf("message is longer than %d bytes", MaxMessageBytes)
	case len(d.Detail) > MaxDetailBytes || strings.Count(d.Detail, "\n") >= MaxDetailLines:
		return fmt.Errorf("detail is longer than %d lines or %d bytes", MaxDetailLines, MaxDetailBytes)
	case d.Path != "" && (d.Path == "." || path.Clean(d.Path) != d.Path):
		return fmt.Errorf("path %q is not clean", d.Path)
	case d.External && d.Path == "":
		return errors.New("external without a path")
	case d.Line < 0 || d.Col < 0 || d.EndLine < 0 || d.EndCol < 0:
		return fmt.Errorf("negative position %d:%d-%d:%d", d.Line, d.Col, d.EndLine, d.EndCol)
	case d.Line == 0 && (d.Col != 0 || d.EndLine != 0):
		return errors.New("column or end without a line")
	case d.EndLine == 0 && d.EndCol != 0:
		return errors.New("end column without an end line")
	case d.EndLine != 0 && (d.EndLine < d.Line || d.EndLine == d.Line && d.EndCol != 0 && d.EndCol < d.Col):
		return fmt.Errorf("range %d:%d-%d:%d ends before it starts", d.Line, d.Col, d.EndLine, d.EndCol)
	}
	return nil
}

// Summary is a run in one line. Test counts are -1 when the output does
// not tell them (go test without -v prints no passing tests).
type Summary struct {
	// Tool is the tool that wrote the output (see the package doc).
	Tool string `json:"tool"`
	// Passed, Failed and Skipped count tests; -1 means unknown. Subtests
	// count as tests, as go test -json reports them. Skipped includes
	// ignored Rust tests and pytest's xfailed.
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	// Errors and Warnings count the diagnostics of each severity.
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	// Text is the summary for people: "go test: 2 failed, 31 passed",
	// "cargo: 1 error (E0433)".
	Text string `json:"text"`
}

// Validate checks the counts and the text.
func (s *Summary) Validate() error {
	switch {
	case s.Passed < -1 || s.Failed < -1 || s.Skipped < -1:
		return fmt.Errorf("test counts %d/%d/%d below -1", s.Passed, s.Failed, s.Skipped)
	case s.Errors < 0 || s.Warnings < 0:
		return fmt.Errorf("negative counts %d errors, %d warnings", s.Errors, s.Warnings)
	case !utf8.ValidString(s.Tool) || !utf8.ValidString(s.Text):
		return errors.New("tool or text is not UTF-8")
	case strings.ContainsAny(s.Tool+s.Text, "\n\r"):
		return errors.New("tool or text is more than one line")
	}
	return nil
}

// Result is what Parse found in a command's output.
type Result struct {
	// Diagnostics are in order of first appearance, without duplicates,
	// at most MaxDiagnostics of them.
	Diagnostics []Diagnostic `json:"diagnostics"`
	// Summary counts them and the tests.
	Summary Summary `json:"summary"`

	// sources[i] is the range of output lines Diagnostics[i] came from;
	// summaryLines are the lines that summarise the run ("ok pkg 0.1s",
	// "test result: …"). Keep uses both; a Result built elsewhere lacks
	// them and Keep falls back to searching the output.
	sources      []span
	summaryLines []int
}

// span is a range of output lines, 0-based, inclusive.
type span struct{ from, to int }

// HasErrors reports whether any diagnostic is an error.
func (r *Result) HasErrors() bool {
	if r == nil {
		return false
	}
	for i := range r.Diagnostics {
		if r.Diagnostics[i].Severity == SeverityError {
			return true
		}
	}
	return false
}

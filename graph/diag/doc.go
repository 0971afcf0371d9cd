// Package diag turns the output of builds, tests and linters into
// structured diagnostics, decides how much of that output to keep, and
// defines the typed object that records a command run in the store
// (design §16.3).
//
// # Nouns
//
//   - Diagnostic: one finding of a tool: a severity, an optional code
//     (E0433, TS2304, a vet analyzer, an eslint rule, a Python exception),
//     a one-line message with optional detail lines, a root-relative path
//     and 1-based line and column (0 when unknown), and the failing test
//     it belongs to, if any.
//   - Summary: the run in one line: the tool, the test counts (-1 when
//     the output does not tell) and the number of errors and warnings.
//   - Result: what Parse returns: the diagnostics in order of first
//     appearance, without duplicates, and the summary.
//   - Tool: the program that wrote the output, detected from the command
//     name ("go test ./...", "npx tsc --noEmit") and the output itself:
//     "go build", "go vet", "go test", "gofmt", "cargo", "rustc", "tsc",
//     "eslint", "pytest"; for any other command, the generic parser reads
//     "path:line:col: message" lines and the tool is the program's name.
//   - Retention: Keep cuts the output to what is worth storing: all of a
//     failing run up to a line cap, preferring the lines diagnostics came
//     from, and a short summary of a passing run.
//   - CommandRun: the typed object "command_run" that records one run:
//     the command, exit code, times, the kept output (a blob), and the
//     summary and diagnostics.
//
// # Paths
//
// Paths are slash-separated and clean. An absolute path under the root
// the command ran in becomes relative to it; "./x" becomes "x". A path
// outside the root (an absolute path elsewhere, "../x", "<anon>") is kept
// as written, cleaned, and flagged External.
package diag

package llm

import (
	"reflect"
	"strings"
	"testing"
)

func TestAnalyzeCodeBlocks(t *testing.T) {
	text := "Intro.\n\n```go\nfunc A() {}\n```\n\n~~~~ python extra\nx = 1\n```\nstill code\n~~~~\n\n  ```\n\n```\nunterminated\nto the end"
	a := Analyze(text)
	want := []CodeBlock{
		{Lang: "go", Info: "go", StartLine: 4, EndLine: 4, Code: "func A() {}"},
		{Lang: "python", Info: "python extra", StartLine: 8, EndLine: 10, Code: "x = 1\n```\nstill code"},
	}
	if len(a.CodeBlocks) != 3 {
		t.Fatalf("%d blocks: %+v", len(a.CodeBlocks), a.CodeBlocks)
	}
	if got := a.CodeBlocks[0]; !reflect.DeepEqual(got, want[0]) {
		t.Errorf("block 0 = %+v, want %+v", got, want[0])
	}
	if got := a.CodeBlocks[1]; !reflect.DeepEqual(got, want[1]) {
		t.Errorf("block 1 = %+v, want %+v", got, want[1])
	}
	// "  ```" opens a block that the "```" line closes; then "unterminated"
	// is prose and the rest has no fence.
	if got := a.CodeBlocks[2]; got.StartLine != 14 || got.Code != "" {
		t.Errorf("block 2 = %+v", got)
	}
	b := Analyze("```rust\nfn main() {}\n")
	if len(b.CodeBlocks) != 1 || b.CodeBlocks[0].Code != "fn main() {}\n" || b.CodeBlocks[0].EndLine != 3 {
		t.Errorf("a fence left open runs to the end: %+v", b.CodeBlocks)
	}
	// A backtick fence whose info string holds a backtick is not a fence:
	// the block opens at the last line instead.
	if c := Analyze("``` a`b\nx\n```"); len(c.CodeBlocks) != 1 || c.CodeBlocks[0].StartLine != 4 || c.CodeBlocks[0].Code != "" {
		t.Errorf("info string with a backtick: %+v", c.CodeBlocks)
	}
}

func TestAnalyzeDecisions(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"lead", "Decision: use exponential backoff.\n", []string{"use exponential backoff."}},
		{"lead in a list, bold", "- **Decision:** cap delays at 30s\n* decided: keep it simple\n", []string{"cap delays at 30s", "keep it simple"}},
		{"phrase", "After the outage we decided to retry with jitter. It worked.\n", []string{"After the outage we decided to retry with jitter."}},
		{"other phrases", "We chose BLAKE3. I have decided to stop. We'll go with plan B! The decision is final.\n",
			[]string{"We chose BLAKE3.", "I have decided to stop.", "We'll go with plan B!", "The decision is final."}},
		{"heading section", "## Decisions\n\n1. Use a pool\n2. Drop retries\n\n## Other\n\n- not this\n", []string{"Use a pool", "Drop retries"}},
		{"paragraph under a decision heading", "### Decision\n\nKeep the client small.\nSecond line.\n", []string{"Keep the client small."}},
		{"not in code", "```\nDecision: no\nwe decided nothing\n```\n", []string{}},
		{"not a decision", "Decisions are hard. Nobody decided anything.\n", []string{}},
		{"duplicates once", "Decision: x\nDecision: x\n", []string{"x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Analyze(tc.text).Decisions; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("decisions %q, want %q", got, tc.want)
			}
		})
	}
	long := Analyze("Decision: " + strings.Repeat("é", 400))
	if d := long.Decisions[0]; len(d) > maxDecision || !strings.HasSuffix(d, "…") {
		t.Errorf("a long decision is %d bytes: %q…", len(d), d[:20])
	}
	var many strings.Builder
	for i := 0; i < 50; i++ {
		many.WriteString("Decision: number " + strings.Repeat("x", i) + "\n")
	}
	if n := len(Analyze(many.String()).Decisions); n != maxDecisions {
		t.Errorf("%d decisions kept, want %d", n, maxDecisions)
	}
}

func TestAnalyzeCandidates(t *testing.T) {
	text := "See `net/client.go:12` and `./retry/backoff.go#L3-L9`, the `Client` struct, `(*Client).Connect()`,\n" +
		"`retry.NextDelay(attempt)` and `core::net::Client`. Also [the docs](docs/README.md) and [site](https://x.io/a).\n" +
		"In prose: net/pool.go, e.g. retry.Backoff, but not plain words.\n" +
		"`go test ./...` and `if err != nil` are not names.\n" +
		"```go\n// inside code: ignored.go\nx := `raw/string.go`\n```\n"
	var got []string
	for _, c := range Analyze(text).Candidates {
		q := "prose"
		if c.Quoted {
			q = "quoted"
		}
		got = append(got, c.Text+" "+q)
	}
	want := []string{
		"net/client.go quoted", "retry/backoff.go quoted", "Client quoted", "Client.Connect quoted",
		"retry.NextDelay quoted", "core::net::Client quoted", "docs/README.md quoted",
		"net/pool.go prose", "e.g prose", "retry.Backoff prose",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("candidates\n%q\nwant\n%q", got, want)
	}
}

func TestInlineSpans(t *testing.T) {
	tests := []struct {
		line  string
		spans []string
	}{
		{"a `b` c", []string{"b"}},
		{"``a ` b`` c", []string{"a ` b"}},
		{"unclosed `x", nil},
		{"`a` and `b`", []string{"a", "b"}},
		{"```", nil},
		{"``x```y``", []string{"x```y"}},
	}
	for _, tc := range tests {
		if got, _ := inlineSpans(tc.line); !reflect.DeepEqual(got, tc.spans) {
			t.Errorf("inlineSpans(%q) = %q, want %q", tc.line, got, tc.spans)
		}
	}
}

func TestCleanName(t *testing.T) {
	for in, want := range map[string]string{
		"net/client.go:12":   "net/client.go",
		"net/client.go:12:3": "net/client.go",
		"a.go#L3-L9":         "a.go",
		"./x/y.go":           "x/y.go",
		"(*Client).Connect":  "Client.Connect",
		"(Client).Close()":   "Client.Close",
		"*Client":            "Client",
		"&Client{}":          "Client",
		"NextDelay(i, j)":    "NextDelay",
		"\"quoted.go\",":     "quoted.go",
		"end.":               "end",
		"dir/":               "dir",
	} {
		if got := cleanName(in); got != want {
			t.Errorf("cleanName(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzAnalyze: any response is analysed without panicking, within the
// limits, and code blocks lie within the text's lines.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{answer, "```go\nx\n```", "Decision: a\n## Decisions\n- b\n", "`(*T).M()` [l](a/b.go#L3) x.y/z", "~~~\n", "``x`"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		a := Analyze(text)
		lines := strings.Count(strings.ReplaceAll(text, "\r\n", "\n"), "\n") + 1
		for _, b := range a.CodeBlocks {
			if b.StartLine < 1 || b.EndLine < b.StartLine-1 || b.EndLine > lines {
				t.Fatalf("block %+v in %d lines", b, lines)
			}
		}
		if len(a.Decisions) > maxDecisions || len(a.Candidates) > maxCandidates || len(a.CodeBlocks) > maxCodeBlocks {
			t.Fatalf("over the limits: %d decisions, %d candidates, %d blocks", len(a.Decisions), len(a.Candidates), len(a.CodeBlocks))
		}
		for _, c := range a.Candidates {
			if c.Text == "" || len(c.Text) > maxCandidate || strings.ContainsAny(c.Text, " \t\n") {
				t.Fatalf("candidate %q", c.Text)
			}
		}
		_ = firstParagraph(text)
	})
}

package diag

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// logOf returns n lines "line i", with the given lines replaced.
func logOf(n int, special map[int]string) []byte {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if s, ok := special[i]; ok {
			b.WriteString(s)
		} else {
			fmt.Fprintf(&b, "line %d", i)
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func keptLines(kept []byte) []string {
	return strings.Split(strings.TrimSuffix(string(kept), "\n"), "\n")
}

func TestKeep(t *testing.T) {
	failing := logOf(1000, map[int]string{
		300: "src/a.c:3:1: warning: unused x",
		500: "src/a.c:5:1: error: boom",
		501: "    detail of boom",
	})
	tests := []struct {
		name     string
		output   []byte
		exit     int
		res      func(out []byte) *Result
		maxLines int
		trunc    bool
		want     []string // lines that must be kept
		notWant  []string // lines that must not
	}{
		{"passing and short: all", logOf(20, nil), 0, nil, 100, false, []string{"line 0", "line 19"}, nil},
		{"failing within the cap: all", logOf(100, nil), 1, nil, 100, false, []string{"line 0", "line 50", "line 99"}, nil},
		{"failing over the cap: diagnostics, head, tail", failing, 2, parseMake, 50, true,
			[]string{"line 0", "line 4", "line 497", "src/a.c:5:1: error: boom", "    detail of boom", "line 504", "line 999", "… 292 lines omitted …"},
			[]string{"line 5", "line 496", "line 505"}},
		{"the cap counts the markers", failing, 1, parseMake, 12, true,
			[]string{"line 0", "src/a.c:5:1: error: boom", "line 999"}, []string{"line 499"}},
		{"errors come before warnings", failing, 1, parseMake, 30, true,
			[]string{"src/a.c:5:1: error: boom", "src/a.c:3:1: warning: unused x"}, nil},
		{"an error diagnostic makes a run failing", failing, 0, parseMake, 50, true,
			[]string{"src/a.c:5:1: error: boom"}, nil},
		{"no result: head and tail", failing, 1, nil, 40, true, []string{"line 0", "line 3", "line 999"}, []string{"src/a.c:5:1: error: boom"}},
		{"a result without sources: found by message", failing, 1, func(out []byte) *Result {
			r := parseMake(out)
			return &Result{Diagnostics: r.Diagnostics, Summary: r.Summary}
		}, 50, true, []string{"src/a.c:5:1: error: boom", "line 503"}, nil},
		{"passing: summary lines and tail", logOf(300, map[int]string{
			40:  "ok  \texample.com/m/a\t0.01s",
			120: "ok  \texample.com/m/b\t0.02s",
		}), 0, func(out []byte) *Result { return Parse("go test ./...", out, "") }, 2000, true,
			[]string{"ok  \texample.com/m/a\t0.01s", "ok  \texample.com/m/b\t0.02s", "line 299", "line 290"}, []string{"line 0"}},
		{"passing: the cap applies if lower", logOf(300, nil), 0, nil, 5, true, []string{"line 299", "line 296"}, []string{"line 295"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var res *Result
			if tt.res != nil {
				res = tt.res(tt.output)
			}
			kept, trunc := Keep(tt.output, tt.exit, res, tt.maxLines)
			checkKept(t, tt.output, kept, trunc, tt.exit != 0 || res.HasErrors(), tt.maxLines)
			if trunc != tt.trunc {
				t.Errorf("truncated = %v, want %v", trunc, tt.trunc)
			}
			lines := keptLines(kept)
			for _, w := range tt.want {
				if !slices.Contains(lines, w) {
					t.Errorf("%q not kept:\n%s", w, kept)
				}
			}
			for _, w := range tt.notWant {
				if slices.Contains(lines, w) {
					t.Errorf("%q kept:\n%s", w, kept)
				}
			}
		})
	}
}

func parseMake(out []byte) *Result { return Parse("make", out, "/home/dev/p") }

func TestKeepSmallCaps(t *testing.T) {
	out := logOf(100, map[int]string{50: "a.c:1:1: error: x"})
	res := parseMake(out)
	for max := 1; max <= 25; max++ {
		for _, exit := range []int{0, 1} {
			kept, trunc := Keep(out, exit, res, max)
			checkKept(t, out, kept, trunc, true, max)
		}
	}
}

func TestKeepLineEnds(t *testing.T) {
	out := logOf(50, nil)
	kept, _ := Keep(out[:len(out)-1], 1, nil, 10)
	if strings.HasSuffix(string(kept), "\n") {
		t.Error("a final newline was added")
	}
	kept, _ = Keep(out, 1, nil, 10)
	if !strings.HasSuffix(string(kept), "\n") {
		t.Error("the final newline was lost")
	}
	if kept, trunc := Keep(nil, 1, nil, 10); len(kept) != 0 || trunc {
		t.Errorf("Keep(nil) = %q, %v", kept, trunc)
	}
}

func TestKeepDefaultCap(t *testing.T) {
	out := logOf(DefaultMaxLines+500, nil)
	kept, trunc := Keep(out, 1, nil, 0)
	if !trunc || lineCount(kept) != DefaultMaxLines {
		t.Errorf("kept %d lines (truncated %v), want %d", lineCount(kept), trunc, DefaultMaxLines)
	}
}

package diag

import (
	"bytes"
	"errors"
	"path"
	"testing"

	"github.com/ctx-dev/ctx/object"
)

// fuzzEntries are the command names that reach each parser.
var fuzzEntries = []string{
	"go build ./...", "go vet ./...", "go vet -json ./...", "go test ./...", "gofmt -l .",
	"cargo test", "rustc main.rs", "tsc --noEmit", "eslint .", "pytest", "make",
}

// FuzzParse feeds every parser arbitrary output: Parse must not panic,
// and what it returns must be valid (known severities, lines ≥ 0, clean
// paths, one-line messages) and storable; Keep must respect its cap.
func FuzzParse(f *testing.F) {
	for _, tc := range readCases(f) {
		for e := range fuzzEntries {
			f.Add(uint8(e), tc.output)
		}
	}
	f.Add(uint8(0), []byte("# p\n\tx.go:1:2: y\n\x00:1:1: z"))
	f.Add(uint8(3), []byte("panic: x\n\tframe.go:99999999999999999999\n"))
	f.Fuzz(func(t *testing.T, entry uint8, output []byte) {
		name := fuzzEntries[int(entry)%len(fuzzEntries)]
		for _, root := range []string{"/home/dev/p", ""} {
			res := Parse(name, output, root)
			checkFuzzResult(t, res, output)
			run := &CommandRun{Name: name, Summary: res.Summary, Diagnostics: res.Diagnostics}
			if _, err := object.Encode(run); err != nil {
				t.Fatalf("Encode: %v", err)
			}
			for _, maxLines := range []int{1, 7, 40} {
				kept, trunc := Keep(output, 1, res, maxLines)
				if lineCount(kept) > maxLines || !trunc && !bytes.Equal(kept, output) {
					t.Fatalf("Keep(%d) kept %d lines, truncated %v", maxLines, lineCount(kept), trunc)
				}
			}
		}
	})
}

func checkFuzzResult(t *testing.T, res *Result, output []byte) {
	t.Helper()
	if res == nil || len(res.sources) != len(res.Diagnostics) {
		t.Fatal("Parse returned no result or mismatched sources")
	}
	seen := map[Diagnostic]bool{}
	for i, d := range res.Diagnostics {
		if err := d.Validate(); err != nil {
			t.Fatalf("diagnostic %d %+v: %v", i, d, err)
		}
		if d.Line < 0 || d.Col < 0 || d.EndLine < 0 || d.EndCol < 0 {
			t.Fatalf("negative position in %+v", d)
		}
		if d.Path != "" && path.Clean(d.Path) != d.Path {
			t.Fatalf("path %q is not clean", d.Path)
		}
		if seen[d] {
			t.Fatalf("duplicate %+v", d)
		}
		seen[d] = true
	}
	if err := res.Summary.Validate(); err != nil {
		t.Fatalf("summary: %v", err)
	}
	n := max(len(splitLines(output)), 1)
	for _, s := range res.sources {
		if s.from < 0 || s.to >= n || s.to < s.from {
			t.Fatalf("source %d-%d outside %d lines", s.from, s.to, n)
		}
	}
}

// FuzzKeep checks Keep's cap and its accounting on arbitrary output.
func FuzzKeep(f *testing.F) {
	for _, tc := range readCases(f) {
		f.Add(tc.output, int16(goldenMaxLines), tc.exit != 0)
	}
	f.Add([]byte("\n\n\n"), int16(1), true)
	f.Fuzz(func(t *testing.T, output []byte, maxLines int16, failing bool) {
		exit := 0
		if failing {
			exit = 1
		}
		res := Parse("make", output, "")
		kept, trunc := Keep(output, exit, res, int(maxLines))
		limit := int(maxLines)
		if limit <= 0 {
			limit = DefaultMaxLines
		}
		checkKept(t, output, kept, trunc, failing || res.HasErrors(), limit)
	})
}

// FuzzDecodeCommandRun checks that Decode refuses what it cannot read
// with ErrDecode, and that what it accepts is valid and canonical.
func FuzzDecodeCommandRun(f *testing.F) {
	minimal := &CommandRun{Name: "make", Summary: Summary{Passed: -1, Failed: -1, Skipped: -1}}
	for _, r := range []*CommandRun{testRun(), minimal} {
		p, err := object.Encode(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(p)
		f.Add(p[:len(p)/2])
		flipped := bytes.Clone(p)
		flipped[len(p)*2/3] ^= 0x01
		f.Add(flipped)
	}
	f.Add([]byte{})
	f.Add([]byte{0xa1})
	f.Fuzz(func(t *testing.T, p []byte) {
		r := new(CommandRun)
		if err := object.Decode(p, r); err != nil {
			if !errors.Is(err, object.ErrDecode) {
				t.Fatalf("Decode = %v, not ErrDecode", err)
			}
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("decoded an invalid run: %v", err)
		}
		re, err := object.Encode(r)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		if !bytes.Equal(re, p) && len(object.UnknownKeys(p, r)) == 0 {
			t.Fatal("decoded a payload that is not canonical")
		}
	})
}

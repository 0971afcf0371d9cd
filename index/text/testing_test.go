package text

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// goSources returns the Go files of GOROOT/src/net/http (no tests).
func goSources(tb testing.TB) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "net", "http", "*.go"))
	if err != nil || len(files) == 0 {
		tb.Skipf("no Go sources in GOROOT: %v", err)
	}
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

func readGoSource(tb testing.TB) string {
	return strings.Join(goSources(tb), "\n")
}

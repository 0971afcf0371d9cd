package pack

import (
	"path"
	"strings"
)

// isTest reports whether p is a test file by the conventions of the
// languages ctx reads: Go's _test.go, Python's test_*.py and *_test.py,
// JavaScript's and TypeScript's *.test.* and *.spec.*, and files under a
// tests/, test/ or __tests__/ directory, or Go's testdata/ (fixtures the
// go tool ignores).
func isTest(p string) bool {
	base := path.Base(p)
	switch {
	case strings.HasSuffix(base, "_test.go"):
		return true
	case strings.HasSuffix(base, ".py") && (strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py")):
		return true
	case strings.Contains(base, ".test.") || strings.Contains(base, ".spec."):
		return true
	}
	for _, dir := range strings.Split(path.Dir(p), "/") {
		if dir == "tests" || dir == "test" || dir == "__tests__" || dir == "testdata" {
			return true
		}
	}
	return false
}

// subjectOf returns the file a test file tests by naming convention, in
// the same directory: foo_test.go → foo.go, test_foo.py and foo_test.py →
// foo.py, foo.test.ts and foo.spec.ts → foo.ts; "" when the name says
// nothing.
func subjectOf(p string) string {
	dir, base := path.Split(p)
	switch {
	case strings.HasSuffix(base, "_test.go"):
		return dir + strings.TrimSuffix(base, "_test.go") + ".go"
	case strings.HasSuffix(base, ".py") && strings.HasPrefix(base, "test_"):
		return dir + strings.TrimPrefix(base, "test_")
	case strings.HasSuffix(base, "_test.py"):
		return dir + strings.TrimSuffix(base, "_test.py") + ".py"
	}
	for _, mark := range []string{".test.", ".spec."} {
		if i := strings.Index(base, mark); i > 0 {
			return dir + base[:i] + base[i+len(mark)-1:]
		}
	}
	return ""
}

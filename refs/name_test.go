package refs

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/object"
)

var hex64 = strings.Repeat("0123456789abcdef", 4)

func TestParseName(t *testing.T) {
	valid := []struct {
		in   string
		want Name
	}{
		{"main", Main},
		{"refs/main", Main},
		{"feature/x", "feature/x"},
		{"refs/feature/x", "feature/x"},
		{"HEAD", HEAD},
		{"STAGE", STAGE},
		{"a.b_c-d", "a.b_c-d"},
		{"v1.0", "v1.0"},
		{"trailing.", "trailing."},
		{"x.lockx", "x.lockx"},
		{"tmp", "tmp"},
		{"lock/tmp", "lock/tmp"},
		{"_/-/0", "_/-/0"},
		{"UPPER/Mixed", "UPPER/Mixed"},
		{"deadbeef", "deadbeef"},         // short hex: a name until an object is meant
		{hex64[:63], Name(hex64[:63])},   // one short of an id
		{hex64 + "0", Name(hex64 + "0")}, // one over
		{"a/" + hex64[:63] + "g", Name("a/" + hex64[:63] + "g")},
		{strings.Repeat("a", maxNameLen), Name(strings.Repeat("a", maxNameLen))},
		{"refs/" + strings.Repeat("a", maxNameLen), Name(strings.Repeat("a", maxNameLen))},
		{strings.Repeat("a/", maxNameLen/2-1) + "bb", Name(strings.Repeat("a/", maxNameLen/2-1) + "bb")},
	}
	for _, tc := range valid {
		t.Run("valid/"+tc.in, func(t *testing.T) {
			got, err := ParseName(tc.in)
			if err != nil {
				t.Fatalf("ParseName(%q): %v", tc.in, err)
			}
			if got != tc.want {
				t.Fatalf("ParseName(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}

	invalid := []string{
		"",
		"refs/",
		".",
		"..",
		"a/..",
		"../a",
		"a/../b",
		"a..b",
		"a/b..",
		"x/a..b/y",
		".hidden",
		"a/.b",
		"a.tmp",
		"a/b.tmp",
		"x.tmp/y",
		"a.lock",
		"a/b.lock",
		"x.lock/y",
		hex64,
		"refs/" + hex64,
		"main/" + hex64,
		hex64 + "/x",
		"a//b",
		"/a",
		"a/",
		"refs//a",
		"a b",
		"a\tb",
		"a\nb",
		"a\x00b",
		"a:b",
		"a~1",
		"a^",
		"a^2",
		"a*",
		"a?",
		"a[b]",
		"a\\b",
		"a@{1}",
		"é",
		"a\x7f",
		strings.Repeat("a", maxNameLen+1),
		strings.Repeat("a/", maxNameLen/2) + "b",
	}
	for _, in := range invalid {
		t.Run("invalid/"+in, func(t *testing.T) {
			got, err := ParseName(in)
			if err == nil {
				t.Fatalf("ParseName(%q) = %q, want an error", in, got)
			}
			if !errors.Is(err, ErrInvalidName) {
				t.Fatalf("ParseName(%q): %v, want ErrInvalidName", in, err)
			}
			if got != "" {
				t.Fatalf("ParseName(%q) returned %q with its error", in, got)
			}
		})
	}
}

func TestNameString(t *testing.T) {
	tests := []struct {
		name   Name
		str    string
		shared bool
	}{
		{Main, "refs/main", true},
		{"feature/x", "refs/feature/x", true},
		{HEAD, "HEAD", false},
		{STAGE, "STAGE", false},
	}
	for _, tc := range tests {
		t.Run(string(tc.name), func(t *testing.T) {
			if got := tc.name.String(); got != tc.str {
				t.Errorf("String() = %q, want %q", got, tc.str)
			}
			if got := tc.name.Shared(); got != tc.shared {
				t.Errorf("Shared() = %v, want %v", got, tc.shared)
			}
			back, err := ParseName(tc.name.String())
			if err != nil || back != tc.name {
				t.Errorf("ParseName(%q) = %q, %v; want %q", tc.name.String(), back, err, tc.name)
			}
		})
	}
}

func FuzzParseName(f *testing.F) {
	for _, s := range []string{
		"main", "refs/main", "feature/x", "HEAD", "STAGE", "a.b_c-d", "refs/refs/x",
		"", ".", "..", "a..b", "a//b", ".tmp", "a.lock", hex64, "a/" + hex64, "a b", "a\x00b",
		strings.Repeat("a", maxNameLen+1), "refs/HEAD",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseName(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidName) {
				t.Fatalf("ParseName(%q): %v, want ErrInvalidName", s, err)
			}
			return
		}
		if n == "" {
			t.Fatalf("ParseName(%q) accepted the empty name", s)
		}
		back, err := ParseName(n.String())
		if err != nil || back != n {
			t.Fatalf("ParseName(%q) = %q, but ParseName(%q) = %q, %v", s, n, n.String(), back, err)
		}
		if !n.Shared() {
			return
		}
		if len(n) > maxNameLen {
			t.Fatalf("ParseName(%q) = %q: longer than %d", s, n, maxNameLen)
		}
		if strings.ContainsRune(string(n), 0) {
			t.Fatalf("ParseName(%q) = %q: contains NUL", s, n)
		}
		if strings.Contains(string(n), "..") {
			t.Fatalf("ParseName(%q) = %q: contains \"..\"", s, n)
		}
		for _, el := range strings.Split(string(n), "/") {
			switch {
			case el == "" || el == "." || el == "..":
				t.Fatalf("ParseName(%q) = %q: element %q", s, n, el)
			case strings.HasPrefix(el, "."):
				t.Fatalf("ParseName(%q) = %q: element %q starts with '.'", s, n, el)
			case len(el) == 2*object.IDSize && object.IsHex(el):
				t.Fatalf("ParseName(%q) = %q: element %q is a head file name", s, n, el)
			case strings.HasSuffix(el, ".tmp") || strings.HasSuffix(el, ".lock"):
				t.Fatalf("ParseName(%q) = %q: element %q ends like a temporary file", s, n, el)
			}
			for _, c := range []byte(el) {
				if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
					t.Fatalf("ParseName(%q) = %q: byte %q", s, n, c)
				}
			}
		}
		// The ref's directory stays inside refs/.
		root := filepath.FromSlash("/store")
		dir := NewStore(root).dir(n)
		if filepath.Clean(dir) != dir || !strings.HasPrefix(dir, filepath.Join(root, "refs")+string(filepath.Separator)) {
			t.Fatalf("ParseName(%q) = %q: directory %q escapes refs/", s, n, dir)
		}
	})
}

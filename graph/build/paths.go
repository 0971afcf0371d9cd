package build

import (
	"cmp"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// checkRoot returns root cleaned; it must be absolute, since every path a
// tool reports is made relative to it.
func checkRoot(root string) (string, error) {
	if !filepath.IsAbs(root) {
		return "", fmt.Errorf("build: project root %q is not an absolute path", root)
	}
	return filepath.Clean(root), nil
}

// relPath returns p relative to root as a slash-separated path, "." for
// root itself. ok is false when p is not an absolute path inside root:
// such paths are left out of snapshots (package doc).
func relPath(root, p string) (rel string, ok bool) {
	if p == "" || !filepath.IsAbs(p) {
		return "", false
	}
	r, err := filepath.Rel(root, filepath.Clean(p))
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	r = filepath.ToSlash(r)
	if !validRel(r) {
		return "", false
	}
	return r, true
}

// validRel reports whether p is a slash-separated path relative to the
// project root: "." or a path of fs.ValidPath's form (no "..", no leading
// or trailing slash, no empty elements).
func validRel(p string) bool { return fs.ValidPath(p) }

// validFile reports whether p names a file below the project root.
func validFile(p string) bool { return p != "." && fs.ValidPath(p) }

// sortedSet returns the distinct non-empty strings of lists, sorted; nil
// when there are none.
func sortedSet(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, s := range l {
			if s != "" {
				out = append(out, s)
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// checkSet reports an error unless list is strictly increasing and every
// element passes ok.
func checkSet(field string, list []string, ok func(string) bool) error {
	for i, s := range list {
		if !ok(s) {
			return fmt.Errorf("%s[%d] %q is not valid", field, i, s)
		}
		if i > 0 && cmp.Compare(list[i-1], s) >= 0 {
			return fmt.Errorf("%s[%d] %q is out of order or repeated", field, i, s)
		}
	}
	return nil
}

func nonEmpty(s string) bool { return s != "" }

package refs

import (
	"fmt"
	"strings"

	"github.com/ctx-dev/ctx/object"
)

// Name is a validated ref name.
type Name string

// The well-known names.
const (
	HEAD  Name = "HEAD"
	STAGE Name = "STAGE"
	Main  Name = "main"
)

// maxNameLen bounds a name so that paths stay well under OS limits.
const maxNameLen = 200

// ParseName validates a ref name. "refs/x" and "x" are the same name. A
// name is "HEAD", "STAGE", or one or more '/'-separated elements of ASCII
// letters, digits, '.', '_' and '-', where no element starts with '.' or
// contains "..", ends with ".tmp" or ".lock", or is 64 hex digits in any
// case (the form of a head file), and whose first element is not "HEAD",
// "STAGE" or "refs" (reserved: refs/HEAD would be a ref HEAD could never
// reach, and refs/refs/x one whose short form is another ref's).
func ParseName(s string) (Name, error) {
	if s == string(HEAD) || s == string(STAGE) {
		return Name(s), nil
	}
	return parseShared(strings.TrimPrefix(s, "refs/"))
}

// parseShared validates the name of a ref under refs/, given as its path
// below refs/.
func parseShared(s string) (Name, error) {
	if s == "" || len(s) > maxNameLen {
		return "", fmt.Errorf("%w: %q", ErrInvalidName, s)
	}
	switch first, _, _ := strings.Cut(s, "/"); first {
	case string(HEAD), string(STAGE), "refs":
		return "", fmt.Errorf("%w: %q: a first element HEAD, STAGE or refs is reserved", ErrInvalidName, s)
	}
	for _, el := range strings.Split(s, "/") {
		if err := checkElement(el); err != nil {
			return "", fmt.Errorf("%w: %q: %s", ErrInvalidName, s, err)
		}
	}
	return Name(s), nil
}

func checkElement(el string) error {
	switch {
	case el == "":
		return fmt.Errorf("empty element")
	case el[0] == '.':
		return fmt.Errorf("element %q starts with '.'", el)
	case strings.Contains(el, ".."):
		return fmt.Errorf("element %q contains \"..\"", el)
	case strings.HasSuffix(el, ".tmp") || strings.HasSuffix(el, ".lock"):
		return fmt.Errorf("element %q ends with .tmp or .lock", el)
	case len(el) == 2*object.IDSize && object.IsHex(strings.ToLower(el)):
		// In any case: on a case-insensitive file system it would collide
		// with a head file.
		return fmt.Errorf("element %q looks like an object id", el)
	}
	for i := 0; i < len(el); i++ {
		c := el[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("character %q is not allowed (use letters, digits, '.', '_', '-')", c)
		}
	}
	return nil
}

// Shared reports whether the ref lives under refs/ (tracked in git, with
// head files) rather than being HEAD or STAGE.
func (n Name) Shared() bool { return n != HEAD && n != STAGE }

// String returns the name as users write it: "HEAD", "STAGE" or
// "refs/<name>".
func (n Name) String() string {
	if n.Shared() {
		return "refs/" + string(n)
	}
	return string(n)
}

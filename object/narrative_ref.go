package object

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"
)

// NarrativeRef records the content of one narrative file at commit time.
type NarrativeRef struct {
	// Path is relative to .ctx/narrative/, with '/' separators.
	Path string `json:"path"`
	// Stream names the narrative stream, e.g. "main" or "feature-x".
	Stream string `json:"stream"`
	// Role is the document's role, e.g. "log", "task", "decision", "doc".
	Role string `json:"role"`
	// BlobID is the blob holding the Markdown content; for a deleted file,
	// the content it had when it was last recorded.
	BlobID ID `json:"blob_id"`
	// Deleted records that the file was removed; optional.
	Deleted bool `json:"deleted,omitempty"`
}

// Validate checks that Path is a clean relative path and BlobID is set.
func (n *NarrativeRef) Validate() error {
	if err := CheckRelPath(n.Path); err != nil {
		return fmt.Errorf("path: %w", err)
	}
	if n.BlobID.IsZero() {
		return errors.New("blob_id is the zero id")
	}
	if !utf8.ValidString(n.Stream) || !utf8.ValidString(n.Role) {
		return errors.New("stream or role is not UTF-8")
	}
	return nil
}

// CheckRelPath checks that p is a clean, relative, slash-separated path
// that stays inside its root: no empty, "." or ".." element, no leading or
// trailing slash, no backslash or NUL.
func CheckRelPath(p string) error {
	switch {
	case p == "":
		return errors.New("empty path")
	case !utf8.ValidString(p):
		return fmt.Errorf("%q is not UTF-8", p)
	case strings.ContainsAny(p, "\\\x00"):
		return fmt.Errorf("%q contains a backslash or NUL", p)
	case path.IsAbs(p):
		return fmt.Errorf("%q is absolute", p)
	case path.Clean(p) != p || p == "." || p == ".." || strings.HasPrefix(p, "../"):
		return fmt.Errorf("%q is not a clean relative path", p)
	}
	return nil
}

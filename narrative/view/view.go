package view

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/narrative/where"
)

// The built-in view (hooks design §4, §10): what an agent's context holds
// when nothing else is asked for.
const (
	// DefaultName names the built-in view.
	DefaultName = "default"
	// DefaultQuery is its query: every node with a tier that loads
	// (off-context nodes and nodes without a tier stay out).
	DefaultQuery = "tag:tier:pinned OR tag:tier:reference OR tag:tier:working"
	// DefaultBudget is the budget, in tokens, of a view that has none of
	// its own when the caller sets no other (ctx: CTX_DEFAULT_BUDGET).
	DefaultBudget = 50000
)

// Limits on what a view holds.
const (
	// MaxNameLen bounds a view name.
	MaxNameLen = 64
	// MaxQueryLen bounds a query, in bytes.
	MaxQueryLen = 16 << 10
	// MaxDescriptionLen bounds a description, in characters.
	MaxDescriptionLen = 1000
	// MaxBudget bounds a budget, in tokens: far more than any model
	// reads, and small enough that the character counts derived from it
	// cannot overflow.
	MaxBudget = 1 << 30
)

// View is a saved query with a token budget: what `ctx view render NAME`
// composes.
type View struct {
	// Name is the view's name, the file name without ".toml" (ParseName).
	Name string `json:"name"`
	// Query is the filter expression (docs/QUERY.md), as written.
	Query string `json:"query"`
	// Budget is the token budget; 0 means the default budget of the
	// caller (DefaultBudget unless overridden).
	Budget int `json:"budget,omitempty"`
	// Description says what the view is for; one line, optional.
	Description string `json:"description,omitempty"`
	// Format is the format rendered unless the caller asks for another;
	// the zero value means Markdown.
	Format Format `json:"format,omitempty"`
	// Created and Updated are when the view was created and last
	// changed; zero for the built-in view and when a hand-written file
	// does not say.
	Created time.Time `json:"created,omitzero"`
	Updated time.Time `json:"updated,omitzero"`
	// Builtin is true for the default view when no file replaces it.
	Builtin bool `json:"builtin,omitempty"`
}

// Default returns the built-in default view.
func Default() *View {
	return &View{Name: DefaultName, Query: DefaultQuery, Description: "Pinned, reference and working nodes", Builtin: true}
}

// Validate checks every field but the times: the name (ParseName), the
// query (it must parse), the budget, the description and the format.
func (v *View) Validate() error {
	if _, err := ParseName(v.Name); err != nil {
		return err
	}
	if err := CheckQuery(v.Query); err != nil {
		return err
	}
	if err := CheckBudget(v.Budget); err != nil {
		return err
	}
	if err := CheckDescription(v.Description); err != nil {
		return err
	}
	if v.Format != 0 && !v.Format.Valid() {
		return fmt.Errorf("%w: format %d is neither markdown nor json", ErrInvalid, v.Format)
	}
	return nil
}

// nameRule is the rule ParseName enforces, for its errors.
const nameRule = "a view name is 1-64 lowercase letters, digits, '-' and '_', starting with a letter or digit"

// ParseName validates and normalizes a view name: upper case is folded,
// and the result must be 1-64 of a-z, 0-9, '-' and '_', starting with a
// letter or digit. The rule keeps names safe as file names everywhere git
// runs: no path separators or dots, one case only (so that "Notes" and
// "notes" cannot be two files that a case-insensitive file system takes
// for one), and none of the device names Windows reserves (con, nul,
// com1, …).
func ParseName(s string) (string, error) {
	n := strings.ToLower(s)
	if n == "" || len(n) > MaxNameLen {
		return "", fmt.Errorf("%w: %q: %s", ErrInvalidName, s, nameRule)
	}
	for i, r := range n {
		alnum := 'a' <= r && r <= 'z' || '0' <= r && r <= '9'
		if alnum || i > 0 && (r == '-' || r == '_') {
			continue
		}
		what := fmt.Sprintf("character %q is not allowed", r)
		if i == 0 && (r == '-' || r == '_') {
			what = fmt.Sprintf("it starts with %q", r)
		}
		return "", fmt.Errorf("%w: %q: %s (%s)", ErrInvalidName, s, what, nameRule)
	}
	if reserved(n) {
		return "", fmt.Errorf("%w: %q: %s is a device name on Windows, which cannot be a file name there", ErrInvalidName, s, n)
	}
	return n, nil
}

// reserved reports whether n is a device name of Windows.
func reserved(n string) bool {
	switch n {
	case "con", "prn", "aux", "nul":
		return true
	}
	if len(n) == 4 && (strings.HasPrefix(n, "com") || strings.HasPrefix(n, "lpt")) && '0' <= n[3] && n[3] <= '9' {
		return true
	}
	return false
}

// CheckQuery checks that q is a filter expression that parses. The ids of
// from: and to: are not resolved: the nodes they name may come later.
func CheckQuery(q string) error {
	if strings.TrimSpace(q) == "" {
		return fmt.Errorf("%w: the query is empty: give a filter expression such as tag:tier:reference", ErrInvalid)
	}
	if len(q) > MaxQueryLen {
		return fmt.Errorf("%w: the query is %d bytes, more than %d", ErrInvalid, len(q), MaxQueryLen)
	}
	if !utf8.ValidString(q) {
		return fmt.Errorf("%w: the query is not UTF-8", ErrInvalid)
	}
	// Parsing does not depend on the time, only relative times do.
	if _, err := where.Parse(q, time.Time{}); err != nil {
		return fmt.Errorf("%w: query %q: %v", ErrInvalid, q, err)
	}
	return nil
}

// CheckBudget checks a view's budget: 0 (the default) or a positive
// number of tokens up to MaxBudget.
func CheckBudget(b int) error {
	if b < 0 || b > MaxBudget {
		return fmt.Errorf("%w: budget %d: give a number of tokens from 1 to %d, or 0 for the default budget", ErrInvalid, b, MaxBudget)
	}
	return nil
}

// CheckDescription checks a description: one line of at most
// MaxDescriptionLen characters of UTF-8, without control characters.
func CheckDescription(d string) error {
	if !utf8.ValidString(d) {
		return fmt.Errorf("%w: the description is not UTF-8", ErrInvalid)
	}
	if n := utf8.RuneCountInString(d); n > MaxDescriptionLen {
		return fmt.Errorf("%w: the description is %d characters, more than %d", ErrInvalid, n, MaxDescriptionLen)
	}
	if strings.ContainsFunc(d, unicode.IsControl) {
		return fmt.Errorf("%w: the description must be one line without control characters", ErrInvalid)
	}
	return nil
}

// Format is how a rendering is laid out. The zero value is invalid; a
// View's zero Format means Markdown.
type Format uint8

// The formats.
const (
	// Markdown is the format of hook injection (hooks design §13).
	Markdown Format = iota + 1
	// JSON is the format for scripts.
	JSON
)

// ParseFormat reads "markdown" (or "md") or "json", in any case.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "markdown", "md":
		return Markdown, nil
	case "json":
		return JSON, nil
	}
	return 0, fmt.Errorf("%w: format %q: want markdown or json", ErrInvalid, s)
}

// Valid reports whether f is a defined format.
func (f Format) Valid() bool { return f == Markdown || f == JSON }

// String returns "markdown", "json", or "" for the zero value.
func (f Format) String() string {
	switch f {
	case Markdown:
		return "markdown"
	case JSON:
		return "json"
	}
	return ""
}

// MarshalText writes the format's name.
func (f Format) MarshalText() ([]byte, error) {
	if f != 0 && !f.Valid() {
		return nil, fmt.Errorf("%w: format %d", ErrInvalid, f)
	}
	return []byte(f.String()), nil
}

// UnmarshalText reads a format's name.
func (f *Format) UnmarshalText(b []byte) error {
	v, err := ParseFormat(string(b))
	if err != nil {
		return err
	}
	*f = v
	return nil
}

package view

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// FileVersion is the version of the view file format, written as
// `version = 1` in every file. Readers refuse other versions.
//
// Changes:
//   - 1: first version: version, query, budget, description, format,
//     created, updated.
const FileVersion = 1

// maxFile bounds a view file.
const maxFile = 64 << 10

// fileHeader starts every file ctx writes.
const fileHeader = "# A ctx view: `ctx view render NAME` composes the nodes its query\n" +
	"# selects within its token budget. See docs/FORMAT.md §17.\n"

// Encode returns the file of v (its name is the file's): the header
// comment, then version, query, and the optional keys that are set, one
// per line, in a fixed order. Times are written in UTC, to the second.
// Encode does not validate v.
func Encode(v *View) []byte {
	var b bytes.Buffer
	b.WriteString(fileHeader)
	fmt.Fprintf(&b, "version = %d\n", FileVersion)
	fmt.Fprintf(&b, "query = %s\n", quote(v.Query))
	if v.Budget != 0 {
		fmt.Fprintf(&b, "budget = %d\n", v.Budget)
	}
	if v.Description != "" {
		fmt.Fprintf(&b, "description = %s\n", quote(v.Description))
	}
	if v.Format != 0 {
		fmt.Fprintf(&b, "format = %s\n", quote(v.Format.String()))
	}
	if !v.Created.IsZero() {
		fmt.Fprintf(&b, "created = %s\n", stamp(v.Created))
	}
	if !v.Updated.IsZero() {
		fmt.Fprintf(&b, "updated = %s\n", stamp(v.Updated))
	}
	return b.Bytes()
}

// stamp writes t as a TOML offset date-time in UTC, to the second.
func stamp(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

// quote writes s as a TOML basic string: '"', '\' and control characters
// escaped, everything else as is.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// fileData is what a view file holds, as TOML decodes it; pointers tell
// a missing key from a zero value.
type fileData struct {
	Version     *int64  `toml:"version"`
	Query       *string `toml:"query"`
	Budget      *int64  `toml:"budget"`
	Description *string `toml:"description"`
	Format      *string `toml:"format"`
	// Created and Updated are decoded as they are given, so that a
	// local date-time (one without an offset) can be told apart: decoded
	// into a time.Time it would silently take the reader's time zone.
	Created any `toml:"created"`
	Updated any `toml:"updated"`
}

// Decode parses a view file for the view name (which it does not check).
// The file is TOML with the keys Encode writes: version (required, 1),
// query (required, a filter expression that parses), budget (0 or
// positive), description (one line), format ("markdown" or "json"),
// created and updated (offset date-times). Any other key, a key of the
// wrong type, or a value out of range is an error: a *FileError (with no
// Path) wrapping ErrInvalidFile.
func Decode(name string, data []byte) (*View, error) {
	bad := func(format string, args ...any) (*View, error) {
		return nil, &FileError{Msg: fmt.Sprintf(format, args...)}
	}
	if len(data) > maxFile {
		return bad("%d bytes, more than the %d a view file may have", len(data), maxFile)
	}
	if !utf8.Valid(data) {
		return bad("not UTF-8")
	}
	var f fileData
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&f)
	if err != nil {
		return bad("%s", oneLine(err.Error()))
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		sort.Strings(keys)
		return bad("unknown key(s) %s (the keys are version, query, budget, description, format, created and updated)", strings.Join(keys, ", "))
	}
	switch {
	case f.Version == nil:
		return bad("no version: the file must say version = %d", FileVersion)
	case *f.Version != FileVersion:
		return bad("version %d: this ctx reads version %d only (a newer ctx wrote it?)", *f.Version, FileVersion)
	case f.Query == nil:
		return bad("no query: the file must give one, such as query = %s", quote(DefaultQuery))
	}
	v := &View{Name: name, Query: *f.Query}
	if err := CheckQuery(v.Query); err != nil {
		return bad("%s", strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": "))
	}
	if f.Budget != nil {
		if *f.Budget <= 0 || *f.Budget > MaxBudget {
			return bad("budget %d: give a number of tokens from 1 to %d, or leave it out for the default budget", *f.Budget, MaxBudget)
		}
		v.Budget = int(*f.Budget)
	}
	if f.Description != nil {
		if err := CheckDescription(*f.Description); err != nil {
			return bad("%s", strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": "))
		}
		v.Description = *f.Description
	}
	if f.Format != nil {
		switch *f.Format {
		case "markdown":
			v.Format = Markdown
		case "json":
			v.Format = JSON
		default:
			return bad("format %s: want \"markdown\" or \"json\"", quote(*f.Format))
		}
	}
	for _, t := range []struct {
		key string
		in  any
		out *time.Time
	}{{"created", f.Created, &v.Created}, {"updated", f.Updated, &v.Updated}} {
		if t.in == nil {
			continue
		}
		tm, ok := t.in.(time.Time)
		if ok {
			switch tm.Location().String() {
			case "datetime-local", "date-local", "time-local":
				// A time without an offset would mean a different
				// instant in every time zone a teammate works in.
				ok = false
			}
		}
		if !ok {
			return bad("%s: give a date-time with an offset, such as 2026-09-21T14:13:20Z", t.key)
		}
		if tm = tm.UTC(); tm.Year() < 1 || tm.Year() > 9999 {
			return bad("%s: %s is outside the years 1 to 9999 (UTC)", t.key, tm.Format(time.RFC3339))
		}
		*t.out = tm
	}
	return v, nil
}

// oneLine joins the lines of a message.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

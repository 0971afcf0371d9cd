package object

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// EntryKind says whether a tree entry is a file (blob), a directory
// (tree), or a typed object standing for a file (a file_version in a
// semantic snapshot).
type EntryKind string

// The tree entry kinds. The zero value is invalid.
const (
	EntryBlob  EntryKind = "blob"
	EntryTree  EntryKind = "tree"
	EntryTyped EntryKind = "typed"
)

// Valid reports whether k is a defined entry kind.
func (k EntryKind) Valid() bool { return k == EntryBlob || k == EntryTree || k == EntryTyped }

// String returns the kind's name.
func (k EntryKind) String() string { return string(k) }

// Tree is a snapshot of one directory, like a git tree. Stored under the
// type name "tree".
type Tree struct {
	// Entries are sorted by Name in bytewise order, with no repeats.
	Entries []TreeEntry `json:"entries"`
}

// TreeEntry is one name in a directory.
type TreeEntry struct {
	// Name is one path element: not empty, ".", or "..", and without '/'
	// or NUL.
	Name string `json:"name"`
	// Kind is "blob" for a file, "tree" for a directory and "typed" for a
	// typed object standing for a file.
	Kind EntryKind `json:"kind"`
	// ID is the blob, tree or typed object.
	ID ID `json:"id"`
}

// TypeName returns "tree".
func (*Tree) TypeName() string { return "tree" }

// Links returns one link per entry.
func (t *Tree) Links() []Link {
	ls := make([]Link, len(t.Entries))
	for i, e := range t.Entries {
		l := Link{Field: "entries[" + e.Name + "]", ID: e.ID, Kind: KindBlob}
		switch e.Kind {
		case EntryTree:
			l.Kind, l.Type = KindTyped, "tree"
		case EntryTyped:
			l.Kind = KindTyped
		}
		ls[i] = l
	}
	return ls
}

// Validate checks names, kinds, IDs and the order of the entries.
func (t *Tree) Validate() error {
	for i, e := range t.Entries {
		if err := CheckName(e.Name); err != nil {
			return fmt.Errorf("entries[%d]: %w", i, err)
		}
		if !e.Kind.Valid() {
			return fmt.Errorf("entries[%d] %q: kind %q (want blob, tree or typed)", i, e.Name, e.Kind)
		}
		if e.ID.IsZero() {
			return fmt.Errorf("entries[%d] %q: zero id", i, e.Name)
		}
		if i > 0 && t.Entries[i-1].Name >= e.Name {
			return fmt.Errorf("entries[%d] %q: not sorted after %q, or a repeat", i, e.Name, t.Entries[i-1].Name)
		}
	}
	return nil
}

// Lookup returns the entry called name.
func (t *Tree) Lookup(name string) (TreeEntry, bool) {
	lo, hi := 0, len(t.Entries)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.Entries[m].Name < name {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(t.Entries) && t.Entries[lo].Name == name {
		return t.Entries[lo], true
	}
	return TreeEntry{}, false
}

// CheckName checks that s is a valid tree entry name.
func CheckName(s string) error {
	switch {
	case s == "" || s == "." || s == "..":
		return fmt.Errorf("invalid name %q", s)
	case strings.ContainsAny(s, "/\x00"):
		return fmt.Errorf("name %q contains '/' or NUL", s)
	case !utf8.ValidString(s):
		return errors.New("name is not UTF-8")
	}
	return nil
}

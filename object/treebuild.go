package object

import (
	"fmt"
	"sort"
	"strings"
)

// WriteTree writes the trees of a file hierarchy given as a map from
// slash-separated relative paths to blob IDs, and returns the root tree's
// ID. Directories are implied by the paths. A path that is both a file and
// a directory, or that is not clean and relative, is an error.
func WriteTree(w Putter, files map[string]ID) (ID, error) {
	type dir struct {
		files map[string]ID
		dirs  map[string]*dir
	}
	newDir := func() *dir { return &dir{files: map[string]ID{}, dirs: map[string]*dir{}} }
	root := newDir()
	for p, id := range files {
		if err := CheckRelPath(p); err != nil {
			return Zero, fmt.Errorf("%w: tree path: %w", ErrInvalidArgument, err)
		}
		d := root
		parts := strings.Split(p, "/")
		for _, el := range parts[:len(parts)-1] {
			if _, clash := d.files[el]; clash {
				return Zero, fmt.Errorf("%w: %s is both a file and a directory", ErrInvalidArgument, el)
			}
			sub := d.dirs[el]
			if sub == nil {
				sub = newDir()
				d.dirs[el] = sub
			}
			d = sub
		}
		name := parts[len(parts)-1]
		if _, clash := d.dirs[name]; clash {
			return Zero, fmt.Errorf("%w: %s is both a file and a directory", ErrInvalidArgument, p)
		}
		d.files[name] = id
	}
	var write func(d *dir) (ID, error)
	write = func(d *dir) (ID, error) {
		t := &Tree{Entries: make([]TreeEntry, 0, len(d.files)+len(d.dirs))}
		for name, id := range d.files {
			t.Entries = append(t.Entries, TreeEntry{Name: name, Kind: EntryBlob, ID: id})
		}
		for name, sub := range d.dirs {
			id, err := write(sub)
			if err != nil {
				return Zero, err
			}
			t.Entries = append(t.Entries, TreeEntry{Name: name, Kind: EntryTree, ID: id})
		}
		sort.Slice(t.Entries, func(i, j int) bool { return t.Entries[i].Name < t.Entries[j].Name })
		return PutTyped(w, t)
	}
	return write(root)
}

// GetPutter reads and writes objects.
type GetPutter interface {
	Getter
	Putter
}

// EditTree returns the tree base (the zero ID: an empty tree) with the
// changes applied: each maps a slash-separated path to its new entry (its
// Name is ignored; Kind is EntryBlob or EntryTyped), or to nil to remove
// the path and everything under it. Directories are created as needed,
// a file standing where a directory is needed is replaced, and
// directories left empty are removed. Only the trees on changed paths are
// rewritten; the rest is shared with base. The root is always written,
// empty or not.
func EditTree(rw GetPutter, base ID, changes map[string]*TreeEntry) (ID, error) {
	for p, e := range changes {
		if err := CheckRelPath(p); err != nil {
			return Zero, fmt.Errorf("%w: tree path: %w", ErrInvalidArgument, err)
		}
		if e != nil && e.Kind != EntryBlob && e.Kind != EntryTyped {
			return Zero, fmt.Errorf("%w: tree path %s: a change sets a blob or typed entry, not %q", ErrInvalidArgument, p, e.Kind)
		}
	}
	id, _, err := editTree(rw, base, changes, true)
	return id, err
}

// editTree applies changes (paths relative to this tree) and reports
// whether the result is empty; an empty non-root tree is not written.
func editTree(rw GetPutter, base ID, changes map[string]*TreeEntry, root bool) (ID, bool, error) {
	t := new(Tree)
	if !base.IsZero() {
		if err := GetTyped(rw, base, t); err != nil {
			return Zero, false, err
		}
	}
	entries := make(map[string]TreeEntry, len(t.Entries)+len(changes))
	for _, e := range t.Entries {
		entries[e.Name] = e
	}
	sub := map[string]map[string]*TreeEntry{}
	for p, e := range changes {
		head, rest, nested := strings.Cut(p, "/")
		if !nested {
			if e == nil {
				delete(entries, head)
			} else {
				entries[head] = TreeEntry{Name: head, Kind: e.Kind, ID: e.ID}
			}
			continue
		}
		if sub[head] == nil {
			sub[head] = map[string]*TreeEntry{}
		}
		sub[head][rest] = e
	}
	for head, ch := range sub {
		old := Zero
		if e, ok := entries[head]; ok && e.Kind == EntryTree {
			old = e.ID
		} else if ok && !hasSet(ch) {
			continue // only removals under a file: nothing there to remove
		}
		id, empty, err := editTree(rw, old, ch, false)
		if err != nil {
			return Zero, false, err
		}
		if empty {
			if e, ok := entries[head]; ok && e.Kind == EntryTree {
				delete(entries, head)
			}
			continue
		}
		entries[head] = TreeEntry{Name: head, Kind: EntryTree, ID: id}
	}
	if len(entries) == 0 && !root {
		return Zero, true, nil
	}
	out := &Tree{Entries: make([]TreeEntry, 0, len(entries))}
	for _, e := range entries {
		out.Entries = append(out.Entries, e)
	}
	sort.Slice(out.Entries, func(i, j int) bool { return out.Entries[i].Name < out.Entries[j].Name })
	id, err := PutTyped(rw, out)
	return id, len(out.Entries) == 0, err
}

func hasSet(ch map[string]*TreeEntry) bool {
	for _, e := range ch {
		if e != nil {
			return true
		}
	}
	return false
}

// ListTree returns every non-tree entry under the tree root (the zero
// ID: none) by slash-separated path, with Name set to the path. With a
// prefix (a clean relative path), only the entries at or under it.
func ListTree(g Getter, root ID, prefix string) (map[string]TreeEntry, error) {
	out := map[string]TreeEntry{}
	if root.IsZero() {
		return out, nil
	}
	id, kind, base := root, EntryTree, ""
	if prefix != "" && prefix != "." {
		for _, el := range strings.Split(prefix, "/") {
			if kind != EntryTree {
				return out, nil
			}
			t := new(Tree)
			if err := GetTyped(g, id, t); err != nil {
				return nil, err
			}
			e, ok := t.Lookup(el)
			if !ok {
				return out, nil
			}
			id, kind = e.ID, e.Kind
		}
		base = prefix
		if kind != EntryTree {
			out[prefix] = TreeEntry{Name: prefix, Kind: kind, ID: id}
			return out, nil
		}
	}
	var walk func(id ID, dir string) error
	walk = func(id ID, dir string) error {
		t := new(Tree)
		if err := GetTyped(g, id, t); err != nil {
			return err
		}
		for _, e := range t.Entries {
			p := e.Name
			if dir != "" {
				p = dir + "/" + e.Name
			}
			if e.Kind == EntryTree {
				if err := walk(e.ID, p); err != nil {
					return err
				}
				continue
			}
			out[p] = TreeEntry{Name: p, Kind: e.Kind, ID: e.ID}
		}
		return nil
	}
	return out, walk(id, base)
}

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

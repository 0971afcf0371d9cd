package object

// DiffTrees calls fn for every path whose non-tree entry differs between
// the trees a and b (either may be Zero: an empty tree): added (old nil),
// removed (new nil), or changed in ID or kind. Paths come in bytewise
// order of their elements, slash-separated, with Name set to the path. A
// subtree with the same ID on both sides is not read: the cost is that of
// the change, not of the trees.
func DiffTrees(g Getter, a, b ID, fn func(path string, old, new *TreeEntry) error) error {
	return diffTrees(g, a, b, "", fn)
}

func diffTrees(g Getter, a, b ID, dir string, fn func(path string, old, new *TreeEntry) error) error {
	if a == b {
		return nil
	}
	ta, tb := new(Tree), new(Tree)
	if !a.IsZero() {
		if err := GetTyped(g, a, ta); err != nil {
			return err
		}
	}
	if !b.IsZero() {
		if err := GetTyped(g, b, tb); err != nil {
			return err
		}
	}
	i, j := 0, 0
	for i < len(ta.Entries) || j < len(tb.Entries) {
		var ea, eb *TreeEntry
		switch {
		case j == len(tb.Entries) || i < len(ta.Entries) && ta.Entries[i].Name < tb.Entries[j].Name:
			ea = &ta.Entries[i]
			i++
		case i == len(ta.Entries) || tb.Entries[j].Name < ta.Entries[i].Name:
			eb = &tb.Entries[j]
			j++
		default:
			ea, eb = &ta.Entries[i], &tb.Entries[j]
			i++
			j++
		}
		if err := diffEntry(g, dir, ea, eb, fn); err != nil {
			return err
		}
	}
	return nil
}

// diffEntry reports the difference between two entries of one name (either
// nil): a tree against a file is the file removed or added, and every
// file under the tree added or removed.
func diffEntry(g Getter, dir string, ea, eb *TreeEntry, fn func(path string, old, new *TreeEntry) error) error {
	name := ea
	if name == nil {
		name = eb
	}
	p := name.Name
	if dir != "" {
		p = dir + "/" + p
	}
	if ea != nil && eb != nil && ea.Kind == eb.Kind && ea.ID == eb.ID {
		return nil
	}
	var subA, subB ID
	var fa, fb *TreeEntry
	if ea != nil {
		if ea.Kind == EntryTree {
			subA = ea.ID
		} else {
			fa = &TreeEntry{Name: p, Kind: ea.Kind, ID: ea.ID}
		}
	}
	if eb != nil {
		if eb.Kind == EntryTree {
			subB = eb.ID
		} else {
			fb = &TreeEntry{Name: p, Kind: eb.Kind, ID: eb.ID}
		}
	}
	if fa != nil || fb != nil {
		if err := fn(p, fa, fb); err != nil {
			return err
		}
	}
	if !subA.IsZero() || !subB.IsZero() {
		return diffTrees(g, subA, subB, p, fn)
	}
	return nil
}

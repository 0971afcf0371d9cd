package repo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/object"
)

// The derived views live under DERIVED/: objects in DERIVED/objects/,
// laid out like the store's, and one pointer file per view naming the
// newest. They are local and rebuildable; deleting DERIVED/ loses nothing.
const (
	derivedDir = "DERIVED"
	sccLatest  = "scc_latest"
)

// SccSource returns the id that names what g's SCC view is computed from:
// its heads and the edges its narrative declares. Two graphs with the same
// source have the same view.
func (g *Graph) SccSource() object.ID {
	var lines []string
	for i := range g.edges {
		if g.origins[i].Narrative != "" {
			e := &g.edges[i]
			lines = append(lines, e.From.ID.String()+" "+e.To.ID.String()+" "+string(e.Label))
		}
	}
	sort.Strings(lines)
	var b bytes.Buffer
	b.WriteString("scc_view 1\n")
	heads := append([]object.ID(nil), g.Heads...)
	sort.Slice(heads, func(i, j int) bool { return heads[i].Compare(heads[j]) < 0 })
	for _, h := range heads {
		b.WriteString("head " + h.String() + "\n")
	}
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	return object.Sum(object.KindBlob, b.Bytes())
}

// SccView returns the SCC view of g (design §9.5): the one DERIVED/scc_latest
// names if it was computed from the same heads and narrative, else a new
// one, which it stores and points scc_latest at. fresh reports whether the
// stored view was current. A damaged or unreadable stored view is
// recomputed. The view is derived state: no lock is needed, and two
// processes refreshing it at once each leave a valid view behind.
func (r *Repo) SccView(ctx context.Context, g *Graph) (v *graph.SccView, fresh bool, err error) {
	source := g.SccSource()
	dir := filepath.Join(r.Root, derivedDir)
	ptr := filepath.Join(dir, sccLatest)
	old, oldErr := r.readSccView(ptr)
	if oldErr == nil && old.Source == source {
		return old, true, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	v = graph.NewSccView(g.Graph, g.Heads, source, r.Clock.Now().Unix())
	if err := atomicfile.MkdirAll(filepath.Join(dir, "objects")); err != nil {
		return nil, false, err
	}
	st, err := object.NewStore(filepath.Join(dir, "objects"), object.StoreOptions{})
	if err != nil {
		return nil, false, err
	}
	prev, prevErr := readPointer(ptr)
	if oldErr != nil && prevErr == nil {
		// The view scc_latest names is damaged: remove it first, since
		// Put keeps a file already there, and the new view has the
		// damaged one's id when it is of the same graph and second.
		_ = os.Remove(filepath.Join(dir, filepath.FromSlash(object.RelPath(prev))))
	}
	id, err := object.PutTyped(st, v)
	if err != nil {
		return nil, false, err
	}
	if err := atomicfile.Write(ptr, []byte(id.String()+"\n"), 0o644); err != nil {
		return nil, false, err
	}
	if prevErr == nil && prev != id {
		// The replaced view is garbage: views are never shared. Failing
		// to remove it costs space, not correctness.
		old := filepath.Join(dir, filepath.FromSlash(object.RelPath(prev)))
		_ = os.Remove(old)
		_ = os.Remove(filepath.Dir(old)) // only if empty
	}
	return v, false, nil
}

// readSccView reads the view a pointer file names, verifying its hash.
func (r *Repo) readSccView(ptr string) (*graph.SccView, error) {
	id, err := readPointer(ptr)
	if err != nil {
		return nil, err
	}
	st, err := object.NewStore(filepath.Join(filepath.Dir(ptr), "objects"), object.StoreOptions{})
	if err != nil {
		return nil, err
	}
	v := new(graph.SccView)
	if err := object.GetTyped(st, id, v); err != nil {
		return nil, err
	}
	if err := v.Validate(); err != nil {
		return nil, err
	}
	return v, nil
}

// readPointer reads a file holding one object id.
func readPointer(path string) (object.ID, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return object.Zero, err
	}
	return object.ParseID(strings.TrimSpace(string(data)))
}

package build

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/object"
)

// BuildSnapshot is the build graph of a project at a commit: what a
// commit's build_snapshot field names. It lists one entry per build root,
// each naming the snapshot object of that root. Stored under the type name
// "build_snapshot".
type BuildSnapshot struct {
	// Entries lists the build roots, sorted by ecosystem, then root; no
	// two have the same ecosystem and root.
	Entries []BuildEntry `json:"entries"`
}

// BuildEntry is one build root of a project.
type BuildEntry struct {
	// Ecosystem is graph.EcosystemGo ("go") or graph.EcosystemCargo
	// ("cargo").
	Ecosystem string `json:"ecosystem"`
	// Root is the directory the tool ran in, relative to the project root
	// ("." for the root itself).
	Root string `json:"root"`
	// Snapshot is the go_packages object (for "go") or cargo_metadata
	// object (for "cargo") of the root.
	Snapshot object.ID `json:"snapshot"`
}

// snapshotType maps an ecosystem to the type name of its snapshots.
var snapshotType = map[string]string{
	graph.EcosystemGo:    "go_packages",
	graph.EcosystemCargo: "cargo_metadata",
}

// NewBuildSnapshot returns a snapshot of the given entries, sorted, and
// checks it.
func NewBuildSnapshot(entries ...BuildEntry) (*BuildSnapshot, error) {
	s := &BuildSnapshot{Entries: slices.Clone(entries)}
	slices.SortFunc(s.Entries, compareEntries)
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("build: build_snapshot: %w", err)
	}
	return s, nil
}

func compareEntries(a, b BuildEntry) int {
	return cmp.Or(cmp.Compare(a.Ecosystem, b.Ecosystem), cmp.Compare(a.Root, b.Root))
}

// TypeName returns "build_snapshot".
func (*BuildSnapshot) TypeName() string { return "build_snapshot" }

// Links returns the entries' snapshots, each of the type its ecosystem
// records.
func (s *BuildSnapshot) Links() []object.Link {
	ls := make([]object.Link, 0, len(s.Entries))
	for i, e := range s.Entries {
		ls = append(ls, object.Link{
			Field: fmt.Sprintf("entries[%d].snapshot", i),
			ID:    e.Snapshot,
			Kind:  object.KindTyped,
			Type:  snapshotType[e.Ecosystem],
		})
	}
	return ls
}

// Validate checks the ecosystems, roots and ids, and the order.
func (s *BuildSnapshot) Validate() error {
	for i, e := range s.Entries {
		switch {
		case snapshotType[e.Ecosystem] == "":
			return fmt.Errorf("entries[%d]: ecosystem %q is not %q or %q", i, e.Ecosystem, graph.EcosystemGo, graph.EcosystemCargo)
		case !validRel(e.Root):
			return fmt.Errorf("entries[%d]: root %q is not relative to the project root", i, e.Root)
		case e.Snapshot.IsZero():
			return fmt.Errorf("entries[%d]: snapshot is the zero id", i)
		case i > 0 && compareEntries(s.Entries[i-1], e) >= 0:
			return fmt.Errorf("entries[%d]: %s %s is out of order or repeated", i, e.Ecosystem, e.Root)
		}
	}
	return nil
}

// Types returns the constructors of the typed objects this package
// defines, for an object.Registry.
func Types() []func() object.Typed {
	return []func() object.Typed{
		func() object.Typed { return new(BuildSnapshot) },
		func() object.Typed { return new(GoPackages) },
		func() object.Typed { return new(CargoMetadataSnapshot) },
	}
}

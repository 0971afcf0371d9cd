package build

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/ctx-dev/ctx/object"
)

// CargoMetadataSnapshot is the build graph of one Cargo workspace (design
// §7.2.2): its packages and their targets, and the resolved dependency
// graph, from `cargo metadata` (CargoMetadata, ParseCargoMetadata).
// Stored under the type name "cargo_metadata".
type CargoMetadataSnapshot struct {
	// WorkspaceRoot is the workspace's directory relative to the project
	// root, "." for the root itself; the absolute path when the
	// workspace is not inside the project.
	WorkspaceRoot string `json:"workspace_root"`
	// Packages lists the workspace members and every package the resolve
	// reaches, sorted by package id.
	Packages []CargoPackage `json:"packages"`
	// Resolve lists the dependency edges of the resolve graph, one per
	// (from, to, kind, platform), sorted. It is empty for metadata taken
	// with --no-deps.
	Resolve []CargoDep `json:"resolve"`
}

// CargoPackage is a package of a Cargo workspace's build.
type CargoPackage struct {
	// PackageID is cargo's package id, opaque. For a package whose
	// manifest is inside the project root it is rewritten to
	// "path+file:DIR#NAME@VERSION" with DIR relative to the root, since
	// cargo's holds the absolute path.
	PackageID string `json:"package_id"`
	// Name is the package name ("serde").
	Name string `json:"name"`
	// Version is the package version.
	Version string `json:"version"`
	// ManifestPath is the package's Cargo.toml relative to the project
	// root; absent when it is outside the root.
	ManifestPath string `json:"manifest_path,omitempty"`
	// Edition is the package's Rust edition ("2021").
	Edition string `json:"edition"`
	// Source is where the package comes from ("registry+https://…",
	// "git+https://…"); absent for path packages and workspace members.
	Source string `json:"source,omitempty"`
	// WorkspaceMember is set for the members of the workspace.
	WorkspaceMember bool `json:"workspace_member,omitempty"`
	// Features are the package's features the resolve enables, sorted;
	// optional.
	Features []string `json:"features,omitempty"`
	// Targets lists the package's targets, sorted by kind, then name.
	Targets []CargoTarget `json:"targets"`
}

// CargoTarget is a target of a Cargo package: something cargo compiles.
type CargoTarget struct {
	// Name is the target's name; for a lib, the crate name ('-' replaced by
	// '_').
	Name string `json:"name"`
	// Kind is what the target is.
	Kind TargetKind `json:"kind"`
	// SrcPath is the target's root source file relative to the project
	// root; absent when it is outside the root.
	SrcPath string `json:"src_path,omitempty"`
	// CrateTypes are the crate types the target builds ("lib", "rlib",
	// "cdylib", "proc-macro", "bin"), sorted, as cargo spells them.
	CrateTypes []string `json:"crate_types"`
}

// TargetKind is the kind of a Cargo target.
type TargetKind string

// The target kinds. Cargo spells the last two "proc-macro" and
// "custom-build" and lists a lib's crate types ("rlib", "cdylib", …) as
// its kinds; all of those are TargetLib. The zero value is invalid.
const (
	TargetLib         TargetKind = "lib"
	TargetBin         TargetKind = "bin"
	TargetTest        TargetKind = "test"
	TargetBench       TargetKind = "bench"
	TargetExample     TargetKind = "example"
	TargetProcMacro   TargetKind = "proc_macro"
	TargetCustomBuild TargetKind = "custom_build"
)

// TargetKinds lists every target kind.
var TargetKinds = []TargetKind{TargetLib, TargetBin, TargetTest, TargetBench, TargetExample, TargetProcMacro, TargetCustomBuild}

// Valid reports whether k is a defined target kind.
func (k TargetKind) Valid() bool { return contains(TargetKinds, k) }

// String returns the kind's name.
func (k TargetKind) String() string { return string(k) }

// DepKind is the kind of a Cargo dependency.
type DepKind string

// The dependency kinds. The zero value is invalid.
const (
	DepNormal DepKind = "normal"
	DepDev    DepKind = "dev"
	DepBuild  DepKind = "build"
)

// DepKinds lists every dependency kind.
var DepKinds = []DepKind{DepNormal, DepDev, DepBuild}

// Valid reports whether k is a defined dependency kind.
func (k DepKind) Valid() bool { return contains(DepKinds, k) }

// String returns the kind's name.
func (k DepKind) String() string { return string(k) }

// CargoDep is an edge of the resolve graph: a package depends on another
// with a kind, on some or all platforms.
type CargoDep struct {
	// FromPackageID is the dependent package.
	FromPackageID string `json:"from_package_id"`
	// ToPackageID is the dependency.
	ToPackageID string `json:"to_package_id"`
	// DepKind is normal, dev or build.
	DepKind DepKind `json:"dep_kind"`
	// Target is the platform the dependency is limited to ("cfg(unix)",
	// a target triple); absent when it applies on every platform.
	Target string `json:"target,omitempty"`
	// Optional is set when the dependency is optional (enabled by a
	// feature).
	Optional bool `json:"optional,omitempty"`
	// FeaturesEnabled are the dependency's features this declaration
	// turns on: those it lists, and "default" when it keeps the default
	// features and the dependency has some; sorted, optional.
	FeaturesEnabled []string `json:"features_enabled,omitempty"`
}

// TypeName returns "cargo_metadata".
func (*CargoMetadataSnapshot) TypeName() string { return "cargo_metadata" }

// Links returns nothing: a cargo_metadata object refers to no other
// object.
func (*CargoMetadataSnapshot) Links() []object.Link { return nil }

// Validate checks that packages are sorted and unique with sorted targets
// of known kinds, that paths are relative to the project root, and that
// the resolve is sorted, unique and names only listed packages.
func (s *CargoMetadataSnapshot) Validate() error {
	if s.WorkspaceRoot == "" {
		return errors.New("empty workspace_root")
	}
	ids := make(map[string]bool, len(s.Packages))
	for i := range s.Packages {
		p := &s.Packages[i]
		if i > 0 && s.Packages[i-1].PackageID >= p.PackageID {
			return fmt.Errorf("packages[%d]: %q is out of order or repeated", i, p.PackageID)
		}
		if err := p.validate(); err != nil {
			return fmt.Errorf("packages[%d] %s: %w", i, p.PackageID, err)
		}
		ids[p.PackageID] = true
	}
	for i := range s.Resolve {
		d := &s.Resolve[i]
		switch {
		case !ids[d.FromPackageID] || !ids[d.ToPackageID]:
			return fmt.Errorf("resolve[%d]: %q → %q names a package not in packages", i, d.FromPackageID, d.ToPackageID)
		case !d.DepKind.Valid():
			return fmt.Errorf("resolve[%d]: dep_kind %q is not one of %v", i, d.DepKind, DepKinds)
		case i > 0 && compareDeps(&s.Resolve[i-1], d) >= 0:
			return fmt.Errorf("resolve[%d]: out of order or repeated", i)
		}
		if err := checkSet(fmt.Sprintf("resolve[%d].features_enabled", i), d.FeaturesEnabled, nonEmpty); err != nil {
			return err
		}
	}
	return nil
}

func (p *CargoPackage) validate() error {
	switch {
	case p.PackageID == "" || p.Name == "":
		return errors.New("empty package_id or name")
	case p.ManifestPath != "" && !validFile(p.ManifestPath):
		return fmt.Errorf("manifest_path %q is not relative to the project root", p.ManifestPath)
	}
	if err := checkSet("features", p.Features, nonEmpty); err != nil {
		return err
	}
	for i := range p.Targets {
		t := &p.Targets[i]
		switch {
		case t.Name == "":
			return fmt.Errorf("targets[%d]: empty name", i)
		case !t.Kind.Valid():
			return fmt.Errorf("targets[%d]: kind %q is not one of %v", i, t.Kind, TargetKinds)
		case t.SrcPath != "" && !validFile(t.SrcPath):
			return fmt.Errorf("targets[%d]: src_path %q is not relative to the project root", i, t.SrcPath)
		case i > 0 && compareTargets(&p.Targets[i-1], t) >= 0:
			return fmt.Errorf("targets[%d]: %s %q is out of order or repeated", i, t.Kind, t.Name)
		}
		if err := checkSet(fmt.Sprintf("targets[%d].crate_types", i), t.CrateTypes, nonEmpty); err != nil {
			return err
		}
	}
	return nil
}

func compareTargets(a, b *CargoTarget) int {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name))
}

func compareDeps(a, b *CargoDep) int {
	return cmp.Or(
		cmp.Compare(a.FromPackageID, b.FromPackageID),
		cmp.Compare(a.ToPackageID, b.ToPackageID),
		cmp.Compare(a.DepKind, b.DepKind),
		cmp.Compare(a.Target, b.Target),
	)
}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

package build

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// cargoTool runs cargo with the caller's environment and plain (uncoloured)
// messages.
var cargoTool = tool{
	name:    "cargo",
	install: "install Rust with rustup (https://rustup.rs), which puts cargo on PATH",
	set:     []string{"CARGO_TERM_COLOR=never"},
}

// CargoMetadata runs
//
//	cargo metadata --format-version 1 --all-features --locked --offline
//
// in dir and returns its output, a JSON document for ParseCargoMetadata.
//
// The flags:
//   - no --no-deps: that would drop the resolve graph and every package
//     that is not a workspace member, which is most of what is recorded;
//   - --all-features: the graph includes the code behind every feature of
//     the workspace members, and optional dependencies are marked optional
//     rather than left out;
//   - --locked: cargo must not write Cargo.lock (taking a snapshot never
//     changes the project), so a workspace without an up-to-date lock file
//     fails with cargo's message saying so;
//   - --offline: a snapshot never touches the network; dependencies must
//     have been fetched (cargo fetch).
//
// A missing cargo binary is ErrToolMissing; cargo failing is ErrToolFailed,
// with the first lines of its standard error.
func CargoMetadata(ctx context.Context, dir string) ([]byte, error) {
	out, err := cargoTool.run(ctx, dir, "metadata", "--format-version", "1", "--all-features", "--locked", "--offline")
	if err != nil && errors.Is(err, ErrToolFailed) && strings.Contains(err.Error(), "cannot create the lock file") {
		// cargo's own advice names flags the user did not pass.
		return nil, fmt.Errorf("%w: cargo metadata in %s: the workspace has no Cargo.lock, and taking a snapshot does not write one: run `cargo generate-lockfile` (or any cargo build) first", ErrToolFailed, dir)
	}
	return out, err
}

// cargoMeta is the part of cargo metadata's output that
// ParseCargoMetadata reads (format version 1, cargo's
// src/doc/src/commands/cargo-metadata.md).
type cargoMeta struct {
	Packages         []cargoPackage `json:"packages"`
	WorkspaceMembers []string       `json:"workspace_members"`
	Resolve          *cargoResolve  `json:"resolve"`
	WorkspaceRoot    string         `json:"workspace_root"`
	Version          *int           `json:"version"`
}

type cargoPackage struct {
	Name         string              `json:"name"`
	Version      string              `json:"version"`
	ID           string              `json:"id"`
	Source       *string             `json:"source"`
	Dependencies []cargoDecl         `json:"dependencies"`
	Targets      []cargoTarget       `json:"targets"`
	Features     map[string][]string `json:"features"`
	ManifestPath string              `json:"manifest_path"`
	Edition      string              `json:"edition"`
}

// cargoDecl is a dependency as a manifest declares it.
type cargoDecl struct {
	Name                string   `json:"name"`
	Kind                *string  `json:"kind"`
	Rename              *string  `json:"rename"`
	Optional            bool     `json:"optional"`
	UsesDefaultFeatures bool     `json:"uses_default_features"`
	Features            []string `json:"features"`
	Target              *string  `json:"target"`
}

type cargoTarget struct {
	Kind       []string `json:"kind"`
	CrateTypes []string `json:"crate_types"`
	Name       string   `json:"name"`
	SrcPath    string   `json:"src_path"`
}

type cargoResolve struct {
	Nodes []cargoNode `json:"nodes"`
}

type cargoNode struct {
	ID           string         `json:"id"`
	Dependencies []string       `json:"dependencies"`
	Deps         []cargoNodeDep `json:"deps"`
	Features     []string       `json:"features"`
}

// cargoNodeDep is a resolved dependency: Name is the name the dependent's
// code uses (the lib's crate name, or the rename).
type cargoNodeDep struct {
	Name     string         `json:"name"`
	Pkg      string         `json:"pkg"`
	DepKinds []cargoDepKind `json:"dep_kinds"`
}

type cargoDepKind struct {
	Kind   *string `json:"kind"`
	Target *string `json:"target"`
}

// ParseCargoMetadata decodes the output of CargoMetadata, run in a
// directory inside the absolute project root root, into a
// CargoMetadataSnapshot.
//
// Targets of a kind this version does not know (cargo may add some) and
// dependency kinds it does not know are left out.
func ParseCargoMetadata(out []byte, root string) (*CargoMetadataSnapshot, error) {
	root, err := checkRoot(root)
	if err != nil {
		return nil, err
	}
	var m cargoMeta
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, fmt.Errorf("%w: cargo metadata: %w", ErrParse, err)
	}
	if m.Version != nil && *m.Version != 1 {
		return nil, fmt.Errorf("%w: cargo metadata: format version %d, want 1", ErrParse, *m.Version)
	}
	if m.WorkspaceRoot == "" {
		return nil, fmt.Errorf("%w: cargo metadata: no workspace_root", ErrParse)
	}
	s := &CargoMetadataSnapshot{WorkspaceRoot: filepath.ToSlash(filepath.Clean(m.WorkspaceRoot))}
	if r, ok := relPath(root, m.WorkspaceRoot); ok {
		s.WorkspaceRoot = r
	}

	// ids maps cargo's package ids to the snapshot's; raw holds the
	// packages by the snapshot's id, first one wins.
	ids := make(map[string]string, len(m.Packages))
	raw := make(map[string]*cargoPackage, len(m.Packages))
	pkgs := make(map[string]*CargoPackage, len(m.Packages))
	members := make(map[string]bool, len(m.WorkspaceMembers))
	for _, id := range m.WorkspaceMembers {
		members[id] = true
	}
	for i := range m.Packages {
		rp := &m.Packages[i]
		if rp.ID == "" || rp.Name == "" {
			return nil, fmt.Errorf("%w: cargo metadata: packages[%d] has no id or name", ErrParse, i)
		}
		p := &CargoPackage{
			PackageID:       rp.ID,
			Name:            rp.Name,
			Version:         rp.Version,
			Edition:         rp.Edition,
			WorkspaceMember: members[rp.ID],
			Targets:         cargoTargets(rp.Targets, root),
		}
		if rp.Source != nil {
			p.Source = *rp.Source
		}
		if mp, ok := relPath(root, rp.ManifestPath); ok && mp != "." {
			p.ManifestPath = mp
			if rp.Source == nil {
				p.PackageID = "path+file:" + path.Dir(mp) + "#" + rp.Name + "@" + rp.Version
			}
		}
		ids[rp.ID] = p.PackageID
		if pkgs[p.PackageID] == nil {
			pkgs[p.PackageID], raw[p.PackageID] = p, rp
		}
	}

	type depKey struct {
		from, to string
		kind     DepKind
		target   string
	}
	seen := make(map[depKey]bool)
	if m.Resolve != nil {
		for _, n := range m.Resolve.Nodes {
			from := pkgs[ids[n.ID]]
			if from == nil {
				continue
			}
			if from.Features == nil {
				from.Features = sortedSet(n.Features)
			}
			deps := n.Deps
			if len(deps) == 0 { // cargo before 1.40 had only the ids
				for _, id := range n.Dependencies {
					deps = append(deps, cargoNodeDep{Pkg: id})
				}
			}
			for _, d := range deps {
				to := pkgs[ids[d.Pkg]]
				if to == nil {
					continue
				}
				kinds := d.DepKinds
				if len(kinds) == 0 {
					kinds = []cargoDepKind{{}}
				}
				for _, dk := range kinds {
					kind, ok := depKind(dk.Kind)
					if !ok {
						continue
					}
					e := CargoDep{FromPackageID: from.PackageID, ToPackageID: to.PackageID, DepKind: kind, Target: deref(dk.Target)}
					key := depKey{e.FromPackageID, e.ToPackageID, e.DepKind, e.Target}
					if seen[key] {
						continue
					}
					seen[key] = true
					if decl := matchDecl(raw[from.PackageID], raw[to.PackageID], d.Name, e.DepKind, e.Target); decl != nil {
						e.Optional = decl.Optional
						e.FeaturesEnabled = featuresEnabled(decl, raw[to.PackageID])
					}
					s.Resolve = append(s.Resolve, e)
				}
			}
		}
	}

	for _, p := range pkgs {
		s.Packages = append(s.Packages, *p)
	}
	slices.SortFunc(s.Packages, func(a, b CargoPackage) int { return strings.Compare(a.PackageID, b.PackageID) })
	slices.SortFunc(s.Resolve, func(a, b CargoDep) int { return compareDeps(&a, &b) })
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%w: cargo metadata: %w", ErrParse, err)
	}
	return s, nil
}

// cargoTargets converts a package's targets, sorted by kind and name; a
// repeated kind and name keeps the first.
func cargoTargets(ts []cargoTarget, root string) []CargoTarget {
	out := make([]CargoTarget, 0, len(ts))
	for _, t := range ts {
		kind, ok := targetKind(t.Kind)
		if !ok || t.Name == "" {
			continue
		}
		ct := CargoTarget{Name: t.Name, Kind: kind, CrateTypes: sortedSet(t.CrateTypes)}
		if src, ok := relPath(root, t.SrcPath); ok && src != "." {
			ct.SrcPath = src
		}
		out = append(out, ct)
	}
	slices.SortStableFunc(out, func(a, b CargoTarget) int { return compareTargets(&a, &b) })
	return slices.CompactFunc(out, func(a, b CargoTarget) bool { return compareTargets(&a, &b) == 0 })
}

// targetKind maps cargo's kind list to a TargetKind: a lib lists its crate
// types as its kinds.
func targetKind(kinds []string) (TargetKind, bool) {
	for _, k := range kinds {
		switch k {
		case "proc-macro":
			return TargetProcMacro, true
		case "lib", "rlib", "dylib", "cdylib", "staticlib":
			return TargetLib, true
		case "bin":
			return TargetBin, true
		case "test":
			return TargetTest, true
		case "bench":
			return TargetBench, true
		case "example":
			return TargetExample, true
		case "custom-build":
			return TargetCustomBuild, true
		}
	}
	return "", false
}

// depKind maps cargo's dependency kind (null for normal) to a DepKind.
func depKind(k *string) (DepKind, bool) {
	if k == nil || *k == "normal" {
		return DepNormal, true
	}
	switch *k {
	case "dev":
		return DepDev, true
	case "build":
		return DepBuild, true
	}
	return "", false
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// matchDecl finds the manifest declaration of from that a resolved
// dependency on to (named name in from's code, of the given kind and
// platform) comes from: same package name, kind and platform; among
// several (a package depended on twice under different names), the one
// whose name in code is name. It returns nil when there is none.
func matchDecl(from, to *cargoPackage, name string, kind DepKind, target string) *cargoDecl {
	var found *cargoDecl
	for i := range from.Dependencies {
		d := &from.Dependencies[i]
		if k, ok := depKind(d.Kind); !ok || k != kind || d.Name != to.Name || deref(d.Target) != target {
			continue
		}
		codeName := d.Name
		if d.Rename != nil {
			codeName = *d.Rename
		} else if lib := libName(to); lib != "" {
			codeName = lib
		}
		if crateName(codeName) == name {
			return d
		}
		if found == nil {
			found = d
		}
	}
	return found
}

// libName returns the name of a package's lib or proc-macro target.
func libName(p *cargoPackage) string {
	for _, t := range p.Targets {
		if k, ok := targetKind(t.Kind); ok && (k == TargetLib || k == TargetProcMacro) {
			return t.Name
		}
	}
	return ""
}

// featuresEnabled returns the features of to that decl turns on.
func featuresEnabled(decl *cargoDecl, to *cargoPackage) []string {
	fs := slices.Clone(decl.Features)
	if _, ok := to.Features["default"]; ok && decl.UsesDefaultFeatures {
		fs = append(fs, "default")
	}
	return sortedSet(fs)
}

// crateName is the name code uses for a crate: cargo replaces '-' by '_'.
func crateName(s string) string { return strings.ReplaceAll(s, "-", "_") }

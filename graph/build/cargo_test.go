package build

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestCargoMetadataToolMissing(t *testing.T) {
	t.Setenv("PATH", "")
	_, err := CargoMetadata(context.Background(), t.TempDir())
	if !errors.Is(err, ErrToolMissing) {
		t.Fatalf("CargoMetadata with an empty PATH = %v, want ErrToolMissing", err)
	}
	if !strings.Contains(err.Error(), "rustup") {
		t.Errorf("error %q does not say what to install", err)
	}
}

// TestCargoMetadataHere runs cargo as the machine has it: without cargo
// (as on the machine these tests were written on) the error is
// ErrToolMissing; with it, a directory without Cargo.toml is ErrToolFailed.
func TestCargoMetadataHere(t *testing.T) {
	_, err := CargoMetadata(context.Background(), t.TempDir())
	if _, lookErr := exec.LookPath("cargo"); lookErr != nil {
		if !errors.Is(err, ErrToolMissing) {
			t.Fatalf("CargoMetadata without cargo = %v, want ErrToolMissing", err)
		}
		return
	}
	if !errors.Is(err, ErrToolFailed) {
		t.Fatalf("CargoMetadata outside a package = %v, want ErrToolFailed", err)
	}
}

// cargoFixtures are captured `cargo metadata` outputs and the project
// roots they were taken in.
var cargoFixtures = []struct{ name, root string }{
	// A virtual workspace of two members: ws-core (lib, example, build
	// script; an optional dependency behind a feature, a proc-macro
	// dependency with a build script, a build- and a dev-dependency) and
	// ws-cli (lib, bin and integration test; a path dependency on ws-core
	// enabling a feature, a platform-specific dependency). Package ids in
	// cargo 1.77's format, taken with --all-features.
	{"cargo-workspace", "/home/dev/ws"},
	// A single package at the root, lib (rlib + cdylib) and bin of the
	// same name, with cargo's older package ids, taken with --no-deps.
	{"cargo-single", "/home/dev/tool"},
}

func TestParseCargoMetadataFixtures(t *testing.T) {
	for _, f := range cargoFixtures {
		t.Run(f.name, func(t *testing.T) {
			out, err := os.ReadFile("testdata/" + f.name + ".json")
			if err != nil {
				t.Fatal(err)
			}
			s, err := ParseCargoMetadata(out, f.root)
			if err != nil {
				t.Fatalf("ParseCargoMetadata: %v", err)
			}
			checkGolden(t, f.name+".json", snapshotJSON(t, s))
			edges := CargoEdges(testRepo, s)
			checkEdges(t, edges)
			checkGolden(t, f.name+".edges", []byte(edgeText(edges)))
			roundTrip(t, s, new(CargoMetadataSnapshot))
			if j := snapshotJSON(t, s); strings.Contains(string(j), f.root) {
				t.Errorf("snapshot names the project root %s", f.root)
			}
		})
	}
}

// TestParseCargoWorkspace spells out what the golden file of the
// workspace fixture must say.
func TestParseCargoWorkspace(t *testing.T) {
	out, err := os.ReadFile("testdata/cargo-workspace.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseCargoMetadata(out, "/home/dev/ws")
	if err != nil {
		t.Fatal(err)
	}
	const (
		core  = "path+file:crates/core#ws-core@0.1.0"
		cli   = "path+file:crates/cli#ws-cli@0.2.0"
		index = "registry+https://github.com/rust-lang/crates.io-index#"
	)
	if s.WorkspaceRoot != "." {
		t.Errorf("workspace_root = %q, want .", s.WorkspaceRoot)
	}
	pkgs := make(map[string]*CargoPackage)
	for i := range s.Packages {
		pkgs[s.Packages[i].PackageID] = &s.Packages[i]
	}
	if p := pkgs[core]; p == nil || !p.WorkspaceMember || p.ManifestPath != "crates/core/Cargo.toml" || strings.Join(p.Features, ",") != "default,logging" {
		t.Errorf("ws-core = %+v", p)
	}
	if p := pkgs[index+"paste@1.0.15"]; p == nil || p.WorkspaceMember || p.ManifestPath != "" || len(p.Targets) != 7 ||
		p.Targets[0].Kind != TargetCustomBuild || p.Targets[1].Kind != TargetProcMacro || p.Targets[6].Kind != TargetTest ||
		p.Targets[1].SrcPath != "" || strings.Join(p.Targets[1].CrateTypes, ",") != "proc-macro" {
		t.Errorf("paste = %+v", p)
	}
	deps := make(map[string]CargoDep)
	for _, d := range s.Resolve {
		deps[d.FromPackageID+" "+d.ToPackageID] = d
	}
	for _, want := range []CargoDep{
		{FromPackageID: cli, ToPackageID: index + "log@0.4.22", DepKind: DepNormal, Target: "cfg(unix)"},
		{FromPackageID: cli, ToPackageID: core, DepKind: DepNormal, FeaturesEnabled: []string{"default", "logging"}},
		{FromPackageID: core, ToPackageID: index + "autocfg@1.4.0", DepKind: DepBuild},
		{FromPackageID: core, ToPackageID: index + "log@0.4.22", DepKind: DepNormal, Optional: true, FeaturesEnabled: []string{"std"}},
		{FromPackageID: core, ToPackageID: index + "paste@1.0.15", DepKind: DepNormal},
		{FromPackageID: core, ToPackageID: index + "static_assertions@1.1.0", DepKind: DepDev},
	} {
		got, ok := deps[want.FromPackageID+" "+want.ToPackageID]
		if !ok || got.DepKind != want.DepKind || got.Target != want.Target || got.Optional != want.Optional ||
			strings.Join(got.FeaturesEnabled, ",") != strings.Join(want.FeaturesEnabled, ",") {
			t.Errorf("resolve %s → %s = %+v, want %+v", want.FromPackageID, want.ToPackageID, got, want)
		}
	}
	if len(s.Resolve) != 6 {
		t.Errorf("resolve has %d edges, want 6", len(s.Resolve))
	}
	edges := edgeText(CargoEdges(testRepo, s))
	for _, want := range []string{
		"package:ws-core depends_on package:static_assertions medium\n",
		"package:ws-core depends_on package:autocfg high\n",
		"package:ws-cli depends_on package:ws-core high\n",
		"crate:ws_cli crate_from_target target:ws-cli#lib:ws_cli high\n",
		"crate:ws crate_from_target target:ws-cli#bin:ws high\n",
		"crate:paste crate_from_target target:paste#proc_macro:paste high\n",
		"target:ws-core#custom_build:build-script-build target_of package:ws-core high\n",
		"package:ws-core contains file:crates/core/build.rs high\n",
		"package:ws-cli contains file:crates/cli/Cargo.toml high\n",
	} {
		if !strings.Contains(edges, want) {
			t.Errorf("edges lack %q", want)
		}
	}
	for _, unwanted := range []string{"target:paste#test:", "target:paste#custom_build:", "crate:build_script_build"} {
		if strings.Contains(edges, unwanted) {
			t.Errorf("edges have %q", unwanted)
		}
	}
}

func TestParseCargoMetadataErrors(t *testing.T) {
	for _, c := range []struct {
		name, out, root string
		parse           bool
	}{
		{"not json", "{", "/p", true},
		{"two documents", `{"workspace_root": "/p"} {}`, "/p", true},
		{"null", "null", "/p", true},
		{"no workspace root", `{"packages": []}`, "/p", true},
		{"format version 2", `{"version": 2, "workspace_root": "/p"}`, "/p", true},
		{"package without id", `{"workspace_root": "/p", "packages": [{"name": "a"}]}`, "/p", true},
		{"features not a map", `{"workspace_root": "/p", "packages": [{"id": "a", "name": "a", "features": []}]}`, "/p", true},
		{"relative root", `{"workspace_root": "/p"}`, "p", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := ParseCargoMetadata([]byte(c.out), c.root)
			if err == nil || errors.Is(err, ErrParse) != c.parse {
				t.Fatalf("ParseCargoMetadata = %+v, %v", s, err)
			}
		})
	}
}

// TestParseCargoTolerant: what cargo may add or leave out later does not
// break parsing: unknown target and dependency kinds are left out, resolve
// edges to unlisted packages dropped, and a workspace outside the project
// keeps its path.
func TestParseCargoTolerant(t *testing.T) {
	out := `{
	  "packages": [
	    {"name": "a", "version": "1.0.0", "id": "a 1.0.0", "source": null, "edition": "2021",
	     "manifest_path": "/elsewhere/a/Cargo.toml", "dependencies": [], "features": {},
	     "targets": [{"kind": ["lib"], "crate_types": ["lib"], "name": "a", "src_path": "/elsewhere/a/src/lib.rs"},
	                 {"kind": ["something-new"], "crate_types": ["bin"], "name": "x", "src_path": "/elsewhere/a/x.rs"}]}
	  ],
	  "workspace_members": ["a 1.0.0"],
	  "resolve": {"nodes": [
	    {"id": "a 1.0.0", "deps": [
	      {"name": "gone", "pkg": "gone 1.0.0", "dep_kinds": [{"kind": null, "target": null}]},
	      {"name": "a", "pkg": "a 1.0.0", "dep_kinds": [{"kind": "future", "target": null}]}
	    ], "features": []},
	    {"id": "unknown 1.0.0", "deps": [], "features": []}
	  ], "root": "a 1.0.0"},
	  "version": 1,
	  "workspace_root": "/elsewhere/a"
	}`
	s, err := ParseCargoMetadata([]byte(out), "/home/dev/proj")
	if err != nil {
		t.Fatal(err)
	}
	if s.WorkspaceRoot != "/elsewhere/a" || len(s.Packages) != 1 || len(s.Resolve) != 0 {
		t.Fatalf("snapshot = %+v", s)
	}
	p := s.Packages[0]
	if p.PackageID != "a 1.0.0" || p.ManifestPath != "" || len(p.Targets) != 1 || p.Targets[0].SrcPath != "" {
		t.Errorf("package = %+v", p)
	}
	roundTrip(t, s, new(CargoMetadataSnapshot))
	checkEdges(t, CargoEdges(testRepo, s))
}

func TestTargetKind(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want TargetKind
	}{
		{[]string{"lib"}, TargetLib},
		{[]string{"rlib", "cdylib"}, TargetLib},
		{[]string{"staticlib"}, TargetLib},
		{[]string{"dylib"}, TargetLib},
		{[]string{"proc-macro"}, TargetProcMacro},
		{[]string{"bin"}, TargetBin},
		{[]string{"test"}, TargetTest},
		{[]string{"bench"}, TargetBench},
		{[]string{"example"}, TargetExample},
		{[]string{"custom-build"}, TargetCustomBuild},
		{[]string{"new-kind"}, ""},
		{nil, ""},
	} {
		got, ok := targetKind(c.in)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("targetKind(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
}

func TestCargoMetadataValidate(t *testing.T) {
	ok := func() *CargoMetadataSnapshot {
		return &CargoMetadataSnapshot{
			WorkspaceRoot: ".",
			Packages: []CargoPackage{
				{PackageID: "a", Name: "a", Targets: []CargoTarget{{Name: "a", Kind: TargetBin}, {Name: "a", Kind: TargetLib, CrateTypes: []string{"lib"}}}},
				{PackageID: "b", Name: "b"},
			},
			Resolve: []CargoDep{{FromPackageID: "a", ToPackageID: "b", DepKind: DepDev}, {FromPackageID: "a", ToPackageID: "b", DepKind: DepNormal}},
		}
	}
	if err := ok().Validate(); err != nil {
		t.Fatalf("valid snapshot: %v", err)
	}
	for name, damage := range map[string]func(s *CargoMetadataSnapshot){
		"no workspace root":     func(s *CargoMetadataSnapshot) { s.WorkspaceRoot = "" },
		"packages out of order": func(s *CargoMetadataSnapshot) { s.Packages[0], s.Packages[1] = s.Packages[1], s.Packages[0] },
		"empty name":            func(s *CargoMetadataSnapshot) { s.Packages[1].Name = "" },
		"absolute manifest":     func(s *CargoMetadataSnapshot) { s.Packages[1].ManifestPath = "/a/Cargo.toml" },
		"unknown target kind":   func(s *CargoMetadataSnapshot) { s.Packages[0].Targets[1].Kind = "proc-macro" },
		"targets out of order":  func(s *CargoMetadataSnapshot) { s.Packages[0].Targets[0].Kind = TargetTest },
		"targets repeated":      func(s *CargoMetadataSnapshot) { s.Packages[0].Targets[0].Kind = TargetLib },
		"crate types unsorted":  func(s *CargoMetadataSnapshot) { s.Packages[0].Targets[1].CrateTypes = []string{"rlib", "cdylib"} },
		"dangling dependency":   func(s *CargoMetadataSnapshot) { s.Resolve[0].ToPackageID = "c" },
		"unknown dep kind":      func(s *CargoMetadataSnapshot) { s.Resolve[1].DepKind = "" },
		"resolve repeated":      func(s *CargoMetadataSnapshot) { s.Resolve[1].DepKind = DepDev },
		"resolve out of order":  func(s *CargoMetadataSnapshot) { s.Resolve[0], s.Resolve[1] = s.Resolve[1], s.Resolve[0] },
		"features unsorted":     func(s *CargoMetadataSnapshot) { s.Resolve[0].FeaturesEnabled = []string{"b", "a"} },
	} {
		s := ok()
		damage(s)
		if err := s.Validate(); err == nil {
			t.Errorf("%s: Validate = nil", name)
		}
	}
}

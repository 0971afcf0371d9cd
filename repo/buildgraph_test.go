package repo

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/graph/build"
	"github.com/ctx-dev/ctx/object"
)

// goModule is a small Go module: a command using a library with a test.
var goModule = map[string]string{
	"go.mod":          "module example.com/fix\n\ngo 1.22\n",
	"main.go":         "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/fix/lib\"\n)\n\nfunc main() { fmt.Println(lib.Answer()) }\n",
	"lib/lib.go":      "package lib\n\n// Answer answers.\nfunc Answer() int { return 42 }\n",
	"lib/lib_test.go": "package lib\n\nimport \"testing\"\n\nfunc TestAnswer(t *testing.T) {\n\tif Answer() != 42 {\n\t\tt.Fatal()\n\t}\n}\n",
}

func addBuild(t *testing.T, r *Repo, opts BuildOptions) (*BuildResult, error) {
	t.Helper()
	w, err := r.Lock(t.Context(), LockOptions{Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Unlock()
	return w.AddBuild(t.Context(), opts)
}

// buildEntries reads the build snapshot of the head.
func buildEntries(t *testing.T, r *Repo) []build.BuildEntry {
	t.Helper()
	_, c := head(t, r)
	if c.BuildSnapshot == nil {
		return nil
	}
	bs := new(build.BuildSnapshot)
	if err := object.GetTyped(r.Objects, *c.BuildSnapshot, bs); err != nil {
		t.Fatal(err)
	}
	return bs.Entries
}

func TestAddBuildGo(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	tests := []struct {
		name     string
		files    map[string]string
		dir      string
		root     string // the entry's root
		packages int
		broken   int
	}{
		{name: "module at the root", files: goModule, root: ".", packages: 2},
		{name: "module in a directory", files: prefixed("tools/", goModule), dir: "tools", root: "tools", packages: 2},
		{name: "broken package", files: with(goModule, "lib/lib.go", "package lib\n\nimport (\n"), root: ".", packages: 2, broken: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewTestRepo(t)
			writeDated(t, r, tc.files)
			res, err := addBuild(t, r, BuildOptions{Ecosystem: graph.EcosystemGo, Dir: tc.dir})
			if err != nil {
				t.Fatalf("AddBuild: %v", err)
			}
			if !res.Committed || res.Root != tc.root || res.Packages != tc.packages || res.Broken != tc.broken || res.External == 0 || res.Edges == 0 {
				t.Errorf("result %+v, want committed, root %s, %d packages (%d broken), external ones and edges", res, tc.root, tc.packages, tc.broken)
			}
			entries := buildEntries(t, r)
			if len(entries) != 1 || entries[0].Ecosystem != graph.EcosystemGo || entries[0].Root != tc.root || entries[0].Snapshot != res.Snapshot {
				t.Fatalf("build snapshot entries %+v", entries)
			}
			s := new(build.GoPackages)
			if err := object.GetTyped(r.Objects, res.Snapshot, s); err != nil {
				t.Fatal(err)
			}
			pkgs := map[string]build.GoPackage{}
			for _, p := range s.Packages {
				pkgs[p.ImportPath] = p
			}
			main, lib := pkgs["example.com/fix"], pkgs["example.com/fix/lib"]
			prefix := strings.TrimPrefix(tc.root+"/", "./")
			if main.Dir != tc.root || !slices.Contains(main.Imports, "example.com/fix/lib") || !slices.Contains(main.GoFiles, prefix+"main.go") {
				t.Errorf("package example.com/fix = %+v", main)
			}
			if !slices.Equal(lib.TestGoFiles, []string{prefix + "lib/lib_test.go"}) || !pkgs["fmt"].Standard {
				t.Errorf("package example.com/fix/lib = %+v, fmt = %+v", lib, pkgs["fmt"])
			}
			if (tc.broken > 0) != (lib.Error != "") {
				t.Errorf("lib error %q, want broken %d", lib.Error, tc.broken)
			}
			edges := build.GoEdges(r.Config.Repo.ID, s)
			dep := graph.Edge{
				From: graph.PackageNode(r.Config.Repo.ID, graph.EcosystemGo, "example.com/fix"), Label: graph.DependsOn,
				To: graph.PackageNode(r.Config.Repo.ID, graph.EcosystemGo, "example.com/fix/lib"),
			}
			if !slices.ContainsFunc(edges, func(e graph.Edge) bool { return e.Key() == dep.Key() }) {
				t.Errorf("no edge %s depends_on %s among %d", dep.From.Key, dep.To.Key, len(edges))
			}
			// The graph of the store has them.
			g := buildGraph(t, r, GraphOptions{})
			if !slices.ContainsFunc(g.edges, func(e graph.Edge) bool { return e.Key() == dep.Key() }) {
				t.Error("the graph lacks the depends_on edge")
			}

			// The same build graph again records nothing.
			before := storeState(t, r)
			again, err := addBuild(t, r, BuildOptions{Ecosystem: graph.EcosystemGo, Dir: tc.dir})
			if err != nil || again.Committed {
				t.Errorf("AddBuild again = %+v, %v; want nothing committed", again, err)
			}
			checkUnchanged(t, r, before)
		})
	}
}

func prefixed(prefix string, files map[string]string) map[string]string {
	out := map[string]string{}
	for p, c := range files {
		out[prefix+p] = c
	}
	return out
}

func with(files map[string]string, path, content string) map[string]string {
	out := prefixed("", files)
	out[path] = content
	return out
}

// TestAddBuildErrors checks that AddBuild writes nothing when it cannot
// record a build graph.
func TestAddBuildErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		opts  BuildOptions
		path  string // PATH, if set
		err   error
	}{
		{name: "go missing", files: goModule, opts: BuildOptions{Ecosystem: graph.EcosystemGo}, path: "empty", err: ErrToolMissing},
		{name: "cargo missing", files: cargoCrate, opts: BuildOptions{Ecosystem: graph.EcosystemCargo}, path: "empty", err: ErrToolMissing},
		{name: "broken go.mod", files: with(goModule, "go.mod", "module example.com/fix\n\ngo 1.22\nrequire (\n"), opts: BuildOptions{Ecosystem: graph.EcosystemGo}, err: ErrToolFailed},
		{name: "no go.mod", files: map[string]string{"main.go": "package main\n"}, opts: BuildOptions{Ecosystem: graph.EcosystemGo}, err: ErrToolFailed},
		{name: "no Go files", files: map[string]string{"go.mod": "module example.com/fix\n"}, opts: BuildOptions{Ecosystem: graph.EcosystemGo}, err: ErrToolFailed},
		{name: "no Cargo.lock", files: cargoCrate, opts: BuildOptions{Ecosystem: graph.EcosystemCargo}, err: ErrToolFailed},
		{name: "broken Cargo.toml", files: with(cargoCrate, "Cargo.toml", "[package\nname = \"tiny\"\n"), opts: BuildOptions{Ecosystem: graph.EcosystemCargo}, err: ErrToolFailed},
		{name: "unknown ecosystem", files: goModule, opts: BuildOptions{Ecosystem: "maven"}, err: ErrInvalidArgument},
		{name: "directory outside", files: goModule, opts: BuildOptions{Ecosystem: graph.EcosystemGo, Dir: "../elsewhere"}, err: ErrInvalidArgument},
		{name: "directory missing", files: goModule, opts: BuildOptions{Ecosystem: graph.EcosystemGo, Dir: "nope"}, err: ErrInvalidArgument},
		{name: "the store", files: goModule, opts: BuildOptions{Ecosystem: graph.EcosystemGo, Dir: ".ctx"}, err: ErrInvalidArgument},
		{name: "a link out of the project", files: goModule, opts: BuildOptions{Ecosystem: graph.EcosystemGo, Dir: "elsewhere"}, err: ErrInvalidArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tool := map[string]string{graph.EcosystemGo: "go", graph.EcosystemCargo: "cargo"}[tc.opts.Ecosystem]
			if _, err := exec.LookPath(tool); tool != "" && tc.path == "" && err != nil {
				t.Skipf("%s is not on PATH", tool)
			}
			if tc.path != "" {
				t.Setenv("PATH", t.TempDir())
			}
			r := NewTestRepo(t)
			writeDated(t, r, tc.files)
			other := t.TempDir()
			writeDated(t, &Repo{Root: filepath.Join(other, DirName)}, goModule)
			if err := os.Symlink(other, filepath.Join(r.ProjectRoot(), "elsewhere")); err != nil {
				t.Fatal(err)
			}
			before := storeState(t, r)
			res, err := addBuild(t, r, tc.opts)
			if !errors.Is(err, tc.err) {
				t.Fatalf("AddBuild = %+v, %v; want %v", res, err, tc.err)
			}
			checkUnchanged(t, r, before)
		})
	}
}

// cargoCrate is a tiny crate without dependencies.
var cargoCrate = map[string]string{
	"Cargo.toml":  "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
	"src/lib.rs":  "pub fn answer() -> u32 { 42 }\n",
	"src/main.rs": "fn main() { println!(\"{}\", tiny::answer()); }\n",
}

func TestAddBuildCargo(t *testing.T) {
	if _, err := exec.LookPath("cargo"); err != nil {
		t.Skip("cargo is not on PATH")
	}
	r := NewTestRepo(t)
	writeDated(t, r, cargoCrate)
	// AddBuild runs cargo --locked, which writes no Cargo.lock.
	cmd := exec.Command("cargo", "generate-lockfile", "--offline")
	cmd.Dir = r.ProjectRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cargo generate-lockfile: %v\n%s", err, out)
	}
	res, err := addBuild(t, r, BuildOptions{Ecosystem: graph.EcosystemCargo})
	if err != nil {
		t.Fatalf("AddBuild: %v", err)
	}
	if !res.Committed || res.Packages != 1 || res.External != 0 || res.Root != "." {
		t.Errorf("result %+v, want one workspace member", res)
	}
	s := new(build.CargoMetadataSnapshot)
	if err := object.GetTyped(r.Objects, res.Snapshot, s); err != nil {
		t.Fatal(err)
	}
	if len(s.Packages) != 1 || s.Packages[0].Name != "tiny" || !s.Packages[0].WorkspaceMember || s.Packages[0].ManifestPath != "Cargo.toml" || len(s.Packages[0].Targets) != 2 {
		t.Errorf("packages %+v", s.Packages)
	}
	// Both ecosystems side by side.
	writeDated(t, r, goModule)
	if _, err := exec.LookPath("go"); err == nil {
		if _, err := addBuild(t, r, BuildOptions{Ecosystem: graph.EcosystemGo}); err != nil {
			t.Fatal(err)
		}
		if entries := buildEntries(t, r); len(entries) != 2 {
			t.Errorf("build snapshot entries %+v, want cargo and go", entries)
		}
	}
}

package build

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// writeFiles writes files (slash paths → contents) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tempRoot returns a fresh project root, its symbolic links resolved so
// that the paths go reports are under it.
func tempRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// needGo skips a test when there is no go command, and keeps the
// developer's workspace and flags out of the tests' modules.
func needGo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "-mod=mod") // GoList must drop it
}

// demoModule is a module with a root package, a library with internal and
// external tests, and a command, importing only the standard library.
var demoModule = map[string]string{
	"go.mod": "module example.com/demo\n\ngo 1.22\n",
	"demo.go": `// Package demo is the root package.
package demo

import "example.com/demo/lib"

// Shout upper-cases s.
func Shout(s string) string { return lib.Up(s) + "!" }
`,
	"lib/lib.go": `package lib

import "strings"

func Up(s string) string { return strings.ToUpper(s) }
`,
	"lib/lib_test.go": `package lib

import "testing"

func TestUp(t *testing.T) { _ = Up("x") }
`,
	"lib/x_test.go": `package lib_test

import (
	"bytes"
	"testing"

	"example.com/demo/lib"
)

func TestX(t *testing.T) { _, _ = bytes.NewBuffer, lib.Up }
`,
	"cmd/demo/main.go": `package main

import (
	"fmt"

	"example.com/demo/lib"
)

func main() { fmt.Println(lib.Up("a")) }
`,
}

// demoPackages is the snapshot of demoModule.
var demoPackages = &GoPackages{
	Modules: []GoModule{{Path: "example.com/demo", Main: true, Dir: ".", GoVersion: "1.22"}},
	Packages: []GoPackage{
		{ImportPath: "bytes", Standard: true},
		{ImportPath: "example.com/demo", Name: "demo", Dir: ".", Module: "example.com/demo",
			GoFiles: []string{"demo.go"}, Imports: []string{"example.com/demo/lib"}},
		{ImportPath: "example.com/demo/cmd/demo", Name: "main", Dir: "cmd/demo", Module: "example.com/demo",
			GoFiles: []string{"cmd/demo/main.go"}, Imports: []string{"example.com/demo/lib", "fmt"}},
		{ImportPath: "example.com/demo/lib", Name: "lib", Dir: "lib", Module: "example.com/demo",
			GoFiles: []string{"lib/lib.go"}, TestGoFiles: []string{"lib/lib_test.go"}, XTestGoFiles: []string{"lib/x_test.go"},
			Imports: []string{"strings"}, TestImports: []string{"testing"}, XTestImports: []string{"bytes", "example.com/demo/lib", "testing"}},
		{ImportPath: "fmt", Standard: true},
		{ImportPath: "strings", Standard: true},
		{ImportPath: "testing", Standard: true},
	},
}

// demoEdges are GoEdges of demoPackages.
const demoEdges = `module:example.com/demo contains package:example.com/demo high
module:example.com/demo contains package:example.com/demo/cmd/demo high
module:example.com/demo contains package:example.com/demo/lib high
package:example.com/demo contains file:demo.go high
package:example.com/demo depends_on package:example.com/demo/lib high
package:example.com/demo/cmd/demo contains file:cmd/demo/main.go high
package:example.com/demo/cmd/demo depends_on package:example.com/demo/lib high
package:example.com/demo/cmd/demo depends_on package:fmt high
package:example.com/demo/lib contains file:lib/lib.go high
package:example.com/demo/lib contains file:lib/lib_test.go high
package:example.com/demo/lib contains file:lib/x_test.go high
package:example.com/demo/lib depends_on package:strings high
target:example.com/demo/cmd/demo#bin:demo target_of package:example.com/demo/cmd/demo high
target:example.com/demo/lib#test:lib depends_on package:bytes high
target:example.com/demo/lib#test:lib depends_on package:testing high
target:example.com/demo/lib#test:lib target_of package:example.com/demo/lib high
`

func TestGoList(t *testing.T) {
	needGo(t)
	root := tempRoot(t)
	writeFiles(t, root, demoModule)
	out, err := GoList(context.Background(), root)
	if err != nil {
		t.Fatalf("GoList: %v", err)
	}
	s, err := ParseGoList(out, root)
	if err != nil {
		t.Fatalf("ParseGoList: %v", err)
	}
	if !reflect.DeepEqual(s, demoPackages) {
		t.Errorf("snapshot:\n got %+v\nwant %+v", s, demoPackages)
	}
	edges := GoEdges(testRepo, s)
	checkEdges(t, edges)
	if got := edgeText(edges); got != demoEdges {
		t.Errorf("edges:\n%s\nwant:\n%s", got, demoEdges)
	}
	roundTrip(t, s, new(GoPackages))
}

// TestGoListSubdir runs go list in a module below the project root: paths
// stay relative to the project root.
func TestGoListSubdir(t *testing.T) {
	needGo(t)
	root := tempRoot(t)
	sub := filepath.Join(root, "tools", "gen")
	writeFiles(t, sub, map[string]string{
		"go.mod":  "module example.com/gen\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() {}\n",
	})
	out, err := GoList(context.Background(), sub)
	if err != nil {
		t.Fatalf("GoList: %v", err)
	}
	s, err := ParseGoList(out, root)
	if err != nil {
		t.Fatalf("ParseGoList: %v", err)
	}
	want := &GoPackages{
		Modules:  []GoModule{{Path: "example.com/gen", Main: true, Dir: "tools/gen", GoVersion: "1.22"}},
		Packages: []GoPackage{{ImportPath: "example.com/gen", Name: "main", Dir: "tools/gen", Module: "example.com/gen", GoFiles: []string{"tools/gen/main.go"}}},
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("snapshot:\n got %+v\nwant %+v", s, want)
	}
	if got := edgeText(GoEdges(testRepo, s)); !strings.Contains(got, "target:example.com/gen#bin:gen target_of package:example.com/gen high\n") {
		t.Errorf("no bin target in:\n%s", got)
	}
}

// TestGoListBroken: broken packages are recorded with their errors, and
// the rest of the module is still listed.
func TestGoListBroken(t *testing.T) {
	needGo(t)
	root := tempRoot(t)
	files := map[string]string{
		"broken/b.go":        "package broken\n\nimport (\n", // syntax error
		"missing/m.go":       "package missing\n\nimport _ \"example.com/nowhere/pkg\"\n",
		"badtest/a.go":       "package badtest\n",
		"badtest/a_test.go":  "package badtest\n\nimport _ \"example.com/demo/nope\"\n",
		"badxtest/a.go":      "package badxtest\n",
		"badxtest/x_test.go": "package badxtest_test\n\nimport (\n", // syntax error in a test
	}
	for k, v := range demoModule {
		files[k] = v
	}
	writeFiles(t, root, files)
	out, err := GoList(context.Background(), root)
	if err != nil {
		t.Fatalf("GoList: %v", err)
	}
	s, err := ParseGoList(out, root)
	if err != nil {
		t.Fatalf("ParseGoList: %v", err)
	}
	byPath := make(map[string]GoPackage)
	for _, p := range s.Packages {
		byPath[p.ImportPath] = p
	}
	for _, p := range demoPackages.Packages {
		if got := byPath[p.ImportPath]; !reflect.DeepEqual(got, p) {
			t.Errorf("%s: got %+v, want %+v", p.ImportPath, got, p)
		}
	}
	for _, c := range []struct {
		path, field, want string
	}{
		{"example.com/demo/broken", "error", "broken/b.go:"},
		{"example.com/demo/missing", "deps_errors", "example.com/nowhere/pkg"},
		{"example.com/nowhere/pkg", "error", "example.com/nowhere/pkg"},
		{"example.com/demo/badtest", "test_errors", "example.com/demo/nope"},
		{"example.com/demo/badxtest", "error", "badxtest/x_test.go:"},
	} {
		p, ok := byPath[c.path]
		if !ok {
			t.Errorf("%s not recorded", c.path)
			continue
		}
		var got []string
		switch c.field {
		case "error":
			got = []string{p.Error}
		case "deps_errors":
			got = p.DepsErrors
		case "test_errors":
			got = p.TestErrors
		}
		if !slices.ContainsFunc(got, func(e string) bool { return strings.Contains(e, c.want) }) {
			t.Errorf("%s %s = %q, want one containing %q", c.path, c.field, got, c.want)
		}
		if strings.Contains(strings.Join(got, "\n"), root) {
			t.Errorf("%s %s names the project root: %q", c.path, c.field, got)
		}
	}
	if p := byPath["example.com/nowhere/pkg"]; p.Project() || p.Standard || p.Module != "" {
		t.Errorf("missing package recorded as %+v", p)
	}
	checkEdges(t, GoEdges(testRepo, s))
	roundTrip(t, s, new(GoPackages))
}

func TestGoListToolMissing(t *testing.T) {
	t.Setenv("PATH", "")
	_, err := GoList(context.Background(), t.TempDir())
	if !errors.Is(err, ErrToolMissing) {
		t.Fatalf("GoList with an empty PATH = %v, want ErrToolMissing", err)
	}
	if !strings.Contains(err.Error(), "https://go.dev/dl/") {
		t.Errorf("error %q does not say what to install", err)
	}
}

func TestGoListFailed(t *testing.T) {
	needGo(t)
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"bad go.mod", map[string]string{"go.mod": "modul x\n", "x.go": "package x\n"}, "unknown directive"},
		{"newer go", map[string]string{"go.mod": "module x\n\ngo 1.999\n", "x.go": "package x\n"}, "GOTOOLCHAIN=local"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := tempRoot(t)
			writeFiles(t, root, c.files)
			out, err := GoList(context.Background(), root)
			if !errors.Is(err, ErrToolFailed) || out != nil {
				t.Fatalf("GoList = %q, %v; want ErrToolFailed", out, err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not quote go's %q", err, c.want)
			}
		})
	}
}

func TestGoListCanceled(t *testing.T) {
	needGo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := GoList(ctx, t.TempDir()); !errors.Is(err, context.Canceled) {
		t.Fatalf("GoList with a canceled context = %v", err)
	}
}

// TestParseGoListFixture parses captured go list output (the demo module
// plus broken packages, from go 1.26, the project at /home/dev/demo).
func TestParseGoListFixture(t *testing.T) {
	out, err := os.ReadFile("testdata/golist-demo.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseGoList(out, "/home/dev/demo")
	if err != nil {
		t.Fatalf("ParseGoList: %v", err)
	}
	checkGolden(t, "golist-demo.json", snapshotJSON(t, s))
	edges := GoEdges(testRepo, s)
	checkEdges(t, edges)
	checkGolden(t, "golist-demo.edges", []byte(edgeText(edges)))
	roundTrip(t, s, new(GoPackages))

	// Another root sees no project packages, and records nothing.
	other, err := ParseGoList(out, "/home/dev/other")
	if err != nil {
		t.Fatal(err)
	}
	if len(other.Packages) != 0 {
		t.Errorf("with another root: %d packages, want none", len(other.Packages))
	}
}

func TestParseGoListErrors(t *testing.T) {
	for _, c := range []struct {
		name, out, root string
		parse           bool // the error is ErrParse
	}{
		{"not json", "{", "/p", true},
		{"not an object", "[1]", "/p", true},
		{"no import path", `{"Dir": "/p"}`, "/p", true},
		{"wrong type", `{"ImportPath": 1}`, "/p", true},
		{"relative root", `{"ImportPath": "x"}`, "p", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := ParseGoList([]byte(c.out), c.root)
			if err == nil || errors.Is(err, ErrParse) != c.parse {
				t.Fatalf("ParseGoList = %+v, %v", s, err)
			}
		})
	}
	s, err := ParseGoList(nil, "/p")
	if err != nil || len(s.Packages)+len(s.Modules) != 0 {
		t.Fatalf("ParseGoList(no output) = %+v, %v; want an empty snapshot", s, err)
	}
	roundTrip(t, s, new(GoPackages))
}

func TestExecName(t *testing.T) {
	for in, want := range map[string]string{
		"example.com/tool":       "tool",
		"example.com/tool/v2":    "tool",
		"example.com/tool/v1":    "v1",
		"example.com/tool/v0":    "v0",
		"example.com/tool/v2x":   "v2x",
		"example.com/cmd/go/v10": "go",
		"v2":                     "v2",
		"demo":                   "demo",
	} {
		if got := execName(in); got != want {
			t.Errorf("execName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGoPackagesValidate(t *testing.T) {
	ok := func() *GoPackages {
		return &GoPackages{
			Modules: []GoModule{{Path: "a"}, {Path: "b", Dir: "b"}},
			Packages: []GoPackage{
				{ImportPath: "a", Name: "a", Dir: ".", GoFiles: []string{"a.go", "b.go"}, Imports: []string{"fmt"}},
				{ImportPath: "fmt", Standard: true},
			},
		}
	}
	if err := ok().Validate(); err != nil {
		t.Fatalf("valid snapshot: %v", err)
	}
	for name, damage := range map[string]func(s *GoPackages){
		"modules out of order":  func(s *GoPackages) { s.Modules[0], s.Modules[1] = s.Modules[1], s.Modules[0] },
		"module repeated":       func(s *GoPackages) { s.Modules[1].Path = "a" },
		"empty module path":     func(s *GoPackages) { s.Modules[0].Path = "" },
		"absolute module dir":   func(s *GoPackages) { s.Modules[1].Dir = "/b" },
		"packages out of order": func(s *GoPackages) { s.Packages[0], s.Packages[1] = s.Packages[1], s.Packages[0] },
		"empty import path":     func(s *GoPackages) { s.Packages[0].ImportPath = "" },
		"dir with ..":           func(s *GoPackages) { s.Packages[0].Dir = "../a" },
		"files unsorted":        func(s *GoPackages) { s.Packages[0].GoFiles = []string{"b.go", "a.go"} },
		"file is root":          func(s *GoPackages) { s.Packages[0].GoFiles = []string{"."} },
		"files without dir":     func(s *GoPackages) { s.Packages[1].GoFiles = []string{"x.go"} },
		"imports without dir":   func(s *GoPackages) { s.Packages[1].Imports = []string{"x"} },
		"empty import":          func(s *GoPackages) { s.Packages[0].Imports = []string{""} },
	} {
		s := ok()
		damage(s)
		if err := s.Validate(); err == nil {
			t.Errorf("%s: Validate = nil", name)
		}
	}
}

// TestGoListDependency: a module required from a directory outside the
// project (a replace, so no network) is recorded as a module, and its
// package as a package outside the project.
func TestGoListDependency(t *testing.T) {
	needGo(t)
	base := tempRoot(t)
	root := filepath.Join(base, "proj")
	writeFiles(t, filepath.Join(base, "dep"), map[string]string{
		"go.mod":       "module example.com/dep\n\ngo 1.21\n",
		"util/util.go": "package util\n\nimport \"sort\"\n\nfunc Sorted(s []string) []string { sort.Strings(s); return s }\n",
	})
	writeFiles(t, root, map[string]string{
		"go.mod":  "module example.com/proj\n\ngo 1.22\n\nrequire example.com/dep v1.0.0\n\nreplace example.com/dep v1.0.0 => ../dep\n",
		"main.go": "package main\n\nimport \"example.com/dep/util\"\n\nfunc main() { _ = util.Sorted(nil) }\n",
	})
	out, err := GoList(context.Background(), root)
	if err != nil {
		t.Fatalf("GoList: %v", err)
	}
	s, err := ParseGoList(out, root)
	if err != nil {
		t.Fatalf("ParseGoList: %v", err)
	}
	want := &GoPackages{
		Modules: []GoModule{
			{Path: "example.com/dep", Version: "v1.0.0", GoVersion: "1.21", Replace: "../dep"},
			{Path: "example.com/proj", Main: true, Dir: ".", GoVersion: "1.22"},
		},
		Packages: []GoPackage{
			{ImportPath: "example.com/dep/util", Module: "example.com/dep"},
			{ImportPath: "example.com/proj", Name: "main", Dir: ".", Module: "example.com/proj",
				GoFiles: []string{"main.go"}, Imports: []string{"example.com/dep/util"}},
		},
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("snapshot:\n got %+v\nwant %+v", s, want)
	}
	const wantEdges = `module:example.com/dep contains package:example.com/dep/util high
module:example.com/proj contains package:example.com/proj high
package:example.com/proj contains file:main.go high
package:example.com/proj depends_on package:example.com/dep/util high
target:example.com/proj#bin:proj target_of package:example.com/proj high
`
	if got := edgeText(GoEdges(testRepo, s)); got != wantEdges {
		t.Errorf("edges:\n%s\nwant:\n%s", got, wantEdges)
	}
}

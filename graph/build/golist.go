package build

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
)

// goListFields are the fields GoList asks go list for: what ParseGoList
// reads, and nothing else (Deps, for one, is large and not needed: -deps
// lists the dependencies themselves).
const goListFields = "ImportPath,Name,Dir,Module,Standard,DepOnly,ForTest," +
	"GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,Imports,TestImports,XTestImports,Error,DepsErrors"

// goTool runs go with the caller's environment except that:
//   - GOFLAGS is dropped, so that a user's flags (-tags, -mod) do not change
//     what is recorded;
//   - GOPROXY=off: a snapshot never downloads a module; one missing from
//     the module cache becomes an error on the packages that need it;
//   - GOTOOLCHAIN=local: nor does it download a toolchain; a go.mod that
//     needs a newer go fails with go's message saying so.
//
// GOWORK, GOOS, GOARCH and the rest are the caller's: a workspace is
// listed as the go command would build it.
var goTool = tool{
	name:    "go",
	install: "install Go from https://go.dev/dl/ and put its bin directory on PATH",
	drop:    []string{"GOFLAGS"},
	set:     []string{"GOPROXY=off", "GOTOOLCHAIN=local"},
}

// GoList runs `go list -e -deps -test -json=… ./...` in dir and returns its
// output, a stream of JSON objects for ParseGoList.
//
// -e reports a broken package (a syntax error, an import that cannot be
// found) in its Error fields instead of failing the run; -deps adds the
// packages outside the project, so that their module and standard flag
// are known; -test adds the test variants, so that test-only imports are
// known too and errors of the test build are reported.
//
// A missing go binary is ErrToolMissing. go exiting non-zero without
// printing any package (no go.mod, a go.mod it cannot read) is
// ErrToolFailed, with the first lines of its standard error.
func GoList(ctx context.Context, dir string) ([]byte, error) {
	return goTool.run(ctx, dir, "list", "-e", "-deps", "-test", "-json="+goListFields, "./...")
}

// goListPackage is the part of go list's Package struct that ParseGoList
// reads (cmd/go/internal/load.PackagePublic).
type goListPackage struct {
	Dir          string
	ImportPath   string
	Name         string
	ForTest      string
	Standard     bool
	DepOnly      bool
	Module       *goListModule
	GoFiles      []string
	CgoFiles     []string
	TestGoFiles  []string
	XTestGoFiles []string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Error        *goListError
	DepsErrors   []*goListError
}

type goListModule struct {
	Path      string
	Version   string
	Main      bool
	Dir       string
	GoVersion string
	Replace   *goListModule
}

type goListError struct {
	Pos string
	Err string
}

// ParseGoList decodes the output of GoList, run in a directory inside the
// absolute project root root, into a GoPackages. Output without packages
// (go list matched none) gives an empty snapshot.
//
// From -test's extra entries only errors are taken: the test variants
// ("P [P.test]", "P_test [P.test]") and the generated test main ("P.test")
// add TestErrors to P.
func ParseGoList(out []byte, root string) (*GoPackages, error) {
	root, err := checkRoot(root)
	if err != nil {
		return nil, err
	}
	var list []*goListPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		p := new(goListPackage)
		if err := dec.Decode(p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%w: go list: package %d: %w", ErrParse, len(list)+1, err)
		}
		if p.ImportPath == "" {
			return nil, fmt.Errorf("%w: go list: package %d has no ImportPath", ErrParse, len(list)+1)
		}
		list = append(list, p)
	}

	// The packages proper, by import path; a repeat (not in go's output)
	// keeps the first.
	byPath := make(map[string]*goListPackage)
	for _, p := range list {
		if !isTestVariant(p) && byPath[p.ImportPath] == nil {
			byPath[p.ImportPath] = p
		}
	}
	testErrs := make(map[string][]string)
	for _, p := range list {
		of := testOf(p, byPath)
		if of == "" {
			continue
		}
		if p.Error != nil {
			testErrs[of] = append(testErrs[of], errorText(p.Error, root))
		}
		for _, e := range p.DepsErrors {
			if e != nil {
				testErrs[of] = append(testErrs[of], errorText(e, root))
			}
		}
		if !isTestVariant(p) {
			delete(byPath, p.ImportPath) // a test main is no package of the project
		}
	}

	s := &GoPackages{}
	pkgs := make(map[string]*GoPackage)
	modules := make(map[string]GoModule)
	for _, p := range list { // in go's order, so that a repeat resolves the same way every time
		if byPath[p.ImportPath] != p {
			continue // a test variant, a test main, or a repeat
		}
		if m := p.Module; m != nil && m.Path != "" {
			if _, seen := modules[m.Path]; !seen {
				modules[m.Path] = goModule(m, root)
			}
		}
		if p.DepOnly || p.Standard {
			continue
		}
		dir, ok := relPath(root, p.Dir)
		if !ok {
			continue
		}
		pkgs[p.ImportPath] = projectPackage(p, dir, root, testErrs[p.ImportPath])
	}
	// The packages outside the project that project packages import.
	var outside []string
	for _, p := range pkgs {
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			if pkgs[imp] == nil {
				outside = append(outside, imp)
			}
		}
	}
	for _, imp := range sortedSet(outside) {
		gp := &GoPackage{ImportPath: imp}
		if p := byPath[imp]; p != nil {
			gp.Standard = p.Standard
			if p.Module != nil {
				gp.Module = p.Module.Path
			}
			if p.Error != nil {
				gp.Error = errorText(p.Error, root)
			}
		}
		pkgs[imp] = gp
	}

	for _, m := range modules {
		s.Modules = append(s.Modules, m)
	}
	slices.SortFunc(s.Modules, func(a, b GoModule) int { return strings.Compare(a.Path, b.Path) })
	for _, p := range pkgs {
		s.Packages = append(s.Packages, *p)
	}
	slices.SortFunc(s.Packages, func(a, b GoPackage) int { return strings.Compare(a.ImportPath, b.ImportPath) })
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%w: go list: %w", ErrParse, err)
	}
	return s, nil
}

// isTestVariant reports whether p is a package compiled for a test: "P
// [P.test]", "P_test [P.test]", or a dependency recompiled for one.
func isTestVariant(p *goListPackage) bool {
	return p.ForTest != "" || strings.Contains(p.ImportPath, " [")
}

// testOf returns the package whose test build p belongs to, or "": a test
// variant names it in ForTest; the test main "P.test" is a main package
// whose name is that of a listed package with tests, plus ".test".
func testOf(p *goListPackage, byPath map[string]*goListPackage) string {
	if p.ForTest != "" {
		return p.ForTest
	}
	if strings.Contains(p.ImportPath, " [") {
		return "" // a dependency recompiled for a test: its errors are the dependency's
	}
	under, ok := strings.CutSuffix(p.ImportPath, ".test")
	if !ok || p.Name != "main" {
		return ""
	}
	if t := byPath[under]; t != nil && t != p && len(t.TestGoFiles)+len(t.XTestGoFiles) > 0 {
		return under
	}
	return ""
}

func goModule(m *goListModule, root string) GoModule {
	gm := GoModule{Path: m.Path, Version: m.Version, Main: m.Main, GoVersion: m.GoVersion}
	if dir, ok := relPath(root, m.Dir); ok {
		gm.Dir = dir
	}
	if r := m.Replace; r != nil && r.Path != "" {
		gm.Replace = r.Path
		if r.Version != "" {
			gm.Replace += "@" + r.Version
		}
	}
	return gm
}

func projectPackage(p *goListPackage, dir, root string, testErrs []string) *GoPackage {
	files := func(names ...[]string) []string {
		var out []string
		for _, n := range slices.Concat(names...) {
			if f, ok := fileRel(root, p.Dir, n); ok {
				out = append(out, f)
			}
		}
		return sortedSet(out)
	}
	gp := &GoPackage{
		ImportPath:   p.ImportPath,
		Name:         p.Name,
		Dir:          dir,
		GoFiles:      files(p.GoFiles, p.CgoFiles),
		TestGoFiles:  files(p.TestGoFiles),
		XTestGoFiles: files(p.XTestGoFiles),
		Imports:      sortedSet(slices.DeleteFunc(slices.Clone(p.Imports), isCgo)),
		TestImports:  sortedSet(p.TestImports),
		XTestImports: sortedSet(p.XTestImports),
	}
	if p.Module != nil {
		gp.Module = p.Module.Path
	}
	if p.Error != nil {
		gp.Error = errorText(p.Error, root)
	}
	var deps []string
	for _, e := range p.DepsErrors {
		if e != nil {
			deps = append(deps, errorText(e, root))
		}
	}
	gp.DepsErrors = sortedSet(deps)
	gp.TestErrors = sortedSet(slices.DeleteFunc(slices.Clone(testErrs), func(e string) bool {
		return e == gp.Error || slices.Contains(gp.DepsErrors, e)
	}))
	return gp
}

// isCgo reports whether an import is cgo's pseudo-package "C".
func isCgo(imp string) bool { return imp == "C" }

// fileRel returns a file go list names (relative to the package directory,
// or absolute) relative to the project root.
func fileRel(root, dir, name string) (string, bool) {
	if name == "" {
		return "", false
	}
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	f, ok := relPath(root, name)
	return f, ok && f != "."
}

// errorText renders a go list error as "POS: MESSAGE", with the project
// root's absolute path removed so that the text is the same in every
// clone.
func errorText(e *goListError, root string) string {
	text := e.Err
	if e.Pos != "" {
		text = e.Pos + ": " + text
	}
	text = strings.ReplaceAll(text, root+string(filepath.Separator), "")
	if text == "" {
		return "unknown error"
	}
	return text
}

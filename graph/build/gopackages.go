package build

import (
	"errors"
	"fmt"

	"github.com/ctx-dev/ctx/object"
)

// GoPackages is the build graph of one Go module tree: what
// `go list -deps -test ./...` run in its root reports (GoList,
// ParseGoList). Stored under the type name "go_packages".
//
// Packages are the project packages (those matched by ./... whose
// directory is inside the project root) and the packages outside the
// project they import, directly or from tests; modules are every module
// that provides a package of the build, test dependencies included. What
// a snapshot records depends on the GOOS, GOARCH and build tags go list
// ran with, as a build does.
type GoPackages struct {
	// Modules lists the modules, sorted by path.
	Modules []GoModule `json:"modules"`
	// Packages lists the packages, sorted by import path.
	Packages []GoPackage `json:"packages"`
}

// GoModule is a module of a Go build.
type GoModule struct {
	// Path is the module path ("example.com/demo").
	Path string `json:"path"`
	// Version is the module's version; absent for a main module and for a
	// module replaced by a directory.
	Version string `json:"version,omitempty"`
	// Main is set for the main modules (one, or those of a workspace).
	Main bool `json:"main,omitempty"`
	// Dir is the module's directory relative to the project root ("." for
	// the root); absent when it is outside the root, as dependencies in
	// the module cache are.
	Dir string `json:"dir,omitempty"`
	// GoVersion is the go directive of the module's go.mod; optional.
	GoVersion string `json:"go_version,omitempty"`
	// Replace is what the module is replaced by, "PATH" or
	// "PATH@VERSION", as go.mod writes it; optional.
	Replace string `json:"replace,omitempty"`
}

// GoPackage is a package of a Go build. A package is a project package
// exactly when Dir is set; of the others only ImportPath, Module, Standard
// and Error are recorded.
type GoPackage struct {
	// ImportPath is the package's import path.
	ImportPath string `json:"import_path"`
	// Name is the package name ("main" for a command); optional.
	Name string `json:"name,omitempty"`
	// Dir is the package's directory relative to the project root ("." for
	// the root); set exactly for project packages.
	Dir string `json:"dir,omitempty"`
	// Standard is set for packages of the standard library.
	Standard bool `json:"standard,omitempty"`
	// Module is the path of the module providing the package; absent for
	// the standard library and for a package no module provides.
	Module string `json:"module,omitempty"`
	// GoFiles are the package's Go files (cgo files included), excluding
	// tests, as paths relative to the project root.
	GoFiles []string `json:"go_files,omitempty"`
	// TestGoFiles are the _test.go files of the package itself.
	TestGoFiles []string `json:"test_go_files,omitempty"`
	// XTestGoFiles are the _test.go files of the external test package
	// (package NAME_test).
	XTestGoFiles []string `json:"xtest_go_files,omitempty"`
	// Imports are the import paths GoFiles import ("C" left out).
	Imports []string `json:"imports,omitempty"`
	// TestImports are the import paths TestGoFiles import.
	TestImports []string `json:"test_imports,omitempty"`
	// XTestImports are the import paths XTestGoFiles import.
	XTestImports []string `json:"xtest_imports,omitempty"`
	// Error is go list's error for the package itself (a syntax error, a
	// package that cannot be found), "POS: MESSAGE"; optional. Positions
	// are relative to the directory go list ran in.
	Error string `json:"error,omitempty"`
	// DepsErrors are the errors of the packages it depends on; optional.
	DepsErrors []string `json:"deps_errors,omitempty"`
	// TestErrors are errors of the package's test build (a broken test
	// file, a test import that cannot be found) not already in Error or
	// DepsErrors; optional.
	TestErrors []string `json:"test_errors,omitempty"`
}

// Project reports whether p is a project package.
func (p *GoPackage) Project() bool { return p.Dir != "" }

// TypeName returns "go_packages".
func (*GoPackages) TypeName() string { return "go_packages" }

// Links returns nothing: a go_packages object refers to no other object.
func (*GoPackages) Links() []object.Link { return nil }

// Validate checks that modules and packages are sorted and unique, that
// paths are relative to the project root, that lists are sorted sets and
// that only project packages have directories, files and imports.
func (s *GoPackages) Validate() error {
	for i := range s.Modules {
		m := &s.Modules[i]
		switch {
		case m.Path == "":
			return fmt.Errorf("modules[%d]: empty path", i)
		case i > 0 && s.Modules[i-1].Path >= m.Path:
			return fmt.Errorf("modules[%d]: %q is out of order or repeated", i, m.Path)
		case m.Dir != "" && !validRel(m.Dir):
			return fmt.Errorf("modules[%d]: dir %q is not relative to the project root", i, m.Dir)
		}
	}
	for i := range s.Packages {
		p := &s.Packages[i]
		if i > 0 && s.Packages[i-1].ImportPath >= p.ImportPath {
			return fmt.Errorf("packages[%d]: %q is out of order or repeated", i, p.ImportPath)
		}
		if err := p.validate(); err != nil {
			return fmt.Errorf("packages[%d] %s: %w", i, p.ImportPath, err)
		}
	}
	return nil
}

func (p *GoPackage) validate() error {
	if p.ImportPath == "" {
		return errors.New("empty import_path")
	}
	if p.Dir == "" {
		if p.Name != "" || len(p.GoFiles)+len(p.TestGoFiles)+len(p.XTestGoFiles) > 0 ||
			len(p.Imports)+len(p.TestImports)+len(p.XTestImports) > 0 {
			return errors.New("name, files or imports without dir (only project packages have them)")
		}
	} else if !validRel(p.Dir) {
		return fmt.Errorf("dir %q is not relative to the project root", p.Dir)
	}
	for _, l := range []struct {
		field string
		list  []string
		ok    func(string) bool
	}{
		{"go_files", p.GoFiles, validFile},
		{"test_go_files", p.TestGoFiles, validFile},
		{"xtest_go_files", p.XTestGoFiles, validFile},
		{"imports", p.Imports, nonEmpty},
		{"test_imports", p.TestImports, nonEmpty},
		{"xtest_imports", p.XTestImports, nonEmpty},
		{"deps_errors", p.DepsErrors, nonEmpty},
		{"test_errors", p.TestErrors, nonEmpty},
	} {
		if err := checkSet(l.field, l.list, l.ok); err != nil {
			return err
		}
	}
	return nil
}

// Command portcheck type-checks the module's packages and their tests for
// other systems than the one it runs on, without their C compilers: ctx
// links tree-sitter through cgo, so `GOOS=darwin go vet` needs a C cross
// compiler this machine lacks, while a type check finds what breaks a
// build elsewhere (a stat field named otherwise, a Unix-only call in a
// file built everywhere).
//
// Usage: go run ./internal/portcheck GOOS/GOARCH...
//
// For each target it lists the packages with `go list -deps -test`
// (cgo off), type-checks them in dependency order with go/types, and
// prints the errors found in the module's own packages, but those about
// tree-sitter in the packages that import it: without cgo its Go files do
// not type-check, nor does code that uses what its C half defines. The
// exit status is 1 if any error was found.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

const (
	module     = "github.com/ctx-dev/ctx"
	treeSitter = "github.com/smacker/go-tree-sitter"
)

type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	ImportMap  map[string]string
	Standard   bool
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: portcheck GOOS/GOARCH...")
		os.Exit(2)
	}
	bad := 0
	for _, target := range os.Args[1:] {
		goos, goarch, ok := strings.Cut(target, "/")
		if !ok {
			fmt.Fprintf(os.Stderr, "portcheck: %q is not GOOS/GOARCH\n", target)
			os.Exit(2)
		}
		n, err := check(goos, goarch)
		if err != nil {
			fmt.Fprintf(os.Stderr, "portcheck: %s: %v\n", target, err)
			os.Exit(2)
		}
		bad += n
	}
	if bad > 0 {
		os.Exit(1)
	}
}

// check type-checks the module for one target and returns the number of
// errors printed.
func check(goos, goarch string) (int, error) {
	cmd := exec.Command("go", "list", "-deps", "-test", "-json=ImportPath,Dir,GoFiles,Imports,ImportMap,Standard", "./...")
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0", "GOFLAGS=")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("go list: %v: %s", err, errOut.String())
	}
	var pkgs []*listed
	for dec := json.NewDecoder(&out); ; {
		p := new(listed)
		if err := dec.Decode(p); err == io.EOF {
			break
		} else if err != nil {
			return 0, err
		}
		pkgs = append(pkgs, p)
	}
	fset := token.NewFileSet()
	done := map[string]*types.Package{}
	sizes := types.SizesFor("gc", goarch)
	bad := 0
	seen := map[string]bool{} // a package and its test variant report alike
	for _, p := range pkgs {  // dependencies come first
		if strings.HasSuffix(p.ImportPath, ".test") {
			continue // the generated test main
		}
		ours := strings.HasPrefix(p.ImportPath, module)
		usesSitter := imports(p, treeSitter)
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				return bad, err
			}
			files = append(files, f)
		}
		conf := types.Config{
			Sizes:    sizes,
			Importer: importer{done, p.ImportMap},
			Error: func(err error) {
				msg := fmt.Sprintf("%s/%s: %v", goos, goarch, err)
				if usesSitter && strings.Contains(msg, "sitter") {
					return // what tree-sitter's C half defines
				}
				if ours && !seen[msg] {
					seen[msg] = true
					bad++
					fmt.Println(msg)
				}
			},
		}
		path, _, _ := strings.Cut(p.ImportPath, " ") // "p [p.test]": p with its tests
		pkg, _ := conf.Check(path, fset, files, nil)
		done[p.ImportPath] = pkg
	}
	return bad, nil
}

// imports reports whether p imports path or a package under it.
func imports(p *listed, path string) bool {
	for _, i := range p.Imports {
		if i == path || strings.HasPrefix(i, path+"/") {
			return true
		}
	}
	return false
}

// importer finds packages checked before, by the ids go list gave them.
type importer struct {
	done map[string]*types.Package
	m    map[string]string // import path → package id
}

func (im importer) Import(path string) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	id := path
	if v, ok := im.m[path]; ok {
		id = v
	}
	if p := im.done[id]; p != nil {
		return p, nil
	}
	return nil, fmt.Errorf("package %s not checked before its importer", id)
}

package extract

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ctx-dev/ctx/graph"
)

// memProject is a Project over files in memory.
type memProject struct {
	files map[string]string
	memo  sync.Map
}

func (p *memProject) ReadFile(path string) ([]byte, error) {
	if s, ok := p.files[path]; ok {
		return []byte(s), nil
	}
	return nil, fs.ErrNotExist
}

func (p *memProject) Exists(path string) bool {
	if _, ok := p.files[path]; ok {
		return true
	}
	for f := range p.files {
		if strings.HasPrefix(f, path+"/") {
			return true
		}
	}
	return false
}

func (p *memProject) Memo(key string, compute func() any) any {
	if v, ok := p.memo.Load(key); ok {
		return v
	}
	v, _ := p.memo.LoadOrStore(key, compute())
	return v
}

// TestModule checks how each tree-sitter language maps a path to its
// module key.
func TestModule(t *testing.T) {
	proj := &memProject{files: map[string]string{
		"Cargo.toml":                     "[workspace]\nmembers = [\"crates/*\"]\n",
		"crates/core/Cargo.toml":         "[package]\nname = \"core\"\n",
		"crates/core/src/lib.rs":         "",
		"crates/my-cli/Cargo.toml":       "[package]\nname = \"my-cli\"\n\n[lib]\nname = \"mycli\"\n",
		"crates/bin-only/Cargo.toml":     "[package]\nname = \"bin-only\"\n",
		"crates/bin-only/src/main.rs":    "",
		"py/src/pkg/__init__.py":         "",
		"py/src/pkg/sub/__init__.py":     "",
		"py/lib/src/__init__.py":         "",
		"py/lib/src/inner/__init__.py":   "",
		"py/lib/src/inner/mod.py":        "",
		"py/scripts/tool.py":             "",
		"py/src/pkg/sub/deep/nopkg.py":   "",
		"py/src/pkg/sub/mod.py":          "",
		"py/src/pkg/sub/__init__.pyi":    "",
		"crates/core/src/net/client.rs":  "",
		"crates/my-cli/src/lib.rs":       "",
		"crates/my-cli/src/main.rs":      "",
		"crates/bin-only/src/util/io.rs": "",
	}}
	tests := []struct {
		path, want string
	}{
		{"crates/core/src/lib.rs", "core"},
		{"crates/core/src/net/mod.rs", "core::net"},
		{"crates/core/src/net/client.rs", "core::net::client"},
		{"crates/core/src/bin/ping.rs", "ping"},
		{"crates/core/src/bin/serve/main.rs", "serve"},
		{"crates/core/src/bin/serve/http.rs", "serve::http"},
		{"crates/core/tests/connect.rs", "connect"},
		{"crates/core/tests/common/mod.rs", "common"},
		{"crates/core/examples/demo.rs", "demo"},
		{"crates/core/benches/speed.rs", "speed"},
		{"crates/core/build.rs", "build_script_build"},
		{"crates/my-cli/src/lib.rs", "mycli"},
		{"crates/my-cli/src/main.rs", "my_cli"},
		{"crates/my-cli/src/args.rs", "mycli::args"},
		{"crates/bin-only/src/util/io.rs", "bin_only::util::io"},
		{"loose/src/a/b.rs", "loose::a::b"},
		{"x.rs", "x"},
		{"py/src/pkg/__init__.py", "pkg"},
		{"py/src/pkg/sub/mod.py", "pkg.sub.mod"},
		{"py/src/pkg/sub/__init__.py", "pkg.sub"},
		{"py/src/pkg/sub/deep/nopkg.py", "nopkg"},
		{"py/scripts/tool.py", "tool"},
		{"py/lib/src/inner/mod.py", "inner.mod"},
		{"py/src/pkg/sub/types.pyi", "pkg.sub.types"},
		{"web/src/net/client.ts", "web/src/net/client"},
		{"web/src/net/index.ts", "web/src/net"},
		{"web/src/ui/Button.tsx", "web/src/ui/Button"},
		{"web/src/types.d.ts", "web/src/types"},
		{"lib/legacy.cjs", "lib/legacy"},
		{"lib/esm.mjs", "lib/esm"},
		{"index.js", "index"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			lang := ForPath(tt.path)
			if lang == nil {
				t.Fatalf("no language for %s", tt.path)
			}
			mi := lang.Module(proj, tt.path)
			if mi.Module.Key != tt.want || mi.Module.Kind != graph.NodeModule || mi.Unit != tt.path {
				t.Errorf("Module(%s) = %+v, want key %q, unit the path", tt.path, mi, tt.want)
			}
		})
	}
}

// TestImportsWithoutProject checks the guesses a language makes about
// what an import names when it cannot look at the project.
func TestImportsWithoutProject(t *testing.T) {
	tests := []struct {
		path, module, src string
		want              []string // kind:key of each import's target
	}{
		{"src/a.rs", "core::a", "use crate::net::client;\nuse crate::net::Client;\nuse super::b::*;\nuse std::{fmt, io::Write as W};\n",
			[]string{"module:core::net::client", "item:core::net::Client", "module:core::b", "module:std::fmt", "item:std::io::Write"}},
		{"pkg/a.py", "pkg.a", "from . import b\nfrom .c import D\nimport os.path as p\nfrom e import *\n",
			[]string{"module:pkg.b", "item:pkg.c.D", "module:os.path", "module:e"}},
		{"src/a.ts", "src/a", "import x from '../lib/b.js';\nimport './c.css';\nimport { y } from '@s/p/q';\nconst z = require('node:fs');\n",
			[]string{"module:lib/b", "file:src/c.css", "package:@s/p", "package:fs"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			r, err := ForPath(tt.path).Extract(&File{Path: tt.path, Src: []byte(tt.src),
				ModuleInfo: ModuleInfo{Module: Node{Kind: graph.NodeModule, Key: tt.module}, Unit: tt.path}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, im := range r.Imports {
				got = append(got, string(im.Target.Kind)+":"+im.Target.Key)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("imports = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSyntaxErrors checks that a file that does not parse still gives the
// items around the error, and counts the errors.
func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		path, src string
		want      []string // names of items that must be found
	}{
		{"src/lib.rs", "pub fn ok() -> u32 { 1 }\n\nfn broken(x: {\n\npub struct After { x: u32 }\n\nimpl After { fn m(&self) {} }\n",
			[]string{"ok", "After"}},
		{"m.py", "def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass After:\n    def m(self):\n        pass\n",
			[]string{"ok", "After", "m"}},
		{"a.ts", "export function ok(): number { return 1; }\n\nfunction broken(x: {\n\nexport class After { m() {} }\n",
			[]string{"ok"}},
		{"a.tsx", "export function ok() { return <div>{1 +}</div>; }\n\nexport class After { m() { return <b></b>; } }\n",
			[]string{"ok", "After", "m"}},
		{"a.js", "function ok() { return 1 }\nfunction broken() { if ( }\nclass After { m() {} }\n",
			[]string{"ok", "broken", "After", "m"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			lang := ForPath(tt.path)
			r, err := lang.Extract(&File{Path: tt.path, Src: []byte(tt.src), ModuleInfo: lang.Module(&memProject{}, tt.path)})
			if err != nil {
				t.Fatal(err)
			}
			if r.SyntaxErrors == 0 {
				t.Errorf("SyntaxErrors = 0, want some")
			}
			var names []string
			for _, it := range r.Items {
				names = append(names, it.Name)
			}
			for _, w := range tt.want {
				if !slices.Contains(names, w) {
					t.Errorf("items %q lack %q", names, w)
				}
			}
			checkResult(t, r, []byte(tt.src))
		})
	}
}

// fixtures returns the files under testdata/<dir> whose names end in one
// of exts, by slash path relative to the fixture.
func fixtures(tb testing.TB, dir string, exts ...string) map[string][]byte {
	tb.Helper()
	root := filepath.Join("testdata", dir)
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		for _, e := range exts {
			if strings.HasSuffix(p, e) {
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(root, p)
				out[filepath.ToSlash(rel)] = data
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// checkResult checks what must hold for any input: spans inside the file,
// keys and names present.
func checkResult(t *testing.T, r *Result, src []byte) {
	t.Helper()
	lines := bytes.Split(src, []byte("\n"))
	checkSpan := func(what string, s graph.Span) {
		t.Helper()
		if s.StartLine == 0 {
			t.Errorf("%s: no span", what)
			return
		}
		if int(s.EndLine) > len(lines) || s.EndLine < s.StartLine || s.StartLine == s.EndLine && s.EndCol < s.StartCol ||
			s.StartCol == 0 || s.EndCol == 0 || int(s.StartCol) > len(lines[s.StartLine-1])+1 || int(s.EndCol) > len(lines[s.EndLine-1])+1 {
			t.Errorf("%s: span %+v outside the file (%d lines)", what, s, len(lines))
		}
	}
	for _, it := range r.Items {
		if it.Key == "" || it.Name == "" || !slices.Contains(ItemKinds, it.Kind) {
			t.Errorf("item %+v: no key, name or kind", it)
		}
		checkSpan("item "+it.Key, it.Span)
	}
	for _, im := range r.Imports {
		if im.Target.Key == "" || im.Target.Kind == "" {
			t.Errorf("import %+v: no target", im)
		}
		checkSpan("import "+im.Path, im.Span)
	}
	for _, c := range r.Calls {
		if c.Name == "" {
			t.Errorf("call %+v: no name", c)
		}
		checkSpan("call "+c.Name, c.Span)
	}
	for _, rf := range r.Refs {
		if rf.Name == "" {
			t.Errorf("ref %+v: no name", rf)
		}
		checkSpan("ref "+rf.Name, rf.Span)
	}
	for _, im := range r.Impls {
		if im.Type == "" || im.Name == "" {
			t.Errorf("impl %+v: no type or name", im)
		}
		checkSpan("impl "+im.Name, im.Span)
	}
	for _, m := range r.Submodules {
		if m.Key == "" {
			t.Errorf("submodule without key")
		}
	}
	Resolve([]*Result{r}, ResolveOptions{KeepLow: true})
}

func fuzzExtract(f *testing.F, fixture string, exts ...string) {
	for _, src := range fixtures(f, fixture, exts...) {
		f.Add(src, uint8(0))
	}
	f.Add([]byte(""), uint8(1))
	f.Fuzz(func(t *testing.T, src []byte, which uint8) {
		p := "src/fuzz/mod" + exts[int(which)%len(exts)]
		lang := ForPath(p)
		r, err := lang.Extract(&File{Path: p, Src: src, ModuleInfo: lang.Module(&memProject{}, p)})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, r, src)
	})
}

func FuzzExtractRust(f *testing.F)   { fuzzExtract(f, "rust", ".rs") }
func FuzzExtractPython(f *testing.F) { fuzzExtract(f, "python", ".py") }
func FuzzExtractTypeScript(f *testing.F) {
	fuzzExtract(f, "typescript", ".ts", ".tsx")
}
func FuzzExtractJavaScript(f *testing.F) {
	fuzzExtract(f, "javascript", ".js", ".mjs", ".cjs")
}

// TestConcurrentExtract extracts every fixture file many times from many
// goroutines: parsers are pooled, never shared, and every result matches
// the one extracted alone.
func TestConcurrentExtract(t *testing.T) {
	type job struct {
		path string
		src  []byte
		want *Result
	}
	var jobs []job
	for _, dir := range []string{"rust", "python", "typescript", "javascript"} {
		proj := &DirProject{Root: filepath.Join("testdata", dir)}
		for p, src := range fixtures(t, dir, ".rs", ".py", ".ts", ".tsx", ".js", ".mjs", ".cjs") {
			lang := ForPath(p)
			want, err := lang.Extract(&File{Path: p, Src: src, ModuleInfo: lang.Module(proj, p), Project: proj})
			if err != nil {
				t.Fatal(err)
			}
			jobs = append(jobs, job{p, src, want})
		}
	}
	const rounds, workers = 20, 8
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			proj := map[string]*DirProject{}
			for i := range rounds * len(jobs) {
				j := jobs[(i+w)%len(jobs)]
				dir := map[string]string{"rust": "rust", "python": "python", "typescript": "typescript", "javascript": "javascript"}[j.want.Language]
				if proj[dir] == nil {
					proj[dir] = &DirProject{Root: filepath.Join("testdata", dir)}
				}
				lang := ForPath(j.path)
				got, err := lang.Extract(&File{Path: j.path, Src: j.src, ModuleInfo: lang.Module(proj[dir], j.path), Project: proj[dir]})
				if err == nil && !reflect.DeepEqual(got, j.want) {
					err = fmt.Errorf("%s: concurrent extraction differs", j.path)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// corpus makes about size bytes of source from a fixture's files, copied
// under numbered directories.
func corpus(b *testing.B, fixture string, size int, exts ...string) ([]*File, int64) {
	files := fixtures(b, fixture, exts...)
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	proj := &DirProject{Root: filepath.Join("testdata", fixture)}
	var out []*File
	var total int64
	for i := 0; total < int64(size); i++ {
		p := paths[i%len(paths)]
		lang := ForPath(p)
		mi := lang.Module(proj, p)
		copyPath := fmt.Sprintf("gen%d/%s", i/len(paths), p)
		out = append(out, &File{Path: copyPath, Src: files[p], ModuleInfo: ModuleInfo{Module: mi.Module, Unit: copyPath}})
		total += int64(len(files[p]))
	}
	return out, total
}

// benchExtract extracts a 2 MB corpus, on one goroutine and on all cores;
// the MB/s is the source read per second.
func benchExtract(b *testing.B, fixture string, exts ...string) {
	files, total := corpus(b, fixture, 2<<20, exts...)
	b.Run("serial", func(b *testing.B) {
		b.SetBytes(total)
		for b.Loop() {
			for _, f := range files {
				if _, err := ForPath(f.Path).Extract(f); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.SetBytes(total)
		for b.Loop() {
			var wg sync.WaitGroup
			next := make(chan *File)
			for range runtime.GOMAXPROCS(0) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for f := range next {
						if _, err := ForPath(f.Path).Extract(f); err != nil {
							b.Error(err)
						}
					}
				}()
			}
			for _, f := range files {
				next <- f
			}
			close(next)
			wg.Wait()
		}
	})
}

func BenchmarkExtractRust(b *testing.B)   { benchExtract(b, "rust", ".rs") }
func BenchmarkExtractPython(b *testing.B) { benchExtract(b, "python", ".py") }
func BenchmarkExtractTypeScript(b *testing.B) {
	benchExtract(b, "typescript", ".ts", ".tsx")
}
func BenchmarkExtractJavaScript(b *testing.B) {
	benchExtract(b, "javascript", ".js", ".mjs", ".cjs")
}

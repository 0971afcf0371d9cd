package extract

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// goSource returns the .go files of GOROOT/src, read into memory.
func goSource(tb testing.TB) (string, map[string][]byte) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Skip("go env GOROOT:", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	files := map[string][]byte{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return root, files
}

// BenchmarkExtractGoSource extracts and resolves every .go file of
// GOROOT/src on all cores and reports files, items and edges.
func BenchmarkExtractGoSource(b *testing.B) {
	root, files := goSource(b)
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	lang := ForPath("x.go")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		proj := &DirProject{Root: root}
		results := make([]*Result, len(paths))
		var next atomic.Int64
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					k := int(next.Add(1) - 1)
					if k >= len(paths) {
						return
					}
					p := paths[k]
					mi := lang.Module(proj, p)
					r, err := lang.Extract(&File{Path: p, Src: files[p], ModuleInfo: mi})
					if err != nil {
						b.Error(err)
						return
					}
					results[k] = r
				}
			}()
		}
		wg.Wait()
		units := map[string][]*Result{}
		for k, r := range results {
			u := lang.Module(proj, paths[k]).Unit
			units[u] = append(units[u], r)
		}
		items, edges := 0, 0
		for _, rs := range units {
			for k, es := range Resolve(rs, ResolveOptions{}) {
				items += len(rs[k].Items)
				edges += len(es)
			}
		}
		b.ReportMetric(float64(len(paths)), "files")
		b.ReportMetric(float64(items), "items")
		b.ReportMetric(float64(edges), "edges")
	}
}

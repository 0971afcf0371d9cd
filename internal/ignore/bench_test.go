package ignore

import (
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goSrc returns $(go env GOROOT)/src.
func goSrc(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("no go command:", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

// goPatterns are the patterns of the Go repository's top .gitignore
// (which a GOROOT from a release archive lacks), as a realistic load.
var goPatterns = []string{
	".DS_Store", "*.[56789ao]", "*.a[56789o]", "*.so", "*.pyc", "._*", ".nfs.*",
	"[56789a].out", "*~", "*.orig", "*.rej", "*.exe", ".*.swp", "core", "*.cgo*.go",
	"*.cgo*.c", "_cgo_*", "_obj", "_test", "_testmain.go", "/VERSION.cache", "/bin/",
	"/build.out", "/doc/articles/wiki/*.bin", "/goinstall.log", "/last-change",
	"/misc/cgo/life/run.out", "/misc/cgo/stdio/run.out", "/misc/cgo/testso/main",
	"/pkg/", "/src/*.*/", "/src/cmd/cgo/zdefaultcc.go", "/src/cmd/dist/dist",
	"/src/cmd/go/internal/cfg/zdefaultcc.go", "/src/cmd/go/internal/cfg/zosarch.go",
	"/src/cmd/internal/objabi/zbootstrap.go", "/src/go/build/zcgo.go",
	"/src/go/doc/headscan", "/src/internal/buildcfg/zbootstrap.go",
	"/src/runtime/internal/sys/zversion.go", "/src/unicode/maketables",
	"/src/time/tzdata/zzipdata.go", "/test.out", "/test/garbage/*.out",
	"/test/pass.out", "/test/run.out", "/test/times.out",
	"!/src/cmd/go/testdata/**", "!/src/**/testdata/**",
}

// BenchmarkWalk walks the Go source tree with its .gitignore files, with
// no extra patterns and with those of Go's own top .gitignore; WalkDir
// is filepath.WalkDir over the same tree, for scale.
func BenchmarkWalk(b *testing.B) {
	src := goSrc(b)
	for _, bb := range []struct {
		name  string
		extra []string
	}{
		{"gitignore", nil},
		{"gitignore+go-patterns", goPatterns},
	} {
		b.Run(bb.name, func(b *testing.B) {
			var n int
			for b.Loop() {
				n = 0
				err := New(src, bb.extra).Walk("", func(rel string, d fs.DirEntry) error {
					n++
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n), "paths")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/path")
		})
	}
	b.Run("WalkDir", func(b *testing.B) {
		var n int
		for b.Loop() {
			n = 0
			err := filepath.WalkDir(src, func(string, fs.DirEntry, error) error {
				n++
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n), "paths")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/path")
	})
}

// BenchmarkIgnored asks about every path of the Go source tree in walk
// order, through Ignored, with Go's patterns.
func BenchmarkIgnored(b *testing.B) {
	src := goSrc(b)
	type entry struct {
		rel   string
		isDir bool
	}
	var all []entry
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == src {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		all = append(all, entry{filepath.ToSlash(rel), d.IsDir()})
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		m := New(src, goPatterns)
		for _, e := range all {
			m.Ignored(e.rel, e.isDir)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(all)), "ns/path")
}

package index

import (
	"bufio"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/index/text"
)

// goDocs returns documents shaped like the code segment's, made from the
// Go sources under GOROOT/src (or the directory CTX_BENCH_GOSRC names):
// for each file, its path, then a document per top-level declaration
// (from a line starting with "func", "type", "var" or "const" to the next
// such line, at most 16 KiB), under a line naming it, as items are.
// It is the text part of a rebuild of a store of Go's own source tree,
// without the store.
var goDocs = sync.OnceValues(func() ([]string, error) {
	root := os.Getenv("CTX_BENCH_GOSRC")
	if root == "" {
		root = filepath.Join(runtime.GOROOT(), "src")
	}
	var docs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		docs = append(docs, rel)
		var item strings.Builder
		flush := func() {
			if item.Len() > 0 {
				docs = append(docs, rel+".item\n"+item.String()[:min(item.Len(), maxChunkBytes)])
				item.Reset()
			}
		}
		for _, l := range strings.SplitAfter(string(b), "\n") {
			for _, kw := range []string{"func ", "type ", "var ", "const "} {
				if strings.HasPrefix(l, kw) {
					flush()
					break
				}
			}
			item.WriteString(l)
		}
		flush()
		return nil
	})
	return docs, err
})

// reportCPU reports the CPU time per operation since start as cpu-ns/op.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

func benchDocs(b *testing.B) []string {
	docs, err := goDocs()
	if err != nil || len(docs) == 0 {
		b.Skipf("no Go sources: %v", err)
	}
	return docs
}

func docsBytes(docs []string) int64 {
	var n int64
	for _, d := range docs {
		n += int64(len(d))
	}
	return n
}

// invertDocs tokenizes and inverts docs as one worker of writeSegment
// does.
func invertDocs(docs []string, from, to int) *inverter {
	inv := newInverter()
	var tk text.Tokenizer
	for i := from; i < to; i++ {
		tk.TokenizeBytes(docs[i], 0, inv.add)
		inv.endDoc(uint32(i))
	}
	return inv
}

// BenchmarkTokenizeDocs is the tokenizer alone over the documents.
func BenchmarkTokenizeDocs(b *testing.B) {
	docs := benchDocs(b)
	b.SetBytes(docsBytes(docs))
	emit := func([]byte, uint32) {}
	start := cpuTime()
	for b.Loop() {
		var tk text.Tokenizer
		for _, d := range docs {
			tk.TokenizeBytes(d, 0, emit)
		}
	}
	reportCPU(b, start)
}

// BenchmarkInvert is tokenizing and inverting the documents on one
// goroutine: a worker of writeSegment.
func BenchmarkInvert(b *testing.B) {
	docs := benchDocs(b)
	b.SetBytes(docsBytes(docs))
	var terms int
	start := cpuTime()
	for b.Loop() {
		terms = invertDocs(docs, 0, len(docs)).len()
	}
	reportCPU(b, start)
	b.ReportMetric(float64(terms), "terms")
}

// BenchmarkMergePostings is the terms table's values from two inverters of
// half the documents each, as writeTerms makes them on two cores.
func BenchmarkMergePostings(b *testing.B) {
	docs := benchDocs(b)
	invs := []*inverter{invertDocs(docs, 0, len(docs)/2), invertDocs(docs, len(docs)/2, len(docs))}
	var n int64
	start := cpuTime()
	for b.Loop() {
		n = 0
		err := mergePostings(context.Background(), invs, func(name, val []byte) error {
			n += int64(len(name) + len(val))
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
	b.SetBytes(n)
}

// BenchmarkSortTerms is an inverter's terms put in order, which
// mergePostings does for each.
func BenchmarkSortTerms(b *testing.B) {
	docs := benchDocs(b)
	inv := invertDocs(docs, 0, len(docs)/2)
	start := cpuTime()
	for b.Loop() {
		inv.sorted()
	}
	reportCPU(b, start)
	b.ReportMetric(float64(inv.len()), "terms")
}

// BenchmarkWriteTerms is the terms table written from two inverters of
// half the documents each: by writeTerms, which merges ranges on every
// core, and serially, as one goroutine merging and writing in turn.
func BenchmarkWriteTerms(b *testing.B) {
	docs := benchDocs(b)
	invs := []*inverter{invertDocs(docs, 0, len(docs)/2), invertDocs(docs, len(docs)/2, len(docs))}
	run := func(b *testing.B, write func(dir string) error) {
		start := cpuTime()
		for b.Loop() {
			b.StopTimer()
			dir := b.TempDir()
			b.StartTimer()
			if err := write(dir); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, start)
	}
	b.Run("ranges", func(b *testing.B) {
		run(b, func(dir string) error {
			var n int
			return writeTerms(context.Background(), dir, invs, &n)
		})
	})
	b.Run("serial", func(b *testing.B) {
		run(b, func(dir string) error {
			f, err := os.Create(filepath.Join(dir, termsFile))
			if err != nil {
				return err
			}
			defer f.Close()
			w := bufio.NewWriterSize(f, 1<<20)
			if err := writeTermsSerial(w, invs); err != nil {
				return err
			}
			if err := w.Flush(); err != nil {
				return err
			}
			return f.Sync()
		})
	})
}

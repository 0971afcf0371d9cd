package secrets

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// gorootFile is one file of the Go tree, read into memory.
type gorootFile struct {
	path string // slash-separated, relative to GOROOT/src
	data []byte
}

// readGoroot reads every regular file under GOROOT/src, or skips the test
// if there is no Go tree.
func readGoroot(tb testing.TB) (files []gorootFile, size int64) {
	tb.Helper()
	root := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(root); err != nil {
		tb.Skip("no Go tree:", err)
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files = append(files, gorootFile{filepath.ToSlash(rel), data})
		size += int64(len(data))
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files, size
}

// TestScanGoroot runs Scan over the Go tree, which has real-looking test
// keys and tokens in its testdata and crypto tests and a great deal of
// ordinary code that handles passwords and tokens. It lists every finding
// in the log and checks that each is well-formed and plausible: in
// testdata, in a test, or in a key file. Outside testdata there must be no
// more than a handful; in Go 1.26 they are the EC keys of crypto/tls's
// example test and crypto/x509's platform root, and the hex private keys of
// crypto/ecdh's and crypto/x509's tests.
func TestScanGoroot(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the whole Go tree")
	}
	files, _ := readGoroot(t)
	var outside, inside int
	kinds := map[Kind]int{}
	for _, f := range files {
		found := Scan(f.data)
		checkFindings(t, f.data, found)
		testdata := slices.Contains(strings.Split(f.path, "/"), "testdata")
		for _, x := range found {
			kinds[x.Kind]++
			if testdata {
				inside++
			} else {
				outside++
			}
			t.Logf("%s:%d: %s: %s (%d bytes: %.12q…)", f.path, x.Line, x.Kind, x.Reason, x.End-x.Start, f.data[x.Start:min(x.End, x.Start+12)])
			if !testdata && !strings.HasSuffix(f.path, "_test.go") && !strings.HasSuffix(f.path, ".pem") {
				t.Errorf("%s:%d: %s in code that is not a test", f.path, x.Line, x.Kind)
			}
		}
	}
	t.Logf("%d findings outside testdata, %d inside; by kind: %v", outside, inside, kinds)
	if outside > maxGorootFindings {
		t.Errorf("%d findings outside testdata directories, want at most %d", outside, maxGorootFindings)
	}
}

// maxGorootFindings is how many findings outside testdata TestScanGoroot
// accepts: Go 1.26 has 10, and later versions may add test keys.
const maxGorootFindings = 20

// BenchmarkScanGoSource measures Scan over the Go tree, the kind of content
// ctx ingests most.
func BenchmarkScanGoSource(b *testing.B) {
	files, size := readGoroot(b)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			Scan(f.data)
		}
	}
}

// BenchmarkScanDense measures Scan over content that is all secrets and
// near misses, where every trigger leads to a closer look.
func BenchmarkScanDense(b *testing.B) {
	var content []byte
	for i, tc := range positives() {
		c, _ := fill(tc.text, tc.secret)
		content = append(content, c...)
		content = append(content, negatives[i%len(negatives)].text...)
		content = append(content, '\n')
	}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		Scan(content)
	}
}

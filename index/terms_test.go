package index

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ctx-dev/ctx/index/table"
)

// termInverters inverts n random documents into two inverters of half
// of them each, as writeTokens does on two cores.
func termInverters(seed uint64, n int) []*inverter {
	rng := rand.New(rand.NewPCG(seed, 5))
	vocab := make([]string, 200+rng.IntN(2000))
	for i := range vocab {
		vocab[i] = string(randomTerm(rng))
	}
	invs := []*inverter{newInverter(), newInverter()}
	for d := range n {
		inv := invs[2*d/n]
		var pos uint32
		for range rng.IntN(80) {
			// Some terms in most documents: lists with skip tables.
			term := vocab[min(rng.IntN(len(vocab)), rng.IntN(len(vocab)), rng.IntN(len(vocab)))]
			inv.add([]byte(term), pos)
			pos += uint32(rng.IntN(3))
		}
		inv.endDoc(uint32(d))
	}
	return invs
}

// serialTerms writes the terms table of invs in one goroutine, as
// writeTerms did before it merged ranges side by side: the reference.
func serialTerms(t *testing.T, invs []*inverter) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := writeTermsSerial(&buf, invs); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeTermsSerial writes the terms table of invs to w, merging and
// writing in turn.
func writeTermsSerial(w io.Writer, invs []*inverter) error {
	tw := table.NewWriter(w, "terms")
	var sk skipper
	err := mergePostings(context.Background(), invs, func(name, val []byte) error {
		v, err := sk.add(val)
		if err != nil {
			return err
		}
		return tw.Add(name, v)
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

// TestWriteTermsCores checks that writeTerms writes the same bytes as the
// serial reference whatever the number of cores: ranges of a term or
// two, more ranges than the window of buffers, and one range.
func TestWriteTermsCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for seed := range uint64(6) {
		invs := termInverters(seed, 1+int(seed)*150)
		want := serialTerms(t, invs)
		for _, procs := range []int{1, 2, 3, 8, 64} {
			runtime.GOMAXPROCS(procs)
			dir := t.TempDir()
			var n int
			if err := writeTerms(context.Background(), dir, invs, &n); err != nil {
				t.Fatalf("seed %d, %d cores: %v", seed, procs, err)
			}
			got, err := os.ReadFile(filepath.Join(dir, termsFile))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("seed %d, %d cores: terms table differs from the serial one (%d bytes, want %d)", seed, procs, len(got), len(want))
			}
			if terms := invs[0].len() + invs[1].len(); n > terms || n < max(invs[0].len(), invs[1].len()) {
				t.Fatalf("seed %d, %d cores: %d terms counted, inverters have %d and %d", seed, procs, n, invs[0].len(), invs[1].len())
			}
		}
	}
}

// TestWriteTermsCancelled checks that writeTerms returns the context's
// error, and does not hang, when cancelled before or while it merges.
func TestWriteTermsCancelled(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	invs := termInverters(9, 600)
	for _, procs := range []int{1, 2, 8} {
		runtime.GOMAXPROCS(procs)
		for i := range 20 {
			ctx, cancel := context.WithCancel(context.Background())
			if i == 0 {
				cancel()
			} else {
				// Cancel at some point of the merging.
				go func() {
					for range i * 10 {
						runtime.Gosched()
					}
					cancel()
				}()
			}
			var n int
			err := writeTerms(ctx, t.TempDir(), invs, &n)
			cancel()
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Fatalf("%d cores, try %d: %v, want the context's error", procs, i, err)
			}
			if i == 0 && err == nil {
				t.Fatalf("%d cores: cancelled before, writeTerms returned nil", procs)
			}
		}
	}
}

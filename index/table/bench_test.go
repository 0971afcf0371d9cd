package table

import (
	"encoding/binary"
	"encoding/hex"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// benchRecords are 1M records shaped like an index's: 16-hex-digit keys
// (random, so they share about 5 leading bytes with their neighbours) and
// 50-byte values, 66 MB in all.
var benchRecords = sync.OnceValue(func() (keys [][]byte) {
	rng := rand.New(rand.NewPCG(1, 2))
	ids := make([]uint64, 1_000_000)
	for i := range ids {
		ids[i] = rng.Uint64()
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	keys = make([][]byte, len(ids))
	for i, id := range ids {
		keys[i] = hex.AppendEncode(nil, binary.BigEndian.AppendUint64(nil, id))
	}
	return keys
})

var benchValue = []byte("01234567890123456789012345678901234567890123456789")

// benchConfigs are the groupings compared: a dense index (every key whole,
// every record in the index), sparse ones, with and without a summary
// (a summary interval of MaxInt32 makes a summary of one entry: none).
var benchConfigs = []struct {
	name string
	opts WriterOptions
}{
	{"dense", WriterOptions{RestartInterval: 1, SummaryInterval: math.MaxInt32}},
	{"r16-nosummary", WriterOptions{RestartInterval: 16, SummaryInterval: math.MaxInt32}},
	{"r4-s256", WriterOptions{RestartInterval: 4, SummaryInterval: 256}},
	{"default", WriterOptions{}}, // r16-s64
}

func writeBench(tb testing.TB, w io.Writer, opts WriterOptions) int64 {
	opts.Kind = "bench"
	tw, err := NewWriterOptions(w, opts)
	if err != nil {
		tb.Fatal(err)
	}
	for _, k := range benchRecords() {
		if err := tw.Add(k, benchValue); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		tb.Fatal(err)
	}
	return tw.Size()
}

// BenchmarkWrite writes the 1M records; one op is the whole table.
func BenchmarkWrite(b *testing.B) {
	keys := benchRecords()
	var raw int64
	for _, k := range keys {
		raw += int64(len(k) + len(benchValue))
	}
	for _, c := range benchConfigs {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(raw)
			var size int64
			for b.Loop() {
				size = writeBench(b, io.Discard, c.opts)
			}
			b.ReportMetric(float64(size)/float64(len(keys)), "B/key")
			b.ReportMetric(float64(size-raw)/float64(len(keys)), "overhead-B/key")
		})
	}
}

var benchFiles sync.Map // config name → path

// benchFile returns the path of the 1M-record table written with the given
// options, writing it once per process.
func benchFile(b *testing.B, name string, opts WriterOptions) string {
	if p, ok := benchFiles.Load(name); ok {
		return p.(string)
	}
	dir, err := os.MkdirTemp("", "ctx-table-bench")
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "bench.table")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	writeBench(b, f, opts)
	if err := f.Sync(); err != nil { // dirty pages cannot be evicted
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	benchFiles.Store(name, path)
	return path
}

func TestMain(m *testing.M) {
	code := m.Run()
	benchFiles.Range(func(_, p any) bool {
		os.RemoveAll(filepath.Dir(p.(string)))
		return true
	})
	os.Exit(code)
}

// BenchmarkGetCold opens the table, looks up one key and closes it, as a
// new process answering one query does: every op maps the file afresh, so
// every page it reads is a page fault (minflt/op), though the file stays in
// the page cache.
func BenchmarkGetCold(b *testing.B) {
	keys := benchRecords()
	for _, c := range benchConfigs {
		b.Run(c.name, func(b *testing.B) {
			path := benchFile(b, c.name, c.opts)
			rng := rand.New(rand.NewPCG(3, 4))
			faults := minorFaults()
			for b.Loop() {
				t, err := Open(path)
				if err != nil {
					b.Fatal(err)
				}
				if _, ok := t.Get(keys[rng.IntN(len(keys))]); !ok {
					b.Fatal("key not found")
				}
				t.Close()
			}
			if faults >= 0 {
				b.ReportMetric(float64(minorFaults()-faults)/float64(b.N), "minflt/op")
			}
		})
	}
}

// BenchmarkGetEvicted is BenchmarkGetCold with the file dropped from the
// page cache before every op (where the platform can), so every page read
// comes from the disk: the first query after a reboot.
func BenchmarkGetEvicted(b *testing.B) {
	keys := benchRecords()
	for _, c := range benchConfigs {
		b.Run(c.name, func(b *testing.B) {
			path := benchFile(b, c.name, c.opts)
			if !evict(path) {
				b.Skip("cannot drop a file from the page cache here")
			}
			rng := rand.New(rand.NewPCG(3, 4))
			for b.Loop() {
				b.StopTimer()
				evict(path)
				b.StartTimer()
				t, err := Open(path)
				if err != nil {
					b.Fatal(err)
				}
				if _, ok := t.Get(keys[rng.IntN(len(keys))]); !ok {
					b.Fatal("key not found")
				}
				t.Close()
			}
		})
	}
}

// BenchmarkGetWarm looks up random keys in an open table.
func BenchmarkGetWarm(b *testing.B) {
	keys := benchRecords()
	for _, c := range benchConfigs {
		b.Run(c.name, func(b *testing.B) {
			t, err := Open(benchFile(b, c.name, c.opts))
			if err != nil {
				b.Fatal(err)
			}
			defer t.Close()
			rng := rand.New(rand.NewPCG(3, 4))
			for b.Loop() {
				if _, ok := t.Get(keys[rng.IntN(len(keys))]); !ok {
					b.Fatal("key not found")
				}
			}
		})
	}
}

// BenchmarkIter walks every record of an open table; one op is one record.
func BenchmarkIter(b *testing.B) {
	t, err := Open(benchFile(b, "default", WriterOptions{}))
	if err != nil {
		b.Fatal(err)
	}
	defer t.Close()
	it := t.All()
	for b.Loop() {
		if !it.Next() {
			it = t.All()
		}
	}
}

// BenchmarkDeltaIter decodes a postings list of 10k ids; one op is one id.
func BenchmarkDeltaIter(b *testing.B) {
	ids := make([]uint32, 10_000)
	for i := range ids {
		ids[i] = uint32(i * 37)
	}
	enc := AppendUvarintDeltas(nil, ids)
	b.SetBytes(int64(len(enc)) / int64(len(ids)))
	it := NewDeltaIter(enc)
	for b.Loop() {
		if !it.Next() {
			it.Reset(enc)
		}
	}
}

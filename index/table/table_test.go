package table

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kv is one record of a test table.
type kv struct{ k, v string }

// build writes the records to a table file of kind "test" and returns its
// bytes.
func build(tb testing.TB, opts WriterOptions, kvs []kv) []byte {
	tb.Helper()
	if opts.Kind == "" {
		opts.Kind = "test"
	}
	var buf bytes.Buffer
	w, err := NewWriterOptions(&buf, opts)
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range kvs {
		if err := w.Add([]byte(r.k), []byte(r.v)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	if w.Size() != int64(buf.Len()) {
		tb.Fatalf("Size = %d, wrote %d bytes", w.Size(), buf.Len())
	}
	return buf.Bytes()
}

// openBytes writes b to a file and opens it; the table is closed at the
// end of the test.
func openBytes(tb testing.TB, b []byte) (*Table, error) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "t.table")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		tb.Fatal(err)
	}
	t, err := Open(path)
	if err == nil {
		tb.Cleanup(func() { t.Close() })
	}
	return t, err
}

func mustOpen(tb testing.TB, b []byte) *Table {
	tb.Helper()
	t, err := openBytes(tb, b)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// collect returns the records of an iterator.
func collect(tb testing.TB, it *Iter) []kv {
	tb.Helper()
	var out []kv
	for it.Next() {
		out = append(out, kv{string(it.Key()), string(it.Value())})
	}
	if err := it.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

func TestTable(t *testing.T) {
	long := strings.Repeat("k", 100_000)
	tests := []struct {
		name   string
		kvs    []kv
		absent []string
	}{
		{"empty", nil, []string{"", "a", "\x00"}},
		{"one", []kv{{"a", "1"}}, []string{"", "0", "b", "aa"}},
		{"empty key", []kv{{"", "e"}, {"a", "1"}}, []string{"\x00", "b"}},
		{"empty values", []kv{{"a", ""}, {"b", ""}}, []string{"c"}},
		{"prefixes", []kv{{"a", "1"}, {"ab", "2"}, {"abc", "3"}, {"abd", "4"}, {"b", "5"}},
			[]string{"aa", "abb", "abcd", "ab\x00", "ac", "c"}},
		{"binary", []kv{{"\x00", "z"}, {"\x00\x00", "zz"}, {"\x00\xff", "x"}, {"\xff", "\x00"}, {"\xff\xff\xff", "y"}},
			[]string{"", "\x00\x01", "\xfe", "\xff\xff"}},
		{"long", []kv{{long, strings.Repeat("v", 1<<20)}, {long + "a", "short"}, {"m", long}},
			[]string{long[:99_999], long + "\x00", "l"}},
		{"many", manyKVs(5000, 10), []string{"key", "key00000000x", "zzz"}},
	}
	for _, tt := range tests {
		for _, opts := range []WriterOptions{{}, {RestartInterval: 1}, {RestartInterval: 3, BlockSize: 64, SummaryInterval: 2}} {
			t.Run(fmt.Sprintf("%s/r%d-s%d", tt.name, opts.RestartInterval, opts.SummaryInterval), func(t *testing.T) {
				tab := mustOpen(t, build(t, opts, tt.kvs))
				if tab.Len() != len(tt.kvs) || tab.Kind() != "test" {
					t.Fatalf("Len, Kind = %d, %q; want %d, test", tab.Len(), tab.Kind(), len(tt.kvs))
				}
				if err := tab.Verify(); err != nil {
					t.Fatal(err)
				}
				for _, r := range tt.kvs {
					v, ok := tab.Get([]byte(r.k))
					if !ok || string(v) != r.v {
						t.Fatalf("Get(%.20q) = %.20q, %v", r.k, v, ok)
					}
					if cap(v) != len(v) {
						t.Fatalf("Get(%.20q): cap %d > len %d: an append would write into the mapping", r.k, cap(v), len(v))
					}
				}
				for _, k := range tt.absent {
					if v, ok := tab.Get([]byte(k)); ok {
						t.Fatalf("Get(%.20q) = %.20q, want absent", k, v)
					}
				}
				if got := collect(t, tab.All()); !equalKVs(got, tt.kvs) {
					t.Fatalf("All: %d records, want %d", len(got), len(tt.kvs))
				}
				if err := tab.Err(); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func manyKVs(n, vlen int) []kv {
	kvs := make([]kv, n)
	for i := range kvs {
		kvs[i] = kv{fmt.Sprintf("key%08d", i*7), strings.Repeat(string(rune('a'+i%26)), i%vlen)}
	}
	return kvs
}

func equalKVs(a, b []kv) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSeekPrefix(t *testing.T) {
	kvs := []kv{{"a", "1"}, {"ab", "2"}, {"abc", "3"}, {"abd", "4"}, {"b", "5"}, {"b\x00", "6"}, {"ba", "7"}}
	for _, opts := range []WriterOptions{{}, {RestartInterval: 1}, {RestartInterval: 2}, {RestartInterval: 1, SummaryInterval: 2}} {
		tab := mustOpen(t, build(t, opts, kvs))
		seeks := []struct {
			key  string
			want int // index of the first record returned
		}{{"", 0}, {"a", 0}, {"aa", 1}, {"ab", 1}, {"abca", 3}, {"abz", 4}, {"b", 4}, {"b\x00\x00", 6}, {"c", 7}}
		for _, s := range seeks {
			if got := collect(t, tab.Seek([]byte(s.key))); !equalKVs(got, kvs[s.want:]) {
				t.Errorf("r%d: Seek(%q) = %v, want %v", opts.RestartInterval, s.key, got, kvs[s.want:])
			}
		}
		prefixes := []struct {
			p        string
			from, to int
		}{{"", 0, 7}, {"a", 0, 4}, {"ab", 1, 4}, {"abc", 2, 3}, {"abcd", 0, 0}, {"b", 4, 7}, {"b\x00", 5, 6}, {"c", 0, 0}}
		for _, p := range prefixes {
			got := collect(t, tab.Prefix([]byte(p.p)))
			if !equalKVs(got, kvs[p.from:p.to]) {
				t.Errorf("r%d: Prefix(%q) = %v, want %v", opts.RestartInterval, p.p, got, kvs[p.from:p.to])
			}
		}
	}
}

func TestAddOrder(t *testing.T) {
	tests := []struct {
		name       string
		keys       []string
		bad        string // the key Add rejects
		wantInMsgs []string
	}{
		{"equal", []string{"a", "b"}, "b", []string{`"b" is not after "b"`}},
		{"smaller", []string{"a", "c"}, "b", []string{`"b" is not after "c"`}},
		{"prefix", []string{"ab"}, "a", []string{`"a" is not after "ab"`}},
		{"empty after", []string{""}, "", []string{`"" is not after ""`}},
		{"binary", []string{"\xff"}, "\x00", []string{`"\x00" is not after "\xff"`}},
		{"long", []string{strings.Repeat("z", 200)}, "y", []string{`(200 bytes)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf, "test")
			for _, k := range tt.keys {
				if err := w.Add([]byte(k), nil); err != nil {
					t.Fatal(err)
				}
			}
			err := w.Add([]byte(tt.bad), []byte("x"))
			if !errors.Is(err, ErrOrder) {
				t.Fatalf("Add(%q) = %v, want ErrOrder", tt.bad, err)
			}
			for _, s := range tt.wantInMsgs {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
			// The rejected record was not written: the writer goes on.
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			tab := mustOpen(t, buf.Bytes())
			if tab.Len() != len(tt.keys) {
				t.Fatalf("Len = %d, want %d", tab.Len(), len(tt.keys))
			}
			if err := tab.Verify(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestWriterArguments(t *testing.T) {
	for _, kind := range []string{"", "Lookup", "a b", "x/y", strings.Repeat("k", 65), "é"} {
		w := NewWriter(io.Discard, kind)
		if err := w.Add([]byte("a"), nil); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("kind %q: Add = %v, want ErrInvalidArgument", kind, err)
		}
		if err := w.Close(); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("kind %q: Close = %v, want ErrInvalidArgument", kind, err)
		}
	}
	for _, kind := range []string{"lookup", "terms", "a", "adj.fwd-2_x", strings.Repeat("k", 64)} {
		if err := (WriterOptions{Kind: kind}).Validate(); err != nil {
			t.Errorf("kind %q: %v", kind, err)
		}
	}
	if _, err := NewWriterOptions(io.Discard, WriterOptions{Kind: "x", RestartInterval: -1}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("negative interval: %v", err)
	}
	if _, err := NewWriterOptions(io.Discard, WriterOptions{Kind: "x", BufferSize: -1}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("negative buffer size: %v", err)
	}
	w := NewWriter(io.Discard, "x")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Add([]byte("a"), nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Add after Close = %v, want ErrClosed", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

// failWriter fails once n bytes have been written.
type failWriter struct{ n int }

var errDisk = errors.New("disk full")

func (f *failWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		n := f.n
		f.n = 0
		return n, errDisk
	}
	f.n -= len(p)
	return len(p), nil
}

func TestWriterFailure(t *testing.T) {
	kvs := manyKVs(20000, 40)
	full := build(t, WriterOptions{}, kvs)
	for _, n := range []int{0, 5, 100, 65536, len(full) / 2, len(full) - 45, len(full) - 1} {
		w := NewWriter(&failWriter{n: n}, "test")
		var err error
		for _, r := range kvs {
			if err = w.Add([]byte(r.k), []byte(r.v)); err != nil {
				break
			}
		}
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if !errors.Is(err, errDisk) {
			t.Errorf("failing after %d bytes: %v, want %v", n, err, errDisk)
		}
		if cerr := w.Close(); !errors.Is(cerr, errDisk) {
			t.Errorf("second Close after failure = %v", cerr)
		}
	}
}

func TestDeterministic(t *testing.T) {
	kvs := manyKVs(3000, 30)
	a, b := build(t, WriterOptions{}, kvs), build(t, WriterOptions{}, kvs)
	if !bytes.Equal(a, b) {
		t.Fatal("two writes of the same records differ")
	}
	// The buffer size changes only how the bytes are written.
	for _, size := range []int{1, 16, 1000, 1 << 20} {
		if c := build(t, WriterOptions{BufferSize: size}, kvs); !bytes.Equal(a, c) {
			t.Fatalf("a %d-byte buffer writes other bytes", size)
		}
	}
}

func TestClose(t *testing.T) {
	tab := mustOpen(t, build(t, WriterOptions{}, manyKVs(100, 5)))
	if err := tab.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tab.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
	if _, ok := tab.Get([]byte("key00000000")); ok || tab.Len() != 0 || tab.All().Next() || tab.Seek(nil).Next() {
		t.Fatal("a closed table is not empty")
	}
	if err := tab.Verify(); err != nil {
		t.Fatal(err)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Open(dir); !errors.Is(err, ErrCorrupt) {
		t.Errorf("directory: %v", err)
	}
	good := build(t, WriterOptions{}, manyKVs(10, 3))
	future := bytes.Clone(good)
	future[4] = 2
	reseal(future)
	if _, err := openBytes(t, future); !errors.Is(err, ErrVersion) {
		t.Errorf("version 2: %v", err)
	}
	var pe *os.PathError
	if _, err := openBytes(t, good[:10]); !errors.As(err, &pe) || !errors.Is(err, ErrCorrupt) {
		t.Errorf("short file: %v, want a *PathError wrapping ErrCorrupt", err)
	}
}

// TestGetAllocs checks that lookups allocate nothing.
func TestGetAllocs(t *testing.T) {
	kvs := manyKVs(1000, 8)
	tab := mustOpen(t, build(t, WriterOptions{}, kvs))
	keys := [][]byte{[]byte(kvs[0].k), []byte(kvs[500].k), []byte(kvs[503].k), []byte("absent"), []byte("key00000001")}
	if n := testing.AllocsPerRun(100, func() {
		for _, k := range keys {
			tab.Get(k)
		}
	}); n != 0 {
		t.Fatalf("Get allocates %v times", n)
	}
}

// TestConcurrent reads one table from several goroutines (run with -race).
func TestConcurrent(t *testing.T) {
	kvs := manyKVs(3000, 20)
	tab := mustOpen(t, build(t, WriterOptions{}, kvs))
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func() {
			for i := g; i < len(kvs); i += 4 {
				if v, ok := tab.Get([]byte(kvs[i].k)); !ok || string(v) != kvs[i].v {
					done <- fmt.Errorf("Get(%q) = %q, %v", kvs[i].k, v, ok)
					return
				}
				if it := tab.Seek([]byte(kvs[i].k)); !it.Next() || string(it.Key()) != kvs[i].k {
					done <- fmt.Errorf("Seek(%q) misses it", kvs[i].k)
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

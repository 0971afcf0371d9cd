package object

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
)

// largeBlob returns a payload just over the size up to which Open verifies
// in memory, made of incompressible 64 KiB runs so that zstd cannot shrink
// it to nothing but works fast.
var largeBlob = sync.OnceValue(func() []byte {
	const n = smallStream + 1<<20 + 7
	run := testPayload(11, 64<<10)
	b := make([]byte, 0, n)
	for i := 0; len(b) < n; i++ {
		b = append(b, run...)
		b = append(b, byte(i), byte(i>>8)) // break up exact repeats
	}
	return b[:n]
})

func readAllOpen(t *testing.T, s *Store, id ID) (Kind, []byte, error) {
	t.Helper()
	r, err := s.Open(id)
	if err != nil {
		return KindInvalid, nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err == nil && uint64(len(data)) != r.Size() {
		t.Errorf("read %d bytes, Size() = %d", len(data), r.Size())
	}
	return r.Kind(), data, err
}

// checkNoTemp checks that the store holds no temporary or stray files.
func checkNoTemp(t *testing.T, s *Store) {
	t.Helper()
	err := filepath.WalkDir(s.Dir(), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, ".tmp") {
			t.Errorf("temporary file left: %s", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, strays := listStore(t, s); len(strays) != 0 {
		t.Errorf("strays: %v", strays)
	}
}

func TestPutReaderOpen(t *testing.T) {
	tests := []struct {
		name string
		kind Kind
		data []byte
	}{
		{"Empty", KindBlob, nil},
		{"Small", KindBlob, []byte("hello\n")},
		{"Typed", KindTyped, mustEncode(t, &Tree{})},
		{"Large", KindBlob, largeBlob()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestStore(t)
			// OneByteReader makes the copy loop see many short reads.
			var r io.Reader = bytes.NewReader(tt.data)
			if len(tt.data) < 1<<10 {
				r = iotest.OneByteReader(r)
			}
			id, err := s.PutReader(tt.kind, r, int64(len(tt.data)))
			if err != nil {
				t.Fatalf("PutReader: %v", err)
			}
			if want := Sum(tt.kind, tt.data); id != want {
				t.Fatalf("PutReader ID %s, want %s", id, want)
			}
			kind, got, err := readAllOpen(t, s, id)
			if err != nil || kind != tt.kind || !bytes.Equal(got, tt.data) {
				t.Fatalf("Open: %v, %d bytes, %v; want %v, %d bytes", kind, len(got), err, tt.kind, len(tt.data))
			}
			kind, got, err = s.Get(id)
			if err != nil || kind != tt.kind || !bytes.Equal(got, tt.data) {
				t.Fatalf("Get: %v, %d bytes, %v", kind, len(got), err)
			}
			info, _, err := s.Verify(id)
			if err != nil || info.Size != uint64(len(tt.data)) || info.Kind != tt.kind {
				t.Fatalf("Verify = %+v, %v", info, err)
			}
			// Put and PutReader store the same file name; a second write
			// of either kind is a no-op.
			if id2, err := s.PutReader(tt.kind, bytes.NewReader(tt.data), int64(len(tt.data))); err != nil || id2 != id {
				t.Errorf("second PutReader = %s, %v", id2, err)
			}
			if id2, err := s.Put(tt.kind, tt.data); err != nil || id2 != id {
				t.Errorf("Put after PutReader = %s, %v", id2, err)
			}
			checkNoTemp(t, s)
			if ids, _ := listStore(t, s); len(ids) != 1 || ids[0] != id {
				t.Errorf("List = %v, want [%s]", ids, id)
			}
		})
	}
}

// TestPutThenOpenLarge reads with Open a large object written by Put,
// whose file was compressed in one piece.
func TestPutThenOpenLarge(t *testing.T) {
	s := newTestStore(t)
	data := largeBlob()
	id := mustPut(t, s, KindBlob, data)
	kind, got, err := readAllOpen(t, s, id)
	if err != nil || kind != KindBlob || !bytes.Equal(got, data) {
		t.Fatalf("Open = %v, %d bytes, %v", kind, len(got), err)
	}
}

func TestPutReaderWrongSize(t *testing.T) {
	data := []byte("exactly twenty bytes")
	big := largeBlob()
	tests := []struct {
		name string
		r    io.Reader
		size int64
	}{
		{"Shorter", bytes.NewReader(data), int64(len(data)) + 1},
		{"Longer", bytes.NewReader(data), int64(len(data)) - 1},
		{"EmptyButDeclared", bytes.NewReader(nil), 1},
		{"NonEmptyButZero", bytes.NewReader(data), 0},
		{"LargeShorter", bytes.NewReader(big[:len(big)-1]), int64(len(big))},
		{"LargeLonger", bytes.NewReader(big), int64(len(big)) - 1},
		{"ReadError", io.MultiReader(bytes.NewReader(data[:10]), iotest.ErrReader(errors.New("disk on fire"))), int64(len(data))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestStore(t)
			id, err := s.PutReader(KindBlob, tt.r, tt.size)
			if err == nil || id != Zero {
				t.Fatalf("PutReader = %s, %v; want an error", id, err)
			}
			checkNoTemp(t, s)
			if ids, _ := listStore(t, s); len(ids) != 0 {
				t.Errorf("PutReader left objects %v", ids)
			}
		})
	}
}

func TestPutReaderInvalidArgument(t *testing.T) {
	s := newTestStore(t)
	for _, c := range []struct {
		kind Kind
		size int64
	}{{KindInvalid, 0}, {3, 1}, {KindBlob, -1}} {
		if id, err := s.PutReader(c.kind, strings.NewReader("x"), c.size); !errors.Is(err, ErrInvalidArgument) || id != Zero {
			t.Errorf("PutReader(kind %d, size %d) = %s, %v; want ErrInvalidArgument", c.kind, c.size, id, err)
		}
	}
	checkNoTemp(t, s)
}

func TestOpenMissing(t *testing.T) {
	s := newTestStore(t)
	if r, err := s.Open(testID("missing")); !errors.Is(err, ErrNotFound) || r != nil {
		t.Errorf("Open(missing) = %v, %v; want ErrNotFound", r, err)
	}
}

// TestOpenLargeCorrupt damages a large object's file in ways that Open's
// first pass must catch.
func TestOpenLargeCorrupt(t *testing.T) {
	data := largeBlob()
	other := testPayload(12, len(data))
	tests := []struct {
		name   string
		damage func(t *testing.T, stored []byte) []byte
	}{
		{"FlipMiddle", func(_ *testing.T, b []byte) []byte { b[len(b)/2] ^= 0x10; return b }},
		{"FlipNearEnd", func(_ *testing.T, b []byte) []byte { b[len(b)-100] ^= 0x10; return b }},
		{"Truncate", func(_ *testing.T, b []byte) []byte { return b[:len(b)-1000] }},
		{"TruncateToHeaderOnly", func(_ *testing.T, b []byte) []byte { return b[:100] }},
		// Another object of the same size and kind: the header reads fine,
		// only the hash tells.
		{"OtherContent", func(t *testing.T, _ []byte) []byte { return zstdCompress(t, Canonical(KindBlob, other)) }},
		// Same content, declared one byte longer than it is.
		{"LengthLies", func(t *testing.T, _ []byte) []byte {
			c := Canonical(KindBlob, data)
			copy(c, AppendHeader(nil, KindBlob, uint64(len(data)+1)))
			return zstdCompress(t, c)
		}},
	}
	s := newTestStore(t)
	id, err := s.PutReader(KindBlob, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	orig := readObjectFile(t, s, id)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writeObjectFile(t, s, id, tt.damage(t, bytes.Clone(orig)))
			if r, err := s.Open(id); !errors.Is(err, ErrHashMismatch) {
				if r != nil {
					r.Close()
				}
				t.Errorf("Open = %v, %v; want ErrHashMismatch", r, err)
			}
			if _, _, err := s.Verify(id); !errors.Is(err, ErrHashMismatch) {
				t.Errorf("Verify = %v; want ErrHashMismatch", err)
			}
			if _, p, err := s.Get(id); !errors.Is(err, ErrHashMismatch) || p != nil {
				t.Errorf("Get = %d bytes, %v; want ErrHashMismatch", len(p), err)
			}
		})
	}
}

// TestOpenLargeChangedAfterOpen changes a large object's file in place
// after Open has verified it: the stream must not end cleanly. The object
// does not compress, so that its file is larger than what the reader can
// have buffered.
func TestOpenLargeChangedAfterOpen(t *testing.T) {
	s := newTestStore(t)
	data := testPayload(14, smallStream+1)
	id, err := s.PutReader(KindBlob, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p := s.path(id)
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(testPayload(15, 1<<20), 8<<20); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err == nil {
		t.Fatalf("reading an object changed after Open gave %d bytes and no error", len(got))
	}
	if !errors.Is(err, ErrHashMismatch) {
		t.Errorf("error = %v, want ErrHashMismatch", err)
	}
}

// TestReaderZeroLengthRead checks that a Read with an empty buffer is a
// no-op, as io.Reader asks, in both of Reader's modes.
func TestReaderZeroLengthRead(t *testing.T) {
	s := newTestStore(t)
	for _, data := range [][]byte{[]byte("small"), largeBlob()} {
		id, err := s.PutReader(KindBlob, bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Open(id)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := r.Read(nil); n != 0 || err != nil {
			t.Errorf("%d-byte object: Read(nil) = %d, %v; want 0, nil", len(data), n, err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%d-byte object: ReadAll after Read(nil) = %d bytes, %v", len(data), len(got), err)
		}
		if n, err := r.Read(make([]byte, 10)); n != 0 || err != io.EOF {
			t.Errorf("Read after the end = %d, %v; want 0, EOF", n, err)
		}
		r.Close()
		r.Close() // a second Close is harmless
	}
}

func TestPutFileHashFile(t *testing.T) {
	dir := t.TempDir()
	files := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"hello", []byte("hello\n")},
		{"small", testPayload(20, 100_000)},
		{"streamed", largeBlob()[:smallFile+1]}, // over smallFile: PutReader path
	}
	for _, f := range files {
		t.Run(f.name, func(t *testing.T) {
			path := filepath.Join(dir, f.name)
			if err := os.WriteFile(path, f.data, 0o644); err != nil {
				t.Fatal(err)
			}
			want := Sum(KindBlob, f.data)
			h, err := HashFile(path)
			if err != nil || h != want {
				t.Fatalf("HashFile = %s, %v; want %s", h, err, want)
			}
			for name, w := range map[string]StreamPutter{"Store": newTestStore(t), "MemStore": NewMemStore()} {
				id, err := PutFile(w, path)
				if err != nil || id != want {
					t.Fatalf("PutFile into %s = %s, %v; want %s", name, id, err, want)
				}
				kind, got, err := w.(Getter).Get(id)
				if err != nil || kind != KindBlob || !bytes.Equal(got, f.data) {
					t.Errorf("%s: Get after PutFile = %v, %d bytes, %v", name, kind, len(got), err)
				}
			}
		})
	}

	t.Run("Directory", func(t *testing.T) {
		s := newTestStore(t)
		if id, err := PutFile(s, dir); !errors.Is(err, ErrInvalidArgument) || id != Zero {
			t.Errorf("PutFile(directory) = %s, %v; want ErrInvalidArgument", id, err)
		}
		if id, err := HashFile(dir); !errors.Is(err, ErrInvalidArgument) || id != Zero {
			t.Errorf("HashFile(directory) = %s, %v; want ErrInvalidArgument", id, err)
		}
		checkNoTemp(t, s)
	})
	t.Run("Missing", func(t *testing.T) {
		missing := filepath.Join(dir, "missing")
		if _, err := PutFile(newTestStore(t), missing); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("PutFile(missing) error = %v, want fs.ErrNotExist", err)
		}
		if _, err := HashFile(missing); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("HashFile(missing) error = %v, want fs.ErrNotExist", err)
		}
	})
}

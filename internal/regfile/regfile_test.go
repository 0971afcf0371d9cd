package regfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		max  int64
		want string
		err  error
	}{
		{"regular", file, -1, "hello\n", nil},
		{"at the limit", file, 6, "hello\n", nil},
		{"over the limit", file, 5, "", ErrTooLarge},
		{"empty", empty, 0, "", nil},
		{"directory", dir, -1, "", ErrNotRegular},
		{"fifo does not block", fifo, -1, "", ErrNotRegular},
		{"missing", filepath.Join(dir, "nope"), -1, "", fs.ErrNotExist},
	}
	for _, impl := range impls {
		for _, tt := range tests {
			t.Run(impl.name+"/"+tt.name, func(t *testing.T) {
				got, err := impl.read(tt.path, tt.max)
				if tt.err != nil {
					if !errors.Is(err, tt.err) {
						t.Fatalf("Read = %q, %v; want %v", got, err, tt.err)
					}
					return
				}
				if err != nil || string(got) != tt.want {
					t.Fatalf("Read = %q, %v; want %q", got, err, tt.want)
				}
			})
		}
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", 100000)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, impl := range impls {
		if got, err := impl.read(big, -1); err != nil || len(got) != 100000 {
			t.Fatalf("%s: Read big = %d bytes, %v", impl.name, len(got), err)
		}
	}
}

// impls are Read's implementations: the one of this system and the one
// through *os.File.
var impls = []struct {
	name string
	read func(string, int64) ([]byte, error)
}{{"Read", Read}, {"readFile", readFile}}

// TestReadGrows reads files whose size says 0 but which hold more, as a
// file that grows while it is read: /proc's.
func TestReadGrows(t *testing.T) {
	const file = "/proc/self/status" // a few hundred bytes, st_size 0
	if st, err := os.Stat(file); err != nil || st.Size() != 0 {
		t.Skip("no /proc here")
	}
	for _, impl := range impls {
		got, err := impl.read(file, -1)
		if err != nil || !strings.Contains(string(got), "\nPid:") || !strings.HasSuffix(string(got), "\n") {
			t.Fatalf("%s: Read = %q, %v", impl.name, got, err)
		}
		if _, err := impl.read(file, 10); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%s: Read with a limit of 10 bytes: %v, want ErrTooLarge", impl.name, err)
		}
		if got2, err := impl.read(file, int64(len(got))+100); err != nil || len(got2) < 100 {
			t.Fatalf("%s: Read under the limit = %d bytes, %v", impl.name, len(got2), err)
		}
	}
}

// BenchmarkRead reads a 1 KiB file, as a narrative note or a ref, with
// each implementation.
func BenchmarkRead(b *testing.B) {
	file := filepath.Join(b.TempDir(), "f")
	if err := os.WriteFile(file, []byte(strings.Repeat("x", 1024)), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, impl := range impls {
		b.Run(impl.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := impl.read(file, 1<<20); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package regfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
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
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Read(tt.path, tt.max)
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
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", 100000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Read(big, -1); err != nil || len(got) != 100000 {
		t.Fatalf("Read big = %d bytes, %v", len(got), err)
	}
}

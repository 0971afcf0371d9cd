package mmap

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestMapFile(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	os.WriteFile(full, []byte("table bytes"), 0o644)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	data, unmap, err := MapFile(full)
	if err != nil || string(data) != "table bytes" {
		t.Fatalf("MapFile: %q, %v", data, err)
	}
	if err := unmap(); err != nil {
		t.Fatal(err)
	}
	if data, unmap, err := MapFile(empty); err != nil || len(data) != 0 || unmap() != nil {
		t.Fatalf("an empty file: %q, %v", data, err)
	}
	if _, _, err := MapFile(dir); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a directory: %v", err)
	}
	if _, _, err := MapFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

func TestMapFileFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := mkfifo(p); err != nil {
		t.Skip(err)
	}
	if _, _, err := MapFile(p); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a FIFO: %v", err)
	}
}

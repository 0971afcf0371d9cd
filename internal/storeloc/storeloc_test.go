package storeloc

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestLocate(t *testing.T) {
	project := t.TempDir()
	store := filepath.Join(project, DirName)
	os.MkdirAll(filepath.Join(store, "objects"), 0o755)
	os.WriteFile(filepath.Join(store, "HEAD"), []byte("ref: refs/main\n"), 0o644)
	sub := filepath.Join(project, "a", "b")
	os.MkdirAll(sub, 0o755)
	// HEAD a directory: not a store.
	odd := filepath.Join(t.TempDir(), DirName)
	os.MkdirAll(filepath.Join(odd, "objects"), 0o755)
	os.MkdirAll(filepath.Join(odd, "HEAD"), 0o755)
	for _, tc := range []struct {
		dir    string
		walkUp bool
		want   string // "" for ErrNotAStore
	}{
		{project, true, store},
		{project, false, store},
		{store, false, store},
		{sub, true, store},
		{sub, false, ""},
		{t.TempDir(), true, ""},
		{filepath.Dir(odd), false, ""},
	} {
		got, err := Locate(tc.dir, tc.walkUp)
		if tc.want == "" {
			if !errors.Is(err, ErrNotAStore) {
				t.Errorf("Locate(%s, %v) = %q, %v; want ErrNotAStore", tc.dir, tc.walkUp, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Locate(%s, %v) = %q, %v; want %q", tc.dir, tc.walkUp, got, err, tc.want)
		}
	}
}

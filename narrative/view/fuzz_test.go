package view

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzDecode checks that Decode never panics, that it fails only with a
// *FileError, and that a view it accepts is valid and survives a round
// trip through Encode. Seeded from testdata/views.
func FuzzDecode(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("testdata", "views", "*.toml"))
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seeds: %v", err)
	}
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode("fuzz", data)
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) || !errors.Is(err, ErrInvalidFile) {
				t.Fatalf("Decode: %T %v, want a *FileError", err, err)
			}
			return
		}
		if err := v.Validate(); err != nil {
			t.Fatalf("Decode accepted an invalid view %+v: %v", v, err)
		}
		again, err := Decode("fuzz", Encode(v))
		if err != nil {
			t.Fatalf("Decode(Encode(%+v)): %v\n%s", v, err, Encode(v))
		}
		if !reflect.DeepEqual(again, v) {
			t.Fatalf("round trip: %+v, want %+v", again, v)
		}
	})
}

package view

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// full is a view with every field set: testdata/views/full.toml is its
// file.
var full = View{
	Name:        "full",
	Query:       "(type:decision OR type:fact) tag:\"project:x\" created:>7d",
	Budget:      40000,
	Description: `Decisions and facts of project x — with "quotes" and \ backslashes`,
	Format:      JSON,
	Created:     time.Date(2026, 9, 20, 10, 0, 0, 0, time.UTC),
	Updated:     now,
}

// TestEncodeGolden checks the bytes Encode writes: they are the file
// format (docs/FORMAT.md §17).
func TestEncodeGolden(t *testing.T) {
	path := filepath.Join("testdata", "views", "full.toml")
	got := Encode(&full)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("Encode differs from %s (go test -update rewrites it):\n%s", path, got)
	}
}

func TestDecode(t *testing.T) {
	tests := []struct {
		file string
		want *View // nil: an error
		err  string
	}{
		{"full.toml", &full, ""},
		{"minimal.toml", &View{Name: "minimal", Query: "type:fact"}, ""},
		{"handwritten.toml", &View{Name: "handwritten", Query: "type:decision tag:project:netlib created:>7d", Budget: 8000,
			Description: "Recent decisions about the network library", Format: JSON, Updated: now}, ""},
		{"bad-unknown-key.toml", nil, "unknown key(s) bugdet"},
		{"bad-version.toml", nil, "version 2: this ctx reads version 1 only"},
		{"bad-no-version.toml", nil, "no version"},
		{"bad-no-query.toml", nil, "no query"},
		{"bad-query.toml", nil, `query "type:decision tag:": column 15: expected a value after "tag:"`},
		{"bad-budget.toml", nil, "budget 0: give a number of tokens from 1"},
		{"bad-budget-type.toml", nil, "budget"},
		{"bad-format.toml", nil, `format "html": want "markdown" or "json"`},
		{"bad-local-time.toml", nil, "created: give a date-time with an offset"},
		{"bad-description.toml", nil, "one line"},
		{"bad-table.toml", nil, "unknown key(s) extra"},
		{"bad-syntax.toml", nil, "toml:"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "views", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			v, err := Decode(strings.TrimSuffix(tt.file, Ext), data)
			if tt.want == nil {
				var fe *FileError
				if !errors.As(err, &fe) || !errors.Is(err, ErrInvalidFile) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Decode: %v, want a FileError with %q", err, tt.err)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("the message has several lines: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(v, tt.want) {
				t.Errorf("Decode =\n%+v\nwant\n%+v", v, tt.want)
			}
			// Round trip: what Encode writes decodes to the same view.
			again, err := Decode(v.Name, Encode(v))
			if err != nil || !reflect.DeepEqual(again, v) {
				t.Errorf("round trip: %+v, %v", again, err)
			}
		})
	}
}

func TestDecodeLimits(t *testing.T) {
	big := "version = 1\nquery = \"type:fact\"\n#" + strings.Repeat("x", maxFile) + "\n"
	if _, err := Decode("x", []byte(big)); !errors.Is(err, ErrInvalidFile) {
		t.Errorf("a file over the limit: %v", err)
	}
	if _, err := Decode("x", []byte("version = 1\nquery = \"type:fact\xff\"\n")); !errors.Is(err, ErrInvalidFile) {
		t.Errorf("a file that is not UTF-8: %v", err)
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain":          `"plain"`,
		`a"b\c`:          `"a\"b\\c"`,
		"tab\tnl\ncr\r":  `"tab\tnl\ncr\r"`,
		"nul\x00del\x7f": `"nul\u0000del\u007F"`,
		"é日本":            `"é日本"`,
	} {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
	}
}

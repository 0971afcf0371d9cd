package narrative

import (
	"errors"
	"strings"
	"testing"
)

func TestParseType(t *testing.T) {
	tests := []struct {
		in   string
		want Type // "" means an error
	}{
		{"fact", Fact},
		{"decision", Decision},
		{"pattern", Pattern},
		{"observation", Observation},
		{"hypothesis", Hypothesis},
		{"open-question", OpenQuestion},
		{"task", Task},
		{"summary", Summary},
		{"source", Source},
		{"note", Observation},
		{"question", OpenQuestion},
		{"open_question", OpenQuestion},
		{"openquestion", OpenQuestion},
		{"Decision", Decision},
		{"  TASK\t", Task},
		{"NOTE", Observation},
		{"", ""},
		{"facts", ""},
		{"decisions", ""}, // a directory, not a type
		{"idea", ""},
		{"open question", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseType(tt.in)
			if tt.want == "" {
				if !errors.Is(err, ErrInvalidType) {
					t.Fatalf("ParseType(%q) = %q, %v; want ErrInvalidType", tt.in, got, err)
				}
				// The message lists every valid type and the aliases.
				for _, typ := range Types {
					if !strings.Contains(err.Error(), string(typ)) {
						t.Errorf("error %q does not list %s", err, typ)
					}
				}
				for _, alias := range []string{"note", "question"} {
					if !strings.Contains(err.Error(), alias) {
						t.Errorf("error %q does not mention the alias %s", err, alias)
					}
				}
				if !strings.Contains(err.Error(), `"`+tt.in+`"`) {
					t.Errorf("error %q does not quote the input", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ParseType(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestTypeValidDirString(t *testing.T) {
	dirs := map[string]Type{}
	for _, typ := range Types {
		t.Run(string(typ), func(t *testing.T) {
			if !typ.Valid() {
				t.Errorf("%s is not Valid", typ)
			}
			if typ.String() != string(typ) {
				t.Errorf("String = %q", typ.String())
			}
			if back, err := ParseType(typ.String()); err != nil || back != typ {
				t.Errorf("ParseType(String) = %q, %v", back, err)
			}
			d := typ.Dir()
			if d == "nodes" || d == "" || strings.Contains(d, "/") {
				t.Errorf("Dir = %q", d)
			}
			if other, dup := dirs[d]; dup {
				t.Errorf("%s and %s share the directory %s", typ, other, d)
			}
			dirs[d] = typ
		})
	}
	for _, bad := range []Type{"", "note", "Fact", "facts"} {
		t.Run("invalid "+string(bad), func(t *testing.T) {
			if bad.Valid() {
				t.Errorf("%q is Valid", bad)
			}
			if d := bad.Dir(); d != "nodes" {
				t.Errorf("Dir = %q, want nodes", d)
			}
		})
	}
}

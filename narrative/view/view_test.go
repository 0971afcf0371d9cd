package view

import (
	"errors"
	"strings"
	"testing"
)

func TestParseName(t *testing.T) {
	tests := []struct {
		in, want string
		err      string // part of the error; "" for none
	}{
		{"default", "default", ""},
		{"Notes", "notes", ""},
		{"task-42_b", "task-42_b", ""},
		{"9", "9", ""},
		{strings.Repeat("a", 64), strings.Repeat("a", 64), ""},
		{"", "", "1-64 lowercase letters"},
		{strings.Repeat("a", 65), "", "1-64 lowercase letters"},
		{"-x", "", `starts with '-'`},
		{"_x", "", `starts with '_'`},
		{"a.b", "", `character '.' is not allowed`},
		{"a/b", "", `character '/' is not allowed`},
		{"a b", "", `character ' ' is not allowed`},
		{"..", "", `character '.' is not allowed`},
		{"café", "", `character 'é' is not allowed`},
		{"nul", "", "device name on Windows"},
		{"COM1", "", "device name on Windows"},
		{"com", "com", ""},
	}
	for _, tt := range tests {
		got, err := ParseName(tt.in)
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("ParseName(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		case tt.err != "" && (!errors.Is(err, ErrInvalidName) || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseName(%q) error %v; want ErrInvalidName with %q", tt.in, err, tt.err)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := View{Name: "x", Query: "type:fact"}
	tests := []struct {
		name string
		edit func(v *View)
		err  error
	}{
		{"valid", func(v *View) {}, nil},
		{"budget and description", func(v *View) { v.Budget, v.Description, v.Format = 40000, "Facts — all of them", JSON }, nil},
		{"bad name", func(v *View) { v.Name = "a/b" }, ErrInvalidName},
		{"empty query", func(v *View) { v.Query = "  " }, ErrInvalid},
		{"query that does not parse", func(v *View) { v.Query = "type:frob" }, ErrInvalid},
		{"negative budget", func(v *View) { v.Budget = -1 }, ErrInvalid},
		{"huge budget", func(v *View) { v.Budget = MaxBudget + 1 }, ErrInvalid},
		{"two-line description", func(v *View) { v.Description = "a\nb" }, ErrInvalid},
		{"long description", func(v *View) { v.Description = strings.Repeat("é", MaxDescriptionLen+1) }, ErrInvalid},
		{"bad format", func(v *View) { v.Format = 9 }, ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := ok
			tt.edit(&v)
			if err := v.Validate(); !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Errorf("Validate() = %v, want %v", err, tt.err)
			}
		})
	}
	if err := Default().Validate(); err != nil {
		t.Errorf("the default view: %v", err)
	}
}

func TestFormat(t *testing.T) {
	for in, want := range map[string]Format{"markdown": Markdown, "MD": Markdown, " json ": JSON} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseFormat("html"); !errors.Is(err, ErrInvalid) {
		t.Errorf("ParseFormat(html): %v", err)
	}
	if Format(0).String() != "" || Markdown.String() != "markdown" || JSON.String() != "json" {
		t.Errorf("String")
	}
	var f Format
	if err := f.UnmarshalText([]byte("json")); err != nil || f != JSON {
		t.Errorf("UnmarshalText: %v %v", f, err)
	}
	if _, err := Format(5).MarshalText(); err == nil {
		t.Errorf("MarshalText of an invalid format")
	}
}

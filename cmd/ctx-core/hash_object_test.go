package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestReadPaths(t *testing.T) {
	tests := []struct {
		name string
		in   string
		nul  bool
		want []string
	}{
		{"lines", "a\nb\n", false, []string{"a", "b"}},
		{"no final newline", "a\nb", false, []string{"a", "b"}},
		{"empty lines skipped", "\na\n\n\nb\n", false, []string{"a", "b"}},
		{"crlf", "a\r\nb\r\n", false, []string{"a", "b"}},
		{"nul", "a b\x00c\nd\x00", true, []string{"a b", "c\nd"}},
		{"empty", "", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readPaths(strings.NewReader(tt.in), tt.nul)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("readPaths(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

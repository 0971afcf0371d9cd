package narrative

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestNewID(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want ID
	}{
		{"zeros", make([]byte, IDLen), "0000000000"},
		{"alphabet order", []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, "0123456789"},
		{"letters", []byte{10, 17, 18, 19, 20, 21, 26, 27, 30, 31}, "ahjkmntvyz"},
		{"high bits are dropped", []byte{32, 33, 255, 224, 64, 65, 96, 128, 160, 192}, "01z0010000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NewID(bytes.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("NewID = %q, want %q", got, tt.want)
			}
			if _, err := ParseID(string(got)); err != nil {
				t.Errorf("ParseID(NewID) = %v", err)
			}
		})
	}

	t.Run("short reader", func(t *testing.T) {
		if _, err := NewID(bytes.NewReader(make([]byte, IDLen-1))); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("NewID(9 bytes) error = %v, want io.ErrUnexpectedEOF", err)
		}
	})
	t.Run("crypto/rand when nil", func(t *testing.T) {
		id, err := NewID(nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseID(string(id)); err != nil {
			t.Errorf("NewID(nil) = %q: %v", id, err)
		}
	})
	t.Run("every ID is valid", func(t *testing.T) {
		r := seededRand(7)
		for i := 0; i < 1000; i++ {
			id, err := NewID(r)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ParseID(string(id)); err != nil {
				t.Fatalf("NewID = %q: %v", id, err)
			}
		}
	})
}

func TestParseID(t *testing.T) {
	tests := []struct {
		in   string
		want ID // "" means an error
	}{
		{"9x2k4m7qab", "9x2k4m7qab"},
		{"0123456789", "0123456789"},
		{"abcdefghjk", "abcdefghjk"},
		{"mnpqrstvwx", "mnpqrstvwx"},
		{"yz00000000", "yz00000000"},
		{"9X2K4M7QAB", "9x2k4m7qab"}, // case folding
		{"9x2K4m7QaB", "9x2k4m7qab"},
		{"", ""},
		{"9x2k4m7qa", ""},   // too short
		{"9x2k4m7qabc", ""}, // too long
		{"9x2k4m7qai", ""},  // i is not in the alphabet
		{"9x2k4m7qal", ""},  // l
		{"9x2k4m7qao", ""},  // o
		{"9x2k4m7qau", ""},  // u
		{"9x2k4m7qaI", ""},  // I folds to i
		{"9x2k4m7qa ", ""},
		{" 9x2k4m7qa", ""},
		{"9x2k4m7qa-", ""},
		{"9x2k4m7q\u00e9", ""}, // 10 bytes, not 10 characters of the alphabet
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseID(tt.in)
			if tt.want == "" {
				if !errors.Is(err, ErrInvalidID) {
					t.Errorf("ParseID(%q) = %q, %v; want ErrInvalidID", tt.in, got, err)
				}
				if got != "" {
					t.Errorf("ParseID(%q) returned %q with its error", tt.in, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ParseID(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestIDAlphabet(t *testing.T) {
	if len(idAlphabet) != 32 {
		t.Fatalf("the alphabet has %d characters, want 32", len(idAlphabet))
	}
	for _, c := range "ilou" {
		if strings.ContainsRune(idAlphabet, c) {
			t.Errorf("the alphabet has %q", c)
		}
	}
	seen := map[rune]bool{}
	for _, c := range idAlphabet {
		if seen[c] {
			t.Errorf("the alphabet repeats %q", c)
		}
		seen[c] = true
	}
}

func TestIDShortString(t *testing.T) {
	tests := []struct {
		id          ID
		short, text string
	}{
		{"9x2k4m7qab", "9x2k4m", "9x2k4m7qab"},
		{"9x2", "9x2", "9x2"},
		{"", "", ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.id), func(t *testing.T) {
			if got := tt.id.Short(); got != tt.short {
				t.Errorf("Short = %q, want %q", got, tt.short)
			}
			if got := tt.id.String(); got != tt.text {
				t.Errorf("String = %q, want %q", got, tt.text)
			}
		})
	}
}

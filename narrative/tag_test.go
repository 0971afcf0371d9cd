package narrative

import (
	"errors"
	"strings"
	"testing"
)

func TestParseTag(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // the normalized tag; "" means an error
		msg  string // for an error: part of the message
	}{
		{"namespaced", "project:netlib", "project:netlib", ""},
		{"bare word", "rust", "rust", ""},
		{"three parts", "task:auth:login", "task:auth:login", ""},
		{"punctuation", "lang:c++", "lang:c++", ""},
		{"path", "file:net/client.go", "file:net/client.go", ""},
		{"underscore and dash", "a_b-c.d", "a_b-c.d", ""},
		{"digits first", "2026:q1", "2026:q1", ""},
		{"upper case folds", "Project:NetLib", "project:netlib", ""},
		{"space trimmed", "  rust\t", "rust", ""},
		{"tier pinned", "tier:pinned", "tier:pinned", ""},
		{"tier reference", "tier:reference", "tier:reference", ""},
		{"tier working", "tier:working", "tier:working", ""},
		{"tier off-context", "tier:off-context", "tier:off-context", ""},
		{"tier upper case", "TIER:Pinned", "tier:pinned", ""},
		{"bare tier word", "tier", "tier", ""},
		{"tiers namespace", "tiers:x", "tiers:x", ""},
		{"longest", strings.Repeat("a", maxTagLen), strings.Repeat("a", maxTagLen), ""},

		{"empty", "", "", "1-100 characters"},
		{"blank", "   ", "", "1-100 characters"},
		{"too long", strings.Repeat("a", maxTagLen+1), "", "1-100 characters"},
		{"empty part", "project::x", "", "must start with a letter or digit"},
		{"leading colon", ":x", "", "must start with a letter or digit"},
		{"trailing colon", "x:", "", "must start with a letter or digit"},
		{"part starts with dash", "project:-x", "", "must start with a letter or digit"},
		{"starts with dot", ".x", "", "must start with a letter or digit"},
		{"space inside", "project:net lib", "", "character ' ' is not allowed"},
		{"comma", "a,b", "", "character ',' is not allowed"},
		{"hash", "#rust", "", "must start with a letter or digit"},
		{"bracket", "a]", "", "character ']' is not allowed"},
		{"newline inside", "a\nb", "", "is not allowed"},
		{"non-ASCII", "café", "", "is not allowed"},
		{"unknown tier", "tier:urgent", "", "the tiers are tier:pinned, tier:reference, tier:working and tier:off-context"},
		{"tier with more", "tier:pinned:x", "", "the tiers are"},
		{"empty tier", "tier:", "", "must start with a letter or digit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTag(tt.in)
			if tt.want == "" {
				if !errors.Is(err, ErrInvalidTag) {
					t.Fatalf("ParseTag(%q) = %q, %v; want ErrInvalidTag", tt.in, got, err)
				}
				if !strings.Contains(err.Error(), tt.msg) {
					t.Errorf("ParseTag(%q) error %q does not say %q", tt.in, err, tt.msg)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseTag(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
			// Normalizing is idempotent.
			if again, err := ParseTag(got); err != nil || again != got {
				t.Errorf("ParseTag(%q) = %q, %v; want it unchanged", got, again, err)
			}
		})
	}
}

func TestTier(t *testing.T) {
	for _, tier := range Tiers {
		t.Run(string(tier), func(t *testing.T) {
			if !tier.Valid() {
				t.Error("not Valid")
			}
			if got, err := ParseTag(tier.Tag()); err != nil || got != TierPrefix+string(tier) {
				t.Errorf("ParseTag(%q) = %q, %v", tier.Tag(), got, err)
			}
		})
	}
	for _, bad := range []Tier{"", "urgent", "Pinned"} {
		if bad.Valid() {
			t.Errorf("Tier(%q) is Valid", bad)
		}
	}
}

package vocab

import (
	"fmt"
	"strings"
)

// Tier is a tag "tier:X" that decides how a node enters composed context.
type Tier string

// The tiers.
const (
	Pinned     Tier = "pinned"      // always included
	Reference  Tier = "reference"   // stable background knowledge
	Working    Tier = "working"     // current task context
	OffContext Tier = "off-context" // stored, not loaded by default
)

// Tiers lists the tiers, highest priority first.
var Tiers = []Tier{Pinned, Reference, Working, OffContext}

// TierPrefix starts every tier tag.
const TierPrefix = "tier:"

// MaxTagLen bounds a tag.
const MaxTagLen = 100

// ParseTag validates and normalizes a tag: one or more ':'-separated
// segments of lowercase letters, digits and '.', '_', '-', '/', '+', each
// starting with a letter or digit ("project:netlib", "task:auth",
// "tier:reference", "rust"). Upper case is folded. A tier tag must name
// one of the tiers.
func ParseTag(s string) (string, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" || len(t) > MaxTagLen {
		return "", fmt.Errorf("%w: %q: a tag is 1-%d characters, like project:netlib or tier:reference", ErrInvalidTag, s, MaxTagLen)
	}
	for _, seg := range strings.Split(t, ":") {
		if seg == "" || !isAlnum(seg[0]) {
			return "", fmt.Errorf("%w: %q: each ':'-separated part must start with a letter or digit (like project:netlib)", ErrInvalidTag, s)
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if !isAlnum(c) && !strings.ContainsRune("._-/+", rune(c)) {
				return "", fmt.Errorf("%w: %q: character %q is not allowed (letters, digits, '.', '_', '-', '/', '+')", ErrInvalidTag, s, c)
			}
		}
	}
	if tier, ok := strings.CutPrefix(t, TierPrefix); ok {
		if !Tier(tier).Valid() {
			return "", fmt.Errorf("%w: %q: the tiers are tier:pinned, tier:reference, tier:working and tier:off-context", ErrInvalidTag, s)
		}
	}
	return t, nil
}

func isAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

// Valid reports whether t is a defined tier.
func (t Tier) Valid() bool {
	for _, x := range Tiers {
		if t == x {
			return true
		}
	}
	return false
}

// Tag returns the tier's tag, e.g. "tier:reference".
func (t Tier) Tag() string { return TierPrefix + string(t) }

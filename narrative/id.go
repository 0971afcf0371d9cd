package narrative

import (
	"crypto/rand"
	"fmt"
	"io"
	"strings"
)

// IDLen is the length of a node ID.
const IDLen = 10

// MinIDPrefix is the shortest prefix Catalog.Resolve accepts.
const MinIDPrefix = 4

// idAlphabet is Crockford's base32 in lowercase: no i, l, o or u, so that
// IDs are easy to read aloud and type.
const idAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// ID names a node: 10 random base32 characters (50 bits). Random rather
// than sequential, so that teammates creating nodes offline at the same
// time cannot collide: among a million nodes the chance that any two
// share an ID is below one in two thousand.
type ID string

// NewID returns a fresh random ID read from r (crypto/rand.Reader when r
// is nil).
func NewID(r io.Reader) (ID, error) {
	if r == nil {
		r = rand.Reader
	}
	var b [IDLen]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", fmt.Errorf("narrative: new id: %w", err)
	}
	for i := range b {
		b[i] = idAlphabet[b[i]&31]
	}
	return ID(b[:]), nil
}

// ParseID checks that s is a node ID (ten characters of the ID alphabet;
// upper case is accepted and folded).
func ParseID(s string) (ID, error) {
	s = strings.ToLower(s)
	if len(s) != IDLen || !isIDText(s) {
		return "", fmt.Errorf("%w: %q is not %d characters of %s", ErrInvalidID, s, IDLen, idAlphabet)
	}
	return ID(s), nil
}

// isIDText reports whether every character of s is in the ID alphabet.
func isIDText(s string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(idAlphabet, s[i]) < 0 {
			return false
		}
	}
	return s != ""
}

// Short returns the first 6 characters, for display.
func (id ID) Short() string {
	if len(id) < 6 {
		return string(id)
	}
	return string(id[:6])
}

// String returns the ID.
func (id ID) String() string { return string(id) }

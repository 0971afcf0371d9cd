package object

import (
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/fxamacker/cbor/v2"
	"github.com/zeebo/blake3"
)

// IDSize is the length of an ID in bytes.
const IDSize = 32

// MinPrefix is the shortest hex prefix that Store.Resolve accepts.
const MinPrefix = 4

// ShortLen is the number of hex characters of ID.Short.
const ShortLen = 12

// ID names an object: the BLAKE3-256 hash of its canonical bytes (envelope
// header and payload, uncompressed). The zero ID names no object.
type ID [IDSize]byte

// Zero is the zero ID. It is never the ID of an object.
var Zero ID

var hasherPool = sync.Pool{New: func() any { return blake3.New() }}

// Sum returns the ID of the object of the given kind and payload.
func Sum(kind Kind, payload []byte) ID {
	h := hasherPool.Get().(*blake3.Hasher)
	h.Reset()
	var hdr [HeaderSize]byte
	_, _ = h.Write(AppendHeader(hdr[:0], kind, uint64(len(payload))))
	_, _ = h.Write(payload)
	var id ID
	h.Sum(id[:0])
	hasherPool.Put(h)
	return id
}

// sumCanonical returns the ID of canonical bytes (header and payload).
func sumCanonical(canonical []byte) ID {
	h := hasherPool.Get().(*blake3.Hasher)
	h.Reset()
	_, _ = h.Write(canonical)
	var id ID
	h.Sum(id[:0])
	hasherPool.Put(h)
	return id
}

// ParseID parses the 64-character lowercase hex form of an ID.
func ParseID(s string) (ID, error) {
	var id ID
	if len(s) != 2*IDSize {
		return id, fmt.Errorf("%w: %q is not 64 hex characters", ErrInvalidID, s)
	}
	for i := 0; i < len(s); i++ {
		if !isLowerHex(s[i]) {
			return id, fmt.Errorf("%w: %q has a character other than 0-9 and a-f", ErrInvalidID, s)
		}
	}
	_, _ = hex.Decode(id[:], []byte(s))
	return id, nil
}

// IsHex reports whether s consists of lowercase hex digits only.
func IsHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLowerHex(s[i]) {
			return false
		}
	}
	return len(s) > 0
}

func isLowerHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }

// String returns the 64-character lowercase hex form.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// Short returns the first ShortLen hex characters, for display.
func (id ID) Short() string { return id.String()[:ShortLen] }

// IsZero reports whether id is the zero ID.
func (id ID) IsZero() bool { return id == Zero }

// OrZero returns *p, or the zero ID for nil: an optional pointer of a
// commit (a snapshot it may lack) as an ID, where Zero reads as empty.
func OrZero(p *ID) ID {
	if p == nil {
		return Zero
	}
	return *p
}

// Compare orders IDs bytewise: -1, 0 or +1.
func (id ID) Compare(other ID) int {
	for i := range id {
		if id[i] != other[i] {
			if id[i] < other[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// MarshalText encodes the ID as 64 hex characters (used by JSON).
func (id ID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText parses 64 hex characters.
func (id *ID) UnmarshalText(b []byte) error {
	v, err := ParseID(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// MarshalCBOR encodes the ID as a CBOR byte string of 32 bytes.
func (id ID) MarshalCBOR() ([]byte, error) {
	b := make([]byte, 0, 2+IDSize)
	b = append(b, 0x58, IDSize)
	return append(b, id[:]...), nil
}

// UnmarshalCBOR decodes a CBOR byte string of exactly 32 bytes.
func (id *ID) UnmarshalCBOR(data []byte) error {
	var b []byte
	if err := decMode.Unmarshal(data, &b); err != nil {
		return err
	}
	if len(b) != IDSize {
		return fmt.Errorf("object id is %d bytes, want %d", len(b), IDSize)
	}
	copy(id[:], b)
	return nil
}

var (
	_ cbor.Marshaler   = ID{}
	_ cbor.Unmarshaler = (*ID)(nil)
)

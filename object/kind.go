package object

import "fmt"

// Kind is the first byte after the magic in an object's envelope.
type Kind uint8

// The object kinds. The zero value is invalid.
const (
	KindInvalid Kind = 0
	KindBlob    Kind = 1 // raw bytes: file contents, logs, narrative snapshots
	KindTyped   Kind = 2 // one CBOR data item naming its type (see Encode)
)

// String returns "blob", "typed" or "invalid(N)".
func (k Kind) String() string {
	switch k {
	case KindBlob:
		return "blob"
	case KindTyped:
		return "typed"
	}
	return fmt.Sprintf("invalid(%d)", uint8(k))
}

// Valid reports whether k is a defined kind.
func (k Kind) Valid() bool { return k == KindBlob || k == KindTyped }

// ParseKind parses "blob" or "typed".
func ParseKind(s string) (Kind, error) {
	switch s {
	case "blob":
		return KindBlob, nil
	case "typed":
		return KindTyped, nil
	}
	return KindInvalid, fmt.Errorf("%w: unknown object kind %q (want blob or typed)", ErrInvalidArgument, s)
}

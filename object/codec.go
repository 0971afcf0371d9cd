package object

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"sort"

	"github.com/fxamacker/cbor/v2"
)

// Typed is implemented by every Go type that is stored as a typed object.
type Typed interface {
	// TypeName returns the name under which the type is stored: the single
	// key of the payload's top-level map, e.g. "commit". Names are
	// lowercase ASCII letters, digits and underscores and never change;
	// an incompatible change to a type gets a new name.
	TypeName() string
	// Links returns every object ID the value refers to, with what the
	// referenced object must be, so that verify can check the references
	// of any typed object without knowing its type.
	Links() []Link
}

// Validator is implemented by typed values that check their own
// invariants; Decode and Encode call it.
type Validator interface {
	Validate() error
}

// Link is a reference from a typed object to another object.
type Link struct {
	Field string // where the reference sits, e.g. "parents[1]"
	ID    ID
	Kind  Kind   // the kind the target must have; KindInvalid means any
	Type  string // for KindTyped, the type name the target must have; "" means any
}

// Want describes what a link expects its target to be.
func (l Link) Want() string {
	switch {
	case l.Kind == KindBlob:
		return "blob"
	case l.Kind == KindTyped && l.Type != "":
		return l.Type
	case l.Kind == KindTyped:
		return "typed object"
	}
	return "object"
}

var (
	encMode  cbor.EncMode
	decMode  cbor.DecMode
	codecErr error
)

func init() {
	// Core Deterministic Encoding (RFC 8949 §4.2.1): shortest integer and
	// float forms, definite lengths, map keys sorted bytewise. Nil slices
	// encode as empty arrays so that nil and empty give the same bytes.
	eo := cbor.CoreDetEncOptions()
	eo.NilContainers = cbor.NilContainerAsEmpty
	encMode, codecErr = eo.EncMode()
	if codecErr != nil {
		return
	}
	decMode, codecErr = cbor.DecOptions{
		DupMapKey:         cbor.DupMapKeyEnforcedAPF,
		IndefLength:       cbor.IndefLengthForbidden,
		TagsMd:            cbor.TagsForbidden,
		MaxNestedLevels:   64,
		MaxArrayElements:  math.MaxInt32,
		MaxMapPairs:       math.MaxInt32,
		UTF8:              cbor.UTF8RejectInvalid,
		FieldNameMatching: cbor.FieldNameMatchingCaseSensitive,
	}.DecMode()
}

// Encode returns the typed payload of v: a CBOR map with exactly one entry,
// whose key is v.TypeName() and whose value is v encoded in Core
// Deterministic Encoding.
func Encode(v Typed) ([]byte, error) {
	if codecErr != nil {
		return nil, codecErr
	}
	name := v.TypeName()
	if !validTypeName(name) {
		return nil, fmt.Errorf("%w: type name %q", ErrInvalidArgument, name)
	}
	if val, ok := v.(Validator); ok {
		if err := val.Validate(); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrInvalidArgument, name, err)
		}
	}
	body, err := encMode.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: encode %s: %w", ErrInvalidArgument, name, err)
	}
	out := make([]byte, 0, 2+len(name)+len(body))
	out = append(out, 0xa1) // map of one pair
	out = appendTextHeader(out, len(name))
	out = append(out, name...)
	return append(out, body...), nil
}

func appendTextHeader(b []byte, n int) []byte {
	switch {
	case n < 24:
		return append(b, 0x60|byte(n))
	case n < 256:
		return append(b, 0x78, byte(n))
	default:
		return append(b, 0x79, byte(n>>8), byte(n))
	}
}

func validTypeName(s string) bool {
	if s == "" || len(s) > 64 || s == "blob" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// SplitTyped returns the type name of a typed payload and the encoded body.
// It checks the top-level shape (a one-entry map with a valid text key)
// and that the body is exactly one well-formed data item.
func SplitTyped(payload []byte) (name string, body []byte, err error) {
	if codecErr != nil {
		return "", nil, codecErr
	}
	if len(payload) == 0 || payload[0] != 0xa1 {
		return "", nil, fmt.Errorf("%w: top level is not a CBOR map with exactly one entry", ErrDecode)
	}
	rest, err := decMode.UnmarshalFirst(payload[1:], &name)
	if err != nil {
		return "", nil, fmt.Errorf("%w: top-level key: %w", ErrDecode, err)
	}
	if !validTypeName(name) {
		return "", nil, fmt.Errorf("%w: type name %q is not lowercase letters, digits and '_'", ErrDecode, name)
	}
	if err := decMode.Wellformed(rest); err != nil {
		return "", nil, fmt.Errorf("%w: %s: %w", ErrDecode, name, err)
	}
	if len(rest) == 0 || rest[0]>>5 != 5 {
		return "", nil, fmt.Errorf("%w: %s: body is not a CBOR map", ErrDecode, name)
	}
	return name, rest, nil
}

// TypeOf returns the type name of a typed payload.
func TypeOf(payload []byte) (string, error) {
	name, _, err := SplitTyped(payload)
	return name, err
}

// Decode decodes a typed payload into v, which must be of the payload's
// type. Every required field (one whose json tag lacks omitempty) must be
// present and not null, float fields must hold floats, and the payload
// must be canonical. Map keys v does not know are ignored, so that objects
// written by a newer ctx that added optional fields stay readable.
func Decode(payload []byte, v Typed) error {
	if err := decode(payload, v, true); err != nil {
		return err
	}
	// One value, one encoding, one ID (FORMAT.md §4.1). Re-encoding the
	// decoded value is the cheap check; a payload with keys this version
	// does not know cannot be re-encoded, so it gets the generic one.
	if re, err := Encode(v); err != nil || !bytes.Equal(re, payload) {
		if err := CheckCanonical(payload); err != nil {
			return err
		}
		if len(UnknownKeys(payload, v)) == 0 {
			return fmt.Errorf("%w: %s is not the canonical form of its value (an optional field present but null or empty?)", ErrDecode, v.TypeName())
		}
	}
	return nil
}

// DecodeLax decodes a typed payload into v, checking its type name and
// v's Validate like Decode, but neither the schema (required fields
// present and not null) nor the canonical form. It is for readers that
// derive data from many objects whose ids they have verified, such as the
// index, where those checks would cost more than the decoding itself;
// ctx verify and every other read keep them. A v that implements
// LaxDecoder decodes itself.
func DecodeLax(payload []byte, v Typed) error { return decode(payload, v, false) }

// decode splits payload, checks its type name and, with schema, its
// schema, decodes it into v and validates v.
func decode(payload []byte, v Typed, schema bool) error {
	// Without the schema check, a type's own decoder may stand in for
	// SplitTyped and the reflective decoder; it declines whatever it does
	// not handle.
	if !schema && decodeFast(payload, v) {
		return validate(v.TypeName(), v)
	}
	name, body, err := SplitTyped(payload)
	if err != nil {
		return err
	}
	if want := v.TypeName(); name != want {
		return fmt.Errorf("%w: object is a %s, not a %s", ErrDecode, name, want)
	}
	if schema {
		if err := checkSchema(body, reflect.TypeOf(v), "", nil); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrDecode, name, err)
		}
	}
	if err := decMode.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrDecode, name, err)
	}
	return validate(name, v)
}

// validate calls v's Validate, if it has one.
func validate(name string, v Typed) error {
	if val, ok := v.(Validator); ok {
		if err := val.Validate(); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrDecode, name, err)
		}
	}
	return nil
}

// CheckCanonical reports whether a typed payload is in Core Deterministic
// Encoding, so that equal values always have equal IDs. It needs no
// knowledge of the type.
func CheckCanonical(payload []byte) error {
	if _, _, err := SplitTyped(payload); err != nil {
		return err
	}
	var v any
	if err := decMode.Unmarshal(payload, &v); err != nil {
		return fmt.Errorf("%w: %w", ErrDecode, err)
	}
	re, err := encMode.Marshal(v)
	if err != nil || !bytes.Equal(re, payload) {
		return fmt.Errorf("%w: not in Core Deterministic Encoding (RFC 8949 §4.2.1)", ErrDecode)
	}
	return nil
}

// Registry maps type names to Go types, for reading typed objects whose
// type is not known in advance.
type Registry struct {
	types map[string]func() Typed
}

// NewRegistry returns a registry of the given constructors. Two
// constructors of the same type name are an error.
func NewRegistry(ctors ...func() Typed) (*Registry, error) {
	r := &Registry{types: make(map[string]func() Typed, len(ctors))}
	for _, c := range ctors {
		name := c().TypeName()
		if !validTypeName(name) {
			return nil, fmt.Errorf("object: registry: invalid type name %q", name)
		}
		if _, dup := r.types[name]; dup {
			return nil, fmt.Errorf("object: registry: type %q registered twice", name)
		}
		r.types[name] = c
	}
	return r, nil
}

// CoreTypes returns the constructors of the typed objects this package
// defines.
func CoreTypes() []func() Typed {
	return []func() Typed{
		func() Typed { return new(Commit) },
		func() Typed { return new(Tree) },
		func() Typed { return new(WorkCommit) },
	}
}

// Names returns the registered type names in sorted order.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.types))
	for n := range r.types {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// New returns a new zero value of the named type.
func (r *Registry) New(name string) (Typed, bool) {
	c, ok := r.types[name]
	if !ok {
		return nil, false
	}
	return c(), true
}

// Decode decodes a typed payload of any registered type. A payload of an
// unregistered type fails with ErrDecode.
func (r *Registry) Decode(payload []byte) (Typed, error) { return r.decode(payload, Decode) }

// DecodeLax is Decode with DecodeLax: for readers that follow many
// objects' links (gc), whose ids they verified.
func (r *Registry) DecodeLax(payload []byte) (Typed, error) { return r.decode(payload, DecodeLax) }

func (r *Registry) decode(payload []byte, decode func([]byte, Typed) error) (Typed, error) {
	name, _, err := SplitTyped(payload)
	if err != nil {
		return nil, err
	}
	v, ok := r.New(name)
	if !ok {
		return nil, fmt.Errorf("%w: unknown type %q (written by a newer ctx?)", ErrDecode, name)
	}
	if err := decode(payload, v); err != nil {
		return nil, err
	}
	return v, nil
}

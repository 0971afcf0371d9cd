package object

// LaxDecoder is implemented by typed values that decode their own body
// for DecodeLax, faster than the reflective CBOR decoder: readers such as
// the index decode thousands of them, and reflection (and a separate pass
// to check that the body is well formed) dominated the cost. Decode, which
// checks the schema and the canonical form, never uses it.
type LaxDecoder interface {
	// DecodeLaxBody decodes body, the CBOR data item under a typed
	// payload's type name, into the receiver and reports whether it did.
	// A true result promises that body is one well-formed data item and
	// that the reflective decoder would decode it without error to
	// exactly the value the receiver now holds. When body holds anything
	// the method does not handle (a key it does not know, a duplicate
	// key, an unexpected type, an indefinite length, bytes that are not
	// well formed) or the receiver is not its type's zero value, it
	// returns false and leaves the receiver as it was: DecodeLax then
	// decodes reflectively, which reports any error. It must not panic,
	// nor allocate much more than body's size, on any input, and must not
	// retain body.
	DecodeLaxBody(body []byte) bool
}

// decodeFast decodes a typed payload into v with v's LaxDecoder, if it
// has one, and reports whether it did. It reads the top level itself
// when it has its usual form (a map of one entry whose key is a text of
// fewer than 24 bytes, v's type name) and leaves any other to SplitTyped;
// a LaxDecoder that accepts the body has checked that it is well formed,
// which SplitTyped does in a pass of its own.
func decodeFast(payload []byte, v Typed) bool {
	d, ok := v.(LaxDecoder)
	if !ok || codecErr != nil || len(payload) < 2 || payload[0] != 0xa1 || payload[1]>>5 != 3 || payload[1]&0x1f >= 24 {
		return false
	}
	n := int(payload[1] & 0x1f)
	name, want := payload[2:min(2+n, len(payload))], v.TypeName()
	if string(name) != want || !validTypeName(want) || len(payload) == 2+n || payload[2+n]>>5 != 5 {
		return false // what SplitTyped reports, or a body that is not a map
	}
	return d.DecodeLaxBody(payload[2+n:])
}

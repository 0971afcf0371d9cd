package object

import (
	"encoding/binary"
	"fmt"
)

// Magic starts the canonical bytes of every object. The trailing "1" is the
// envelope version; a reader refuses any other.
const Magic = "CTXO1"

// HeaderSize is the size of the envelope header: magic, kind, payload length.
const HeaderSize = len(Magic) + 1 + 8

// AppendHeader appends the envelope header for a payload of n bytes.
func AppendHeader(dst []byte, kind Kind, n uint64) []byte {
	dst = append(dst, Magic...)
	dst = append(dst, byte(kind))
	return binary.LittleEndian.AppendUint64(dst, n)
}

// Canonical returns the canonical bytes of an object: header then payload.
// Its BLAKE3-256 hash is the object's ID.
func Canonical(kind Kind, payload []byte) []byte {
	b := make([]byte, 0, HeaderSize+len(payload))
	b = AppendHeader(b, kind, uint64(len(payload)))
	return append(b, payload...)
}

// ParseHeader parses an envelope header and returns the kind and the
// declared payload length.
func ParseHeader(b []byte) (Kind, uint64, error) {
	if len(b) < HeaderSize {
		return KindInvalid, 0, fmt.Errorf("%w: %d bytes, shorter than the %d-byte header", ErrInvalidEnvelope, len(b), HeaderSize)
	}
	if string(b[:len(Magic)]) != Magic {
		return KindInvalid, 0, fmt.Errorf("%w: magic %q, want %q", ErrInvalidEnvelope, b[:len(Magic)], Magic)
	}
	k := Kind(b[len(Magic)])
	if !k.Valid() {
		return KindInvalid, 0, fmt.Errorf("%w: kind byte %d (want 1 blob or 2 typed)", ErrInvalidEnvelope, k)
	}
	return k, binary.LittleEndian.Uint64(b[len(Magic)+1 : HeaderSize]), nil
}

// ParseEnvelope splits canonical bytes into kind and payload, checking the
// magic, the kind and that the declared length matches the bytes present.
func ParseEnvelope(b []byte) (Kind, []byte, error) {
	k, n, err := ParseHeader(b)
	if err != nil {
		return KindInvalid, nil, err
	}
	if have := uint64(len(b) - HeaderSize); have != n {
		return KindInvalid, nil, fmt.Errorf("%w: header declares %d payload bytes, %d present", ErrInvalidEnvelope, n, have)
	}
	return k, b[HeaderSize:], nil
}

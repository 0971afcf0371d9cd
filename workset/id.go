package workset

import (
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/zeebo/blake3"
)

// ID is a BLAKE3-256 value: the identity of a content object, or one of a
// version's hashes.
type ID [32]byte

// ShortLen is the number of hex digits of an ID that Render and Show
// print. Commands accept any unique prefix of at least 4.
const ShortLen = 12

// identityPrefix starts the input of every identity hash, so that an
// identity never equals a hash of content.
const identityPrefix = "ctx-workset-identity\x00"

// FileID returns the identity of the file object of src:
// BLAKE3-256("ctx-workset-identity\x00file\x00" + src.Type + "\x00" +
// src.FilesystemID + "\x00" + src.Path).
func FileID(src Source) ID {
	return ID(blake3.Sum256([]byte(identityPrefix + "file\x00" + src.Type + "\x00" + src.FilesystemID + "\x00" + src.Path)))
}

// CallID returns the identity of a tool call object:
// BLAKE3-256("ctx-workset-identity\x00toolcall\x00" + callID).
func CallID(callID string) ID {
	return ID(blake3.Sum256([]byte(identityPrefix + "toolcall\x00" + callID)))
}

// hashBytes returns BLAKE3-256 of b.
func hashBytes(b []byte) ID { return ID(blake3.Sum256(b)) }

// metadataHash is the hash of a file version's type-specific fields.
func metadataHash(fileType string, chars int) ID {
	return hashBytes([]byte("file_type\x00" + fileType + "\x00char_count\x00" + strconv.Itoa(chars)))
}

// objectHash is the fingerprint of a version: its three other hashes.
func objectHash(fileHash, contentHash *ID, meta ID) ID {
	return hashBytes([]byte(optHex(fileHash) + "\x00" + optHex(contentHash) + "\x00" + meta.String()))
}

func optHex(id *ID) string {
	if id == nil {
		return ""
	}
	return id.String()
}

// String returns the 64 lowercase hex digits.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// Short returns the first ShortLen hex digits.
func (id ID) Short() string { return id.String()[:ShortLen] }

// ParseID parses 64 hex digits.
func ParseID(s string) (ID, error) {
	var id ID
	if len(s) != 64 {
		return id, fmt.Errorf("%w: id %q is not 64 hex digits", ErrInvalid, s)
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, fmt.Errorf("%w: id %q is not 64 hex digits", ErrInvalid, s)
	}
	if id.String() != s {
		return id, fmt.Errorf("%w: id %q is not lowercase hex", ErrInvalid, s)
	}
	return id, nil
}

// MarshalText writes the 64 hex digits.
func (id ID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText reads 64 lowercase hex digits.
func (id *ID) UnmarshalText(b []byte) error {
	v, err := ParseID(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}

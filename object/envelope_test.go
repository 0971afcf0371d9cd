package object

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"
)

func TestAppendHeader(t *testing.T) {
	tests := []struct {
		name string
		kind Kind
		n    uint64
		want string // hex
	}{
		{"EmptyBlob", KindBlob, 0, "4354584f31" + "01" + "0000000000000000"},
		{"Blob6", KindBlob, 6, "4354584f31" + "01" + "0600000000000000"},
		{"Typed", KindTyped, 0x0102030405060708, "4354584f31" + "02" + "0807060504030201"},
		{"Max", KindTyped, ^uint64(0), "4354584f31" + "02" + "ffffffffffffffff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := []byte("keep")
			got := AppendHeader(prefix, tt.kind, tt.n)
			if !bytes.HasPrefix(got, []byte("keep")) {
				t.Fatalf("AppendHeader lost dst: %q", got)
			}
			got = got[4:]
			if len(got) != HeaderSize {
				t.Fatalf("header is %d bytes, want HeaderSize %d", len(got), HeaderSize)
			}
			if h := hex.EncodeToString(got); h != tt.want {
				t.Errorf("AppendHeader = %s, want %s", h, tt.want)
			}
			kind, n, err := ParseHeader(got)
			if err != nil || kind != tt.kind || n != tt.n {
				t.Errorf("ParseHeader = %v, %d, %v; want %v, %d", kind, n, err, tt.kind, tt.n)
			}
		})
	}
}

func TestParseHeader(t *testing.T) {
	good := AppendHeader(nil, KindBlob, 3)
	with := func(i int, b byte) []byte {
		c := bytes.Clone(good)
		c[i] = b
		return c
	}
	tests := []struct {
		name string
		in   []byte
	}{
		{"Nil", nil},
		{"Short", good[:HeaderSize-1]},
		{"MagicOnly", []byte(Magic)},
		{"BadMagic", with(0, 'c')},
		{"OtherVersion", with(4, '2')},
		{"KindZero", with(5, 0)},
		{"KindThree", with(5, 3)},
		{"KindFF", with(5, 0xff)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind, n, err := ParseHeader(tt.in)
			if !errors.Is(err, ErrInvalidEnvelope) {
				t.Fatalf("ParseHeader(%x) error = %v, want ErrInvalidEnvelope", tt.in, err)
			}
			if kind != KindInvalid || n != 0 {
				t.Errorf("ParseHeader returned %v, %d with its error", kind, n)
			}
		})
	}
	// ParseHeader looks at the header only; what follows is the caller's.
	if kind, n, err := ParseHeader(append(bytes.Clone(good), "trailing bytes"...)); err != nil || kind != KindBlob || n != 3 {
		t.Errorf("ParseHeader with trailing bytes = %v, %d, %v", kind, n, err)
	}
}

func TestParseEnvelope(t *testing.T) {
	canon := Canonical(KindBlob, []byte("abc"))
	tests := []struct {
		name    string
		in      []byte
		kind    Kind
		payload string
		ok      bool
	}{
		{"Blob", canon, KindBlob, "abc", true},
		{"EmptyBlob", Canonical(KindBlob, nil), KindBlob, "", true},
		{"Typed", Canonical(KindTyped, []byte{0xa0}), KindTyped, "\xa0", true},
		{"Empty", nil, 0, "", false},
		{"ShortInput", canon[:HeaderSize-2], 0, "", false},
		{"PayloadMissing", canon[:HeaderSize], 0, "", false},
		{"PayloadShort", canon[:len(canon)-1], 0, "", false},
		{"PayloadLong", append(bytes.Clone(canon), 'd'), 0, "", false},
		{"HugeLength", append(AppendHeader(nil, KindBlob, ^uint64(0)), "abc"...), 0, "", false},
		{"BadMagic", append([]byte("CTXO2"), canon[5:]...), 0, "", false},
		{"BadKind", append(append([]byte(Magic), 9), canon[6:]...), 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind, payload, err := ParseEnvelope(tt.in)
			if !tt.ok {
				if !errors.Is(err, ErrInvalidEnvelope) {
					t.Fatalf("ParseEnvelope(%x) error = %v, want ErrInvalidEnvelope", tt.in, err)
				}
				if kind != KindInvalid || payload != nil {
					t.Errorf("ParseEnvelope returned %v, %x with its error", kind, payload)
				}
				return
			}
			if err != nil || kind != tt.kind || string(payload) != tt.payload {
				t.Fatalf("ParseEnvelope = %v, %q, %v; want %v, %q", kind, payload, err, tt.kind, tt.payload)
			}
			if !bytes.Equal(Canonical(kind, payload), tt.in) {
				t.Errorf("Canonical(ParseEnvelope(b)) != b")
			}
		})
	}
}

func TestCanonical(t *testing.T) {
	got := Canonical(KindBlob, []byte("hello\n"))
	want := "4354584f31" + "01" + "0600000000000000" + hex.EncodeToString([]byte("hello\n"))
	if hex.EncodeToString(got) != want {
		t.Errorf("Canonical = %x, want %s", got, want)
	}
}

package object

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/zeebo/blake3"
)

const helloHex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func mustParseID(t testing.TB, s string) ID {
	t.Helper()
	id, err := ParseID(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestParseID(t *testing.T) {
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"Valid", helloHex, true},
		{"Zero", strings.Repeat("0", 64), true},
		{"AllF", strings.Repeat("f", 64), true},
		{"Empty", "", false},
		{"Short", helloHex[:63], false},
		{"Long", helloHex + "0", false},
		{"Prefix", helloHex[:12], false},
		{"Upper", strings.ToUpper(helloHex), false},
		{"OneUpper", "A" + helloHex[1:], false},
		{"NonHex", "g" + helloHex[1:], false},
		{"Space", " " + helloHex[1:], false},
		{"TrailingNewline", helloHex[:63] + "\n", false},
		{"0xPrefix", "0x" + helloHex[2:], false},
		{"NonASCII", "é" + helloHex[2:], false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := ParseID(tt.in)
			if !tt.ok {
				if !errors.Is(err, ErrInvalidID) {
					t.Fatalf("ParseID(%q) error = %v, want ErrInvalidID", tt.in, err)
				}
				if id != Zero {
					t.Errorf("ParseID(%q) returned %s with its error, want the zero ID", tt.in, id)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseID(%q): %v", tt.in, err)
			}
			if got := id.String(); got != tt.in {
				t.Errorf("String() = %q, want %q", got, tt.in)
			}
			want, _ := hex.DecodeString(tt.in)
			if !bytes.Equal(id[:], want) {
				t.Errorf("ParseID(%q) = %x", tt.in, id[:])
			}
		})
	}
}

func TestIsHex(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"", false},
		{"0", true},
		{"abcdef0123456789", true},
		{"ABCD", false},
		{"abcg", false},
		{"ab cd", false},
	}
	for _, tt := range tests {
		if got := IsHex(tt.in); got != tt.want {
			t.Errorf("IsHex(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestIDShortAndIsZero(t *testing.T) {
	id := mustParseID(t, helloHex)
	if got, want := id.Short(), helloHex[:ShortLen]; got != want {
		t.Errorf("Short() = %q, want %q", got, want)
	}
	if len(Zero.Short()) != ShortLen || Zero.Short() != strings.Repeat("0", ShortLen) {
		t.Errorf("Zero.Short() = %q", Zero.Short())
	}
	if id.IsZero() || !Zero.IsZero() || !(ID{}).IsZero() {
		t.Error("IsZero is wrong")
	}
}

func TestIDCompare(t *testing.T) {
	var lo, hi, mid ID
	hi[0] = 1
	mid[IDSize-1] = 0xff
	tests := []struct {
		name string
		a, b ID
		want int
	}{
		{"Equal", hi, hi, 0},
		{"ZeroEqual", Zero, ID{}, 0},
		{"FirstByteLess", lo, hi, -1},
		{"FirstByteGreater", hi, lo, 1},
		{"LastByte", lo, mid, -1},
		{"FirstByteWins", hi, mid, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Compare(tt.b); got != tt.want {
				t.Errorf("%s.Compare(%s) = %d, want %d", tt.a.Short(), tt.b.Short(), got, tt.want)
			}
			// Compare agrees with the order of the hex forms, which is the
			// order of the store's directory listing.
			if got := strings.Compare(tt.a.String(), tt.b.String()); got != tt.want {
				t.Errorf("hex order %d, Compare %d", got, tt.want)
			}
		})
	}
}

func TestIDText(t *testing.T) {
	id := mustParseID(t, helloHex)
	b, err := id.MarshalText()
	if err != nil || string(b) != helloHex {
		t.Fatalf("MarshalText = %q, %v", b, err)
	}
	var got ID
	if err := got.UnmarshalText(b); err != nil || got != id {
		t.Fatalf("UnmarshalText = %s, %v; want %s", got, err, id)
	}

	// JSON uses the text form, as a map key and as a value.
	j, err := json.Marshal(map[ID]ID{id: Zero})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"` + helloHex + `":"` + strings.Repeat("0", 64) + `"}`; string(j) != want {
		t.Errorf("json = %s, want %s", j, want)
	}

	for _, bad := range []string{"", helloHex[:10], strings.ToUpper(helloHex), helloHex + "00"} {
		got := id
		if err := got.UnmarshalText([]byte(bad)); !errors.Is(err, ErrInvalidID) {
			t.Errorf("UnmarshalText(%q) error = %v, want ErrInvalidID", bad, err)
		}
		if got != id {
			t.Errorf("UnmarshalText(%q) changed the ID on error", bad)
		}
	}
}

func TestIDCBOR(t *testing.T) {
	id := mustParseID(t, helloHex)
	b, err := id.MarshalCBOR()
	if err != nil {
		t.Fatal(err)
	}
	want := append([]byte{0x58, 0x20}, id[:]...)
	if !bytes.Equal(b, want) {
		t.Fatalf("MarshalCBOR = %x, want %x", b, want)
	}

	bstr := func(n int) []byte { // byte string of n bytes, shortest head
		switch {
		case n < 24:
			return append([]byte{0x40 | byte(n)}, make([]byte, n)...)
		default:
			return append([]byte{0x58, byte(n)}, make([]byte, n)...)
		}
	}
	tests := []struct {
		name string
		in   []byte
		ok   bool
	}{
		{"Canonical", want, true},
		{"Empty", []byte{0x40}, false},
		{"31Bytes", bstr(31), false},
		{"33Bytes", bstr(33), false},
		{"20Bytes", bstr(20), false},
		{"TextString", append([]byte{0x78, 0x20}, make([]byte, 32)...), false},
		{"Array", []byte{0x80}, false},
		{"Integer", []byte{0x01}, false},
		{"Null", []byte{0xf6}, false},
		{"Truncated", want[:20], false},
		{"NoInput", nil, false},
		{"Indefinite", append(append([]byte{0x5f, 0x58, 0x20}, id[:]...), 0xff), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got ID
			err := got.UnmarshalCBOR(tt.in)
			if tt.ok != (err == nil) {
				t.Fatalf("UnmarshalCBOR(%x) error = %v, want ok=%v", tt.in, err, tt.ok)
			}
			if tt.ok && got != id {
				t.Errorf("UnmarshalCBOR = %s, want %s", got, id)
			}
			if !tt.ok && got != Zero {
				t.Errorf("UnmarshalCBOR changed the ID on error: %s", got)
			}
		})
	}
}

func TestSum(t *testing.T) {
	payloads := [][]byte{nil, {}, []byte("hello\n"), make([]byte, 1000), testPayload(7, 5000)}
	for _, kind := range []Kind{KindBlob, KindTyped} {
		for _, p := range payloads {
			canon := Canonical(kind, p)
			want := ID(blake3.Sum256(canon))
			if got := Sum(kind, p); got != want {
				t.Errorf("Sum(%v, %d bytes) = %s, want blake3 of the canonical bytes %s", kind, len(p), got, want)
			}
			if got := sumCanonical(canon); got != want {
				t.Errorf("sumCanonical = %s, want %s", got, want)
			}
		}
	}
	// The hash is plain, unkeyed BLAKE3-256 (a known answer: the hash of
	// no bytes).
	if got := sumCanonical(nil).String(); got != "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262" {
		t.Errorf("sumCanonical(nil) = %s, want BLAKE3-256 of the empty input", got)
	}
	// nil and empty payloads are the same object.
	if Sum(KindBlob, nil) != Sum(KindBlob, []byte{}) {
		t.Error("Sum of nil and empty payloads differ")
	}
	// The kind is part of the hash.
	if Sum(KindBlob, []byte("x")) == Sum(KindTyped, []byte("x")) {
		t.Error("Sum ignores the kind")
	}
}

func TestKind(t *testing.T) {
	tests := []struct {
		kind  Kind
		str   string
		valid bool
	}{
		{KindInvalid, "invalid(0)", false},
		{KindBlob, "blob", true},
		{KindTyped, "typed", true},
		{3, "invalid(3)", false},
		{255, "invalid(255)", false},
	}
	for _, tt := range tests {
		t.Run(tt.str, func(t *testing.T) {
			if got := tt.kind.String(); got != tt.str {
				t.Errorf("String() = %q, want %q", got, tt.str)
			}
			if got := tt.kind.Valid(); got != tt.valid {
				t.Errorf("Valid() = %v, want %v", got, tt.valid)
			}
			k, err := ParseKind(tt.str)
			if tt.valid {
				if err != nil || k != tt.kind {
					t.Errorf("ParseKind(%q) = %v, %v; want %v", tt.str, k, err, tt.kind)
				}
				return
			}
			if !errors.Is(err, ErrInvalidArgument) || k != KindInvalid {
				t.Errorf("ParseKind(%q) = %v, %v; want KindInvalid, ErrInvalidArgument", tt.str, k, err)
			}
		})
	}
	for _, s := range []string{"", "Blob", "BLOB", " blob", "tree", "commit", "1"} {
		if k, err := ParseKind(s); !errors.Is(err, ErrInvalidArgument) || k != KindInvalid {
			t.Errorf("ParseKind(%q) = %v, %v; want KindInvalid, ErrInvalidArgument", s, k, err)
		}
	}
}

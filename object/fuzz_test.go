package object

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/zeebo/blake3"
)

// goldenCanonical returns the canonical bytes of the golden objects.
func goldenCanonical(f *testing.F) [][]byte {
	var out [][]byte
	for _, o := range readGolden(f).Objects {
		b, err := hex.DecodeString(o.Canonical)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func FuzzParseEnvelope(f *testing.F) {
	for _, c := range goldenCanonical(f) {
		f.Add(c)
		f.Add(c[:len(c)-1])
		f.Add(c[:HeaderSize])
	}
	f.Add([]byte{})
	f.Add([]byte(Magic))
	f.Add(append([]byte("CTXO2\x01"), make([]byte, 8)...))
	f.Add(append([]byte("CTXO1\x03"), make([]byte, 8)...))
	f.Add(AppendHeader(nil, KindTyped, 1<<63))
	f.Fuzz(func(t *testing.T, b []byte) {
		hk, n, herr := ParseHeader(b)
		kind, payload, err := ParseEnvelope(b)
		if herr != nil {
			if err == nil || !errors.Is(herr, ErrInvalidEnvelope) {
				t.Fatalf("ParseHeader failed (%v) but ParseEnvelope gave %v", herr, err)
			}
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidEnvelope) || kind != KindInvalid || payload != nil {
				t.Fatalf("ParseEnvelope = %v, %x, %v", kind, payload, err)
			}
			if herr == nil && n == uint64(len(b)-HeaderSize) {
				t.Fatalf("ParseEnvelope failed (%v) on a good header and matching length", err)
			}
			return
		}
		if !kind.Valid() || kind != hk || n != uint64(len(payload)) {
			t.Fatalf("ParseEnvelope = %v, %d bytes; ParseHeader = %v, %d", kind, len(payload), hk, n)
		}
		if !bytes.Equal(Canonical(kind, payload), b) {
			t.Fatalf("Canonical(ParseEnvelope(b)) != b")
		}
		if Sum(kind, payload) != ID(blake3.Sum256(b)) {
			t.Fatalf("Sum disagrees with blake3 of the canonical bytes")
		}
	})
}

func FuzzParseID(f *testing.F) {
	for _, o := range readGolden(f).Objects {
		f.Add(o.ID)
		f.Add(strings.ToUpper(o.ID))
		f.Add(o.ID[:63] + "g")
	}
	f.Add("")
	f.Add(strings.Repeat("0", 64))
	f.Add(strings.Repeat("0", 65))
	f.Add("\x58\x20" + strings.Repeat("\x00", 32))
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseID(s)
		valid := len(s) == 2*IDSize && IsHex(s)
		if valid != (err == nil) {
			t.Fatalf("ParseID(%q) = %v, want ok=%v", s, err, valid)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidID) || id != Zero {
				t.Fatalf("ParseID(%q) = %s, %v", s, id, err)
			}
		} else {
			if id.String() != s || id.Short() != s[:ShortLen] {
				t.Fatalf("ParseID(%q).String() = %q", s, id.String())
			}
			var u ID
			if err := u.UnmarshalText([]byte(s)); err != nil || u != id {
				t.Fatalf("UnmarshalText = %s, %v", u, err)
			}
		}

		// The same bytes as CBOR.
		var c ID
		if err := c.UnmarshalCBOR([]byte(s)); err == nil {
			m, _ := c.MarshalCBOR()
			var d ID
			if err := d.UnmarshalCBOR(m); err != nil || d != c {
				t.Fatalf("MarshalCBOR/UnmarshalCBOR round trip: %s, %v; want %s", d, err, c)
			}
		} else if c != Zero {
			t.Fatalf("UnmarshalCBOR changed the ID on error")
		}
	})
}

// typedSeeds are handcrafted typed payloads: odd shapes, non-canonical
// encodings, unknown fields.
func typedSeeds(t testing.TB) [][]byte {
	id := testID("x")
	seeds := [][]byte{
		{},
		{0xa1},
		{0xa0},
		typedPayload("tree", cMap()),
		typedPayload("tree", cMap(cText("entries"), []byte{0xf6})),
		typedPayload("tree", cMap(cText("entries"), []byte{0x9f, 0xff})),
		typedPayload("tree", cMap(cText("zzz"), []byte{0x18, 0x01}, cText("entries"), cArray())),
		typedPayload("tree", cMap(cText("entries"), cArray(), cText("zz"), []byte{0x01})),
		typedPayload("tree", cMap(cText("entries"), cArray(cMap(
			cText("id"), cBytes(id[:]), cText("kind"), cText("blob"), cText("name"), cText("a"))))),
		typedPayload("commit", cMap(cText("message"), cText("m"), cText("root_tree"), cBytes(id[:]))),
		typedPayload("commit", cMap(cText("author"), cText(""), cText("root_tree"), cBytes(id[:]))),
		typedPayload("commit", cMap(cText("root_tree"), cBytes(id[:]), cText("build_snapshot"), []byte{0xf6})),
		typedPayload("x", cMap(
			cText("a"), []byte{0xf9, 0x7e, 0x00},
			cText("b"), head(1, 1<<64-1),
			cText("c"), []byte{0xe0},
			cText("d"), cMap(head(0, 1), cText("one"), cBytes([]byte("k")), cText("v")),
		)),
	}
	for _, v := range testObjects() {
		seeds = append(seeds, mustEncode(t, v))
	}
	return seeds
}

func FuzzDecodeTyped(f *testing.F) {
	for _, c := range goldenCanonical(f) {
		if k, p, err := ParseEnvelope(c); err == nil && k == KindTyped {
			f.Add(p)
		}
	}
	for _, s := range typedSeeds(f) {
		f.Add(s)
	}
	r := mustRegistry(f)
	f.Fuzz(func(t *testing.T, p []byte) {
		name, body, splitErr := SplitTyped(p)
		if tn, err := TypeOf(p); tn != name || (err == nil) != (splitErr == nil) {
			t.Fatalf("TypeOf = %q, %v; SplitTyped = %q, %v", tn, err, name, splitErr)
		}
		if splitErr == nil && (!validTypeName(name) || len(body) == 0 || !bytes.HasSuffix(p, body)) {
			t.Fatalf("SplitTyped = %q, %x", name, body)
		}
		canonErr := CheckCanonical(p)
		if canonErr == nil && splitErr != nil {
			t.Fatalf("CheckCanonical passed but SplitTyped failed: %v", splitErr)
		}
		for _, indent := range []bool{false, true} {
			j, err := ToJSON(p, indent)
			if err == nil && !json.Valid(j) {
				t.Fatalf("ToJSON gave invalid JSON: %s", j)
			}
			if canonErr == nil && err != nil {
				t.Fatalf("ToJSON of a canonical payload failed: %v", err)
			}
		}

		v, err := r.Decode(p)
		if err != nil {
			if !errors.Is(err, ErrDecode) || v != nil {
				t.Fatalf("Registry.Decode = %v, %v", v, err)
			}
			return
		}
		if v.TypeName() != name {
			t.Fatalf("decoded a %s from a %q payload", v.TypeName(), name)
		}
		_ = v.Links()

		// Whatever decodes re-encodes, canonically, to a fixed point.
		out, err := Encode(v)
		if err != nil {
			t.Fatalf("Encode(Decode(p)) failed: %v", err)
		}
		if err := CheckCanonical(out); err != nil {
			t.Fatalf("Encode output is not canonical: %v\n%x", err, out)
		}
		v2, err := r.Decode(out)
		if err != nil {
			t.Fatalf("Decode(Encode(v)): %v", err)
		}
		if out2, err := Encode(v2); err != nil || !bytes.Equal(out2, out) {
			t.Fatalf("Encode is not a fixed point:\n%x\n%x (%v)", out, out2, err)
		}
		// And survives the JSON form.
		j, err := ToJSON(out, false)
		if err != nil {
			t.Fatalf("ToJSON(Encode(v)): %v", err)
		}
		if back, err := r.FromJSON(j); err != nil || !bytes.Equal(back, out) {
			t.Fatalf("FromJSON(ToJSON(out)) = %x, %v; want %x\njson: %s", back, err, out, j)
		}

		// A canonical input with exactly the fields Encode writes (no
		// unknown, omitted-when-empty or null fields) is what Encode
		// writes. Decode is tolerant of the rest, so only this holds.
		if canonErr == nil && sameFields(t, p, out) && !bytes.Equal(out, p) {
			t.Fatalf("canonical input with the same fields re-encodes differently:\n in %x\nout %x", p, out)
		}
	})
}

// sameFields reports whether two payloads have the same map keys at every
// level, arrays of the same lengths, and a has no nulls.
func sameFields(t *testing.T, a, b []byte) bool {
	var va, vb any
	if err := decMode.Unmarshal(a, &va); err != nil {
		t.Fatalf("generic decode: %v", err)
	}
	if err := decMode.Unmarshal(b, &vb); err != nil {
		t.Fatalf("generic decode: %v", err)
	}
	return sameShape(va, vb)
}

func sameShape(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return false
	case map[any]any:
		y, ok := b.(map[any]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			if !isComparable(k) {
				return false
			}
			yv, ok := y[k]
			if !ok || !sameShape(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameShape(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return true
}

func isComparable(k any) bool { return k != nil && reflect.TypeOf(k).Comparable() }

// maxFuzzObject bounds what FuzzStoredFile lets the store decompress, so
// that a small input cannot make one run allocate hundreds of megabytes.
const maxFuzzObject = 8 << 20

var fuzzDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(maxFuzzObject), zstd.WithDecoderMaxWindow(maxFuzzObject))
})

func FuzzStoredFile(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(goldenStore, "*", "*"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no stored files in %s: %v", goldenStore, err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for mode := byte(0); mode < 3; mode++ {
			f.Add(b, mode)
		}
		f.Add(b[:len(b)-1], byte(0))
		f.Add(append(bytes.Clone(b), b...), byte(0))
	}
	for _, c := range goldenCanonical(f) {
		f.Add(c, byte(1)) // not compressed
	}
	f.Add([]byte{}, byte(0))
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd}, byte(0))
	f.Add([]byte{0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0}, byte(0))
	enc, err := testEncoder()
	if err != nil {
		f.Fatal(err)
	}
	bad := append([]byte("XTXO1\x01"), make([]byte, 8)...)
	f.Add(enc.EncodeAll(bad, nil), byte(0))
	f.Add(enc.EncodeAll(append(AppendHeader(nil, KindBlob, smallStream+1), "short"...), nil), byte(0))

	// One store for all runs: making a store per run costs more than the
	// run. Runs in one process are sequential, and each removes its file.
	s := newTestStore(f)
	f.Fuzz(func(t *testing.T, stored []byte, mode byte) { checkStoredFile(t, s, stored, mode) })
}

// checkStoredFile writes stored as the file of an object and checks that
// every read of it fails or returns content that hashes to its ID.
func checkStoredFile(t *testing.T, s *Store, stored []byte, mode byte) {
	dec, err := fuzzDecoder()
	if err != nil {
		t.Fatal(err)
	}
	var hdr zstd.Header
	if hdr.Decode(stored) == nil && (hdr.FrameContentSize > maxFuzzObject || hdr.WindowSize > maxFuzzObject) {
		t.Skip("frame too large for fuzzing")
	}
	canon, derr := dec.DecodeAll(stored, nil)
	if errors.Is(derr, zstd.ErrDecoderSizeExceeded) || errors.Is(derr, zstd.ErrWindowSizeExceeded) {
		t.Skip("content too large for fuzzing")
	}
	var id ID
	switch {
	case mode%3 == 0 && derr == nil:
		id = ID(blake3.Sum256(canon)) // the right name for the content
	case mode%3 == 1:
		id = ID(blake3.Sum256(stored))
	default:
		id = testID("hello")
	}

	writeObjectFile(t, s, id, stored)
	defer func() {
		_ = os.Remove(s.path(id))
		_ = os.Remove(filepath.Dir(s.path(id)))
	}()
	check := func(op string, kind Kind, payload []byte) {
		t.Helper()
		if got := Sum(kind, payload); got != id {
			t.Fatalf("%s returned a %v whose ID is %s, not %s", op, kind, got, id)
		}
	}

	kind, payload, getErr := s.Get(id)
	if getErr == nil {
		check("Get", kind, payload)
	} else if payload != nil {
		t.Fatalf("Get returned content with error %v", getErr)
	}

	info, vp, verr := s.Verify(id)
	if verr == nil {
		if getErr != nil {
			t.Fatalf("Verify passed but Get failed: %v", getErr)
		}
		if info.ID != id || info.Kind != kind || info.Size != uint64(len(payload)) {
			t.Fatalf("Verify info %+v, Get %v %d bytes", info, kind, len(payload))
		}
		if kind == KindTyped && !bytes.Equal(vp, payload) {
			t.Fatalf("Verify payload differs from Get")
		}
	} else if getErr == nil && !errors.Is(verr, ErrDecode) {
		t.Fatalf("Get passed but Verify failed: %v", verr)
	}

	r, oerr := s.Open(id)
	if oerr == nil {
		data, rerr := io.ReadAll(io.LimitReader(r, maxFuzzObject+1))
		r.Close()
		if rerr == nil {
			check("Open", r.Kind(), data)
			if getErr == nil && !bytes.Equal(data, payload) {
				t.Fatalf("Open and Get return different content")
			}
		}
	} else if getErr == nil {
		t.Fatalf("Get passed but Open failed: %v", oerr)
	}

	// Listing and resolving never read the content.
	ids, strays := listStore(t, s)
	if len(ids) != 1 || ids[0] != id || len(strays) != 0 {
		t.Fatalf("List = %v, %v", ids, strays)
	}
	if got, err := s.Resolve(id.String()[:8]); err != nil || got != id {
		t.Fatalf("Resolve = %s, %v", got, err)
	}
}

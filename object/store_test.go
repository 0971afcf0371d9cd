package object

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/zeebo/blake3"
)

func newTestStore(t testing.TB) *Store {
	t.Helper()
	return newTestStoreLevel(t, 0)
}

func newTestStoreLevel(t testing.TB, level int) *Store {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "objects")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := NewStore(dir, StoreOptions{CompressionLevel: level})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustPut(t testing.TB, s Putter, kind Kind, payload []byte) ID {
	t.Helper()
	id, err := s.Put(kind, payload)
	if err != nil {
		t.Fatalf("Put: %v", err)
	}
	return id
}

// writeObjectFile replaces the stored file of id with data, as a damaged
// disk or a buggy writer might.
func writeObjectFile(t testing.TB, s *Store, id ID, data []byte) {
	t.Helper()
	p := s.path(id)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readObjectFile(t testing.TB, s *Store, id ID) []byte {
	t.Helper()
	b, err := os.ReadFile(s.path(id))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// testEncoder compresses like a zstd tool would, independently of the
// store's encoders.
var testEncoder = sync.OnceValues(func() (*zstd.Encoder, error) {
	return zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
})

func zstdCompress(t testing.TB, b []byte) []byte {
	t.Helper()
	enc, err := testEncoder()
	if err != nil {
		t.Fatal(err)
	}
	return enc.EncodeAll(b, nil)
}

func listStore(t testing.TB, s *Store) ([]ID, []string) {
	t.Helper()
	ids, strays, err := s.List(context.Background())
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	return ids, strays
}

func TestStoreConformance(t *testing.T) {
	RunStoreTests(t, func(t *testing.T) ReadWriter { return newTestStore(t) })
}

func TestMemStoreConformance(t *testing.T) {
	RunStoreTests(t, func(t *testing.T) ReadWriter { return NewMemStore() })
}

func TestNewStore(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		dir     string
		level   int
		wantErr error // nil: any error
		ok      bool
	}{
		{"Default", dir, 0, nil, true},
		{"Fastest", dir, 1, nil, true},
		{"Smallest", dir, 22, nil, true},
		{"NegativeLevel", dir, -1, ErrInvalidArgument, false},
		{"LevelTooHigh", dir, 23, ErrInvalidArgument, false},
		{"Missing", filepath.Join(dir, "missing"), 0, fs.ErrNotExist, false},
		{"NotADirectory", file, 0, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewStore(tt.dir, StoreOptions{CompressionLevel: tt.level})
			if tt.ok {
				if err != nil || s.Dir() != tt.dir {
					t.Fatalf("NewStore = %v, %v", s, err)
				}
				return
			}
			if err == nil || s != nil {
				t.Fatalf("NewStore = %v, %v; want an error", s, err)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("NewStore error = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

// TestStoreCompressionLevel checks that the compression level changes the
// stored files but never the IDs, and that any level reads any file.
func TestStoreCompressionLevel(t *testing.T) {
	payloads := []struct {
		kind Kind
		data []byte
	}{
		{KindBlob, nil},
		{KindBlob, []byte("hello\n")},
		{KindBlob, bytes.Repeat([]byte("compressible text "), 5000)},
		{KindBlob, testPayload(3, 100_000)},
		{KindTyped, mustEncode(t, testObjects()[2])},
	}
	levels := []int{1, 3, 19}
	stores := make([]*Store, len(levels))
	for i, l := range levels {
		stores[i] = newTestStoreLevel(t, l)
	}
	for i, p := range payloads {
		want := Sum(p.kind, p.data)
		var files [][]byte
		for j, s := range stores {
			id := mustPut(t, s, p.kind, p.data)
			if id != want {
				t.Fatalf("payload %d at level %d: ID %s, want %s", i, levels[j], id, want)
			}
			files = append(files, readObjectFile(t, s, id))
		}
		// Every store reads the files written at every level.
		for j, f := range files {
			reader := stores[(j+1)%len(stores)]
			writeObjectFile(t, reader, want, f)
			kind, got, err := reader.Get(want)
			if err != nil || kind != p.kind || !bytes.Equal(got, p.data) {
				t.Errorf("payload %d: file of level %d read by another store: %v, %v", i, levels[j], kind, err)
			}
		}
	}
}

func TestStoreLayout(t *testing.T) {
	s := newTestStore(t)
	payload := []byte("hello\n")
	id := mustPut(t, s, KindBlob, payload)
	h := id.String()

	rel := RelPath(id)
	if want := "objects/" + h[:2] + "/" + h; rel != want {
		t.Errorf("RelPath = %q, want %q", rel, want)
	}
	p := filepath.Join(s.Dir(), h[:2], h)
	st, err := os.Lstat(p)
	if err != nil {
		t.Fatalf("object file not at objects/xx/<hex>: %v", err)
	}
	if !st.Mode().IsRegular() || st.Mode().Perm()&0o222 != 0 {
		t.Errorf("object file mode %v, want a read-only regular file", st.Mode())
	}
	stored, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(stored, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
		t.Fatalf("stored file starts with %x, want the zstd magic 28b52ffd", stored[:4])
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	canon, err := dec.DecodeAll(stored, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(canon, Canonical(KindBlob, payload)) {
		t.Errorf("stored file decompresses to %x, want the canonical bytes", canon)
	}
	if ID(blake3.Sum256(canon)) != id {
		t.Errorf("blake3 of the decompressed file differs from the ID")
	}

	// Nothing but the object: no temporary files, no other directories.
	var all []string
	err = filepath.WalkDir(s.Dir(), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(s.Dir(), path)
		all = append(all, filepath.ToSlash(r))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{".", h[:2], h[:2] + "/" + h}; !reflect.DeepEqual(all, want) {
		t.Errorf("store holds %v, want %v", all, want)
	}

	// Put of an object already stored leaves the file alone.
	before, _ := os.Lstat(p)
	mustPut(t, s, KindBlob, payload)
	after, _ := os.Lstat(p)
	if !os.SameFile(before, after) {
		t.Error("Put of a stored object replaced its file")
	}
}

// storedPair returns a store holding a blob and a typed object and their
// stored files.
func storedPair(t *testing.T) (s *Store, blob, typed ID) {
	t.Helper()
	s = newTestStore(t)
	blob = mustPut(t, s, KindBlob, bytes.Repeat([]byte("some text to compress. "), 50))
	typed = mustPut(t, s, KindTyped, mustEncode(t, testObjects()[2]))
	return s, blob, typed
}

// checkCorrupt checks that every read of id fails with want and returns no
// content.
func checkCorrupt(t *testing.T, s *Store, id ID, want error) {
	t.Helper()
	kind, payload, err := s.Get(id)
	if !errors.Is(err, want) || kind != KindInvalid || payload != nil {
		t.Errorf("Get = %v, %d bytes, %v; want %v and nothing", kind, len(payload), err, want)
	}
	var oe *Error
	if errors.As(err, &oe) && (oe.ID != id || oe.Path != RelPath(id)) {
		t.Errorf("Get error names %s at %q, want %s at %q", oe.ID.Short(), oe.Path, id.Short(), RelPath(id))
	} else if oe == nil {
		t.Errorf("Get error %v is not an *Error", err)
	}
	info, payload, err := s.Verify(id)
	if !errors.Is(err, want) || payload != nil {
		t.Errorf("Verify = %+v, %d bytes, %v; want %v and nothing", info, len(payload), err, want)
	}
	r, err := s.Open(id)
	if err == nil {
		data, rerr := io.ReadAll(r)
		r.Close()
		t.Errorf("Open succeeded and reading gave %d bytes, %v; want %v", len(data), rerr, want)
	} else if !errors.Is(err, ErrHashMismatch) && !errors.Is(err, ErrInvalidEnvelope) {
		t.Errorf("Open error = %v, want ErrHashMismatch or ErrInvalidEnvelope", err)
	}
	if err := GetTyped(s, id, new(Commit)); !errors.Is(err, want) {
		t.Errorf("GetTyped error = %v, want %v", err, want)
	}
	called := false
	if err := s.View(id, func(Kind, []byte) error { called = true; return nil }); !errors.Is(err, want) || called {
		t.Errorf("View error = %v, fn called %v; want %v, not called", err, called, want)
	}
	if ok, err := s.Has(id); !ok || err != nil {
		t.Errorf("Has = %v, %v; a corrupt object is still present", ok, err)
	}
}

func TestStoreCorruption(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, stored, other []byte) []byte
	}{
		{"FlipMiddleByte", func(t *testing.T, b, _ []byte) []byte { b[len(b)/2] ^= 0x40; return b }},
		{"FlipLastByte", func(t *testing.T, b, _ []byte) []byte { b[len(b)-1] ^= 1; return b }},
		{"FlipMagic", func(t *testing.T, b, _ []byte) []byte { b[0] ^= 1; return b }},
		{"TruncateHalf", func(t *testing.T, b, _ []byte) []byte { return b[:len(b)/2] }},
		{"TruncateOneByte", func(t *testing.T, b, _ []byte) []byte { return b[:len(b)-1] }},
		{"TruncateToHeader", func(t *testing.T, b, _ []byte) []byte { return b[:6] }},
		{"Empty", func(t *testing.T, b, _ []byte) []byte { return nil }},
		{"OtherObject", func(t *testing.T, _, other []byte) []byte { return other }},
		{"Garbage", func(t *testing.T, b, _ []byte) []byte { return testPayload(9, len(b)) }},
		{"GarbageAfterFrame", func(t *testing.T, b, _ []byte) []byte { return append(b, "garbage"...) }},
		{"SecondFrame", func(t *testing.T, b, _ []byte) []byte { return append(b, zstdCompress(t, []byte("more"))...) }},
		{"SkippableFrameOnly", func(t *testing.T, b, _ []byte) []byte { return []byte{0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0} }},
		{"UncompressedCanonical", func(t *testing.T, b, _ []byte) []byte {
			dec, _ := decompress(b)
			return dec
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, blob, typed := storedPair(t)
			blobFile, typedFile := readObjectFile(t, s, blob), readObjectFile(t, s, typed)
			writeObjectFile(t, s, blob, tt.damage(t, bytes.Clone(blobFile), typedFile))
			writeObjectFile(t, s, typed, tt.damage(t, bytes.Clone(typedFile), blobFile))
			t.Run("Blob", func(t *testing.T) { checkCorrupt(t, s, blob, ErrHashMismatch) })
			t.Run("Typed", func(t *testing.T) { checkCorrupt(t, s, typed, ErrHashMismatch) })
			// Put does not repair a damaged object (it is present), but a
			// fresh store does not care.
			if _, err := s.Put(KindBlob, []byte("unrelated")); err != nil {
				t.Errorf("Put into a store with a damaged object: %v", err)
			}
		})
	}
}

// TestStoreBitFlips flips every bit of a stored file in turn. Each read
// must fail or return exactly the right content: zstd may ignore a bit
// (say, of an unused header field), but the hash check must catch any
// change to the content.
func TestStoreBitFlips(t *testing.T) {
	s := newTestStore(t)
	payload := []byte("a small object, so that the test flips every bit of its file quickly")
	id := mustPut(t, s, KindBlob, payload)
	orig := readObjectFile(t, s, id)
	ignored := 0
	for i := 0; i < len(orig)*8; i++ {
		b := bytes.Clone(orig)
		b[i/8] ^= 1 << (i % 8)
		writeObjectFile(t, s, id, b)
		kind, got, err := s.Get(id)
		if err == nil {
			ignored++
			if kind != KindBlob || !bytes.Equal(got, payload) {
				t.Fatalf("bit %d: Get returned %v %q, want an error or the original content", i, kind, got)
			}
			continue
		}
		if !errors.Is(err, ErrHashMismatch) && !errors.Is(err, ErrTooLarge) {
			t.Errorf("bit %d: Get error = %v, want ErrHashMismatch (or ErrTooLarge for a damaged size field)", i, err)
		}
		if got != nil {
			t.Errorf("bit %d: Get returned content with its error", i)
		}
		if _, _, err := s.Verify(id); !errors.Is(err, ErrHashMismatch) && !errors.Is(err, ErrInvalidEnvelope) {
			t.Errorf("bit %d: Verify error = %v, want ErrHashMismatch", i, err)
		}
	}
	t.Logf("%d of %d bit flips left the content intact", ignored, len(orig)*8)
}

// TestStoreInvalidEnvelope stores files whose content hashes to their
// name but is not a valid envelope. Put never writes such a file, so they
// are made by hand.
func TestStoreInvalidEnvelope(t *testing.T) {
	good := Canonical(KindBlob, []byte("abc"))
	tests := []struct {
		name  string
		canon []byte
	}{
		{"BadMagic", append([]byte("XTXO1"), good[5:]...)},
		{"NextVersion", append([]byte("CTXO2"), good[5:]...)},
		{"BadKind", append(append([]byte(Magic), 7), good[6:]...)},
		{"LengthTooLong", append(AppendHeader(nil, KindBlob, 4), "abc"...)},
		{"LengthTooShort", append(AppendHeader(nil, KindBlob, 2), "abc"...)},
		{"ShortHeader", []byte(Magic)},
		{"Empty", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestStore(t)
			id := ID(blake3.Sum256(tt.canon))
			writeObjectFile(t, s, id, zstdCompress(t, tt.canon))
			checkCorrupt(t, s, id, ErrInvalidEnvelope)
			ids, strays := listStore(t, s)
			if !reflect.DeepEqual(ids, []ID{id}) || len(strays) != 0 {
				t.Errorf("List = %v, %v; want just the object", ids, strays)
			}
		})
	}
}

// sharedPrefixPayloads returns two blob payloads whose IDs share their
// first n hex digits, found by trying payloads in order.
func sharedPrefixPayloads(t testing.TB, n int) ([]byte, []byte) {
	t.Helper()
	seen := make(map[string][]byte)
	for i := 0; i < 1<<20; i++ {
		p := []byte(fmt.Sprintf("payload %d", i))
		pre := Sum(KindBlob, p).String()[:n]
		if q, ok := seen[pre]; ok {
			return q, p
		}
		seen[pre] = p
	}
	t.Fatal("no two payloads share a prefix")
	return nil, nil
}

func TestStoreResolve(t *testing.T) {
	s := newTestStore(t)
	p1, p2 := sharedPrefixPayloads(t, MinPrefix)
	a, b := mustPut(t, s, KindBlob, p1), mustPut(t, s, KindBlob, p2)
	c := mustPut(t, s, KindBlob, []byte("unique"))
	if a.Compare(b) > 0 {
		a, b = b, a
	}
	ah, ch := a.String(), c.String()
	// The shortest prefix that tells a from b.
	n := MinPrefix
	for ah[:n] == b.String()[:n] {
		n++
	}
	missing := Sum(KindBlob, []byte("missing"))
	// A temporary file whose name starts like c's ID is not an object.
	tmp := filepath.Join(s.Dir(), ch[:2], ch[:6]+"f.123.tmp")
	if err := os.WriteFile(tmp, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		prefix  string
		want    ID
		wantErr error
	}{
		{"Full", ah, a, nil},
		{"FullUpper", strings.ToUpper(ah), a, nil},
		{"Unique", ah[:n], a, nil},
		{"UniqueUpper", strings.ToUpper(ah[:n]), a, nil},
		{"MinPrefix", ch[:MinPrefix], c, nil},
		{"Long", ch[:63], c, nil},
		{"Ambiguous", ah[:MinPrefix], Zero, ErrAmbiguous},
		{"NoMatch", missing.String()[:8], Zero, ErrNotFound},
		{"FullMissing", missing.String(), Zero, ErrNotFound},
		{"OnlyTempFile", ch[:6] + "f", Zero, ErrNotFound},
		{"TooShort", ah[:MinPrefix-1], Zero, ErrInvalidID},
		{"Empty", "", Zero, ErrInvalidID},
		{"NonHex", "zzzz", Zero, ErrInvalidID},
		{"NonHexTail", ah[:8] + "g", Zero, ErrInvalidID},
		{"TooLong", ah + "0", Zero, ErrInvalidID},
		{"Space", " " + ah[:8], Zero, ErrInvalidID},
		{"PathTraversal", "../" + ah[:8], Zero, ErrInvalidID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Resolve(tt.prefix)
			if tt.wantErr == nil {
				if err != nil || got != tt.want {
					t.Fatalf("Resolve(%q) = %s, %v; want %s", tt.prefix, got, err, tt.want)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) || got != Zero {
				t.Fatalf("Resolve(%q) = %s, %v; want %v", tt.prefix, got, err, tt.wantErr)
			}
		})
	}

	t.Run("AmbiguousError", func(t *testing.T) {
		_, err := s.Resolve(strings.ToUpper(ah[:MinPrefix]))
		var ae *AmbiguousError
		if !errors.As(err, &ae) {
			t.Fatalf("error %v is not an *AmbiguousError", err)
		}
		if ae.Prefix != ah[:MinPrefix] {
			t.Errorf("Prefix = %q, want %q", ae.Prefix, ah[:MinPrefix])
		}
		if want := []ID{a, b}; !reflect.DeepEqual(ae.Candidates, want) {
			t.Errorf("Candidates = %v, want %v in order", ae.Candidates, want)
		}
		msg := ae.Error()
		if !strings.Contains(msg, a.String()) || !strings.Contains(msg, b.String()) || !strings.Contains(msg, "2 objects") {
			t.Errorf("Error() = %q, want both candidates", msg)
		}
	})
}

func TestStoreList(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	if ids, strays := listStore(t, s); len(ids) != 0 || len(strays) != 0 {
		t.Fatalf("empty store: List = %v, %v", ids, strays)
	}

	var want []ID
	for i := 0; i < 20; i++ {
		want = append(want, mustPut(t, s, KindBlob, []byte{byte(i)}))
	}
	slices.SortFunc(want, ID.Compare)
	ids, strays := listStore(t, s)
	if !reflect.DeepEqual(ids, want) || len(strays) != 0 {
		t.Fatalf("List = %v, %v; want %v and no strays", ids, strays, want)
	}

	// Now add everything that is not an object. Pick shard names that no
	// object uses.
	first := want[0].String()
	used := make(map[string]bool)
	for _, id := range want {
		used[id.String()[:2]] = true
	}
	var free []string
	for i := 0; i < 256 && len(free) < 3; i++ {
		if n := fmt.Sprintf("%02x", i); !used[n] {
			free = append(free, n)
		}
	}
	other, fileShard, emptyShard := free[0], free[1], free[2]
	write := func(rel string) {
		p := filepath.Join(filepath.Dir(s.Dir()), filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, rel := range []string{
		"objects/" + first[:2] + "/" + first + ".1234.tmp", // temporary object file
		"objects/incoming-99.tmp",                          // temporary stream file
		"objects/README",                                   // file at the top level
		"objects/" + fileShard,                             // file named like a shard
		"objects/zz/" + first,                              // non-hex directory
		"objects/AB/x",                                     // upper-case directory
		"objects/abc/x",                                    // three-letter directory
		"objects/" + other + "/" + first,                   // object in the wrong directory
		"objects/" + first[:2] + "/" + strings.ToUpper(first),
		"objects/" + first[:2] + "/" + first[:10],
	} {
		write(rel)
	}
	// Empty directories, as an aborted batch leaves, are not strays.
	if err := os.Mkdir(filepath.Join(s.Dir(), emptyShard), 0o755); err != nil {
		t.Fatal(err)
	}

	wantStrays := []string{
		"objects/AB",
		"objects/README",
		"objects/abc",
		"objects/" + fileShard,
		"objects/incoming-99.tmp",
		"objects/zz",
		"objects/" + first[:2] + "/" + first + ".1234.tmp",
		"objects/" + first[:2] + "/" + first[:10],
		"objects/" + first[:2] + "/" + strings.ToUpper(first),
		"objects/" + other + "/" + first,
	}
	slices.Sort(wantStrays)
	ids, strays = listStore(t, s)
	slices.Sort(strays)
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("List ids = %v, want %v", ids, want)
	}
	if !reflect.DeepEqual(strays, wantStrays) {
		t.Errorf("List strays =\n%q\nwant\n%q", strays, wantStrays)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := s.List(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("List with a cancelled context: %v, want context.Canceled", err)
	}
}

func TestStoreVerify(t *testing.T) {
	s := newTestStore(t)
	blobData := bytes.Repeat([]byte("x"), 1000)
	blob := mustPut(t, s, KindBlob, blobData)
	commit := mustEncode(t, testObjects()[2])
	typed := mustPut(t, s, KindTyped, commit)
	// Put does not check typed payloads, so a typed object can be
	// undecodable; Verify reports it.
	bad := mustPut(t, s, KindTyped, []byte("not cbor"))

	info, payload, err := s.Verify(blob)
	if err != nil || payload != nil {
		t.Fatalf("Verify(blob) = %+v, %x, %v", info, payload, err)
	}
	stored := int64(len(readObjectFile(t, s, blob)))
	if want := (Info{ID: blob, Kind: KindBlob, Size: 1000, Stored: stored}); info != want {
		t.Errorf("Verify(blob) info = %+v, want %+v", info, want)
	}

	info, payload, err = s.Verify(typed)
	if err != nil || !bytes.Equal(payload, commit) {
		t.Fatalf("Verify(typed) = %+v, %x, %v", info, payload, err)
	}
	if info.Kind != KindTyped || info.Type != "commit" || info.Size != uint64(len(commit)) || info.Stored <= 0 {
		t.Errorf("Verify(typed) info = %+v", info)
	}

	info, payload, err = s.Verify(bad)
	if !errors.Is(err, ErrDecode) || !bytes.Equal(payload, []byte("not cbor")) || info.Kind != KindTyped {
		t.Errorf("Verify(undecodable typed) = %+v, %q, %v; want the payload and ErrDecode", info, payload, err)
	}

	missing := Sum(KindBlob, []byte("missing"))
	if info, _, err := s.Verify(missing); !errors.Is(err, ErrNotFound) || info.ID != missing {
		t.Errorf("Verify(missing) = %+v, %v; want ErrNotFound", info, err)
	}
}

// TestStoreConcurrent puts the same and different objects from many
// goroutines into one Store and into two Stores on the same directory (as
// two processes would).
func TestStoreConcurrent(t *testing.T) {
	s := newTestStore(t)
	s2, err := NewStore(s.Dir(), StoreOptions{CompressionLevel: 1})
	if err != nil {
		t.Fatal(err)
	}
	const workers, objects = 16, 24
	payload := func(i int) []byte { return []byte(fmt.Sprintf("object %d", i)) }
	var wg sync.WaitGroup
	ids := make([][]ID, workers)
	errs := make([]error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := s
			if w%2 == 1 {
				st = s2
			}
			for i := 0; i < objects; i++ {
				// Half the objects are shared by all workers, half are
				// the worker's own.
				p := payload(i)
				if i%2 == 1 {
					p = payload(1000*(w+1) + i)
				}
				id, err := st.Put(KindBlob, p)
				if err != nil {
					errs[w] = err
					return
				}
				if _, got, err := st.Get(id); err != nil || !bytes.Equal(got, p) {
					errs[w] = fmt.Errorf("Get(%s) = %q, %v", id.Short(), got, err)
					return
				}
				ids[w] = append(ids[w], id)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	seen := make(map[ID]bool)
	for w := range ids {
		for _, id := range ids[w] {
			seen[id] = true
		}
	}
	if want := objects/2 + workers*objects/2; len(seen) != want {
		t.Errorf("%d distinct IDs, want %d", len(seen), want)
	}
	got, strays := listStore(t, s)
	if len(got) != len(seen) || len(strays) != 0 {
		t.Errorf("List: %d ids, strays %v; want %d ids and no strays", len(got), strays, len(seen))
	}
	for _, id := range got {
		if _, _, err := s.Verify(id); err != nil || !seen[id] {
			t.Errorf("Verify(%s) = %v (put: %v)", id.Short(), err, seen[id])
		}
	}
}

func TestErrorMessages(t *testing.T) {
	id := testID("x")
	tests := []struct {
		err  error
		want string
	}{
		{&Error{Op: "read", ID: id, Path: RelPath(id), Err: ErrNotFound}, "read " + RelPath(id) + ": " + ErrNotFound.Error()},
		{&Error{Op: "decode", ID: id, Err: ErrDecode}, "decode " + id.String() + ": " + ErrDecode.Error()},
		{&AmbiguousError{Prefix: "abcd", Candidates: []ID{id, Zero}}, "prefix abcd matches 2 objects: " + id.String() + " " + Zero.String()},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	if !errors.Is(&AmbiguousError{}, ErrAmbiguous) {
		t.Error("AmbiguousError does not unwrap to ErrAmbiguous")
	}
	if !errors.Is(&Error{Err: ErrHashMismatch}, ErrHashMismatch) {
		t.Error("Error does not unwrap")
	}
	// Every sentinel says which package it comes from.
	for _, e := range []error{ErrNotFound, ErrHashMismatch, ErrInvalidEnvelope, ErrDecode, ErrInvalidID, ErrAmbiguous, ErrInvalidArgument, ErrTooLarge} {
		if !strings.HasPrefix(e.Error(), "object: ") {
			t.Errorf("sentinel %q lacks the package prefix", e)
		}
	}
}

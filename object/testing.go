package object

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// RunStoreTests is the conformance suite of ReadWriter: every store
// implementation (Store, Batch, MemStore and those of other packages) runs
// it from its own tests. newStore is called once per subtest and must
// return an empty store; it may register cleanups on the t it is given, for
// example to commit a batch and check the result.
//
// The suite is named RunStoreTests rather than TestStore so that it is not
// mistaken for a test function and does not clash with the tests of Store.
func RunStoreTests(t *testing.T, newStore func(t *testing.T) ReadWriter) {
	t.Run("PutGetBlob", func(t *testing.T) { testPutGetBlob(t, newStore(t)) })
	t.Run("PutGetTyped", func(t *testing.T) { testPutGetTyped(t, newStore(t)) })
	t.Run("KindsDistinct", func(t *testing.T) { testKindsDistinct(t, newStore(t)) })
	t.Run("Dedup", func(t *testing.T) { testDedup(t, newStore(t)) })
	t.Run("Missing", func(t *testing.T) { testMissing(t, newStore(t)) })
	t.Run("InvalidArgument", func(t *testing.T) { testInvalidArgument(t, newStore(t)) })
	t.Run("WrongType", func(t *testing.T) { testWrongType(t, newStore(t)) })
	t.Run("PayloadCopied", func(t *testing.T) { testPayloadCopied(t, newStore(t)) })
	t.Run("Concurrent", func(t *testing.T) { testConcurrent(t, newStore(t)) })
}

// testPayload returns n deterministic pseudo-random bytes that do not
// compress well. Equal seeds and lengths give equal bytes.
func testPayload(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	b := make([]byte, n)
	for i := 0; i < n; {
		v := r.Uint64()
		for j := 0; j < 8 && i < n; j++ {
			b[i] = byte(v >> (8 * j))
			i++
		}
	}
	return b
}

func testID(s string) ID { return Sum(KindBlob, []byte(s)) }

// testObjects returns a tree, a commit and a work commit with every field
// set, for round-trip tests.
func testObjects() []Typed {
	build := testID("build")
	return []Typed{
		&Tree{},
		&Tree{Entries: []TreeEntry{
			{Name: "README.md", Kind: EntryBlob, ID: testID("readme")},
			{Name: "src", Kind: EntryTree, ID: testID("src")},
		}},
		&Commit{
			Parents:       []ID{testID("p1"), testID("p2")},
			TimestampUnix: 1700000000,
			Author:        "Ada <ada@example.com>",
			Message:       "merge: ünïcode ✓\n",
			RootTree:      testID("root"),
			EdgeBatches:   []ID{testID("edges")},
			NarrativeRefs: []NarrativeRef{
				{Path: "main/log.md", Stream: "main", Role: "log", BlobID: testID("log")},
			},
			BuildSnapshot: &build,
		},
		&WorkCommit{
			Parents:       []ID{testID("w0")},
			Base:          testID("base"),
			SessionID:     "s-1",
			CreatedAt:     -5,
			StepKind:      StepFileWrite,
			Payload:       []ID{testID("a"), testID("b")},
			NarrativeRefs: []NarrativeRef{{Path: "x/task.md", Stream: "x", Role: "task", BlobID: testID("task")}},
		},
	}
}

func testPutGetBlob(t *testing.T, s ReadWriter) {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	tests := []struct {
		name    string
		payload []byte
	}{
		{"Empty", nil},
		{"Hello", []byte("hello\n")},
		{"AllBytes", all},
		{"Random1MiB", testPayload(1, 1<<20)},
		{"Zeros1MiB", make([]byte, 1<<20)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := s.Put(KindBlob, tt.payload)
			if err != nil {
				t.Fatalf("Put: %v", err)
			}
			if want := Sum(KindBlob, tt.payload); id != want {
				t.Fatalf("Put returned %s, want Sum %s", id, want)
			}
			if ok, err := s.Has(id); err != nil || !ok {
				t.Fatalf("Has = %v, %v; want true, nil", ok, err)
			}
			kind, got, err := s.Get(id)
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			if kind != KindBlob {
				t.Errorf("Get kind = %v, want blob", kind)
			}
			if !bytes.Equal(got, tt.payload) {
				t.Errorf("Get returned %d bytes that differ from the %d put", len(got), len(tt.payload))
			}
		})
	}
}

func testPutGetTyped(t *testing.T, s ReadWriter) {
	for _, v := range testObjects() {
		t.Run(v.TypeName(), func(t *testing.T) {
			want, err := Encode(v)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			id, err := PutTyped(s, v)
			if err != nil {
				t.Fatalf("PutTyped: %v", err)
			}
			if id != Sum(KindTyped, want) {
				t.Fatalf("PutTyped returned %s, want Sum of the encoding %s", id, Sum(KindTyped, want))
			}
			kind, payload, err := s.Get(id)
			if err != nil || kind != KindTyped || !bytes.Equal(payload, want) {
				t.Fatalf("Get = %v, %x, %v; want typed, %x", kind, payload, err, want)
			}
			r, err := NewRegistry(CoreTypes()...)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := r.New(v.TypeName())
			if err := GetTyped(s, id, got); err != nil {
				t.Fatalf("GetTyped: %v", err)
			}
			re, err := Encode(got)
			if err != nil {
				t.Fatalf("Encode(GetTyped result): %v", err)
			}
			if !bytes.Equal(re, want) {
				t.Errorf("GetTyped result encodes to %x, want %x", re, want)
			}
		})
	}
}

func testKindsDistinct(t *testing.T, s ReadWriter) {
	payload, err := Encode(&Tree{})
	if err != nil {
		t.Fatal(err)
	}
	blob, err := s.Put(KindBlob, payload)
	if err != nil {
		t.Fatal(err)
	}
	typed, err := s.Put(KindTyped, payload)
	if err != nil {
		t.Fatal(err)
	}
	if blob == typed {
		t.Fatalf("blob and typed object with the same payload share ID %s", blob)
	}
	for _, c := range []struct {
		id   ID
		kind Kind
	}{{blob, KindBlob}, {typed, KindTyped}} {
		kind, got, err := s.Get(c.id)
		if err != nil || kind != c.kind || !bytes.Equal(got, payload) {
			t.Errorf("Get(%s) = %v, %x, %v; want %v, %x", c.id.Short(), kind, got, err, c.kind, payload)
		}
	}
}

func testDedup(t *testing.T, s ReadWriter) {
	payload := []byte("same bytes")
	first, err := s.Put(KindBlob, payload)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		id, err := s.Put(KindBlob, append([]byte(nil), payload...))
		if err != nil || id != first {
			t.Fatalf("Put #%d = %s, %v; want %s, nil", i+2, id, err, first)
		}
	}
	tid1, err := PutTyped(s, &Tree{})
	if err != nil {
		t.Fatal(err)
	}
	tid2, err := PutTyped(s, &Tree{Entries: []TreeEntry{}})
	if err != nil || tid2 != tid1 {
		t.Fatalf("PutTyped of an empty tree with nil and empty entries: %s, %s, %v; want equal IDs", tid1, tid2, err)
	}
	kind, got, err := s.Get(first)
	if err != nil || kind != KindBlob || !bytes.Equal(got, payload) {
		t.Fatalf("Get after dedup = %v, %q, %v", kind, got, err)
	}
}

func testMissing(t *testing.T, s ReadWriter) {
	if _, err := s.Put(KindBlob, []byte("present")); err != nil {
		t.Fatal(err)
	}
	for _, id := range []ID{Zero, Sum(KindBlob, []byte("absent")), Sum(KindTyped, []byte("present"))} {
		ok, err := s.Has(id)
		if err != nil || ok {
			t.Errorf("Has(%s) = %v, %v; want false, nil", id.Short(), ok, err)
		}
		kind, payload, err := s.Get(id)
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%s) error = %v, want ErrNotFound", id.Short(), err)
		}
		if kind != KindInvalid || payload != nil {
			t.Errorf("Get(%s) of a missing object returned %v, %x", id.Short(), kind, payload)
		}
		if err := GetTyped(s, id, new(Tree)); !errors.Is(err, ErrNotFound) {
			t.Errorf("GetTyped(%s) error = %v, want ErrNotFound", id.Short(), err)
		}
	}
}

func testInvalidArgument(t *testing.T, s ReadWriter) {
	for _, k := range []Kind{KindInvalid, 3, 255} {
		if id, err := s.Put(k, []byte("x")); !errors.Is(err, ErrInvalidArgument) || id != Zero {
			t.Errorf("Put(kind %d) = %s, %v; want zero ID, ErrInvalidArgument", k, id, err)
		}
	}
	bad := []Typed{
		&Tree{Entries: []TreeEntry{{Name: "b", Kind: EntryBlob, ID: testID("b")}, {Name: "a", Kind: EntryBlob, ID: testID("a")}}},
		&Commit{},
		&WorkCommit{Base: testID("base"), SessionID: "s"},
	}
	for _, v := range bad {
		if id, err := PutTyped(s, v); !errors.Is(err, ErrInvalidArgument) || id != Zero {
			t.Errorf("PutTyped(invalid %s) = %s, %v; want zero ID, ErrInvalidArgument", v.TypeName(), id, err)
		}
	}
}

func testWrongType(t *testing.T, s ReadWriter) {
	treeID, err := PutTyped(s, &Tree{})
	if err != nil {
		t.Fatal(err)
	}
	blobID, err := s.Put(KindBlob, []byte("not typed"))
	if err != nil {
		t.Fatal(err)
	}
	garbageID, err := s.Put(KindTyped, []byte{0xa1, 0x64, 't', 'r', 'e', 'e', 0x01})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		id   ID
		into Typed
	}{
		{"TreeAsCommit", treeID, new(Commit)},
		{"TreeAsWorkCommit", treeID, new(WorkCommit)},
		{"BlobAsTree", blobID, new(Tree)},
		{"GarbageAsTree", garbageID, new(Tree)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := GetTyped(s, tt.id, tt.into)
			if !errors.Is(err, ErrDecode) {
				t.Fatalf("GetTyped error = %v, want ErrDecode", err)
			}
			var oe *Error
			if !errors.As(err, &oe) || oe.ID != tt.id || oe.Op != "decode" {
				t.Errorf("GetTyped error = %#v, want an *Error with Op decode and the ID", err)
			}
		})
	}
}

func testPayloadCopied(t *testing.T, s ReadWriter) {
	payload := []byte("original")
	id, err := s.Put(KindBlob, payload)
	if err != nil {
		t.Fatal(err)
	}
	copy(payload, "mutated!")
	_, got, err := s.Get(id)
	if err != nil || string(got) != "original" {
		t.Fatalf("Get after mutating the Put argument = %q, %v; want %q", got, err, "original")
	}
	copy(got, "mutated!")
	_, again, err := s.Get(id)
	if err != nil || string(again) != "original" {
		t.Fatalf("Get after mutating an earlier Get result = %q, %v; want %q", again, err, "original")
	}
}

func testConcurrent(t *testing.T, s ReadWriter) {
	const workers, perWorker = 8, 16
	shared := func(i int) []byte { return []byte(fmt.Sprintf("shared %d", i)) }
	own := func(w, i int) []byte { return []byte(fmt.Sprintf("worker %d object %d", w, i)) }
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWorker; i++ {
				for _, p := range [][]byte{shared(i), own(w, i)} {
					id, err := s.Put(KindBlob, p)
					if err == nil && id != Sum(KindBlob, p) {
						err = fmt.Errorf("Put(%q) = %s, want %s", p, id, Sum(KindBlob, p))
					}
					if err == nil {
						var got []byte
						_, got, err = s.Get(id)
						if err == nil && !bytes.Equal(got, p) {
							err = fmt.Errorf("Get(%s) = %q, want %q", id.Short(), got, p)
						}
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i := 0; i < perWorker; i++ {
		ps := [][]byte{shared(i)}
		for w := 0; w < workers; w++ {
			ps = append(ps, own(w, i))
		}
		for _, p := range ps {
			if _, got, err := s.Get(Sum(KindBlob, p)); err != nil || !bytes.Equal(got, p) {
				t.Errorf("Get(%q) after the concurrent puts = %q, %v", p, got, err)
			}
		}
	}
}

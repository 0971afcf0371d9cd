package object

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestBatchConformance runs the suite against a batch, which must behave
// as a store before Commit; each subtest's cleanup then commits it and
// checks that exactly its objects reached the store.
func TestBatchConformance(t *testing.T) {
	RunStoreTests(t, func(t *testing.T) ReadWriter {
		s := newTestStore(t)
		b := s.NewBatch()
		t.Cleanup(func() {
			if ids, _ := listStore(t, s); len(ids) != 0 {
				t.Errorf("before Commit the store lists %d objects, want none", len(ids))
			}
			n := b.Len()
			if err := b.Commit(); err != nil {
				t.Fatalf("Commit: %v", err)
			}
			ids, strays := listStore(t, s)
			if len(ids) != n || len(strays) != 0 {
				t.Errorf("after Commit: %d objects and strays %v; want %d objects, no strays", len(ids), strays, n)
			}
			for _, id := range ids {
				if _, _, err := s.Get(id); err != nil {
					t.Errorf("Get(%s) after Commit: %v", id.Short(), err)
				}
			}
		})
		return b
	})
}

func TestBatchVisibility(t *testing.T) {
	s := newTestStore(t)
	stored := mustPut(t, s, KindBlob, []byte("already stored"))
	b := s.NewBatch()

	payloads := [][]byte{[]byte("one"), []byte("two"), nil}
	var ids []ID
	for _, p := range payloads {
		ids = append(ids, mustPut(t, b, KindBlob, p))
	}
	treeID, err := PutTyped(b, &Tree{})
	if err != nil {
		t.Fatal(err)
	}
	big := largeBlob()
	bigID, err := b.PutReader(KindBlob, bytes.NewReader(big), int64(len(big)))
	if err != nil {
		t.Fatal(err)
	}
	// Objects already in the store and repeats add nothing.
	if id := mustPut(t, b, KindBlob, []byte("already stored")); id != stored {
		t.Fatalf("Put of a stored object = %s, want %s", id, stored)
	}
	mustPut(t, b, KindBlob, []byte("one"))
	if id, err := b.PutReader(KindBlob, strings.NewReader("two"), 3); err != nil || id != ids[1] {
		t.Fatalf("PutReader of a pending object = %s, %v", id, err)
	}
	pending := append(slices.Clone(ids), treeID, bigID)
	if got, want := b.Len(), len(pending); got != want {
		t.Errorf("Len() = %d, want %d", got, want)
	}

	// Before Commit: the batch reads its objects, the store does not.
	for i, id := range pending {
		if ok, err := b.Has(id); !ok || err != nil {
			t.Errorf("Batch.Has(%s) = %v, %v", id.Short(), ok, err)
		}
		if _, _, err := b.Get(id); err != nil {
			t.Errorf("Batch.Get(%s): %v", id.Short(), err)
		}
		if i < len(payloads) {
			if _, got, _ := b.Get(id); !bytes.Equal(got, payloads[i]) {
				t.Errorf("Batch.Get(%s) = %q, want %q", id.Short(), got, payloads[i])
			}
		}
		if ok, err := s.Has(id); ok || err != nil {
			t.Errorf("Store.Has(%s) before Commit = %v, %v", id.Short(), ok, err)
		}
		if _, _, err := s.Get(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Store.Get(%s) before Commit: %v, want ErrNotFound", id.Short(), err)
		}
	}
	if err := GetTyped(b, treeID, new(Tree)); err != nil {
		t.Errorf("GetTyped from the batch: %v", err)
	}
	if _, got, err := b.Get(stored); err != nil || string(got) != "already stored" {
		t.Errorf("Batch.Get of a stored object = %q, %v", got, err)
	}
	if _, _, err := b.Get(testID("missing")); !errors.Is(err, ErrNotFound) {
		t.Errorf("Batch.Get(missing): %v, want ErrNotFound", err)
	}
	if ids, strays := listStore(t, s); len(ids) != 1 || len(strays) != len(pending) {
		t.Errorf("before Commit List = %v, %v; want the stored object and %d temporary files", ids, strays, len(pending))
	}

	if err := b.Commit(); err != nil {
		t.Fatalf("Commit: %v", err)
	}

	// After Commit: everything is in the store, nothing else is.
	for _, id := range pending {
		if _, _, err := s.Verify(id); err != nil {
			t.Errorf("Store.Verify(%s) after Commit: %v", id.Short(), err)
		}
		if _, _, err := b.Get(id); err != nil {
			t.Errorf("Batch.Get(%s) after Commit: %v", id.Short(), err)
		}
	}
	want := append(slices.Clone(pending), stored)
	slices.SortFunc(want, ID.Compare)
	got, strays := listStore(t, s)
	if !slices.Equal(got, want) || len(strays) != 0 {
		t.Errorf("after Commit List = %v, %v; want %v and no strays", got, strays, want)
	}
	if b.Len() != 0 {
		t.Errorf("Len() after Commit = %d, want 0", b.Len())
	}

	// A finished batch refuses more work.
	if _, err := b.Put(KindBlob, []byte("late")); err == nil {
		t.Error("Put after Commit succeeded")
	}
	if _, err := b.PutReader(KindBlob, strings.NewReader("late"), 4); err == nil {
		t.Error("PutReader after Commit succeeded")
	}
	if err := b.Commit(); err == nil {
		t.Error("second Commit succeeded")
	}
	if ok, _ := s.Has(Sum(KindBlob, []byte("late"))); ok {
		t.Error("Put after Commit stored an object")
	}
	checkNoTemp(t, s)
}

func TestBatchAbort(t *testing.T) {
	s := newTestStore(t)
	b := s.NewBatch()
	var ids []ID
	for i := 0; i < 10; i++ {
		ids = append(ids, mustPut(t, b, KindBlob, []byte(fmt.Sprintf("object %d", i))))
	}
	big := largeBlob()
	if _, err := b.PutReader(KindBlob, bytes.NewReader(big), int64(len(big))); err != nil {
		t.Fatal(err)
	}
	b.Abort()
	if ids, strays := listStore(t, s); len(ids) != 0 || len(strays) != 0 {
		t.Errorf("after Abort List = %v, %v; want nothing", ids, strays)
	}
	checkNoTemp(t, s)
	for _, id := range ids {
		if _, _, err := b.Get(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Batch.Get(%s) after Abort: %v, want ErrNotFound", id.Short(), err)
		}
	}
	if err := b.Commit(); err == nil {
		t.Error("Commit after Abort succeeded")
	}
	if _, err := b.Put(KindBlob, []byte("late")); err == nil {
		t.Error("Put after Abort succeeded")
	}
	b.Abort() // a second Abort is harmless
	if ids, strays := listStore(t, s); len(ids) != 0 || len(strays) != 0 {
		t.Errorf("List = %v, %v; want nothing", ids, strays)
	}
}

func TestBatchEmptyCommit(t *testing.T) {
	s := newTestStore(t)
	b := s.NewBatch()
	if err := b.Commit(); err != nil {
		t.Fatalf("Commit of an empty batch: %v", err)
	}
	if ids, strays := listStore(t, s); len(ids) != 0 || len(strays) != 0 {
		t.Errorf("List = %v, %v", ids, strays)
	}
}

func TestBatchInvalidArgument(t *testing.T) {
	s := newTestStore(t)
	b := s.NewBatch()
	if _, err := b.Put(KindInvalid, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("Put(KindInvalid): %v, want ErrInvalidArgument", err)
	}
	if _, err := b.PutReader(KindBlob, strings.NewReader("abc"), 4); err == nil {
		t.Error("PutReader of a short reader succeeded")
	}
	// Neither poisons the batch.
	id := mustPut(t, b, KindBlob, []byte("fine"))
	if err := b.Commit(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if ok, _ := s.Has(id); !ok {
		t.Error("object missing after Commit")
	}
	checkNoTemp(t, s)
}

// TestBatchConcurrentCommit runs two batches that share objects and commit
// at the same time.
func TestBatchConcurrentCommit(t *testing.T) {
	s := newTestStore(t)
	const batches, objects = 4, 20
	var wg sync.WaitGroup
	errs := make([]error, batches)
	for i := 0; i < batches; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := s.NewBatch()
			for j := 0; j < objects; j++ {
				p := []byte(fmt.Sprintf("shared %d", j))
				if j%2 == 1 {
					p = []byte(fmt.Sprintf("batch %d object %d", i, j))
				}
				if _, err := b.Put(KindBlob, p); err != nil {
					errs[i] = err
					return
				}
			}
			errs[i] = b.Commit()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	ids, strays := listStore(t, s)
	if want := objects/2 + batches*objects/2; len(ids) != want || len(strays) != 0 {
		t.Errorf("List: %d ids, strays %v; want %d and none", len(ids), strays, want)
	}
}

package object

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// packStore is a store with blobs of several sizes and a typed object,
// and the payloads by id.
func packStore(t *testing.T) (*Store, map[ID][]byte) {
	t.Helper()
	s := newTestStore(t)
	want := map[ID][]byte{}
	for i := range 40 {
		p := bytes.Repeat([]byte(fmt.Sprintf("blob %d ", i)), 1+i*37)
		id, err := s.Put(KindBlob, p)
		if err != nil {
			t.Fatal(err)
		}
		want[id] = p
	}
	id, err := PutTyped(s, &Tree{})
	if err != nil {
		t.Fatal(err)
	}
	_, p, err := s.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	want[id] = p
	return s, want
}

func ids(m map[ID][]byte) []ID {
	var out []ID
	for id := range m {
		out = append(out, id)
	}
	slices.SortFunc(out, func(a, b ID) int { return a.Compare(b) })
	return out
}

func TestPackRoundTrip(t *testing.T) {
	s, want := packStore(t)
	all := ids(want)
	res, err := s.WritePack(all)
	if err != nil {
		t.Fatal(err)
	}
	if res.Objects != len(all) || res.Name == "" || res.Bytes <= 0 {
		t.Fatalf("pack result %+v", res)
	}
	// The loose copies are gone; everything reads from the pack.
	for _, id := range all {
		if _, err := os.Lstat(s.path(id)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s still loose: %v", id.Short(), err)
		}
	}
	s2, err := NewStore(s.Dir(), StoreOptions{}) // a new process
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []*Store{s, s2} {
		for id, p := range want {
			if ok, err := st.Has(id); !ok || err != nil {
				t.Fatalf("Has(%s) = %v, %v", id.Short(), ok, err)
			}
			_, got, err := st.Get(id)
			if err != nil || !bytes.Equal(got, p) {
				t.Fatalf("Get(%s): %v", id.Short(), err)
			}
			info, _, err := st.Verify(id)
			if err != nil || info.Stored <= 0 {
				t.Fatalf("Verify(%s) = %+v, %v", id.Short(), info, err)
			}
			r, err := st.Open(id)
			if err != nil {
				t.Fatalf("Open(%s): %v", id.Short(), err)
			}
			streamed, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(streamed, p) {
				t.Fatalf("Open(%s) read: %v", id.Short(), err)
			}
			if got, err := st.Resolve(id.String()[:12]); err != nil || got != id {
				t.Fatalf("Resolve(%s) = %s, %v", id.String()[:12], got.Short(), err)
			}
		}
		listed, strays, err := st.List(context.Background())
		if err != nil || !slices.Equal(listed, all) || len(strays) != 0 {
			t.Fatalf("List: %d ids (want %d), strays %v, %v", len(listed), len(all), strays, err)
		}
		if errs := st.VerifyPacks(); len(errs) > 0 {
			t.Fatalf("VerifyPacks: %v", errs)
		}
		if n, b, err := st.Usage(context.Background()); err != nil || n != len(all) || b <= 0 {
			t.Fatalf("Usage = %d, %d, %v", n, b, err)
		}
	}
	// A new loose object beside the pack; a second pack of it.
	id, err := s.Put(KindBlob, []byte("after the pack"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.WritePack([]ID{id}); err != nil {
		t.Fatal(err)
	}
	if packs, err := s.Packs(); err != nil || len(packs) != 2 {
		t.Fatalf("Packs = %+v, %v", packs, err)
	}
	if _, got, err := s2.Get(id); err != nil || string(got) != "after the pack" {
		t.Fatalf("a pack written after the store was opened: %v", err)
	}
	// Writing an object that is packed does not duplicate it loose.
	b := s.NewBatch()
	if _, err := b.Put(KindBlob, want[all[0]]); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(s.path(all[0])); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a batch wrote a loose copy of a packed object")
	}
	// Packing again packs nothing new: the objects are not loose.
	if res, err := s.WritePack(all); err != nil || res.Objects != 0 {
		t.Errorf("repack of packed objects: %+v, %v", res, err)
	}
}

// TestPackDamage flips bytes of the pack and of its index: reads of the
// damaged object fail with ErrHashMismatch, VerifyPacks reports both.
func TestPackDamage(t *testing.T) {
	s, want := packStore(t)
	base, pack := packAll(t, s, want)
	pack[len(packMagic)+3] ^= 0xff // inside the first entry
	rewrite(t, base+".pack", pack)
	first := ids(want)[0]
	s2, _ := NewStore(s.Dir(), StoreOptions{})
	if _, _, err := s2.Get(first); !errors.Is(err, ErrHashMismatch) {
		t.Errorf("Get of a damaged packed object: %v, want ErrHashMismatch", err)
	}
	if errs := s2.VerifyPacks(); len(errs) != 1 || !errors.Is(errs[0], ErrPackCorrupt) {
		t.Errorf("VerifyPacks = %v", errs)
	}
	idx, err := os.ReadFile(base + ".idx")
	if err != nil {
		t.Fatal(err)
	}
	idx[len(idx)-1] ^= 1
	rewrite(t, base+".idx", idx)
	s3, _ := NewStore(s.Dir(), StoreOptions{})
	if errs := s3.VerifyPacks(); len(errs) != 1 || !errors.Is(errs[0], ErrPackCorrupt) {
		t.Errorf("VerifyPacks of a damaged index = %v", errs)
	}
}

// TestPackStrays: a .pack without its .idx (a crash between the two) and
// a temporary file are strays, and the objects stay readable loose.
func TestPackStrays(t *testing.T) {
	s, want := packStore(t)
	dir := filepath.Join(s.Dir(), "pack")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"pack-" + string(bytes.Repeat([]byte("ab"), 32)) + ".pack", "pack-123.tmp"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	listed, strays, err := s.List(context.Background())
	if err != nil || len(listed) != len(want) || len(strays) != 2 {
		t.Fatalf("List: %d ids, strays %v, %v", len(listed), strays, err)
	}
}

func TestParsePackIndexErrors(t *testing.T) {
	s, want := packStore(t)
	res, err := s.WritePack(ids(want))
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(s.Dir(), "pack", "pack-"+res.Name+".idx"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parsePackIndex(res.Name, "x", good); err != nil {
		t.Fatal(err)
	}
	swap := slices.Clone(good)
	copy(swap[idxHeader:], good[idxHeader+IDSize:idxHeader+2*IDSize]) // ids out of order
	copy(swap[idxHeader+IDSize:], good[idxHeader:idxHeader+IDSize])
	for name, b := range map[string][]byte{
		"empty":     nil,
		"magic":     append([]byte("CTXIDX02"), good[8:]...),
		"truncated": good[:len(good)-1],
	} {
		if _, err := parsePackIndex(res.Name, "x", b); !errors.Is(err, ErrPackCorrupt) {
			t.Errorf("%s: %v, want ErrPackCorrupt", name, err)
		}
	}
	// Out of order ids parse (a lookup checks nothing it does not read);
	// checkEntries, which verify runs, finds them.
	p, err := parsePackIndex(res.Name, "x", swap)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.checkEntries(); !errors.Is(err, ErrPackCorrupt) {
		t.Errorf("checkEntries of unsorted ids: %v", err)
	}
}

// FuzzPackIndex: parsePackIndex never panics, and an index it accepts
// finds each of its ids where it lists it.
func FuzzPackIndex(f *testing.F) {
	s := newTestStore(f)
	var all []ID
	for i := range 5 {
		id, err := s.Put(KindBlob, []byte{byte(i)})
		if err != nil {
			f.Fatal(err)
		}
		all = append(all, id)
	}
	res, err := s.WritePack(all)
	if err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(s.Dir(), "pack", "pack-"+res.Name+".idx"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(idxMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := parsePackIndex("x", "x", b)
		if err != nil || p.checkEntries() != nil {
			return
		}
		for i := range p.count {
			if got := p.find(ID(p.id(i))); got != i {
				t.Fatalf("find(id %d) = %d", i, got)
			}
		}
	})
}

// TestDamagedIndexSkipped: an index that does not parse is skipped, not
// fatal: the store still reads its other objects and writes new ones,
// and VerifyPacks reports it.
func TestDamagedIndexSkipped(t *testing.T) {
	s, want := packStore(t)
	all := ids(want)
	res, err := s.WritePack(all[:10])
	if err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(s.Dir(), "pack", "pack-"+res.Name+".idx")
	b, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	b[len(idxMagic)+4+255*4+3] ^= 0xff // the fan-out table's last entry
	if err := os.Chmod(idx, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(idx, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s2, err := NewStore(s.Dir(), StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, got, err := s2.Get(all[20]); err != nil || !bytes.Equal(got, want[all[20]]) {
		t.Fatalf("a loose object beside a damaged pack: %v", err)
	}
	if _, err := s2.Put(KindBlob, []byte("new after the damage")); err != nil {
		t.Fatalf("a write beside a damaged pack: %v", err)
	}
	if _, _, err := s2.Get(all[0]); !errors.Is(err, ErrNotFound) {
		t.Errorf("an object only in the damaged pack: %v, want ErrNotFound", err)
	}
	if errs := s2.VerifyPacks(); len(errs) != 1 || !errors.Is(errs[0], ErrPackCorrupt) {
		t.Errorf("VerifyPacks = %v", errs)
	}
}

// TestPutFreshens: writing an object that is already stored refreshes
// its file's time, so that gc's margin counts from the last writer.
func TestPutFreshens(t *testing.T) {
	s := newTestStore(t)
	id, err := s.Put(KindBlob, []byte("again"))
	if err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, put := range []func() error{
		func() error { _, err := s.Put(KindBlob, []byte("again")); return err },
		func() error {
			b := s.NewBatch()
			if _, err := b.Put(KindBlob, []byte("again")); err != nil {
				return err
			}
			return b.Commit()
		},
	} {
		if err := os.Chtimes(s.path(id), old, old); err != nil {
			t.Fatal(err)
		}
		if err := put(); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(s.path(id))
		if err != nil {
			t.Fatal(err)
		}
		if !st.ModTime().After(old.AddDate(1, 0, 0)) {
			t.Errorf("modification time still %v after a second write", st.ModTime())
		}
	}
}

// TestPackBatch: a pack batch holds its objects in one file, readable
// from the batch before Commit, visible in the store only after, and
// gone after Abort.
func TestPackBatch(t *testing.T) {
	s := newTestStore(t)
	b := s.NewPackBatch()
	if b.pack == nil {
		t.Fatal("no pack batch")
	}
	want := map[ID][]byte{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				p := []byte(fmt.Sprintf("object %d of writer %d", i, w))
				id, err := b.Put(KindBlob, p)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				want[id] = p
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	// A streamed object stays loose.
	loose, err := b.PutReader(KindBlob, bytes.NewReader([]byte("streamed")), 8)
	if err != nil {
		t.Fatal(err)
	}
	if b.Len() != len(want)+1 {
		t.Fatalf("Len = %d, want %d", b.Len(), len(want)+1)
	}
	for id, p := range want {
		if ok, _ := b.Has(id); !ok {
			t.Fatalf("batch Has(%s) = false", id.Short())
		}
		if _, got, err := b.Get(id); err != nil || !bytes.Equal(got, p) {
			t.Fatalf("batch Get(%s): %v", id.Short(), err)
		}
		if ok, _ := s.Has(id); ok {
			t.Fatalf("%s visible before Commit", id.Short())
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	s2, _ := NewStore(s.Dir(), StoreOptions{})
	for id, p := range want {
		if _, got, err := s2.Get(id); err != nil || !bytes.Equal(got, p) {
			t.Fatalf("after Commit, Get(%s): %v", id.Short(), err)
		}
	}
	if _, err := os.Lstat(s2.path(loose)); err != nil {
		t.Fatalf("the streamed object is not loose: %v", err)
	}
	packs, err := s2.Packs()
	if err != nil || len(packs) != 1 || packs[0].Objects != len(want) {
		t.Fatalf("Packs = %+v, %v", packs, err)
	}
	if errs := s2.VerifyPacks(); len(errs) > 0 {
		t.Fatal(errs)
	}
	if _, strays, _ := s2.List(context.Background()); len(strays) != 0 {
		t.Fatalf("strays after Commit: %v", strays)
	}
	// Abort leaves nothing.
	b = s.NewPackBatch()
	id, err := b.Put(KindBlob, []byte("never committed"))
	if err != nil {
		t.Fatal(err)
	}
	b.Abort()
	if ok, _ := s.Has(id); ok {
		t.Fatal("an aborted batch's object is visible")
	}
	if _, strays, _ := s.List(context.Background()); len(strays) != 0 {
		t.Fatalf("strays after Abort: %v", strays)
	}
}

// TestPackedReadFallsBackToLoose damages a pack entry of an object that
// also has a loose copy: a read, which tries the pack first, serves the
// loose copy; another, without the loose copy, reports the damage.
func TestPackedReadFallsBackToLoose(t *testing.T) {
	s, want := packStore(t)
	first := ids(want)[0]
	loose, err := os.ReadFile(s.path(first))
	if err != nil {
		t.Fatal(err)
	}
	base, pack := packAll(t, s, want)
	off, n := func() (int64, int) {
		ps, err := s.packList(fullReload)
		if err != nil || len(ps) != 1 {
			t.Fatalf("packs: %v %v", ps, err)
		}
		return ps[0].entry(ps[0].find(first))
	}()
	pack[off+int64(n)/2] ^= 0xff
	rewrite(t, base+".pack", pack)
	writeLoose(t, s, first, loose)
	s2, _ := NewStore(s.Dir(), StoreOptions{})
	if _, p, err := s2.Get(first); err != nil || !bytes.Equal(p, want[first]) {
		t.Fatalf("Get with a damaged pack entry and a loose copy: %v", err)
	}
	if err := os.Remove(s.path(first)); err != nil {
		t.Fatal(err)
	}
	s3, _ := NewStore(s.Dir(), StoreOptions{})
	if _, _, err := s3.Get(first); !errors.Is(err, ErrHashMismatch) {
		t.Fatalf("Get of a damaged packed object: %v, want ErrHashMismatch", err)
	}
}

// packAll packs the objects of want and returns the pack's path less its
// extension, and the .pack's bytes.
func packAll(t *testing.T, s *Store, want map[ID][]byte) (string, []byte) {
	t.Helper()
	res, err := s.WritePack(ids(want))
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(s.Dir(), "pack", "pack-"+res.Name)
	pack, err := os.ReadFile(base + ".pack")
	if err != nil {
		t.Fatal(err)
	}
	return base, pack
}

// rewrite replaces the content of a read-only file (a pack's).
func rewrite(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPackedReadsConcurrent reads every packed object from several
// goroutines at once: they share the .pack's open file.
func TestPackedReadsConcurrent(t *testing.T) {
	s, want := packStore(t)
	packAll(t, s, want)
	s2, err := NewStore(s.Dir(), StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id, p := range want {
				if _, got, err := s2.Get(id); err != nil || !bytes.Equal(got, p) {
					errs <- fmt.Errorf("Get %s: %v", id.Short(), err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestVerifyLooseCopyOfPacked damages the loose copy of an object that a
// pack holds too: Get serves the pack's copy, and Verify, which checks
// the loose copy as every reader but Get takes it first, reports it.
func TestVerifyLooseCopyOfPacked(t *testing.T) {
	s, want := packStore(t)
	id := ids(want)[0]
	loose, err := os.ReadFile(s.path(id))
	if err != nil {
		t.Fatal(err)
	}
	packAll(t, s, want)
	loose[len(loose)/2] ^= 0xff
	writeLoose(t, s, id, loose)
	s2, _ := NewStore(s.Dir(), StoreOptions{})
	if _, p, err := s2.Get(id); err != nil || !bytes.Equal(p, want[id]) {
		t.Fatalf("Get: %v", err)
	}
	if _, _, err := s2.Verify(id); !errors.Is(err, ErrHashMismatch) {
		t.Fatalf("Verify of a damaged loose copy: %v, want ErrHashMismatch", err)
	}
}

// TestPackOpenRetried: a .pack that cannot be opened (moved away for a
// moment, or no file descriptor left) fails a read; once it can, the next
// read opens it.
func TestPackOpenRetried(t *testing.T) {
	s, want := packStore(t)
	base, _ := packAll(t, s, want)
	s2, _ := NewStore(s.Dir(), StoreOptions{})
	id := ids(want)[0]
	if err := os.Rename(base+".pack", base+".away"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s2.Get(id); err == nil {
		t.Fatal("Get without the .pack succeeded")
	}
	if err := os.Rename(base+".away", base+".pack"); err != nil {
		t.Fatal(err)
	}
	if _, p, err := s2.Get(id); err != nil || !bytes.Equal(p, want[id]) {
		t.Fatalf("Get once the .pack is back: %v", err)
	}
	if runtime.GOOS != "linux" {
		return
	}
	// Out of file descriptors while the pack is listed: the open fails,
	// and is not remembered as failed. (s3 must not share s2's index,
	// whose .pack is open.)
	forgetOpenedPacks()
	s3, _ := NewStore(s.Dir(), StoreOptions{})
	if _, err := s3.packList(fullReload); err != nil {
		t.Fatal(err)
	}
	// The lowest free descriptor is the next one an open gets: a limit
	// there leaves none.
	probe, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	fd := probe.Fd()
	probe.Close()
	restore := limitFiles(t, fd)
	_, _, err = s3.Get(id)
	restore()
	if err == nil {
		t.Skip("the read needed no new file descriptor")
	}
	if _, p, err := s3.Get(id); err != nil || !bytes.Equal(p, want[id]) {
		t.Fatalf("Get once descriptors are free again: %v", err)
	}
}

// forgetOpenedPacks makes the next store map its packs anew, as a new
// process would.
func forgetOpenedPacks() {
	openedPacks.Lock()
	defer openedPacks.Unlock()
	clear(openedPacks.m)
}

// TestPackIndexShared opens one store many times, as ctx mcp does for
// each request: every store shares one mapping of each pack index and
// one open .pack. A file replaced at the pack's path is mapped anew, and
// one written over in place, even within one tick of the file clock, is
// checked again.
func TestPackIndexShared(t *testing.T) {
	s, want := packStore(t)
	base, _ := packAll(t, s, want)
	id := ids(want)[0]
	var first *packIndex
	for i := range 50 {
		si, err := NewStore(s.Dir(), StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, p, err := si.Get(id); err != nil || !bytes.Equal(p, want[id]) {
			t.Fatalf("store %d: Get: %v", i, err)
		}
		packs, err := si.packList(noReload)
		if err != nil || len(packs) != 1 {
			t.Fatalf("store %d: %d packs, %v", i, len(packs), err)
		}
		if first == nil {
			first = packs[0]
		} else if packs[0] != first {
			t.Fatalf("store %d mapped the pack index again", i)
		}
	}

	// The same bytes in a new file (another inode): mapped anew.
	idx, err := os.ReadFile(base + ".idx")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(base + ".idx"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(base+".idx", idx, 0o444); err != nil {
		t.Fatal(err)
	}
	s2, _ := NewStore(s.Dir(), StoreOptions{})
	packs, err := s2.packList(noReload)
	if err != nil || len(packs) != 1 || packs[0] == first {
		t.Fatalf("a replaced index: %d packs, %v, shared %v", len(packs), err, len(packs) == 1 && packs[0] == first)
	}
	if _, p, err := s2.Get(id); err != nil || !bytes.Equal(p, want[id]) {
		t.Fatalf("Get through the new mapping: %v", err)
	}

	// Written over in place, its time set back: the header is checked
	// again, and the damaged index is skipped (the objects are loose).
	st, err := os.Stat(base + ".idx")
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(idx)
	copy(bad, "CTXIDX99")
	rewrite(t, base+".idx", bad)
	if err := os.Chtimes(base+".idx", st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	s3, _ := NewStore(s.Dir(), StoreOptions{})
	if packs, err := s3.packList(noReload); err != nil || len(packs) != 0 {
		t.Fatalf("an index damaged in place: %d packs, %v; want it skipped", len(packs), err)
	}
}

// writeLoose writes data as the loose file of id, as a store writes it
// (read-only).
func writeLoose(t *testing.T, s *Store, id ID, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(s.path(id)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.path(id), data, 0o444); err != nil {
		t.Fatal(err)
	}
}

// TestView checks that View lends the bytes Get returns, loose and
// packed, whatever the sizes of the objects read before (its buffers are
// reused), and passes fn's error back.
func TestView(t *testing.T) {
	s := newTestStore(t)
	var ids []ID
	var want [][]byte
	for _, n := range []int{1 << 16, 10, 1 << 20, 0, 3000, 1 << 12, 5 << 20, 7} {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(i*7 + n)
		}
		ids = append(ids, mustPut(t, s, KindBlob, p))
		want = append(want, p)
	}
	typed := mustPut(t, s, KindTyped, mustEncode(t, testObjects()[2]))
	check := func(stage string) {
		t.Helper()
		for round := range 2 { // the second round reads into grown buffers
			for i, id := range ids {
				err := s.View(id, func(k Kind, p []byte) error {
					if k != KindBlob || !bytes.Equal(p, want[i]) {
						t.Errorf("%s, round %d: View(%s) = %v, %d bytes; want blob, %d bytes", stage, round, id.Short(), k, len(p), len(want[i]))
					}
					return nil
				})
				if err != nil {
					t.Errorf("%s: View(%s): %v", stage, id.Short(), err)
				}
			}
			var c Commit
			if err := GetTyped(s, typed, &c); err != nil || !reflect.DeepEqual(&c, testObjects()[2].(*Commit)) {
				t.Errorf("%s: GetTyped through View = %+v, %v", stage, c, err)
			}
		}
	}
	check("loose")
	if _, err := s.WritePack(append(slices.Clone(ids), typed)); err != nil {
		t.Fatal(err)
	}
	check("packed")

	stop := errors.New("stop")
	if err := s.View(ids[0], func(Kind, []byte) error { return stop }); err != stop {
		t.Errorf("View returned %v, want fn's error as is", err)
	}
	if err := s.View(Sum(KindBlob, []byte("absent")), func(Kind, []byte) error { return nil }); !errors.Is(err, ErrNotFound) {
		t.Errorf("View of a missing object: %v, want ErrNotFound", err)
	}
}

// TestViewBufsPut checks that a buffer grown past maxPooled is not kept.
func TestViewBufsPut(t *testing.T) {
	b := &viewBufs{stored: make([]byte, 0, maxPooled+1), canon: make([]byte, 0, maxPooled)}
	b.put()
	if b.stored != nil || cap(b.canon) != maxPooled {
		t.Errorf("after put: stored cap %d, canon cap %d; want the large one dropped, the other kept", cap(b.stored), cap(b.canon))
	}
}

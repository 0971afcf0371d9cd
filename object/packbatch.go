package object

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/zeebo/blake3"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/fault"
)

// packBatch is where a batch made by NewPackBatch writes its objects: one
// temporary pack file, appended to, instead of a file per object. Commit
// makes it a pack (FORMAT.md §3.4) by writing its index: the objects
// become visible all at once, when the index is renamed into place.
type packBatch struct {
	mu      sync.Mutex
	f       *os.File
	h       *blake3.Hasher // of the bytes written, in file order
	off     int64
	entries map[ID]packEntry
	err     error
}

type packEntry struct {
	off int64
	n   int
}

// NewPackBatch starts a batch that writes its objects into a new pack
// rather than as loose files: for a large import (the first ctx add code
// of a project writes tens of thousands of objects), one file instead of
// one per object. Objects larger than MaxPackedObject stored, and those
// written with PutReader, stay loose. It falls back to loose files when
// the pack cannot be created.
func (s *Store) NewPackBatch() *Batch {
	b := s.NewBatch()
	if err := atomicfile.MkdirAll(s.packPath()); err != nil {
		return b
	}
	f, err := os.CreateTemp(s.packPath(), "pack-*.tmp")
	if err != nil {
		return b
	}
	pb := &packBatch{f: f, h: blake3.New(), entries: map[ID]packEntry{}}
	if _, err := f.WriteString(packMagic); err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return b
	}
	_, _ = pb.h.Write([]byte(packMagic))
	pb.off = int64(len(packMagic))
	b.pack = pb
	return b
}

// add appends an object's stored bytes to the pack.
func (pb *packBatch) add(id ID, stored []byte) error {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	if pb.err != nil {
		return pb.err
	}
	if _, err := pb.f.Write(stored); err != nil {
		pb.err = fmt.Errorf("object: pack batch: %w", err)
		return pb.err
	}
	_, _ = pb.h.Write(stored)
	pb.entries[id] = packEntry{pb.off, len(stored)}
	pb.off += int64(len(stored))
	return nil
}

// stored returns the stored bytes of an object of the pack being written.
func (pb *packBatch) stored(id ID) ([]byte, bool, error) {
	pb.mu.Lock()
	e, ok := pb.entries[id]
	pb.mu.Unlock()
	if !ok {
		return nil, false, nil
	}
	b := make([]byte, e.n)
	if _, err := pb.f.ReadAt(b, e.off); err != nil {
		return nil, true, fmt.Errorf("object: pack batch: %w", err)
	}
	return b, true, nil
}

func (pb *packBatch) len() int {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	return len(pb.entries)
}

func (pb *packBatch) abort() {
	_ = pb.f.Close()
	_ = os.Remove(pb.f.Name())
}

// commit turns the temporary file into a pack: trailer, fsync, rename,
// then the index (written crash-safely); the objects become visible when
// the index appears.
func (pb *packBatch) commit(s *Store) error {
	defer pb.abort() // nothing once renamed
	if len(pb.entries) == 0 {
		return nil
	}
	var sum ID
	pb.h.Sum(sum[:0])
	if _, err := pb.f.Write(sum[:]); err != nil {
		return fmt.Errorf("object: pack batch: %w", err)
	}
	if err := pb.f.Chmod(0o444); err != nil {
		return fmt.Errorf("object: pack batch: %w", err)
	}
	if err := pb.f.Sync(); err != nil {
		return fmt.Errorf("object: pack batch: %w", err)
	}
	ids := make([]ID, 0, len(pb.entries))
	for id := range pb.entries {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b ID) int { return a.Compare(b) })
	idx := buildIndex(ids, func(id ID) (int64, int) { e := pb.entries[id]; return e.off, e.n }, sum)
	name := hex.EncodeToString(sum[:])
	base := filepath.Join(s.packPath(), "pack-"+name)
	fault.Hit("batch.pack-written")
	if err := os.Rename(pb.f.Name(), base+".pack"); err != nil {
		return fmt.Errorf("object: pack batch: %w", err)
	}
	if err := atomicfile.SyncDir(s.packPath()); err != nil {
		return err
	}
	fault.Hit("batch.pack-renamed")
	if err := atomicfile.Write(base+".idx", idx, 0o444); err != nil {
		return err
	}
	_, err := s.packList(fullReload)
	return err
}

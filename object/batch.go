package object

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/fault"
	"github.com/ctx-dev/ctx/internal/syncfs"
)

// Batch stores many objects with one durability barrier instead of an
// fsync per object. Put writes each object to a temporary file; Commit
// makes all their contents durable with one syncfs(2), renames them into
// place and syncs again, so that an object is visible under its name only
// when its content is durable, and the whole batch is durable when Commit
// returns. Callers commit a batch before moving any ref that names its
// objects. Objects of a batch that is never committed stay invisible and
// their temporary files are removed by Abort (or by gc after a crash).
//
// A Batch is safe for concurrent use.
type Batch struct {
	s       *Store
	mu      sync.Mutex
	pending map[ID]string        // temporary file per object; "" while being written or when already stored
	writing map[ID]chan struct{} // closed when the object being written is settled
	order   map[ID]int           // when each object's write finished: Commit installs in this order
	err     error                // first write error; Commit returns it
	done    bool
	pack    *packBatch   // with NewPackBatch: where small objects go
	blobs   atomic.Int64 // bytes of the new blobs' contents
}

// NewBatch starts a batch of writes.
func (s *Store) NewBatch() *Batch {
	return &Batch{s: s, pending: make(map[ID]string), writing: make(map[ID]chan struct{}), order: make(map[ID]int)}
}

var _ ReadWriter = (*Batch)(nil)

// reserve claims id for the caller; false means it is already claimed.
// While another goroutine is still writing id, reserve waits for it, so
// that a Put that returns without writing can rely on the object being
// readable from the batch (and claims id itself if that write failed).
func (b *Batch) reserve(id ID) (bool, error) {
	for {
		b.mu.Lock()
		if b.done {
			b.mu.Unlock()
			return false, errors.New("object: batch already committed or aborted")
		}
		if _, ok := b.pending[id]; !ok {
			b.pending[id] = ""
			b.writing[id] = make(chan struct{})
			b.mu.Unlock()
			return true, nil
		}
		wait, busy := b.writing[id]
		b.mu.Unlock()
		if !busy {
			return false, nil
		}
		<-wait
	}
}

func (b *Batch) settle(id ID, tmp string, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if wait, ok := b.writing[id]; ok {
		close(wait)
		delete(b.writing, id)
	}
	if err != nil {
		if b.err == nil {
			b.err = err
		}
		delete(b.pending, id)
		return
	}
	b.pending[id] = tmp
	if _, ok := b.order[id]; !ok {
		b.order[id] = len(b.order)
	}
}

// Put writes an object into the batch and returns its ID.
func (b *Batch) Put(kind Kind, payload []byte) (ID, error) {
	if !kind.Valid() {
		return Zero, fmt.Errorf("%w: kind %d", ErrInvalidArgument, kind)
	}
	if len(payload) > MaxInMemory {
		return Zero, fmt.Errorf("%w: %d-byte payload; use PutReader", ErrTooLarge, len(payload))
	}
	id := Sum(kind, payload)
	mine, err := b.reserve(id)
	if err != nil || !mine {
		return id, err
	}
	if ok, err := b.s.Has(id); err != nil || ok {
		if ok {
			b.s.freshen(id)
		}
		b.settle(id, "", err)
		return id, err
	}
	if kind == KindBlob {
		b.blobs.Add(int64(len(payload)))
	}
	stored := b.s.enc.compress(kind, payload)
	if b.pack != nil && len(stored) <= MaxPackedObject {
		err := b.pack.add(id, stored)
		b.settle(id, "", err)
		return id, err
	}
	tmp, err := b.s.writeTemp(id, stored, !syncfs.Supported)
	b.settle(id, tmp, err)
	return id, err
}

// PutReader writes an object of size payload bytes read from r into the
// batch without holding it in memory.
func (b *Batch) PutReader(kind Kind, r io.Reader, size int64) (ID, error) {
	id, tmp, err := b.s.writeStream(kind, r, size, !syncfs.Supported)
	if err != nil {
		return Zero, err
	}
	mine, rerr := b.reserve(id)
	if rerr != nil || !mine || tmp == "" {
		if tmp != "" {
			_ = os.Remove(tmp)
		}
		if mine {
			b.settle(id, "", nil)
		}
		return id, rerr
	}
	if kind == KindBlob {
		b.blobs.Add(size)
	}
	b.settle(id, tmp, nil)
	return id, nil
}

// NewBlobBytes returns the bytes of content of the blobs the batch adds:
// blobs the store held already are not counted.
func (b *Batch) NewBlobBytes() int64 { return b.blobs.Load() }

// Has reports whether the object is in the batch or the store.
func (b *Batch) Has(id ID) (bool, error) {
	b.mu.Lock()
	_, ok := b.pending[id]
	b.mu.Unlock()
	if ok {
		return true, nil
	}
	return b.s.Has(id)
}

// Get reads an object written to the batch, or else from the store.
func (b *Batch) Get(id ID) (Kind, []byte, error) {
	b.mu.Lock()
	tmp := b.pending[id]
	b.mu.Unlock()
	if tmp == "" && b.pack != nil {
		stored, ok, err := b.pack.stored(id)
		if err != nil {
			return KindInvalid, nil, b.s.err("read", id, err)
		}
		if ok {
			canon, err := decompress(stored)
			if err == nil && sumCanonical(canon) != id {
				err = ErrHashMismatch
			}
			if err != nil {
				return KindInvalid, nil, b.s.err("read", id, err)
			}
			kind, payload, err := ParseEnvelope(canon)
			if err != nil {
				return KindInvalid, nil, b.s.err("read", id, err)
			}
			return kind, payload, nil
		}
	}
	if tmp == "" {
		return b.s.Get(id)
	}
	canon, _, err := b.s.readStoredAt(tmp, id, nil)
	if err != nil {
		return KindInvalid, nil, err
	}
	kind, payload, err := ParseEnvelope(canon)
	if err != nil {
		return KindInvalid, nil, b.s.err("read", id, err)
	}
	return kind, payload, nil
}

// Len returns the number of objects the batch will add to the store.
func (b *Batch) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, tmp := range b.pending {
		if tmp != "" {
			n++
		}
	}
	if b.pack != nil {
		n += b.pack.len()
	}
	return n
}

// Commit makes every object of the batch durable and visible. After a
// crash during Commit, each object is either absent or complete.
func (b *Batch) Commit() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return errors.New("object: batch already committed or aborted")
	}
	b.done = true
	b.drain()
	if b.err != nil {
		b.removeTemps()
		if b.pack != nil {
			b.pack.abort()
		}
		return b.err
	}
	if err := b.installLoose(); err != nil {
		if b.pack != nil {
			b.pack.abort()
		}
		return err
	}
	// The pack last: its objects (trees, commits) may name the loose ones
	// (blobs too large to pack), which must be in place first.
	if b.pack != nil {
		if err := b.pack.commit(b.s); err != nil {
			return err
		}
		fault.Hit("batch.committed")
	}
	return nil
}

// installLoose makes the batch's loose objects durable and visible.
func (b *Batch) installLoose() error {
	type item struct {
		id  ID
		tmp string
	}
	var items []item
	for id, tmp := range b.pending {
		if tmp != "" {
			items = append(items, item{id, tmp})
		}
	}
	if len(items) == 0 {
		return nil
	}
	// Install in the order the objects were written. Writers put an
	// object's children (the blobs and trees a commit names, the blob an
	// edge's evidence names) before the object itself, so a crash midway
	// never leaves an object whose links dangle.
	sort.Slice(items, func(i, j int) bool { return b.order[items[i].id] < b.order[items[j].id] })
	if syncfs.Supported {
		if err := syncfs.Sync(b.s.dir); err != nil {
			b.removeTemps()
			return fmt.Errorf("object: commit batch: %w", err)
		}
	}
	fault.Hit("batch.synced")
	dirs := map[string]bool{b.s.dir: true}
	for i, it := range items {
		if err := b.s.install(it.tmp, it.id, false); err != nil {
			for _, rest := range items[i+1:] {
				_ = os.Remove(rest.tmp)
			}
			return err
		}
		b.pending[it.id] = ""
		dirs[filepath.Join(b.s.dir, it.id.String()[:2])] = true
	}
	fault.Hit("batch.renamed")
	if syncfs.Supported {
		if err := syncfs.Sync(b.s.dir); err != nil {
			return fmt.Errorf("object: commit batch: %w", err)
		}
	} else {
		for d := range dirs {
			if err := atomicfile.SyncDir(d); err != nil {
				return fmt.Errorf("object: commit batch: %w", err)
			}
		}
	}
	fault.Hit("batch.committed")
	return nil
}

// Abort discards the batch's uncommitted objects.
func (b *Batch) Abort() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return
	}
	b.done = true
	b.drain()
	b.removeTemps()
	if b.pack != nil {
		b.pack.abort()
	}
}

// drain waits, with b.mu held on entry and exit, until no Put is still
// writing. Once done is set no new write starts, so a Put that raced
// Commit is either in the batch or was refused.
func (b *Batch) drain() {
	for len(b.writing) > 0 {
		var wait chan struct{}
		for _, w := range b.writing {
			wait = w
			break
		}
		b.mu.Unlock()
		<-wait
		b.mu.Lock()
	}
}

func (b *Batch) removeTemps() {
	for id, tmp := range b.pending {
		if tmp != "" {
			_ = os.Remove(tmp)
			b.pending[id] = ""
		}
	}
}

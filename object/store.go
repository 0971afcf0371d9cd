package object

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/clock"
	"github.com/ctx-dev/ctx/internal/fault"
	"github.com/ctx-dev/ctx/internal/regfile"
)

// Getter reads objects.
type Getter interface {
	// Get returns the kind and payload of the object id. A missing object
	// fails with ErrNotFound; a corrupt one fails with ErrHashMismatch or
	// ErrInvalidEnvelope and its content is never returned.
	Get(id ID) (Kind, []byte, error)
}

// Putter writes objects.
type Putter interface {
	// Put stores an object and returns its ID. Storing an object that is
	// already present writes nothing and returns the same ID.
	Put(kind Kind, payload []byte) (ID, error)
}

// Haser tells whether objects exist.
type Haser interface {
	// Has reports whether the object is present, without reading it.
	Has(id ID) (bool, error)
}

// ReadWriter reads and writes objects.
type ReadWriter interface {
	Getter
	Putter
	Haser
}

// GetTyped reads the typed object id into v.
func GetTyped(g Getter, id ID, v Typed) error { return getTyped(g, id, v, Decode) }

// GetTypedLax is GetTyped with DecodeLax: the object's id is verified
// as on every read, its schema and canonical form are not.
func GetTypedLax(g Getter, id ID, v Typed) error { return getTyped(g, id, v, DecodeLax) }

func getTyped(g Getter, id ID, v Typed, decode func([]byte, Typed) error) error {
	if vw, ok := g.(Viewer); ok {
		// The decoders copy what they keep: the bytes can be lent.
		return vw.View(id, func(kind Kind, payload []byte) error {
			return decodeAs(id, kind, payload, v, decode)
		})
	}
	kind, payload, err := g.Get(id)
	if err != nil {
		return err
	}
	return decodeAs(id, kind, payload, v, decode)
}

// decodeAs decodes the payload of object id, of the kind given, into v.
func decodeAs(id ID, kind Kind, payload []byte, v Typed, decode func([]byte, Typed) error) error {
	if kind != KindTyped {
		return &Error{Op: "decode", ID: id, Err: fmt.Errorf("%w: object is a %s, not a %s", ErrDecode, kind, v.TypeName())}
	}
	if err := decode(payload, v); err != nil {
		return &Error{Op: "decode", ID: id, Err: err}
	}
	return nil
}

// PutTyped encodes v and stores it.
func PutTyped(p Putter, v Typed) (ID, error) {
	payload, err := Encode(v)
	if err != nil {
		return Zero, err
	}
	return p.Put(KindTyped, payload)
}

// StoreOptions configure a Store.
type StoreOptions struct {
	// CompressionLevel is the zstd level, 1 (fastest) to 22 (smallest);
	// 0 means DefaultCompressionLevel. It never changes an object's ID.
	CompressionLevel int
}

// Validate checks the options.
func (o StoreOptions) Validate() error {
	if o.CompressionLevel < 0 || o.CompressionLevel > 22 {
		return fmt.Errorf("%w: compression level %d is outside 0-22", ErrInvalidArgument, o.CompressionLevel)
	}
	return nil
}

// Store is the loose-object store: one zstd-compressed file per object at
// objects/<first two hex digits>/<64 hex digits>. Its methods are safe for
// concurrent use by any number of goroutines and processes: objects are
// written under temporary names and renamed into place, so a reader sees a
// whole object or none.
type Store struct {
	dir    string // the objects directory
	enc    *encoders
	shards [256]atomic.Int32 // per shard directory: shardUnknown, shardExists or shardDurable
	packs  packSet           // objects/pack/, loaded on first need
}

var (
	_ ReadWriter = (*Store)(nil)
	_ ReadWriter = (*MemStore)(nil)
)

// NewStore opens the object store in dir, which must exist.
func NewStore(dir string, opts StoreOptions) (*Store, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("object: open store: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("object: open store: %s is not a directory", dir)
	}
	level := opts.CompressionLevel
	if level == 0 {
		level = DefaultCompressionLevel
	}
	enc, err := newEncoders(level)
	if err != nil {
		return nil, err
	}
	return &Store{dir: dir, enc: enc}, nil
}

// Dir returns the objects directory.
func (s *Store) Dir() string { return s.dir }

// RelPath returns the path of id's file relative to the store's parent
// directory, e.g. "objects/ab/ab12…", for messages.
func RelPath(id ID) string {
	h := id.String()
	return "objects/" + h[:2] + "/" + h
}

func (s *Store) path(id ID) string {
	h := id.String()
	return filepath.Join(s.dir, h[:2], h)
}

func (s *Store) err(op string, id ID, err error) error {
	return &Error{Op: op, ID: id, Path: RelPath(id), Err: err}
}

// freshen sets the modification time of an object's loose file to now,
// for a writer that found the object already stored (as git does): gc
// keeps unreachable objects younger than its margin, so an object a
// writer is about to link again must not look old. Packed objects are
// never removed, and a failure only shortens the object's margin.
func (s *Store) freshen(id ID) {
	now := clock.Real{}.Now()
	_ = os.Chtimes(s.path(id), now, now)
}

// Has reports whether the object's file exists, loose or in a pack. It
// does not verify it.
func (s *Store) Has(id ID) (bool, error) {
	_, err := os.Lstat(s.path(id))
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return false, s.err("stat", id, err)
	}
	p, _, err := s.findPacked(id, statReload)
	if err != nil {
		return false, s.err("stat", id, err)
	}
	return p != nil, nil
}

// readStored reads, decompresses and verifies an object held in memory,
// and returns its canonical bytes and the size of its stored bytes.
//
// An object of a pack already known is read from the pack first, without
// looking for a loose file (the copies are the same bytes): one system
// call. A pack entry that fails to verify leaves the loose copy to try.
//
// With b, the stored and canonical bytes are read into b's memory where
// it is large enough, and b keeps what was grown (View).
func (s *Store) readStored(id ID, b *viewBufs) ([]byte, int64, error) {
	if b == nil {
		b = new(viewBufs) // nothing to reuse: new memory
	}
	if p, i := s.knownPacked(id); p != nil {
		if stored, err := p.read(id, i, b.stored); err == nil {
			b.stored = stored
			if canon, err := s.decodeStored(id, stored, b.canon); err == nil {
				b.canon = canon
				return canon, int64(len(stored)), nil
			}
		}
	}
	canon, n, err := s.readStoredAt(s.path(id), id, b.canon)
	if err == nil {
		b.canon = canon
	}
	return canon, n, err
}

// readStoredAt reads, decompresses and verifies the file at path, which
// should hold object id, or, when there is no such file, its entry in a
// pack; it decompresses into dst's memory when it is large enough.
func (s *Store) readStoredAt(path string, id ID, dst []byte) ([]byte, int64, error) {
	stored, err := regfile.Read(path, MaxInMemory+1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		if stored, err = s.readPacked(id); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, 0, s.err("read", id, err)
		}
	}
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, 0, s.err("read", id, ErrNotFound)
		case errors.Is(err, regfile.ErrNotRegular):
			return nil, 0, s.err("read", id, fmt.Errorf("%w: %w", ErrHashMismatch, err))
		case errors.Is(err, regfile.ErrTooLarge):
			return nil, 0, s.tooLarge(id)
		}
		return nil, 0, s.err("read", id, err)
	}
	canon, err := s.decodeStored(id, stored, dst)
	if err != nil {
		return nil, 0, err
	}
	return canon, int64(len(stored)), nil
}

// decodeStored decompresses the stored bytes of object id and verifies
// them; into dst's memory when it is large enough.
func (s *Store) decodeStored(id ID, stored, dst []byte) ([]byte, error) {
	canon, err := decompressInto(stored, dst)
	if errors.Is(err, ErrTooLarge) {
		return nil, s.tooLarge(id)
	}
	if err != nil {
		return nil, s.err("read", id, err)
	}
	if sumCanonical(canon) != id {
		return nil, s.err("read", id, ErrHashMismatch)
	}
	return canon, nil
}

// tooLarge tells a damaged file whose header claims a huge size (E002)
// from an object that really is too large to hold in memory, by hashing it
// in a streaming pass.
func (s *Store) tooLarge(id ID) error {
	if _, _, err := s.hashPass(id); err != nil {
		return err
	}
	return s.err("read", id, fmt.Errorf("%w: %w; read it with Open", ErrDecode, ErrTooLarge))
}

// Get reads and verifies an object. Objects over MaxInMemory fail with
// ErrTooLarge; read them with Open.
func (s *Store) Get(id ID) (Kind, []byte, error) { return s.get(id, nil) }

// get is Get, reading into b's memory (readStored).
func (s *Store) get(id ID, b *viewBufs) (Kind, []byte, error) {
	canon, _, err := s.readStored(id, b)
	if err != nil {
		return KindInvalid, nil, err
	}
	kind, payload, err := ParseEnvelope(canon)
	if err != nil {
		return KindInvalid, nil, s.err("read", id, err)
	}
	return kind, payload, nil
}

// View reads and verifies an object, as Get does, and calls fn with its
// kind and payload, which are valid only until fn returns: their memory
// is reused by the next View. A build that reads thousands of objects and
// keeps none of their bytes (the index's: a decoder copies what it keeps)
// allocates them once per core rather than once per object.
func (s *Store) View(id ID, fn func(Kind, []byte) error) error {
	b := viewPool.Get().(*viewBufs)
	defer b.put()
	kind, payload, err := s.get(id, b)
	if err != nil {
		return err
	}
	return fn(kind, payload)
}

// viewBufs are View's buffers: the stored bytes and the canonical bytes
// of an object.
type viewBufs struct{ stored, canon []byte }

var viewPool = sync.Pool{New: func() any { return new(viewBufs) }}

// maxPooled is the largest buffer View keeps for the next: a rare large
// object's memory is not held for the rest of the process.
const maxPooled = 4 << 20

func (b *viewBufs) put() {
	if cap(b.stored) > maxPooled {
		b.stored = nil
	}
	if cap(b.canon) > maxPooled {
		b.canon = nil
	}
	viewPool.Put(b)
}

// Viewer is a Getter that can lend an object's bytes (Store.View).
type Viewer interface {
	View(id ID, fn func(Kind, []byte) error) error
}

// Put stores an object durably: when Put returns, the object survives a
// crash. Use a Batch to store many objects with one sync.
func (s *Store) Put(kind Kind, payload []byte) (ID, error) {
	if !kind.Valid() {
		return Zero, fmt.Errorf("%w: kind %d", ErrInvalidArgument, kind)
	}
	if len(payload) > MaxInMemory {
		return Zero, fmt.Errorf("%w: %d-byte payload; use PutReader", ErrTooLarge, len(payload))
	}
	id := Sum(kind, payload)
	if ok, err := s.Has(id); err != nil || ok {
		if ok {
			s.freshen(id)
			// Durable means durable even if another writer put it there.
			err = s.Sync(id)
		}
		return id, err
	}
	tmp, err := s.writeTemp(id, s.enc.compress(kind, payload), true)
	if err != nil {
		return Zero, err
	}
	if err := s.install(tmp, id, true); err != nil {
		return Zero, err
	}
	return id, nil
}

// The states of a shard directory, as far as this Store knows.
const (
	shardUnknown int32 = iota
	shardExists        // present, but maybe not durable: fine for a batch, whose syncfs covers it
	shardDurable       // present and its entry in objects/ fsynced
)

// shardDir returns the directory of id's shard, creating it if needed.
// With durable, the shard's entry in objects/ is also made durable,
// whoever created it, so that a crash cannot lose the directory of an
// object that a ref is about to name.
func (s *Store) shardDir(id ID, durable bool) (string, error) {
	dir := filepath.Join(s.dir, id.String()[:2])
	state := &s.shards[id[0]]
	if st := state.Load(); st == shardDurable || st == shardExists && !durable {
		return dir, nil
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", s.err("write", id, err)
	}
	if !durable {
		state.CompareAndSwap(shardUnknown, shardExists)
		return dir, nil
	}
	if err := atomicfile.SyncDir(s.dir); err != nil {
		return "", s.err("write", id, err)
	}
	state.Store(shardDurable)
	return dir, nil
}

// writeTemp writes compressed bytes to a temporary file in id's shard and
// returns its path. With sync it fsyncs the file.
func (s *Store) writeTemp(id ID, data []byte, sync bool) (string, error) {
	dir, err := s.shardDir(id, sync)
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, id.String()+".*.tmp")
	if errors.Is(err, fs.ErrNotExist) {
		// The shard was removed since we saw it (an empty shard that gc
		// pruned, say): make it again.
		s.shards[id[0]].Store(shardUnknown)
		if dir, err = s.shardDir(id, sync); err == nil {
			f, err = os.CreateTemp(dir, id.String()+".*.tmp")
		}
	}
	if err != nil {
		return "", s.err("write", id, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		fault.Hit("object.written")
	}
	if err := finishTemp(f, sync, err); err != nil {
		return "", s.err("write", id, err)
	}
	fault.Hit("object.synced")
	return tmp, nil
}

// finishTemp completes a temporary object file whose writing ended with
// werr: with sync it fsyncs it, makes it read-only and closes it. On any
// error the file is closed and removed, and the error returned.
func finishTemp(f *os.File, sync bool, werr error) error {
	err := werr
	if err == nil && sync {
		err = f.Sync()
	}
	if err == nil {
		err = f.Chmod(0o444)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// install renames a complete temporary file to id's path. With sync it
// fsyncs the directories involved so that the rename is durable.
func (s *Store) install(tmp string, id ID, sync bool) error {
	dst := s.path(id)
	dir, err := s.shardDir(id, sync)
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		_ = os.Remove(tmp)
		return s.err("write", id, err)
	}
	fault.Hit("object.renamed")
	if !sync {
		return nil
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		return s.err("write", id, err)
	}
	if filepath.Dir(tmp) != dir { // a streamed object's temporary name left objects/
		if err := atomicfile.SyncDir(s.dir); err != nil {
			return s.err("write", id, err)
		}
	}
	return nil
}

// Sync makes the directory entry of an existing object durable. An object
// found already present may have been renamed into place by another
// process whose batch has not yet synced; a writer that is about to make a
// ref name it calls Sync first.
func (s *Store) Sync(id ID) error {
	dir, err := s.shardDir(id, true)
	if err != nil {
		return err
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		return s.err("sync", id, err)
	}
	return nil
}

// Resolve returns the single object whose ID starts with prefix, which must
// be at least MinPrefix lowercase hex digits. No match fails with
// ErrNotFound, several with an *AmbiguousError.
func (s *Store) Resolve(prefix string) (ID, error) {
	p := strings.ToLower(prefix)
	if !IsHex(p) || len(p) > 2*IDSize {
		return Zero, fmt.Errorf("%w: %q is not a hex object id or prefix", ErrInvalidID, prefix)
	}
	if len(p) == 2*IDSize {
		id, _ := ParseID(p)
		ok, err := s.Has(id)
		if err != nil {
			return Zero, err
		}
		if !ok {
			// Has trusts the pack directory's time; a name that must
			// resolve deserves a full look (a pack written in the same
			// tick as the last listing).
			if pk, _, err := s.findPacked(id, fullReload); err != nil || pk == nil {
				return Zero, s.err("resolve", id, ErrNotFound)
			}
		}
		return id, nil
	}
	if len(p) < MinPrefix {
		return Zero, fmt.Errorf("%w: prefix %q is shorter than %d hex digits", ErrInvalidID, prefix, MinPrefix)
	}
	names, err := readNames(filepath.Join(s.dir, p[:2]))
	if err != nil {
		return Zero, fmt.Errorf("object: resolve %s: %w", prefix, err)
	}
	var found []ID
	for _, n := range names {
		if strings.HasPrefix(n, p) {
			if id, err := ParseID(n); err == nil {
				found = append(found, id)
			}
		}
	}
	packs, err := s.packList(fullReload)
	if err != nil {
		return Zero, fmt.Errorf("object: resolve %s: %w", prefix, err)
	}
	first, _ := hex.DecodeString(p[:2]) // MinPrefix >= 2: the first byte is known
	for _, pk := range packs {
		lo, hi := pk.bucket(first[0])
		for i := lo; i < hi; i++ {
			if h := hex.EncodeToString(pk.id(i)); strings.HasPrefix(h, p) {
				found = append(found, ID(pk.id(i)))
			}
		}
	}
	slices.SortFunc(found, func(a, b ID) int { return a.Compare(b) })
	found = slices.Compact(found)
	switch len(found) {
	case 0:
		return Zero, fmt.Errorf("object: resolve %s: %w", prefix, ErrNotFound)
	case 1:
		return found[0], nil
	}
	return Zero, &AmbiguousError{Prefix: p, Candidates: found}
}

// readNames lists a directory's entry names in sorted order; a missing
// directory has none.
func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

// List returns the IDs of all objects in the store in sorted order, and the
// paths (relative to the store's parent) of anything else found in it:
// temporary files left by a crash and unexpected files.
func (s *Store) List(ctx context.Context) (ids []ID, strays []string, err error) {
	top, err := readNames(s.dir)
	if err != nil {
		return nil, nil, fmt.Errorf("object: list: %w", err)
	}
	for _, shard := range top {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		rel := "objects/" + shard
		if shard == packDir {
			strays = append(strays, s.packStrays()...)
			continue
		}
		if len(shard) != 2 || !IsHex(shard) {
			strays = append(strays, rel)
			continue
		}
		names, err := readNames(filepath.Join(s.dir, shard))
		if err != nil {
			if errors.Is(err, syscall.ENOTDIR) {
				strays = append(strays, rel)
				continue
			}
			return nil, nil, fmt.Errorf("object: list %s: %w", rel, err)
		}
		for _, n := range names {
			id, perr := ParseID(n)
			if perr != nil || !strings.HasPrefix(n, shard) {
				strays = append(strays, rel+"/"+n)
				continue
			}
			ids = append(ids, id)
		}
	}
	packed, err := s.packedIDs()
	if err != nil {
		return nil, nil, fmt.Errorf("object: list: %w", err)
	}
	if len(packed) > 0 {
		ids = append(ids, packed...)
		slices.SortFunc(ids, func(a, b ID) int { return a.Compare(b) })
		ids = slices.Compact(ids)
	}
	return ids, strays, nil
}

// packStrays returns the files of objects/pack/ that are not a pack with
// its index: temporary files of an interrupted pack, a .pack whose .idx
// was never written.
func (s *Store) packStrays() []string {
	names, _ := readNames(s.packPath())
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
	}
	var out []string
	for _, n := range names {
		if name, ok := packName(n, ".pack"); ok && have["pack-"+name+".idx"] {
			continue
		}
		if name, ok := packName(n, ".idx"); ok && have["pack-"+name+".pack"] {
			continue
		}
		out = append(out, "objects/pack/"+n)
	}
	return out
}

// Info describes a stored object.
type Info struct {
	ID     ID
	Kind   Kind
	Type   string // type name of a typed object; "" for a blob
	Size   uint64 // payload bytes
	Stored int64  // bytes on disk
}

// Verify reads an object completely, checks its hash and envelope, and
// returns its description and, for a typed object, its payload (nil for a
// blob). Blobs of any size are checked in constant memory.
func (s *Store) Verify(id ID) (Info, []byte, error) {
	info := Info{ID: id}
	// The loose copy first, as every reader but Get takes it: a damaged
	// loose file must be found though the object is packed too
	// (VerifyPacks checks the packs).
	canon, stored, err := s.readStoredAt(s.path(id), id, nil)
	info.Stored = stored
	if errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrHashMismatch) {
		// Only loose objects are this large: packs take none over
		// MaxPackedObject.
		if st, serr := os.Lstat(s.path(id)); serr == nil {
			info.Stored = st.Size()
		}
		info.Kind, info.Size, err = s.hashPass(id)
		if err == nil && info.Kind == KindTyped {
			err = s.err("read", id, fmt.Errorf("%w: typed object larger than %d bytes", ErrDecode, MaxInMemory))
		}
		return info, nil, err
	}
	if err != nil {
		return info, nil, err
	}
	kind, payload, err := ParseEnvelope(canon)
	if err != nil {
		return info, nil, s.err("read", id, err)
	}
	info.Kind, info.Size = kind, uint64(len(payload))
	if kind != KindTyped {
		return info, nil, nil
	}
	info.Type, err = TypeOf(payload)
	if err != nil {
		return info, payload, s.err("decode", id, err)
	}
	return info, payload, nil
}

// Usage counts the objects of the store and the bytes their files take.
func (s *Store) Usage(ctx context.Context) (objects int, bytes int64, err error) {
	top, err := readNames(s.dir)
	if err != nil {
		return 0, 0, fmt.Errorf("object: usage: %w", err)
	}
	for _, shard := range top {
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		if len(shard) != 2 || !IsHex(shard) {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(s.dir, shard))
		if err != nil {
			continue
		}
		for _, e := range entries {
			if len(e.Name()) != 2*IDSize || !IsHex(e.Name()) {
				continue
			}
			if info, err := e.Info(); err == nil {
				objects++
				bytes += info.Size()
			}
		}
	}
	// Packed objects (an object both loose and packed counts twice: a
	// pack interrupted before removing the loose copies).
	packs, err := s.Packs()
	if err != nil {
		return 0, 0, fmt.Errorf("object: usage: %w", err)
	}
	for _, p := range packs {
		objects += p.Objects
		bytes += p.Bytes
	}
	return objects, bytes, nil
}

package object

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/zeebo/blake3"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/fault"
	"github.com/ctx-dev/ctx/internal/mmap"
	"github.com/ctx-dev/ctx/internal/regfile"
)

// Pack files (FORMAT.md §3.4) hold many objects in two files under
// objects/pack/: pack-<name>.pack, the objects' stored bytes one after
// the other, and pack-<name>.idx, their sorted ids with a fan-out table,
// offsets and lengths. <name> is the hex BLAKE3 of the .pack's contents
// before its trailer, so a pack is immutable and named by what it holds.
// A pack is used only once its .idx exists. Get reads an object from a
// pack it already knows first, else from its loose file, else from the
// packs (listed again); the other readers (Open, Verify, WritePack) take
// the loose file first.
const (
	packDir    = "pack"
	packMagic  = "CTXPACK1"
	idxMagic   = "CTXIDX01"
	idxHeader  = len(idxMagic) + 4 + 256*4
	idxEntry   = IDSize + 8 + 4 // id, offset, length
	idxTrailer = 2 * IDSize     // pack checksum, idx checksum
	// MaxPackedObject is the largest stored object a pack takes; larger
	// ones stay loose, where Open streams them.
	MaxPackedObject = 64 << 20
)

// ErrPackCorrupt reports a damaged pack or pack index.
var ErrPackCorrupt = errors.New("object: damaged pack file")

// packIndex is one pack's .idx, read whole.
type packIndex struct {
	name   string // hex
	path   string // of the .pack
	count  int
	fanout []byte // 256 × u32
	ids    []byte // count × 32
	offs   []byte // count × u64
	lens   []byte // count × u32
	sum    ID     // the .pack's checksum

	// The .pack, opened on the first read and kept open where an open
	// file does not stop others from removing it (not on Windows): reads
	// share it (ReadAt), so that a read of a packed object costs one
	// system call. A failed open is not kept: the next read tries again.
	mu   sync.Mutex
	file *os.File
}

// keepPacksOpen tells whether a .pack stays open between reads.
var keepPacksOpen = runtime.GOOS != "windows"

// packFile returns the open .pack, and a function to call when done with
// it.
func (p *packIndex) packFile() (*os.File, func(), error) {
	if !keepPacksOpen {
		f, err := os.Open(p.path)
		if err != nil {
			return nil, nil, err
		}
		return f, func() { f.Close() }, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.file == nil {
		f, err := os.Open(p.path)
		if err != nil {
			return nil, nil, err
		}
		p.file = f
	}
	return p.file, func() {}, nil
}

func (p *packIndex) id(i int) []byte { return p.ids[i*IDSize : (i+1)*IDSize] }

// bucket returns the positions [lo, hi) of the ids whose first byte is b.
func (p *packIndex) bucket(b byte) (lo, hi int) {
	if b > 0 {
		lo = int(binary.BigEndian.Uint32(p.fanout[(int(b)-1)*4:]))
	}
	return lo, int(binary.BigEndian.Uint32(p.fanout[int(b)*4:]))
}

// find returns the position of id in the pack, or -1.
func (p *packIndex) find(id ID) int {
	lo, hi := p.bucket(id[0])
	i := lo + sort.Search(hi-lo, func(k int) bool { return bytes.Compare(p.id(lo+k), id[:]) >= 0 })
	if i < hi && bytes.Equal(p.id(i), id[:]) {
		return i
	}
	return -1
}

func (p *packIndex) entry(i int) (off int64, n int) {
	return int64(binary.BigEndian.Uint64(p.offs[i*8:])), int(binary.BigEndian.Uint32(p.lens[i*4:]))
}

// parsePackIndex checks an .idx's structure (not its checksums: Verify
// does) and returns it.
func parsePackIndex(name, path string, b []byte) (*packIndex, error) {
	bad := func(what string) error { return fmt.Errorf("%w: pack-%s.idx: %s", ErrPackCorrupt, name, what) }
	if len(b) < idxHeader+idxTrailer || string(b[:len(idxMagic)]) != idxMagic {
		return nil, bad("not a pack index")
	}
	count := int(binary.BigEndian.Uint32(b[len(idxMagic):]))
	if uint64(len(b)) != uint64(idxHeader)+uint64(count)*idxEntry+idxTrailer {
		return nil, bad("size does not match its count")
	}
	p := &packIndex{name: name, path: path, count: count, fanout: b[len(idxMagic)+4 : idxHeader]}
	prev := uint32(0)
	for i := range 256 {
		f := binary.BigEndian.Uint32(p.fanout[i*4:])
		if f < prev || f > uint32(count) {
			return nil, bad("fan-out table out of order")
		}
		prev = f
	}
	if prev != uint32(count) {
		return nil, bad("fan-out table does not end at the count")
	}
	at := idxHeader
	p.ids = b[at : at+count*IDSize]
	at += count * IDSize
	p.offs = b[at : at+count*8]
	at += count * 8
	p.lens = b[at : at+count*4]
	at += count * 4
	copy(p.sum[:], b[at:])
	return p, nil
}

// checkEntries checks what parsePackIndex leaves to Verify, as it is
// linear in the pack's size: the ids are sorted and the fan-out table
// matches them. A lookup in an index that fails it finds nothing wrong,
// only perhaps not everything.
func (p *packIndex) checkEntries() error {
	for i := 1; i < p.count; i++ {
		if bytes.Compare(p.id(i-1), p.id(i)) >= 0 {
			return fmt.Errorf("%w: pack-%s.idx: ids not sorted", ErrPackCorrupt, p.name)
		}
	}
	for i := range p.count {
		if int(p.id(i)[0]) > 0 && uint32(i) < binary.BigEndian.Uint32(p.fanout[(int(p.id(i)[0])-1)*4:]) ||
			uint32(i) >= binary.BigEndian.Uint32(p.fanout[int(p.id(i)[0])*4:]) {
			return fmt.Errorf("%w: pack-%s.idx: fan-out table does not match the ids", ErrPackCorrupt, p.name)
		}
	}
	return nil
}

// packSet is the packs of a store, loaded on first need and again when an
// object is missing (another process may have packed it since).
type packSet struct {
	mu     sync.Mutex
	loaded bool
	packs  []*packIndex
	bad    map[string]error // indexes that did not parse, by name: skipped, reported by VerifyPacks
	stamp  string           // names of the .idx files seen, to notice new packs
	dirMod time.Time        // of objects/pack/ when listed: a reload that finds it unchanged reads nothing
}

func (s *Store) packPath() string { return filepath.Join(s.dir, packDir) }

// Reloads of the pack list: none, a cheap one that lists the directory
// only if its modification time changed (good enough for Has: a miss
// there costs a duplicate loose copy), and a full one (for a read: a file
// system with coarse timestamps could hide a pack written in the same
// tick).
const (
	noReload = iota
	statReload
	fullReload
)

// packList returns the store's packs, reloaded as asked.
func (s *Store) packList(reload int) ([]*packIndex, error) {
	ps := &s.packs
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.loaded && reload == noReload {
		return ps.packs, nil
	}
	// A new pack renames its files into the directory, which changes its
	// modification time.
	var mod time.Time
	if st, err := os.Stat(s.packPath()); err == nil {
		mod = st.ModTime()
	}
	if ps.loaded && reload == statReload && mod.Equal(ps.dirMod) {
		return ps.packs, nil
	}
	names, err := readNames(s.packPath())
	if err != nil {
		return nil, fmt.Errorf("object: packs: %w", err)
	}
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
	}
	var idx []string
	for _, n := range names {
		// A pack is used only when both its files exist (FORMAT.md §3.4).
		if name, ok := packName(n, ".idx"); ok && have["pack-"+name+".pack"] {
			idx = append(idx, name)
		}
	}
	stamp := strings.Join(idx, ",")
	if ps.loaded && stamp == ps.stamp {
		ps.dirMod = mod
		return ps.packs, nil
	}
	known := map[string]*packIndex{}
	for _, p := range ps.packs {
		known[p.name] = p
	}
	var packs []*packIndex
	for _, name := range idx {
		if p := known[name]; p != nil {
			packs = append(packs, p)
			continue
		}
		if _, bad := ps.bad[name]; bad {
			continue
		}
		p, err := openPackIndex(name, filepath.Join(s.packPath(), "pack-"+name))
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since listed
		}
		if err != nil {
			// A damaged index must not make the rest of the store
			// unreadable: its objects may be loose or in other packs.
			// VerifyPacks reports it.
			if ps.bad == nil {
				ps.bad = map[string]error{}
			}
			ps.bad[name] = fmt.Errorf("object: pack-%s.idx: %w", name, err)
			continue
		}
		packs = append(packs, p)
	}
	ps.packs, ps.stamp, ps.loaded, ps.dirMod = packs, stamp, true, mod
	return packs, nil
}

// openedPacks are the pack indexes this process has mapped, by the path
// of their .idx, with the file they were mapped from. Every store of the
// process shares them, with their open .pack: a long-lived process that
// opens a store for each request (ctx mcp) maps each pack once, not once
// a request, which would use up the process's mappings and descriptors.
var openedPacks = struct {
	sync.Mutex
	m map[string]openedPack
}{m: map[string]openedPack{}}

type openedPack struct {
	fi fs.FileInfo // of the .idx when mapped
	b  []byte      // the mapping
	p  *packIndex
}

// openPackIndex returns the parsed index of the pack at base (its path
// without ".idx" or ".pack"), mapping it unless this process already has
// that same file mapped. A file replaced at the same path (another inode,
// size or time) is mapped anew.
func openPackIndex(name, base string) (*packIndex, error) {
	path := base + ".idx"
	f, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	openedPacks.Lock()
	defer openedPacks.Unlock()
	if o, ok := openedPacks.m[path]; ok && os.SameFile(o.fi, st) && o.fi.Size() == st.Size() && o.fi.ModTime().Equal(st.ModTime()) && o.p.name == name {
		// The same file, but perhaps written over in place within one
		// tick of the clock of file times: its header is checked again
		// (it is mapped, so the check sees what is there now).
		if _, err := parsePackIndex(name, base+".pack", o.b); err != nil {
			return nil, err
		}
		return o.p, nil
	}
	b, unmap, err := mapIndex(f, st)
	if err != nil {
		return nil, err
	}
	p, err := parsePackIndex(name, base+".pack", b)
	if err != nil {
		_ = unmap()
		return nil, err
	}
	openedPacks.m[path] = openedPack{fi: st, b: b, p: p}
	return p, nil
}

// mapIndex maps a pack index read-only: a lookup touches the fan-out
// table and a few pages of ids, not the whole file. Packs are immutable
// and never removed while a store is open, so the mapping lives as long
// as the process (openedPacks keeps it).
func mapIndex(f *os.File, st fs.FileInfo) ([]byte, func() error, error) {
	if st.Size() > 1<<34 {
		return nil, nil, fmt.Errorf("%w: %s is %d bytes", ErrPackCorrupt, filepath.Base(f.Name()), st.Size())
	}
	b, unmap, err := mmap.Map(f, int(st.Size()))
	if errors.Is(err, mmap.ErrShrank) {
		return nil, nil, fmt.Errorf("%w: %v", ErrPackCorrupt, err)
	}
	return b, unmap, err
}

// packName returns the <name> of "pack-<name><ext>".
func packName(file, ext string) (string, bool) {
	n, ok := strings.CutPrefix(file, "pack-")
	if !ok {
		return "", false
	}
	n, ok = strings.CutSuffix(n, ext)
	return n, ok && len(n) == 2*IDSize && IsHex(n)
}

// findPacked returns the pack holding id and its position, reloading the
// pack list once (as reload says) when id is in none of the packs known.
func (s *Store) findPacked(id ID, reload int) (*packIndex, int, error) {
	for _, reload := range []int{noReload, reload} {
		packs, err := s.packList(reload)
		if err != nil {
			return nil, 0, err
		}
		if p, i := holding(packs, id); p != nil {
			return p, i, nil
		}
	}
	return nil, -1, nil
}

// holding returns the pack among packs that holds id, and its position;
// nil and -1 if none does.
func holding(packs []*packIndex, id ID) (*packIndex, int) {
	for _, p := range packs {
		if i := p.find(id); i >= 0 {
			return p, i
		}
	}
	return nil, -1
}

// knownPacked returns the pack among those already listed that holds
// id, and its position; nil if none does. It lists the packs only if
// they never were.
func (s *Store) knownPacked(id ID) (*packIndex, int) {
	packs, err := s.packList(noReload)
	if err != nil {
		return nil, -1
	}
	return holding(packs, id)
}

// readPacked returns the stored bytes of a packed object; fs.ErrNotExist
// when no pack has it.
func (s *Store) readPacked(id ID) ([]byte, error) {
	p, i, err := s.findPacked(id, fullReload)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fs.ErrNotExist
	}
	return p.read(id, i, nil)
}

// read returns the stored bytes of the object id at position i, in buf's
// memory when it is large enough.
func (p *packIndex) read(id ID, i int, buf []byte) ([]byte, error) {
	off, n := p.entry(i)
	if n > MaxPackedObject {
		return nil, fmt.Errorf("%w: pack-%s.idx: entry of %s is %d bytes", ErrPackCorrupt, p.name, id.Short(), n)
	}
	f, done, err := p.packFile()
	if err != nil {
		return nil, fmt.Errorf("pack-%s.pack: %w", p.name, err)
	}
	defer done()
	b := buf[:0]
	if cap(b) < n {
		b = make([]byte, n)
	}
	b = b[:n]
	if _, err := f.ReadAt(b, off); err != nil {
		return nil, fmt.Errorf("%w: pack-%s.pack: entry of %s: %v", ErrHashMismatch, p.name, id.Short(), err)
	}
	return b, nil
}

// packedIDs returns the ids of every packed object, sorted, each once.
func (s *Store) packedIDs() ([]ID, error) {
	packs, err := s.packList(fullReload)
	if err != nil {
		return nil, err
	}
	var ids []ID
	for _, p := range packs {
		for i := range p.count {
			ids = append(ids, ID(p.id(i)))
		}
	}
	slices.SortFunc(ids, func(a, b ID) int { return a.Compare(b) })
	return slices.Compact(ids), nil
}

// PackInfo describes a pack file.
type PackInfo struct {
	Name    string `json:"name"`
	Objects int    `json:"objects"`
	Bytes   int64  `json:"bytes"` // of the .pack and the .idx
}

// Packs lists the store's packs.
func (s *Store) Packs() ([]PackInfo, error) {
	packs, err := s.packList(fullReload)
	if err != nil {
		return nil, err
	}
	out := make([]PackInfo, len(packs))
	for i, p := range packs {
		out[i] = PackInfo{Name: p.name, Objects: p.count}
		for _, ext := range []string{".pack", ".idx"} {
			if st, err := os.Stat(filepath.Join(s.packPath(), "pack-"+p.name+ext)); err == nil {
				out[i].Bytes += st.Size()
			}
		}
	}
	return out, nil
}

// VerifyPacks checks every pack's checksums and that each entry lies
// inside its pack; the objects themselves are checked by Verify.
func (s *Store) VerifyPacks() []error {
	packs, err := s.packList(fullReload)
	if err != nil {
		return []error{err}
	}
	var errs []error
	for _, p := range packs {
		if err := verifyPack(p); err != nil {
			errs = append(errs, err)
		}
	}
	s.packs.mu.Lock()
	names := slices.Sorted(maps.Keys(s.packs.bad))
	for _, n := range names {
		errs = append(errs, s.packs.bad[n])
	}
	s.packs.mu.Unlock()
	return errs
}

func verifyPack(p *packIndex) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: pack-%s: %s", ErrPackCorrupt, p.name, fmt.Sprintf(format, args...))
	}
	idx, err := regfile.Read(strings.TrimSuffix(p.path, ".pack")+".idx", 1<<34)
	if err != nil {
		return bad("%v", err)
	}
	if sumOf(idx[:len(idx)-IDSize]) != ID(idx[len(idx)-IDSize:]) {
		return bad("the index's checksum does not match")
	}
	if err := p.checkEntries(); err != nil {
		return err
	}
	f, err := os.Open(p.path)
	if err != nil {
		return bad("%v", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return bad("%v", err)
	}
	size := st.Size()
	if size < int64(len(packMagic)+IDSize) {
		return bad("the pack is truncated")
	}
	h := blake3.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, size-IDSize)); err != nil {
		return bad("%v", err)
	}
	var sum, trailer ID
	h.Sum(sum[:0])
	if _, err := f.ReadAt(trailer[:], size-IDSize); err != nil {
		return bad("%v", err)
	}
	if sum != trailer || sum != p.sum || hex.EncodeToString(sum[:]) != p.name {
		return bad("the pack's checksum does not match its name or its index")
	}
	for i := range p.count {
		off, n := p.entry(i)
		if off < int64(len(packMagic)) || off+int64(n) > size-IDSize {
			return bad("entry %d lies outside the pack", i)
		}
	}
	return nil
}

func sumOf(b []byte) ID {
	var id ID
	h := blake3.New()
	_, _ = h.Write(b)
	h.Sum(id[:0])
	return id
}

// buildIndex returns the .idx of a pack holding ids (sorted), whose
// entries entry gives, and whose checksum is sum.
func buildIndex(ids []ID, entry func(ID) (off int64, n int), sum ID) []byte {
	idx := []byte(idxMagic)
	idx = binary.BigEndian.AppendUint32(idx, uint32(len(ids)))
	var fan [256]uint32
	for _, id := range ids {
		fan[id[0]]++
	}
	total := uint32(0)
	for i := range 256 {
		total += fan[i]
		idx = binary.BigEndian.AppendUint32(idx, total)
	}
	for _, id := range ids {
		idx = append(idx, id[:]...)
	}
	for _, id := range ids {
		off, _ := entry(id)
		idx = binary.BigEndian.AppendUint64(idx, uint64(off))
	}
	for _, id := range ids {
		_, n := entry(id)
		idx = binary.BigEndian.AppendUint32(idx, uint32(n))
	}
	idx = append(idx, sum[:]...)
	isum := sumOf(idx)
	return append(idx, isum[:]...)
}

// PackResult is what WritePack did.
type PackResult struct {
	Name    string `json:"name"`    // "" when there was nothing to pack
	Objects int    `json:"objects"` // packed
	Bytes   int64  `json:"bytes"`   // of the new .pack and .idx
	Loose   int64  `json:"loose"`   // bytes of the loose files removed
	Skipped int    `json:"skipped"` // left loose: larger than MaxPackedObject
}

// WritePack moves the loose objects among ids into a new pack (the others
// are skipped): it reads and
// verifies each, writes the .pack and the .idx (temporary files, fsync,
// rename, fsync of the directory; the .idx last, so a crash leaves no
// usable half pack), then removes their loose files. Objects larger than
// MaxPackedObject stay loose. A crash at any point leaves every object
// readable: loose, packed, or both.
func (s *Store) WritePack(ids []ID) (*PackResult, error) {
	res := &PackResult{}
	ids = slices.Clone(ids)
	slices.SortFunc(ids, func(a, b ID) int { return a.Compare(b) })
	ids = slices.Compact(ids)
	if err := atomicfile.MkdirAll(s.packPath()); err != nil {
		return nil, fmt.Errorf("object: pack: %w", err)
	}
	tmp, err := os.CreateTemp(s.packPath(), "pack-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("object: pack: %w", err)
	}
	defer os.Remove(tmp.Name()) // nothing once renamed
	defer tmp.Close()
	h := blake3.New()
	w := io.MultiWriter(tmp, h)
	if _, err := io.WriteString(w, packMagic); err != nil {
		return nil, fmt.Errorf("object: pack: %w", err)
	}
	off := int64(len(packMagic))
	var packed []ID
	var offs, lens []byte
	var looseBytes int64
	for _, id := range ids {
		stored, err := regfile.Read(s.path(id), MaxPackedObject+1)
		if errors.Is(err, regfile.ErrTooLarge) {
			res.Skipped++
			continue
		}
		if errors.Is(err, fs.ErrNotExist) {
			continue // not loose (packed already, or gone): nothing to move
		}
		if err != nil {
			return nil, s.err("pack", id, err)
		}
		canon, err := decompress(stored)
		if errors.Is(err, ErrTooLarge) {
			res.Skipped++ // too large to check in memory: stays loose
			continue
		}
		if err != nil {
			return nil, s.err("pack", id, err)
		}
		if sumCanonical(canon) != id {
			return nil, s.err("pack", id, ErrHashMismatch)
		}
		if _, err := w.Write(stored); err != nil {
			return nil, fmt.Errorf("object: pack: %w", err)
		}
		packed = append(packed, id)
		offs = binary.BigEndian.AppendUint64(offs, uint64(off))
		lens = binary.BigEndian.AppendUint32(lens, uint32(len(stored)))
		off += int64(len(stored))
		looseBytes += int64(len(stored))
	}
	if len(packed) == 0 {
		return res, nil
	}
	var sum ID
	h.Sum(sum[:0])
	if _, err := tmp.Write(sum[:]); err != nil {
		return nil, fmt.Errorf("object: pack: %w", err)
	}
	if err := tmp.Chmod(0o444); err != nil { // written once, never changed
		return nil, fmt.Errorf("object: pack: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return nil, fmt.Errorf("object: pack: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("object: pack: %w", err)
	}
	// The index.
	at := map[ID]int{}
	for i, id := range packed {
		at[id] = i
	}
	idx := buildIndex(packed, func(id ID) (int64, int) {
		i := at[id]
		return int64(binary.BigEndian.Uint64(offs[i*8:])), int(binary.BigEndian.Uint32(lens[i*4:]))
	}, sum)

	name := hex.EncodeToString(sum[:])
	base := filepath.Join(s.packPath(), "pack-"+name)
	fault.Hit("pack.written")
	if err := os.Rename(tmp.Name(), base+".pack"); err != nil {
		return nil, fmt.Errorf("object: pack: %w", err)
	}
	if err := atomicfile.SyncDir(s.packPath()); err != nil {
		return nil, err
	}
	fault.Hit("pack.renamed")
	if err := atomicfile.Write(base+".idx", idx, 0o444); err != nil {
		return nil, err
	}
	fault.Hit("pack.indexed")
	if _, err := s.packList(fullReload); err != nil {
		return nil, err
	}
	// The loose copies go last: until here every object is loose. Shard
	// directories left empty stay (git does not track them; a writer that
	// has just checked one exists must find it).
	for _, id := range packed {
		if err := os.Remove(s.path(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, s.err("pack", id, err)
		}
	}
	fault.Hit("pack.pruned")
	res.Name, res.Objects, res.Loose = name, len(packed), looseBytes
	res.Bytes = off + IDSize + int64(len(idx))
	return res, nil
}

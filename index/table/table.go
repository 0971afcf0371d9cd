package table

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"math"
	"sync/atomic"

	"github.com/ctx-dev/ctx/internal/mmap"
)

// Table is an open table file. Its methods are safe for concurrent use,
// except Close, which must not run concurrently with any other.
//
// Values (and the keys of Get) alias the file's memory mapping: they are
// valid until Close and must not be modified. Their capacity equals their
// length, so an append copies rather than writes into the mapping.
//
// The file must not change while it is open: tables are written once,
// under a temporary name, and renamed into place (a mapped file that is
// truncated underneath a reader faults the process, whatever the checks).
type Table struct {
	data       []byte // the whole file
	unmap      func() error
	kind       string
	dataOff    int
	indexOff   int // the restart offsets
	summaryOff int // the summary's keys
	summaryIdx int // the summary's offsets
	nsum       int // summary entries
	interval   int // restarts per summary entry
	count      int
	restarts   int
	crc        uint32
	err        atomic.Pointer[error] // the first corruption a read found
}

// Open maps the table file at path read-only and checks its header and
// footer against each other and the file size. It reads nothing else, so
// it costs two or three page faults whatever the size of the file. A damaged file
// gives an error wrapping ErrCorrupt; one of an unknown format version, an
// error wrapping ErrVersion. Errors are *fs.PathError.
func Open(path string) (*Table, error) {
	t, err := open(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open table", Path: path, Err: err}
	}
	return t, nil
}

func open(path string) (*Table, error) {
	data, unmap, err := mmap.MapFile(path)
	switch {
	case errors.Is(err, mmap.ErrNotRegular):
		return nil, corruptf("not a regular file")
	case errors.Is(err, mmap.ErrTooLarge):
		return nil, corruptf("file does not fit in memory")
	case errors.Is(err, mmap.ErrShrank):
		return nil, corruptf("%v", err)
	case err != nil:
		return nil, err
	}
	t, err := newTable(data)
	if err != nil {
		_ = unmap()
		return nil, err
	}
	t.unmap = unmap
	return t, nil
}

// newTable checks the header and footer of data, a whole table file.
func newTable(data []byte) (*Table, error) {
	size := uint64(len(data))
	if size < headerFixed+1+footerSize {
		return nil, corruptf("file of %d bytes is shorter than a header and footer", size)
	}
	if string(data[:4]) != Magic {
		return nil, corruptf("bad magic %q", data[:4])
	}
	foot := data[size-footerSize:]
	if string(foot[footerSize-4:]) != Magic {
		return nil, corruptf("bad footer magic %q (truncated?)", foot[footerSize-4:])
	}
	k := int(data[6])
	if k < 1 || k > maxKindLen || headerFixed+k > len(data)-footerSize {
		return nil, corruptf("bad kind length %d", k)
	}
	header := data[:headerFixed+k]
	f := parseFooter(foot)
	if got := metaChecksum(header, foot); got != f.metaCRC {
		return nil, corruptf("header or footer checksum mismatch: %08x, footer says %08x", got, f.metaCRC)
	}
	// The version is checked after the checksum: a damaged version field
	// is corruption, not a file from the future.
	v := int(binary.LittleEndian.Uint16(data[4:]))
	if v < ReadMinVersion || v > ReadMaxVersion {
		return nil, fmtVersion(v)
	}
	kind := string(data[headerFixed : headerFixed+k])
	if !validKind(kind) {
		return nil, corruptf("bad kind %q", kind)
	}
	end := size - footerSize // end of the summary
	switch {
	case f.dataOff != uint64(len(header)):
		return nil, corruptf("data offset %d, header ends at %d", f.dataOff, len(header))
	case f.indexOff < f.dataOff || f.indexOff > end:
		return nil, corruptf("index offset %d outside [%d, %d]", f.indexOff, f.dataOff, end)
	case f.restarts > (end-f.indexOff)/8 || f.summaryOff != f.indexOff+8*f.restarts:
		return nil, corruptf("summary offset %d for %d restarts from %d", f.summaryOff, f.restarts, f.indexOff)
	case f.interval == 0 || f.interval > math.MaxInt32:
		return nil, corruptf("summary interval %d", f.interval)
	case f.count > (f.indexOff-f.dataOff)/minRecordSize:
		return nil, corruptf("%d records in a data region of %d bytes", f.count, f.indexOff-f.dataOff)
	case f.restarts > f.count || (f.count == 0) != (f.restarts == 0):
		return nil, corruptf("%d restarts for %d records", f.restarts, f.count)
	case f.count == 0 && f.indexOff != f.dataOff:
		return nil, corruptf("%d bytes of data and no records", f.indexOff-f.dataOff)
	}
	// Every summary entry takes 8 bytes of offset and at least one of key.
	nsum := (f.restarts + uint64(f.interval) - 1) / uint64(f.interval)
	if nsum > (end-f.summaryOff)/9 {
		return nil, corruptf("%d summary entries in %d bytes", nsum, end-f.summaryOff)
	}
	t := &Table{
		data:       data,
		kind:       kind,
		dataOff:    int(f.dataOff),
		indexOff:   int(f.indexOff),
		summaryOff: int(f.summaryOff),
		summaryIdx: int(end - 8*nsum),
		nsum:       int(nsum),
		interval:   int(f.interval),
		count:      int(f.count),
		restarts:   int(f.restarts),
		crc:        f.contentCRC,
	}
	// The first summary offset lies next to the footer, on a page Open has
	// touched; the restart offsets are checked as lookups read them.
	if t.restarts > 0 {
		if first := binary.LittleEndian.Uint64(data[t.summaryIdx:]); first != f.summaryOff {
			return nil, corruptf("first summary entry at %d, summary starts at %d", first, f.summaryOff)
		}
	} else if t.summaryIdx != t.summaryOff {
		return nil, corruptf("%d bytes of summary and no records", t.summaryIdx-t.summaryOff)
	}
	return t, nil
}

// Kind returns the kind named in the header.
func (t *Table) Kind() string { return t.kind }

// Len returns the number of records.
func (t *Table) Len() int { return t.count }

// Size returns the size of the file in bytes.
func (t *Table) Size() int64 { return int64(len(t.data)) }

// Err returns the first corruption found by Get or an Iter of this table,
// or nil. Open and Verify report theirs directly.
func (t *Table) Err() error {
	if p := t.err.Load(); p != nil {
		return *p
	}
	return nil
}

func (t *Table) setErr(err error) {
	t.err.CompareAndSwap(nil, &err)
}

// Close unmaps the file. Values returned before are invalid afterwards;
// the Table reads as empty. Calling Close again does nothing.
func (t *Table) Close() error {
	unmap := t.unmap
	t.data, t.unmap = nil, nil
	t.dataOff, t.indexOff, t.count, t.restarts, t.nsum = 0, 0, 0, 0, 0
	if unmap == nil {
		return nil
	}
	return unmap()
}

// Get returns the value of key, or ok false if the table has no such key.
// It binary searches the summary and a few restarts and scans one group,
// never allocates, and in a cold process costs about five page faults
// whatever the size of the file. If it meets damage it returns ok false
// and records the error for Err.
func (t *Table) Get(key []byte) (value []byte, ok bool) {
	value, ok, err := t.lookup(key)
	if err != nil {
		t.setErr(err)
		return nil, false
	}
	return value, ok
}

// record is a decoded record header: offsets into the file.
type record struct {
	shared int // bytes of the previous key the key starts with
	key    int // offset of the key suffix
	keyLen int // length of the key suffix
	val    int // offset of the value
	valLen int
	next   int // offset of the next record
}

func (r *record) suffix(data []byte) []byte { return data[r.key : r.key+r.keyLen] }

func (r *record) value(data []byte) []byte { return data[r.val : r.val+r.valLen : r.val+r.valLen] }

// decode decodes the record at off, which must end by end (the next
// restart or the end of the data region). prevLen is the length of the
// previous key: 0 at a restart. 0 <= off < end <= len(t.data) holds.
func (t *Table) decode(off, end, prevLen int) (record, error) {
	b := t.data[off:end]
	shared, n1 := binary.Uvarint(b)
	if n1 <= 0 {
		return record{}, corruptf("record at %d: bad shared length", off)
	}
	unshared, n2 := binary.Uvarint(b[n1:])
	if n2 <= 0 {
		return record{}, corruptf("record at %d: bad key length", off)
	}
	vlen, n3 := binary.Uvarint(b[n1+n2:])
	if n3 <= 0 {
		return record{}, corruptf("record at %d: bad value length", off)
	}
	h := n1 + n2 + n3
	rest := uint64(len(b) - h)
	switch {
	case shared > uint64(prevLen):
		return record{}, corruptf("record at %d: shares %d bytes of a %d-byte key", off, shared, prevLen)
	case unshared > rest || vlen > rest-unshared:
		return record{}, corruptf("record at %d: key of %d and value of %d bytes overrun %d bytes", off, unshared, vlen, rest)
	}
	r := record{shared: int(shared), key: off + h, keyLen: int(unshared)}
	r.val = r.key + r.keyLen
	r.valLen = int(vlen)
	r.next = r.val + r.valLen
	return r, nil
}

// restart returns the offset of the i-th restart, 0 <= i < t.restarts.
func (t *Table) restart(i int) (int, error) {
	off := binary.LittleEndian.Uint64(t.data[t.indexOff+8*i:])
	if off < uint64(t.dataOff) || off >= uint64(t.indexOff) {
		return 0, corruptf("restart %d at %d, outside the data region [%d, %d)", i, off, t.dataOff, t.indexOff)
	}
	return int(off), nil
}

// group returns the bounds of the i-th group, 0 <= i < t.restarts.
func (t *Table) group(i int) (start, end int, err error) {
	if start, err = t.restart(i); err != nil {
		return 0, 0, err
	}
	end = t.indexOff
	if i+1 < t.restarts {
		if end, err = t.restart(i + 1); err != nil {
			return 0, 0, err
		}
		if end <= start {
			return 0, 0, corruptf("restart %d at %d, not after restart %d at %d", i+1, end, i, start)
		}
	}
	return start, end, nil
}

// summaryKey returns the key of the j-th summary entry, 0 <= j < t.nsum.
func (t *Table) summaryKey(j int) ([]byte, error) {
	off := binary.LittleEndian.Uint64(t.data[t.summaryIdx+8*j:])
	if off < uint64(t.summaryOff) || off >= uint64(t.summaryIdx) {
		return nil, corruptf("summary entry %d at %d, outside [%d, %d)", j, off, t.summaryOff, t.summaryIdx)
	}
	b := t.data[off:t.summaryIdx]
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, corruptf("summary entry %d at %d overruns the summary", j, off)
	}
	return b[k : k+int(n)], nil
}

// search returns the last group whose restart key is <= key (-1 if key is
// before every key), and, if a restart key equals key, its record. It
// binary searches the summary, then the restarts of one summary entry.
func (t *Table) search(key []byte) (g int, exact record, found bool, err error) {
	lo, hi := 0, t.nsum // summary keys before lo are <= key, from hi on > key
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		k, err := t.summaryKey(mid)
		if err != nil {
			return 0, record{}, false, err
		}
		if bytes.Compare(k, key) <= 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return -1, record{}, false, nil
	}
	// The restart lo-1 starts is <= key, as its summary key; search the
	// ones after it.
	first := (lo - 1) * t.interval // < t.restarts
	lo, hi = first+1, t.restarts
	if hi-first > t.interval {
		hi = first + t.interval
	}
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		off, err := t.restart(mid)
		if err != nil {
			return 0, record{}, false, err
		}
		r, err := t.decode(off, t.indexOff, 0)
		if err != nil {
			return 0, record{}, false, err
		}
		switch c := bytes.Compare(r.suffix(t.data), key); {
		case c == 0:
			return mid, r, true, nil
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return lo - 1, record{}, false, nil
}

func (t *Table) lookup(key []byte) ([]byte, bool, error) {
	g, exact, found, err := t.search(key)
	if err != nil || g < 0 {
		return nil, false, err
	}
	if found {
		return exact.value(t.data), true, nil
	}
	start, end, err := t.group(g)
	if err != nil {
		return nil, false, err
	}
	r, err := t.decode(start, end, 0)
	if err != nil {
		return nil, false, err
	}
	// Scan the group without rebuilding keys. Every key so far is < key;
	// m is the length of the prefix the previous key shares with key.
	// Because keys increase and shared is the longest common prefix with
	// the previous key (Verify checks both), a record sharing fewer than m
	// bytes is past key, and one sharing more is still before it.
	first := r.suffix(t.data)
	m := commonPrefix(first, key)
	if m == len(first) && m == len(key) {
		return r.value(t.data), true, nil
	}
	prevLen := len(first)
	for off := r.next; off < end; off = r.next {
		if r, err = t.decode(off, end, prevLen); err != nil {
			return nil, false, err
		}
		prevLen = r.shared + r.keyLen
		switch {
		case r.shared < m:
			return nil, false, nil
		case r.shared > m:
			continue
		}
		suffix, tail := r.suffix(t.data), key[m:]
		c := commonPrefix(suffix, tail)
		switch {
		case c == len(suffix) && c == len(tail):
			return r.value(t.data), true, nil
		case c == len(suffix): // the record's key is a prefix of key
		case c == len(tail) || suffix[c] > tail[c]:
			return nil, false, nil
		}
		m += c
	}
	return nil, false, nil
}

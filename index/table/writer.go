package table

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
)

// Default grouping of records between restarts; see WriterOptions.
const (
	DefaultRestartInterval = 16
	DefaultBlockSize       = 4096
	DefaultSummaryInterval = 64
)

// WriterOptions configures a Writer. The zero values of RestartInterval and
// BlockSize mean the defaults.
//
// The grouping only trades file size against lookup cost; readers do not
// depend on it, and a table written with any options reads the same.
type WriterOptions struct {
	// Kind is stored in the header; see Table.Kind.
	Kind string
	// RestartInterval is the most records in a group: every
	// RestartInterval-th record stores its key whole. 1 stores every key
	// whole, which makes the index a dense array of record offsets.
	RestartInterval int
	// BlockSize ends a group early once it holds this many bytes, so that a
	// lookup scanning a group of large values touches few pages.
	BlockSize int
	// SummaryInterval is the number of restarts per summary entry: the key
	// of every SummaryInterval-th restart is copied into the summary, at
	// most 1<<31.
	SummaryInterval int
	// BufferSize is the bytes the Writer gathers before it writes to its
	// io.Writer (0: 64 KiB). A large one for a file saves a buffer
	// around the file, and a copy of every byte.
	BufferSize int
}

// Validate reports an invalid kind or a negative option.
func (o WriterOptions) Validate() error {
	if !validKind(o.Kind) {
		return fmt.Errorf("%w: kind %q: want 1 to %d bytes of [a-z0-9._-]", ErrInvalidArgument, o.Kind, maxKindLen)
	}
	if o.RestartInterval < 0 || o.BlockSize < 0 || o.SummaryInterval < 0 || int64(o.SummaryInterval) > math.MaxInt32 || o.BufferSize < 0 {
		return fmt.Errorf("%w: restart interval, block size, summary interval or buffer size out of range", ErrInvalidArgument)
	}
	return nil
}

// Writer writes one table file as a stream: each record goes out as it is
// added, and only the previous key, the restart offsets (8 bytes per group)
// and the summary keys (one key per 64 groups) stay in memory. The same kind, options and Adds always produce the
// same bytes.
//
// A Writer writes to any io.Writer and does not close or sync it: making
// the file durable and visible (temp file, fsync, rename) is the caller's
// job.
type Writer struct {
	out      *crcWriter
	buf      *bufio.Writer
	interval int
	block    uint64
	summary  int
	off      uint64 // bytes written so far, = offset of the next record
	dataOff  uint64
	count    uint64
	group    int    // records in the current group
	groupOff uint64 // offset of the current group's restart
	prev     []byte
	restarts []uint64
	sumKeys  []byte // the summary's entries: uvarint length and key
	scratch  []byte
	head     []byte // the header, for the meta checksum
	err      error  // sticky: a failed write or invalid options
	closed   bool
}

// NewWriter returns a Writer of a table of the given kind, with the default
// grouping. An invalid kind is reported by the first Add or by Close.
func NewWriter(w io.Writer, kind string) *Writer {
	tw, err := NewWriterOptions(w, WriterOptions{Kind: kind})
	if err != nil {
		return &Writer{err: err}
	}
	return tw
}

// NewWriterOptions returns a Writer configured by opts, or the error of
// opts.Validate.
func NewWriterOptions(w io.Writer, opts WriterOptions) (*Writer, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.RestartInterval == 0 {
		opts.RestartInterval = DefaultRestartInterval
	}
	if opts.BlockSize == 0 {
		opts.BlockSize = DefaultBlockSize
	}
	if opts.SummaryInterval == 0 {
		opts.SummaryInterval = DefaultSummaryInterval
	}
	if opts.BufferSize == 0 {
		opts.BufferSize = 64 << 10
	}
	out := &crcWriter{w: w}
	tw := &Writer{
		out:      out,
		buf:      bufio.NewWriterSize(out, opts.BufferSize),
		interval: opts.RestartInterval,
		block:    uint64(opts.BlockSize),
		summary:  opts.SummaryInterval,
		scratch:  make([]byte, 0, 3*binary.MaxVarintLen64),
	}
	tw.head = appendHeader(nil, opts.Kind)
	tw.write(tw.head)
	tw.dataOff = tw.off
	return tw, nil
}

// Add appends a record. Its key must be greater than the previous key in
// byte order (bytes.Compare); otherwise Add returns an error wrapping
// ErrOrder that names both keys, writes nothing, and the Writer stays
// usable. Add keeps neither slice.
func (w *Writer) Add(key, value []byte) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return ErrClosed
	}
	if w.count > 0 && bytes.Compare(key, w.prev) <= 0 {
		return fmt.Errorf("%w: %s is not after %s", ErrOrder, quoteKey(key), quoteKey(w.prev))
	}
	shared := 0
	if w.count == 0 || w.group >= w.interval || w.off-w.groupOff >= w.block {
		if len(w.restarts)%w.summary == 0 {
			w.sumKeys = binary.AppendUvarint(w.sumKeys, uint64(len(key)))
			w.sumKeys = append(w.sumKeys, key...)
		}
		w.restarts = append(w.restarts, w.off)
		w.group, w.groupOff = 0, w.off
	} else {
		shared = commonPrefix(w.prev, key)
	}
	h := binary.AppendUvarint(w.scratch[:0], uint64(shared))
	h = binary.AppendUvarint(h, uint64(len(key)-shared))
	h = binary.AppendUvarint(h, uint64(len(value)))
	w.write(h)
	w.write(key[shared:])
	w.write(value)
	w.prev = append(w.prev[:0], key...)
	w.group++
	w.count++
	return w.err
}

// Size returns the number of bytes written so far; after Close, the size
// of the file.
func (w *Writer) Size() int64 { return int64(w.off) }

// Close writes the index and the footer and flushes. It does not close the
// underlying writer. Calling Close again returns the first result.
func (w *Writer) Close() error {
	if w.closed || w.err != nil {
		return w.err
	}
	w.closed = true
	indexOff := w.off
	var b [8]byte
	for _, r := range w.restarts {
		binary.LittleEndian.PutUint64(b[:], r)
		w.write(b[:])
	}
	summaryOff := w.off
	w.write(w.sumKeys)
	for p := 0; p < len(w.sumKeys); {
		binary.LittleEndian.PutUint64(b[:], summaryOff+uint64(p))
		w.write(b[:])
		n, k := binary.Uvarint(w.sumKeys[p:])
		p += k + int(n)
	}
	if w.err == nil {
		w.err = w.buf.Flush()
	}
	if w.err != nil {
		return w.err
	}
	f := footer{
		dataOff:    w.dataOff,
		indexOff:   indexOff,
		summaryOff: summaryOff,
		count:      w.count,
		restarts:   uint64(len(w.restarts)),
		interval:   uint32(w.summary),
		contentCRC: w.out.crc,
	}
	foot := f.append(make([]byte, 0, footerSize))
	f.metaCRC = metaChecksum(w.head, foot)
	foot = f.append(foot[:0])
	if _, err := w.out.Write(foot); err != nil {
		w.err = err
		return err
	}
	w.off += footerSize
	return nil
}

func (w *Writer) write(p []byte) {
	if w.err != nil {
		return
	}
	n, err := w.buf.Write(p)
	w.off += uint64(n)
	if err != nil {
		w.err = err
	}
}

// crcWriter checksums what passes through it.
type crcWriter struct {
	w   io.Writer
	crc uint32
}

func (c *crcWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.crc = crc32.Update(c.crc, castagnoli(), p[:n])
	return n, err
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && binary.LittleEndian.Uint64(a[i:]) == binary.LittleEndian.Uint64(b[i:]) {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// quoteKey quotes a key for an error message, shortened if long.
func quoteKey(k []byte) string {
	const max = 64
	if len(k) > max {
		return fmt.Sprintf("%q… (%d bytes)", k[:max], len(k))
	}
	return fmt.Sprintf("%q", k)
}

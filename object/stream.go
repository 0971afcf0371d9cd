package object

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/zeebo/blake3"

	"github.com/ctx-dev/ctx/internal/regfile"
)

// smallStream is the size up to which Open verifies an object in memory
// before returning a reader; larger objects are verified in a first pass
// over the file and then streamed in a second.
const smallStream = 16 << 20

// PutReader stores an object of exactly size payload bytes read from r,
// durably, without holding the payload in memory. It fails if r yields
// fewer or more bytes (a file that changed while being read).
func (s *Store) PutReader(kind Kind, r io.Reader, size int64) (ID, error) {
	id, tmp, err := s.writeStream(kind, r, size, true)
	if err != nil || tmp == "" {
		return id, err
	}
	return id, s.install(tmp, id, true)
}

// writeStream compresses r to a temporary file in the objects directory
// while hashing it. It returns the ID and the temporary file, or "" when the
// object already exists (the temporary file is then removed).
func (s *Store) writeStream(kind Kind, r io.Reader, size int64, sync bool) (ID, string, error) {
	if !kind.Valid() || size < 0 {
		return Zero, "", fmt.Errorf("%w: kind %d, size %d", ErrInvalidArgument, kind, size)
	}
	f, err := os.CreateTemp(s.dir, "incoming-*.tmp")
	if err != nil {
		return Zero, "", fmt.Errorf("object: write: %w", err)
	}
	tmp := f.Name()
	fail := func(err error) (ID, string, error) {
		_ = f.Close()
		_ = os.Remove(tmp)
		return Zero, "", err
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	enc, err := s.enc.getStream(bw, int64(HeaderSize)+size)
	if err != nil {
		return fail(err)
	}
	h := hasherPool.Get().(*blake3.Hasher)
	h.Reset()
	defer hasherPool.Put(h)
	var hdr [HeaderSize]byte
	header := AppendHeader(hdr[:0], kind, uint64(size))
	_, _ = h.Write(header)
	if _, err := enc.Write(header); err != nil {
		return fail(fmt.Errorf("object: write: %w", err))
	}
	n, err := io.CopyN(io.MultiWriter(enc, h), r, size)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = fmt.Errorf("input ended after %d of %d bytes (did the file change while being read?)", n, size)
		}
		return fail(fmt.Errorf("object: write: %w", err))
	}
	var one [1]byte
	if m, _ := io.ReadFull(r, one[:]); m != 0 {
		return fail(fmt.Errorf("object: write: input is longer than %d bytes (did the file change while being read?)", size))
	}
	err = enc.Close()
	s.enc.putStream(enc)
	if err == nil {
		err = bw.Flush()
	}
	if err := finishTemp(f, sync, err); err != nil {
		return Zero, "", fmt.Errorf("object: write: %w", err)
	}
	var id ID
	h.Sum(id[:0])
	if ok, err := s.Has(id); err != nil || ok {
		_ = os.Remove(tmp)
		return id, "", err
	}
	return id, tmp, nil
}

// Reader streams the payload of a verified object. Objects up to 16 MiB
// are verified in memory before Open returns; larger ones are verified by a
// first pass over the file, and the stream hashes what it returns again, so
// that if the file changes between the passes the final Read fails with
// ErrHashMismatch instead of io.EOF.
type Reader struct {
	id    ID
	kind  Kind
	size  uint64
	r     io.Reader
	close func()
	h     *blake3.Hasher // nil when verified up front
	left  uint64
	err   error
}

// Kind returns the object's kind.
func (r *Reader) Kind() Kind { return r.kind }

// Size returns the payload size in bytes.
func (r *Reader) Size() uint64 { return r.size }

// Read reads payload bytes.
func (r *Reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.h == nil {
		n, err := r.r.Read(p)
		if err != nil {
			r.err = err
		}
		return n, err
	}
	if r.left == 0 {
		r.err = r.finish()
		return 0, r.err
	}
	if len(p) == 0 {
		// io.Reader: a Read of nothing is not the end of the stream.
		return 0, nil
	}
	if uint64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.r.Read(p)
	_, _ = r.h.Write(p[:n])
	r.left -= uint64(n)
	if err == io.EOF && r.left > 0 {
		r.err = &Error{Op: "read", ID: r.id, Path: RelPath(r.id), Err: fmt.Errorf("%w: payload truncated", ErrHashMismatch)}
		return n, r.err
	}
	if err != nil && err != io.EOF {
		// The first pass decompressed this file without error, so it
		// changed since: report it as hashPass would.
		r.err = &Error{Op: "read", ID: r.id, Path: RelPath(r.id), Err: fmt.Errorf("%w: cannot decompress: %w", ErrHashMismatch, err)}
		return n, r.err
	}
	return n, nil
}

func (r *Reader) finish() error {
	var one [1]byte
	if m, _ := io.ReadFull(r.r, one[:]); m != 0 {
		return &Error{Op: "read", ID: r.id, Path: RelPath(r.id), Err: fmt.Errorf("%w: payload longer than declared", ErrHashMismatch)}
	}
	var got ID
	r.h.Sum(got[:0])
	if got != r.id {
		return &Error{Op: "read", ID: r.id, Path: RelPath(r.id), Err: ErrHashMismatch}
	}
	return io.EOF
}

// Close releases the reader's file.
func (r *Reader) Close() error {
	if r.close != nil {
		r.close()
		r.close = nil
	}
	r.r, r.err = nil, errReaderClosed
	return nil
}

var errReaderClosed = errors.New("object: read from a closed Reader")

// Open returns a reader of the object's payload; see Reader for how it is
// verified. The caller must Close it.
func (s *Store) Open(id ID) (*Reader, error) {
	dec, closeFn, err := s.openDecoder(id)
	if err != nil {
		return nil, err
	}
	kind, size, err := s.readHeader(id, dec)
	closeFn()
	if err != nil {
		return nil, err
	}
	if size <= smallStream {
		k, payload, err := s.Get(id)
		if err != nil {
			return nil, err
		}
		return &Reader{id: id, kind: k, size: uint64(len(payload)), r: bytes.NewReader(payload)}, nil
	}
	if _, _, err := s.hashPass(id); err != nil {
		return nil, err
	}
	// Second pass: stream, hashing again.
	dec, closeFn, err = s.openDecoder(id)
	if err != nil {
		return nil, err
	}
	if _, _, err := s.readHeader(id, dec); err != nil {
		closeFn()
		return nil, err
	}
	h := blake3.New()
	var hdr [HeaderSize]byte
	_, _ = h.Write(AppendHeader(hdr[:0], kind, size))
	return &Reader{id: id, kind: kind, size: size, r: dec, close: closeFn, h: h, left: size}, nil
}

func (s *Store) readHeader(id ID, dec io.Reader) (Kind, uint64, error) {
	var hdr [HeaderSize]byte
	if _, err := io.ReadFull(dec, hdr[:]); err != nil {
		return KindInvalid, 0, s.err("read", id, fmt.Errorf("%w: cannot read header: %w", ErrHashMismatch, err))
	}
	kind, size, err := ParseHeader(hdr[:])
	if err != nil {
		// A bad header is most likely damage: report it as such unless
		// the bytes really hash to the id (an object written that way).
		if s.hashesTo(id) {
			return KindInvalid, 0, s.err("read", id, err)
		}
		return KindInvalid, 0, s.err("read", id, ErrHashMismatch)
	}
	return kind, size, nil
}

// hashesTo reports whether the decompressed file of id hashes to id.
func (s *Store) hashesTo(id ID) bool {
	dec, closeFn, err := s.openDecoder(id)
	if err != nil {
		return false
	}
	defer closeFn()
	h := blake3.New()
	if _, err := io.Copy(h, dec); err != nil {
		return false
	}
	var got ID
	h.Sum(got[:0])
	return got == id
}

// hashPass decompresses and hashes a whole object in constant memory and
// checks it against its ID and its declared length.
func (s *Store) hashPass(id ID) (Kind, uint64, error) {
	dec, closeFn, err := s.openDecoder(id)
	if err != nil {
		return KindInvalid, 0, err
	}
	defer closeFn()
	kind, size, err := s.readHeader(id, dec)
	if err != nil {
		return KindInvalid, 0, err
	}
	h := blake3.New()
	var hdr [HeaderSize]byte
	_, _ = h.Write(AppendHeader(hdr[:0], kind, size))
	n, err := io.Copy(h, dec)
	if err != nil {
		return KindInvalid, 0, s.err("read", id, fmt.Errorf("%w: cannot decompress: %w", ErrHashMismatch, err))
	}
	var got ID
	h.Sum(got[:0])
	if uint64(n) != size || got != id {
		return KindInvalid, 0, s.err("read", id, ErrHashMismatch)
	}
	return kind, size, nil
}

func (s *Store) openDecoder(id ID) (io.Reader, func(), error) {
	f, err := regfile.Open(s.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		// A packed object: small enough to hold its stored bytes.
		stored, perr := s.readPacked(id)
		if perr == nil {
			dec, derr := getStreamDecoder(bytes.NewReader(stored))
			if derr != nil {
				return nil, nil, s.err("read", id, fmt.Errorf("%w: %w", ErrHashMismatch, derr))
			}
			return dec, func() { putStreamDecoder(dec) }, nil
		}
		if !errors.Is(perr, fs.ErrNotExist) {
			return nil, nil, s.err("read", id, perr)
		}
	}
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, nil, s.err("read", id, ErrNotFound)
		case errors.Is(err, regfile.ErrNotRegular):
			return nil, nil, s.err("read", id, fmt.Errorf("%w: %w", ErrHashMismatch, err))
		}
		return nil, nil, s.err("read", id, err)
	}
	dec, err := getStreamDecoder(bufio.NewReaderSize(f, 256<<10))
	if err != nil {
		_ = f.Close()
		return nil, nil, s.err("read", id, fmt.Errorf("%w: %w", ErrHashMismatch, err))
	}
	return dec, func() { putStreamDecoder(dec); _ = f.Close() }, nil
}

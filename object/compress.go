package object

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// DefaultCompressionLevel is the zstd level used when none is configured.
const DefaultCompressionLevel = 3

// MaxInMemory is the largest object (canonical bytes) that Get and Put hold
// in memory; larger objects go through Open and PutReader.
const MaxInMemory = 512 << 20

// decoder decompresses stored objects for Get; DecodeAll is safe for
// concurrent use. Its memory cap stops a hostile store from exhausting
// memory with a small file that inflates without bound.
var decoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)),
		zstd.WithDecoderMaxMemory(uint64(MaxInMemory+HeaderSize)))
})

// streamDecoders are reused single-goroutine decoders for Open.
var streamDecoders = sync.Pool{}

func getStreamDecoder(r io.Reader) (*zstd.Decoder, error) {
	if d, ok := streamDecoders.Get().(*zstd.Decoder); ok {
		if err := d.Reset(r); err == nil {
			return d, nil
		}
		d.Close()
	}
	return zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
}

func putStreamDecoder(d *zstd.Decoder) {
	if d.Reset(nil) == nil {
		streamDecoders.Put(d)
	}
}

// decompress inflates a stored file into canonical bytes.
func decompress(stored []byte) ([]byte, error) { return decompressInto(stored, nil) }

// decompressInto is decompress that writes into dst's memory when it is
// large enough (View's buffers).
func decompressInto(stored, dst []byte) ([]byte, error) {
	dec, err := decoder()
	if err != nil {
		return nil, err
	}
	var h zstd.Header
	if err := h.Decode(stored); err != nil {
		return nil, fmt.Errorf("%w: stored file is not a zstd frame: %w", ErrHashMismatch, err)
	}
	hint := 0
	if h.HasFCS {
		if h.FrameContentSize > uint64(MaxInMemory+HeaderSize) {
			return nil, ErrTooLarge
		}
		// The header is not trusted until the hash is checked: a tiny
		// damaged file must not make us allocate hundreds of megabytes up
		// front. DecodeAll grows the buffer as the data really inflates.
		// The 16 spare bytes let the decoder take its fast path, which
		// needs room past the end of the output.
		hint = int(min(h.FrameContentSize, uint64(1<<20+64*len(stored)))) + 16
	}
	if cap(dst) < hint {
		dst = make([]byte, 0, hint)
	}
	out, err := dec.DecodeAll(stored, dst[:0])
	if err != nil {
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded) {
			return nil, ErrTooLarge
		}
		return nil, fmt.Errorf("%w: cannot decompress: %w", ErrHashMismatch, err)
	}
	return out, nil
}

// encoders compress for one level; EncodeAll is safe for concurrent use.
type encoders struct {
	level  zstd.EncoderLevel
	all    *zstd.Encoder
	stream sync.Pool // *zstd.Encoder writing to a file
}

func newEncoders(level int) (*encoders, error) {
	l := zstd.EncoderLevelFromZstd(level)
	all, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(l), zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)))
	if err != nil {
		return nil, fmt.Errorf("object: zstd: %w", err)
	}
	return &encoders{level: l, all: all}, nil
}

func (e *encoders) compress(kind Kind, payload []byte) []byte {
	canon := Canonical(kind, payload)
	return e.all.EncodeAll(canon, make([]byte, 0, len(canon)/2+64))
}

// getStream returns an encoder writing one frame of n bytes to w; the frame
// header records n, as EncodeAll's do.
func (e *encoders) getStream(w io.Writer, n int64) (*zstd.Encoder, error) {
	enc, ok := e.stream.Get().(*zstd.Encoder)
	if !ok {
		var err error
		enc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(e.level), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("object: zstd: %w", err)
		}
	}
	enc.ResetContentSize(w, n)
	return enc, nil
}

func (e *encoders) putStream(enc *zstd.Encoder) {
	enc.Reset(nil)
	e.stream.Put(enc)
}

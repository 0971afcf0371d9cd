package object

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/ctx-dev/ctx/internal/regfile"

	"github.com/zeebo/blake3"
)

// StreamPutter stores objects read from a stream.
type StreamPutter interface {
	Putter
	// PutReader stores an object of exactly size payload bytes from r.
	PutReader(kind Kind, r io.Reader, size int64) (ID, error)
}

var (
	_ StreamPutter = (*Store)(nil)
	_ StreamPutter = (*Batch)(nil)
	_ StreamPutter = (*MemStore)(nil)
	_ StreamPutter = hashOnly{}
)

// smallFile is the size up to which files are read whole.
const smallFile = 8 << 20

// PutFile stores the content of the regular file at path as a blob.
func PutFile(w StreamPutter, path string) (ID, error) {
	f, size, err := openRegular(path)
	if err != nil {
		return Zero, err
	}
	defer f.Close()
	if size <= smallFile {
		data, err := readExactly(f, size, path)
		if err != nil {
			return Zero, err
		}
		return w.Put(KindBlob, data)
	}
	id, err := w.PutReader(KindBlob, f, size)
	if err != nil {
		return Zero, fmt.Errorf("%s: %w", path, err)
	}
	return id, nil
}

// HashFile returns the blob ID of the regular file at path without storing
// anything.
func HashFile(path string) (ID, error) {
	return PutFile(hashOnly{}, path)
}

// hashOnly is a StreamPutter that computes IDs and stores nothing.
type hashOnly struct{}

func (hashOnly) Put(kind Kind, payload []byte) (ID, error) { return Sum(kind, payload), nil }

func (hashOnly) PutReader(kind Kind, r io.Reader, size int64) (ID, error) {
	h := blake3.New()
	var hdr [HeaderSize]byte
	_, _ = h.Write(AppendHeader(hdr[:0], kind, uint64(size)))
	n, err := io.Copy(h, io.LimitReader(r, size+1))
	if err != nil {
		return Zero, fmt.Errorf("object: hash: %w", err)
	}
	if n != size {
		return Zero, fmt.Errorf("object: hash: input has %d bytes, want %d (did the file change while being read?)", n, size)
	}
	var id ID
	h.Sum(id[:0])
	return id, nil
}

// openRegular opens a regular file for reading; anything else (a FIFO
// included, without blocking on it) is ErrInvalidArgument.
func openRegular(path string) (*os.File, int64, error) {
	f, err := regfile.Open(path)
	if errors.Is(err, regfile.ErrNotRegular) {
		return nil, 0, fmt.Errorf("%w: %s is not a regular file", ErrInvalidArgument, path)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("object: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, 0, fmt.Errorf("object: %w", err)
	}
	return f, st.Size(), nil
}

func readExactly(f *os.File, size int64, path string) ([]byte, error) {
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("object: read %s: %w (did the file change while being read?)", path, err)
	}
	var one [1]byte
	if n, _ := f.Read(one[:]); n != 0 {
		return nil, fmt.Errorf("object: read %s: file grew while being read", path)
	}
	return data, nil
}

// PutFiles stores the regular files at paths as blobs through w, or with a
// nil w only computes their IDs, using up to workers goroutines (0: twice
// the number of CPUs). It returns the IDs in the order of paths and stops
// at the first error.
func PutFiles(ctx context.Context, w StreamPutter, paths []string, workers int) ([]ID, error) {
	if workers <= 0 {
		workers = 2 * runtime.GOMAXPROCS(0)
	}
	if w == nil {
		w = hashOnly{}
	}
	ids := make([]ID, len(paths))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i, p := range paths {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			var err error
			ids[i], err = PutFile(w, p)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ids, nil
}

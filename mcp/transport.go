package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
)

// maxLine bounds one message: a longer line is answered with a parse
// error and skipped, rather than buffered without end.
const maxLine = 16 << 20

// lineOrErr is one line of input, or how the input ended.
type lineOrErr struct {
	line []byte
	err  error
}

// readLines sends in's lines (trimmed, blank ones skipped) to lines until
// in ends, then its error (io.EOF at a clean end); it stops early when
// done is closed. It runs on its own goroutine, so that a session can end
// while a read is blocked.
func readLines(in io.Reader, lines chan<- lineOrErr, done <-chan struct{}) {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			select {
			case lines <- lineOrErr{line: line}:
			case <-done:
				return
			}
		}
		if err != nil {
			select {
			case lines <- lineOrErr{err: err}:
			case <-done:
			}
			return
		}
	}
}

// readLine returns the next line without its end, trimmed of white
// space; a line over maxLine comes back as the single byte 0, which
// decode answers with a parse error.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	long := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !long {
			buf = append(buf, chunk...)
			if len(buf) > maxLine {
				long, buf = true, nil
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if long {
			return []byte{0}, err
		}
		return bytes.TrimSpace(buf), err
	}
}

// lineWriter writes whole lines to out, one goroutine at a time.
type lineWriter struct {
	mu  sync.Mutex
	out io.Writer
}

// writeLine writes b and a newline in one Write.
func (w *lineWriter) writeLine(b []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err := w.out.Write(append(b[:len(b):len(b)], '\n'))
	return err
}

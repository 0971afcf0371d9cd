package llm

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll decodes every event of a stream; err is the error that ended
// it (nil for a clean end).
func readAll(r io.Reader) (evs []Event, err error) {
	d := NewDecoder(r)
	for {
		ev, err := d.Next()
		if err == io.EOF {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

func TestDecoder(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		want   []Event
		err    error
	}{
		{"one event", "data: x\n\n", []Event{{Data: "x"}}, nil},
		{"two data lines", "data: a\ndata: b\n\n", []Event{{Data: "a\nb"}}, nil},
		{"crlf and cr", "data: a\r\n\r\ndata: b\r\rdata: c\n\n", []Event{{Data: "a"}, {Data: "b"}, {Data: "c"}}, nil},
		{"one space dropped, not more", "data:  two\n\ndata:none\n\n", []Event{{Data: " two"}, {Data: "none"}}, nil},
		{"comments and pings", ": ping\n\n:\ndata: x\n\n", []Event{{Data: "x"}}, nil},
		{"type and id", "event: error\nid: 3\ndata: bad\n\n", []Event{{Type: "error", ID: "3", Data: "bad"}}, nil},
		{"event without data is not dispatched", "event: x\n\ndata: y\n\n", []Event{{Data: "y"}}, nil},
		{"empty data is an event", "data:\n\n", []Event{{Data: ""}}, nil},
		{"unknown fields and retry ignored", "retry: 10\nfoo: bar\ndata: z\n\n", []Event{{Data: "z"}}, nil},
		{"field without colon", "data\n\n", []Event{{Data: ""}}, nil},
		{"byte-order mark", "\uFEFFdata: x\n\n", []Event{{Data: "x"}}, nil},
		{"id with NUL ignored", "id: a\x00b\ndata: x\n\n", []Event{{Data: "x"}}, nil},
		{"empty stream", "", nil, nil},
		{"only blank lines", "\n\n\n", nil, nil},
		{"done without blank line", "data: x\n\ndata: [DONE]", []Event{{Data: "x"}, {Data: "[DONE]"}}, nil},
		{"done with line end only", "data: [DONE]\n", []Event{{Data: "[DONE]"}}, nil},
		{"cut inside a line", "data: x\n\ndata: {\"a\":", []Event{{Data: "x"}}, ErrTruncated},
		{"cut after a data line", "data: x\n", nil, ErrTruncated},
		{"cut after an event line", "event: x\n", nil, ErrTruncated},
		{"trailing comment without end", "data: x\n\n: bye", []Event{{Data: "x"}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tc.stream), iotest.OneByteReader(strings.NewReader(tc.stream))} {
				got, err := readAll(r)
				if !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
					t.Fatalf("error %v, want %v", err, tc.err)
				}
				if len(got) != len(tc.want) {
					t.Fatalf("events %q, want %q", got, tc.want)
				}
				for i := range got {
					if got[i] != tc.want[i] {
						t.Errorf("event %d = %+v, want %+v", i, got[i], tc.want[i])
					}
				}
			}
		})
	}
}

func TestDecoderLimits(t *testing.T) {
	long := "data: " + strings.Repeat("x", MaxEventBytes) + "\n\n"
	if _, err := readAll(strings.NewReader(long)); !errors.Is(err, ErrMalformed) {
		t.Errorf("an event over MaxEventBytes: %v, want ErrMalformed", err)
	}
	many := strings.Repeat("data: "+strings.Repeat("y", 1<<20)+"\n", 17) + "\n"
	if _, err := readAll(strings.NewReader(many)); !errors.Is(err, ErrMalformed) {
		t.Errorf("an event of many lines over MaxEventBytes: %v, want ErrMalformed", err)
	}
	boom := errors.New("boom")
	if _, err := readAll(iotest.ErrReader(boom)); err != boom {
		t.Errorf("a read error: %v, want it as is", err)
	}
}

// FuzzDecoder: whatever the bytes, the decoder ends (EOF or an error),
// never panics, returns no more events than the stream has lines, and
// reading byte by byte gives the same events as reading all at once.
func FuzzDecoder(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "sse", "*.txt"))
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("data: a\r\rdata: b\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		whole, errWhole := readAll(strings.NewReader(string(data)))
		bytewise, errBytes := readAll(iotest.OneByteReader(strings.NewReader(string(data))))
		if (errWhole == nil) != (errBytes == nil) || len(whole) != len(bytewise) {
			t.Fatalf("whole: %q %v; byte by byte: %q %v", whole, errWhole, bytewise, errBytes)
		}
		for i := range whole {
			if whole[i] != bytewise[i] {
				t.Fatalf("event %d: %+v vs %+v", i, whole[i], bytewise[i])
			}
		}
		if errWhole != nil && !errors.Is(errWhole, ErrTruncated) && !errors.Is(errWhole, ErrMalformed) {
			t.Fatalf("unexpected error %v", errWhole)
		}
		lines := strings.Count(string(data), "\n") + strings.Count(string(data), "\r") + 1
		if len(whole) > lines {
			t.Fatalf("%d events from %d lines", len(whole), lines)
		}
		// The assembler must not panic on any event either.
		for _, api := range []API{LlamaCPP, OpenAI} {
			a := &assembler{api: api, resp: &Response{Slot: -1}}
			for _, ev := range whole {
				if a.chunk([]byte(ev.Data), true) != nil {
					break
				}
			}
			_, _ = a.finish()
		}
	})
}

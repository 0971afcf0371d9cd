package llm

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxEventBytes bounds one server-sent event (its data and field lines):
// a server that never ends a line cannot make ctx read without limit.
const MaxEventBytes = 16 << 20

// Event is one server-sent event.
type Event struct {
	// Type is the event's "event:" field; "" for the default "message".
	Type string
	// Data is its "data:" lines joined with "\n".
	Data string
	// ID is its "id:" field.
	ID string
}

// Decoder reads a text/event-stream as the HTML standard defines it
// (§9.2.6 "Interpreting an event stream"): lines ended by CR LF, LF or
// CR; "field: value" lines, a value's first space dropped; comments
// (lines starting with ':', which llama.cpp sends as keep-alive pings)
// ignored; an event dispatched at a blank line, and only if it had data.
type Decoder struct {
	r       *bufio.Reader
	started bool
	done    bool
}

// NewDecoder returns a decoder reading r.
func NewDecoder(r io.Reader) *Decoder { return &Decoder{r: bufio.NewReader(r)} }

// Next returns the next event. At the end of the stream it returns
// io.EOF if nothing was pending, and an error wrapping ErrTruncated if the
// stream ended inside an event (data read but no blank line after it) —
// except for a last event "[DONE]" (the OpenAI end marker), which is
// returned as if ended. An event over MaxEventBytes is ErrMalformed. A
// read error of the underlying reader is returned as is.
func (d *Decoder) Next() (Event, error) {
	if d.done {
		return Event{}, io.EOF
	}
	var (
		ev      Event
		data    strings.Builder
		hasData bool
		size    int
	)
	apply := func(line string) {
		f, v := field(line)
		switch f {
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			data.WriteString(v)
			hasData = true
		case "event":
			ev.Type = v
		case "id":
			if !strings.ContainsRune(v, 0) {
				ev.ID = v
			}
		}
	}
	for {
		line, err := d.line()
		if err == io.EOF {
			d.done = true
			if line != "" {
				apply(line) // a last line without its line end
			}
			switch {
			case hasData && data.String() == "[DONE]":
				ev.Data = "[DONE]"
				return ev, nil
			case hasData || ev.Type != "" || ev.ID != "":
				return Event{}, fmt.Errorf("%w: the event stream ended inside an event", ErrTruncated)
			}
			return Event{}, io.EOF
		}
		if err != nil {
			return Event{}, err
		}
		size += len(line) + 1
		if size > MaxEventBytes {
			return Event{}, fmt.Errorf("%w: a server-sent event of more than %d bytes", ErrMalformed, MaxEventBytes)
		}
		if line != "" {
			apply(line)
			continue
		}
		if hasData {
			ev.Data = data.String()
			return ev, nil
		}
		ev, size = Event{}, 0 // a blank line ends an event without data: nothing to dispatch
	}
}

// field splits a line into its field name and value: "data: x" →
// ("data", "x"); a comment gives "".
func field(line string) (name, value string) {
	if strings.HasPrefix(line, ":") {
		return "", ""
	}
	name, value, ok := strings.Cut(line, ":")
	if !ok {
		return line, ""
	}
	return name, strings.TrimPrefix(value, " ")
}

// line reads one line without its end (CR LF, LF or CR). It returns
// io.EOF with the text of a last line that had no end, and with "" at the
// end of the stream.
func (d *Decoder) line() (string, error) {
	var b strings.Builder
	for {
		c, err := d.r.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return d.strip(b.String()), io.EOF
			}
			return "", err
		}
		switch c {
		case '\n':
			return d.strip(b.String()), nil
		case '\r':
			if next, err := d.r.Peek(1); err == nil && next[0] == '\n' {
				_, _ = d.r.ReadByte()
			}
			return d.strip(b.String()), nil
		}
		if b.Len() >= MaxEventBytes {
			return "", fmt.Errorf("%w: a line of more than %d bytes in the event stream", ErrMalformed, MaxEventBytes)
		}
		b.WriteByte(c)
	}
}

// strip drops the byte-order mark the stream may start with.
func (d *Decoder) strip(line string) string {
	if !d.started {
		d.started = true
		return strings.TrimPrefix(line, "\uFEFF")
	}
	return line
}

package llm

import (
	"errors"
	"fmt"
)

var (
	// ErrUnreachable means no connection to the server could be made:
	// refused (after the retries), unknown host, network or TLS failure.
	ErrUnreachable = errors.New("llm: server unreachable")
	// ErrTimeout means the server sent nothing (no headers, no data) for
	// the whole timeout.
	ErrTimeout = errors.New("llm: server timed out")
	// ErrStatus means the server answered with an HTTP error status.
	ErrStatus = errors.New("llm: server returned an error")
	// ErrMalformed means the response does not follow the API's format:
	// not JSON, or JSON without the fields the API documents, or an error
	// event in the stream.
	ErrMalformed = errors.New("llm: malformed response")
	// ErrTruncated means the response ended before it was complete: a
	// stream cut off before its last event, or a body cut short.
	ErrTruncated = errors.New("llm: truncated response")
	// ErrInvalidOptions means Options (or AskOptions) out of range.
	ErrInvalidOptions = errors.New("llm: invalid options")
	// ErrInvalidInput means a pack or text that cannot be composed into a
	// prompt: empty, not UTF-8, or too large.
	ErrInvalidInput = errors.New("llm: invalid input")
)

// Error is a request that failed: which endpoint, after how many
// attempts, with which HTTP status (0 when there was none), and why.
// Err wraps one of ErrUnreachable, ErrTimeout, ErrStatus, ErrMalformed and
// ErrTruncated.
type Error struct {
	// Endpoint is the URL posted to, without credentials or query.
	Endpoint string
	// Status is the HTTP status of an ErrStatus.
	Status int
	// Attempts counts the requests sent (retries included).
	Attempts int
	Err      error
}

// Error names the endpoint, the failure and the attempts.
func (e *Error) Error() string {
	s := fmt.Sprintf("POST %s: %v", e.Endpoint, e.Err)
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (%d attempts)", e.Attempts)
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ctx-dev/ctx/internal/clock"
)

// Limits of a request.
const (
	// MaxResponseBytes bounds a response body that is not a stream.
	MaxResponseBytes = 64 << 20
	// MaxTokens bounds Options.MaxTokens.
	MaxTokens = 1 << 20
	// MaxRetries bounds Options.Retries.
	MaxRetries = 10
	// maxErrorBody bounds what is read of an error response.
	maxErrorBody = 64 << 10
	// maxBackoff bounds one wait between attempts, Retry-After included.
	maxBackoff = 30 * time.Second
)

// Options configure Complete.
type Options struct {
	// Server is the server's base URL (Endpoint appends the API's path).
	Server string
	API    API
	// Model is sent as the request's model (for llamacpp only when it is
	// not "default").
	Model string
	// MaxTokens bounds the response (n_predict, max_tokens).
	MaxTokens int
	// Temperature is the sampling temperature, 0-2.
	Temperature float64
	// Stream asks for server-sent events; a server that answers with one
	// JSON body is read all the same.
	Stream bool
	// CachePrompt is llama.cpp's cache_prompt.
	CachePrompt bool
	// Slot is llama.cpp's id_slot; -1 lets the server choose.
	Slot int
	// APIKey, if not empty, is sent as "Authorization: Bearer KEY". The
	// caller reads it from the environment; it is never stored.
	APIKey string
	// Timeout is how long a request may go without receiving anything
	// (response headers, or the next bytes of the body). The time OnText
	// takes does not count: a slow reader is not a silent server.
	Timeout time.Duration
	// Retries is how many times a request the server refused before
	// reading it (connection refused, HTTP 429 or 503) is sent again.
	Retries int
	// HTTP is the client requests go through; nil means one with no
	// overall time limit (Timeout bounds the silences instead).
	HTTP *http.Client
	// Clock times the exchange and reads Retry-After dates; nil means the
	// wall clock.
	Clock clock.Clock
	// Sleep waits between attempts; nil waits on a timer. It returns
	// ctx's error if ctx ends first.
	Sleep func(ctx context.Context, d time.Duration) error
	// OnText, if set, receives the response text piece by piece as it
	// arrives, on the goroutine that called Complete; an error from it
	// ends the request with that error.
	OnText func(text string) error
}

// Validate checks the options' ranges.
func (o *Options) Validate() error {
	var bad []string
	if _, err := Endpoint(o.Server, o.API); err != nil {
		bad = append(bad, strings.TrimPrefix(err.Error(), ErrInvalidOptions.Error()+": "))
	}
	if o.MaxTokens <= 0 || o.MaxTokens > MaxTokens {
		bad = append(bad, fmt.Sprintf("max tokens %d (want 1 to %d)", o.MaxTokens, MaxTokens))
	}
	if !(o.Temperature >= 0 && o.Temperature <= 2) {
		bad = append(bad, fmt.Sprintf("temperature %g (want 0 to 2)", o.Temperature))
	}
	if o.Timeout <= 0 {
		bad = append(bad, fmt.Sprintf("timeout %v (want a positive duration)", o.Timeout))
	}
	if o.Retries < 0 || o.Retries > MaxRetries {
		bad = append(bad, fmt.Sprintf("retries %d (want 0 to %d)", o.Retries, MaxRetries))
	}
	if o.Slot < -1 {
		bad = append(bad, fmt.Sprintf("slot %d (want -1 or a slot number)", o.Slot))
	}
	if strings.ContainsAny(o.APIKey, "\r\n") {
		bad = append(bad, "the API key holds a line break")
	}
	if len(bad) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalidOptions, strings.Join(bad, "; "))
	}
	return nil
}

// Response is what the server answered.
type Response struct {
	// Text is the response, whole.
	Text string `json:"response"`
	// Model is the model the server says answered, if it says.
	Model string `json:"server_model,omitempty"`
	// FinishReason is why generation stopped: the chat API's
	// finish_reason ("stop", "length"), llama.cpp's stop_type ("eos",
	// "word", "limit").
	FinishReason string `json:"finish_reason,omitempty"`
	// Slot is the llama.cpp slot that served the request (its id_slot);
	// -1 when unknown.
	Slot     int     `json:"slot"`
	Usage    Usage   `json:"usage"`
	Timings  Timings `json:"timings"`
	Attempts int     `json:"attempts"`
	// Streamed is true when the response came as server-sent events.
	Streamed bool `json:"streamed"`
}

// Usage counts tokens as the server reported them.
type Usage struct {
	// Reported is false when the server reported no counts (the others
	// are then 0).
	Reported         bool `json:"reported"`
	PromptTokens     int  `json:"prompt_tokens"`
	CompletionTokens int  `json:"completion_tokens"`
	// CachedTokens of the prompt came from the server's cache; NewTokens
	// were evaluated (PromptTokens - CachedTokens).
	CachedTokens int `json:"cached_tokens"`
	NewTokens    int `json:"new_tokens"`
}

// Timings are how long the exchange took: ElapsedMS on the client's
// clock, the rest as llama.cpp reports them ("timings"; 0 when absent).
type Timings struct {
	ElapsedMS          float64 `json:"elapsed_ms"`
	PromptMS           float64 `json:"prompt_ms,omitempty"`
	PromptPerSecond    float64 `json:"prompt_per_second,omitempty"`
	PredictedMS        float64 `json:"predicted_ms,omitempty"`
	PredictedPerSecond float64 `json:"predicted_per_second,omitempty"`
}

// Complete sends p to the server and returns its response, streaming the
// text to o.OnText as it comes. A request the server refused before
// reading it is sent again after a backoff (0.5 s, doubling, or the
// server's Retry-After, at most 30 s), at most o.Retries times; any other
// failure is an *Error at once. If ctx ends, Complete returns its error.
func Complete(ctx context.Context, p Prompt, o Options) (*Response, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	ep, _ := Endpoint(o.Server, o.API) // checked by Validate
	body, err := Body(p, &o, o.Slot)
	if err != nil {
		return nil, err
	}
	start := o.Clock.Now()
	for attempt := 1; ; attempt++ {
		resp, err := o.attempt(ctx, ep, body)
		if err == nil {
			resp.Attempts = attempt
			resp.Timings.ElapsedMS = float64(o.Clock.Now().Sub(start).Microseconds()) / 1000
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var te *textError
		if errors.As(err, &te) {
			return nil, te.err
		}
		var re *retryable
		if errors.As(err, &re) {
			if attempt <= o.Retries {
				if err := o.sleep(ctx, o.backoff(attempt, re.after)); err != nil {
					return nil, err
				}
				continue
			}
			err = re.err
		}
		e := &Error{Endpoint: Display(ep), Attempts: attempt, Err: err}
		var se *statusError
		if errors.As(err, &se) {
			e.Status = se.code
		}
		return nil, e
	}
}

// retryable is a failure the server had not read the request for: it is
// safe to send it again.
type retryable struct {
	err   error
	after time.Duration // the server's Retry-After, if any
}

func (r *retryable) Error() string { return r.err.Error() }
func (r *retryable) Unwrap() error { return r.err }

// statusError is an HTTP error status.
type statusError struct {
	code int
	err  error
}

func (s *statusError) Error() string { return s.err.Error() }
func (s *statusError) Unwrap() error { return s.err }

// errIdle is the cause of a request cancelled for its timeout.
var errIdle = errors.New("llm: idle timeout")

func (o *Options) attempt(ctx context.Context, ep *url.URL, body []byte) (*Response, error) {
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(o.Timeout, func() { cancel(errIdle) })
	defer idle.Stop()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, ep.String(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if o.Stream {
		req.Header.Set("Accept", "text/event-stream")
	} else {
		req.Header.Set("Accept", "application/json")
	}
	if o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.APIKey)
	}
	client := o.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, o.failure(ctx, rctx, err, true)
	}
	defer res.Body.Close()
	idle.Reset(o.Timeout)
	if res.StatusCode < 200 || res.StatusCode > 299 {
		msg := errorMessage(res.Body)
		se := &statusError{code: res.StatusCode, err: fmt.Errorf("%w: HTTP %d %s%s", ErrStatus, res.StatusCode, http.StatusText(res.StatusCode), msg)}
		if res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusServiceUnavailable {
			return nil, &retryable{err: se, after: o.retryAfter(res.Header.Get("Retry-After"))}
		}
		return nil, se
	}
	r := &idleReader{r: res.Body, timer: idle, d: o.Timeout}
	// The time the caller takes with each piece is not the server's
	// silence: the clock stops while OnText runs.
	onText := o.OnText
	if onText != nil {
		onText = func(text string) error {
			idle.Stop()
			defer idle.Reset(o.Timeout)
			return o.OnText(text)
		}
	}
	resp, err := o.read(res, r, onText)
	if err != nil {
		return nil, o.failure(ctx, rctx, err, false)
	}
	return resp, nil
}

// failure classifies a transport error: the idle timeout, the caller's
// cancellation, a connection refused (before anything was sent: safe to
// retry), or another error of the connection.
func (o *Options) failure(ctx, rctx context.Context, err error, beforeResponse bool) error {
	switch {
	case errors.Is(context.Cause(rctx), errIdle):
		return fmt.Errorf("%w: nothing received for %v", ErrTimeout, o.Timeout)
	case ctx.Err() != nil:
		return ctx.Err()
	case !beforeResponse:
		return err // already classified by read
	case errors.Is(err, syscall.ECONNREFUSED):
		return &retryable{err: fmt.Errorf("%w: connection refused", ErrUnreachable)}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("%w: %v", ErrUnreachable, err)
}

// read decodes a successful response: server-sent events, or one JSON
// body.
func (o *Options) read(res *http.Response, body io.Reader, onText func(string) error) (*Response, error) {
	br := bufio.NewReader(body)
	mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	a := &assembler{api: o.API, onText: onText, resp: &Response{Slot: -1}}
	if mt == "text/event-stream" || mt != "application/json" && looksLikeEvents(br) {
		a.resp.Streamed = true
		if err := a.stream(NewDecoder(br)); err != nil {
			return nil, readError(err)
		}
		return a.finish()
	}
	data, err := io.ReadAll(io.LimitReader(br, MaxResponseBytes+1))
	if err != nil {
		return nil, readError(err)
	}
	if len(data) > MaxResponseBytes {
		return nil, fmt.Errorf("%w: a response body of more than %d MiB", ErrMalformed, MaxResponseBytes>>20)
	}
	if err := a.whole(data); err != nil {
		return nil, err
	}
	return a.finish()
}

// looksLikeEvents reports whether a body of no declared JSON type starts
// like an event stream.
func looksLikeEvents(br *bufio.Reader) bool {
	b, _ := br.Peek(6)
	s := string(b)
	return strings.HasPrefix(s, "data:") || strings.HasPrefix(s, "event:") || strings.HasPrefix(s, ":")
}

// readError classifies an error while reading the body: already an llm
// error (truncated stream, malformed event), the idle timer's
// cancellation (left to failure), or a broken connection.
func readError(err error) error {
	var te *textError
	switch {
	case errors.As(err, &te), errors.Is(err, ErrTruncated), errors.Is(err, ErrMalformed), errors.Is(err, ErrStatus),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return fmt.Errorf("%w: the connection broke while reading the response: %v", ErrTruncated, err)
}

// errorMessage reads the message of an error response: the "error"
// object's message, or the start of the body.
func errorMessage(r io.Reader) string {
	data, _ := io.ReadAll(io.LimitReader(r, maxErrorBody))
	var v struct {
		Error *apiError `json:"error"`
	}
	if json.Unmarshal(data, &v) == nil && v.Error != nil && v.Error.Message != "" {
		return ": " + oneLine(v.Error.Message)
	}
	if s := oneLine(string(bytes.ToValidUTF8(data, []byte("?")))); s != "" {
		return ": " + s
	}
	return ""
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func (o *Options) retryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return min(time.Duration(n)*time.Second, maxBackoff)
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(o.Clock.Now()), 0), maxBackoff)
	}
	return 0
}

// backoff is the wait before attempt+1: 0.5 s doubling per attempt, or
// the server's Retry-After if longer, at most maxBackoff.
func (o *Options) backoff(attempt int, after time.Duration) time.Duration {
	d := 500 * time.Millisecond << min(attempt-1, 6)
	return min(max(d, after), maxBackoff)
}

func (o *Options) sleep(ctx context.Context, d time.Duration) error {
	if o.Sleep != nil {
		return o.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// idleReader restarts the idle timer whenever bytes arrive.
type idleReader struct {
	r     io.Reader
	timer *time.Timer
	d     time.Duration
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.timer.Reset(r.d)
	}
	return n, err
}

// assembler builds a Response from a body or from stream events.
type assembler struct {
	api    API
	onText func(string) error
	resp   *Response
	text   strings.Builder
	// stopped: llama.cpp's last event (stop: true) was read; finished: a
	// chat choice's finish_reason; done: the "[DONE]" marker.
	stopped, finished, done bool
}

func (a *assembler) stream(d *Decoder) error {
	for {
		ev, err := d.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if ev.Type == "error" {
			return fmt.Errorf("%w: an error event in the stream: %s", ErrStatus, oneLine(ev.Data))
		}
		if ev.Data == "[DONE]" {
			a.done = true
			return nil
		}
		if err := a.chunk([]byte(ev.Data), true); err != nil {
			return err
		}
		if a.stopped {
			return nil // llama.cpp's last event: nothing follows
		}
	}
}

// whole reads a response that came as one JSON body.
func (a *assembler) whole(data []byte) error {
	if err := a.chunk(data, false); err != nil {
		return err
	}
	a.stopped, a.finished = true, true
	return nil
}

// chunk reads one JSON object: a whole response or a stream event.
func (a *assembler) chunk(data []byte, streaming bool) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	switch a.api {
	case LlamaCPP:
		var c llamaChunk
		if err := decodeOne(dec, &c); err != nil {
			return err
		}
		return a.llama(&c, streaming)
	default:
		var c chatChunk
		if err := decodeOne(dec, &c); err != nil {
			return err
		}
		return a.chat(&c, streaming)
	}
}

// decodeOne decodes one JSON value that must be all of the input.
func decodeOne(dec *json.Decoder, v any) error {
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return fmt.Errorf("%w: the JSON ends before it is complete", ErrTruncated)
		}
		return fmt.Errorf("%w: not the JSON the API documents: %v", ErrMalformed, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: data after the JSON object", ErrMalformed)
	}
	return nil
}

func (a *assembler) emit(s string) error {
	if s == "" {
		return nil
	}
	a.text.WriteString(s)
	if a.onText != nil {
		if err := a.onText(s); err != nil {
			return &textError{err}
		}
	}
	return nil
}

// textError is an error of Options.OnText: Complete returns it as it is.
type textError struct{ err error }

func (e *textError) Error() string { return e.err.Error() }
func (e *textError) Unwrap() error { return e.err }

func (a *assembler) llama(c *llamaChunk, streaming bool) error {
	if c.Error != nil {
		return fmt.Errorf("%w: the server reported: %s", ErrStatus, oneLine(c.Error.Message))
	}
	if c.Content == nil && !c.Stop {
		if streaming {
			return fmt.Errorf("%w: a /completion event without content or stop", ErrMalformed)
		}
		return fmt.Errorf("%w: a /completion response without content", ErrMalformed)
	}
	if c.Content != nil {
		if err := a.emit(*c.Content); err != nil {
			return err
		}
	}
	r := a.resp
	if c.IDSlot != nil {
		r.Slot = *c.IDSlot
	}
	if c.Model != "" {
		r.Model = c.Model
	}
	if !c.Stop && streaming {
		return nil
	}
	a.stopped = true
	r.FinishReason = c.StopType
	if r.FinishReason == "" {
		r.FinishReason = "stop"
	}
	u := &r.Usage
	if c.TokensEvaluated != nil {
		u.Reported, u.PromptTokens = true, *c.TokensEvaluated
	}
	if c.TokensPredicted != nil {
		u.Reported, u.CompletionTokens = true, *c.TokensPredicted
	}
	if t := c.Timings; t != nil {
		a.timings(t)
		if c.TokensEvaluated == nil && t.PromptN != nil {
			u.Reported, u.PromptTokens = true, *t.PromptN+deref(t.CacheN)
		}
		if c.TokensPredicted == nil && t.PredictedN != nil {
			u.Reported, u.CompletionTokens = true, *t.PredictedN
		}
	}
	switch {
	case c.Timings != nil && c.Timings.CacheN != nil:
		u.Reported, u.CachedTokens = true, *c.Timings.CacheN
	case c.TokensCached != nil:
		// Older servers: the tokens the slot's cache held, which may
		// count generated ones too.
		u.Reported, u.CachedTokens = true, min(*c.TokensCached, u.PromptTokens)
	}
	return nil
}

func (a *assembler) chat(c *chatChunk, streaming bool) error {
	if c.Error != nil {
		return fmt.Errorf("%w: the server reported: %s", ErrStatus, oneLine(c.Error.Message))
	}
	if c.Choices == nil && c.Usage == nil {
		return fmt.Errorf("%w: a chat completion without choices", ErrMalformed)
	}
	r := a.resp
	if c.Model != "" {
		r.Model = c.Model
	}
	if c.Choices != nil {
		if !streaming && len(*c.Choices) == 0 {
			return fmt.Errorf("%w: a chat completion without choices", ErrMalformed)
		}
		for i, ch := range *c.Choices {
			if i > 0 {
				break // one completion was asked for
			}
			part := ch.Delta
			if !streaming {
				part = ch.Message
				if part == nil || part.Content == nil {
					return fmt.Errorf("%w: a chat completion whose message has no content", ErrMalformed)
				}
			}
			if part != nil && part.Content != nil {
				if err := a.emit(*part.Content); err != nil {
					return err
				}
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				a.finished = true
				r.FinishReason = *ch.FinishReason
			}
		}
	}
	if u := c.Usage; u != nil {
		r.Usage.Reported = true
		r.Usage.PromptTokens, r.Usage.CompletionTokens = u.PromptTokens, u.CompletionTokens
		if u.PromptTokensDetails != nil {
			r.Usage.CachedTokens = u.PromptTokensDetails.CachedTokens
		}
	}
	if t := c.Timings; t != nil {
		a.timings(t)
		if t.CacheN != nil && (c.Usage == nil || c.Usage.PromptTokensDetails == nil) {
			r.Usage.Reported, r.Usage.CachedTokens = true, *t.CacheN
		}
	}
	return nil
}

func (a *assembler) timings(t *serverTimings) {
	tm := &a.resp.Timings
	tm.PromptMS, tm.PromptPerSecond, tm.PredictedMS, tm.PredictedPerSecond = t.PromptMS, t.PromptPerSecond, t.PredictedMS, t.PredictedPerSecond
}

// finish checks that the response is complete and fills in the totals.
func (a *assembler) finish() (*Response, error) {
	switch {
	case a.api == LlamaCPP && !a.stopped:
		return nil, fmt.Errorf("%w: the stream ended before its last event (stop: true)", ErrTruncated)
	case a.api == OpenAI && !a.done && !a.finished:
		return nil, fmt.Errorf("%w: the stream ended before a finish_reason or data: [DONE]", ErrTruncated)
	}
	r := a.resp
	r.Text = a.text.String()
	u := &r.Usage
	u.CachedTokens = min(max(u.CachedTokens, 0), max(u.PromptTokens, 0))
	u.NewTokens = u.PromptTokens - u.CachedTokens
	return r, nil
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/clock"
	"github.com/ctx-dev/ctx/llm/llmtest"
)

// testOptions are the options of a request to srv, with no real waits.
func testOptions(server string, api API, stream bool) Options {
	return Options{
		Server: server, API: api, Model: "default", MaxTokens: 256, Temperature: 0.7, Stream: stream,
		CachePrompt: true, Slot: -1, Timeout: 5 * time.Second, Retries: 3,
		Clock: clock.Fixed(time.Unix(1790000000, 0)),
		Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() },
	}
}

func testPrompt(t *testing.T) Prompt {
	t.Helper()
	p, err := Read(readPack(t), PromptConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const answer = "The `Client` struct in `net/client.go` dials `Addr`.\n\nDecision: keep `retry.Backoff` in the struct.\n"

// TestExchanges sends the fixture pack to the fake server in each API,
// streaming and not, checks the request body byte for byte against a
// golden file, and the response as read.
func TestExchanges(t *testing.T) {
	tests := []struct {
		name   string
		api    API
		stream bool
		model  string
		reply  llmtest.Reply
		path   string
	}{
		{"llamacpp", LlamaCPP, false, "default", llmtest.Reply{Text: answer}, "/completion"},
		{"llamacpp-stream", LlamaCPP, true, "default", llmtest.Reply{Text: answer}, "/completion"},
		{"llamacpp-stream-done", LlamaCPP, true, "default", llmtest.Reply{Text: answer, Done: true}, "/completion"},
		{"llamacpp-model", LlamaCPP, false, "qwen2.5-coder", llmtest.Reply{Text: answer}, "/completion"},
		{"openai", OpenAI, false, "gpt-test", llmtest.Reply{Text: answer}, "/v1/chat/completions"},
		{"openai-stream", OpenAI, true, "gpt-test", llmtest.Reply{Text: answer}, "/v1/chat/completions"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, tc.reply)
			o := testOptions(srv.URL, tc.api, tc.stream)
			o.Model = tc.model
			var streamed strings.Builder
			var pieces int
			o.OnText = func(s string) error { streamed.WriteString(s); pieces++; return nil }
			resp, err := Complete(context.Background(), testPrompt(t), o)
			if err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || reqs[0].Path != tc.path || reqs[0].Method != http.MethodPost {
				t.Fatalf("requests: %+v", reqs)
			}
			if ct := reqs[0].Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if a := reqs[0].Header.Get("Authorization"); a != "" {
				t.Errorf("Authorization %q sent without a key", a)
			}
			name := tc.name
			if name == "llamacpp-stream-done" {
				name = "llamacpp-stream"
			}
			golden(t, "request-"+name+".json", append(reqs[0].Body, '\n'))
			if resp.Text != answer || streamed.String() != answer {
				t.Errorf("text %q, streamed %q; want %q", resp.Text, streamed.String(), answer)
			}
			if tc.stream && pieces < 5 || !tc.stream && pieces != 1 {
				t.Errorf("text came in %d pieces (stream %v)", pieces, tc.stream)
			}
			if resp.Streamed != tc.stream {
				t.Errorf("Streamed = %v", resp.Streamed)
			}
			u := resp.Usage
			if !u.Reported || u.PromptTokens == 0 || u.CompletionTokens != (len(answer)+3)/4 || u.NewTokens != u.PromptTokens-u.CachedTokens {
				t.Errorf("usage %+v", u)
			}
			if resp.Timings.PromptMS != 12.5 || resp.Timings.PredictedPerSecond != 200 {
				t.Errorf("timings %+v", resp.Timings)
			}
			if resp.Model != "test-model" || resp.Attempts != 1 {
				t.Errorf("model %q, attempts %d", resp.Model, resp.Attempts)
			}
			switch tc.api {
			case LlamaCPP:
				if resp.Slot != 0 || resp.FinishReason != "eos" {
					t.Errorf("slot %d, finish %q", resp.Slot, resp.FinishReason)
				}
			case OpenAI:
				if resp.Slot != -1 || resp.FinishReason != "stop" {
					t.Errorf("slot %d, finish %q", resp.Slot, resp.FinishReason)
				}
			}
		})
	}
}

func TestAPIKeyHeader(t *testing.T) {
	srv := llmtest.New(t)
	o := testOptions(srv.URL, OpenAI, false)
	o.APIKey = "sk-test-123"
	if _, err := Complete(context.Background(), testPrompt(t), o); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer sk-test-123" {
		t.Errorf("Authorization %q", got)
	}
	if strings.Contains(string(srv.Requests()[0].Body), "sk-test") {
		t.Error("the key is in the request body")
	}
}

// TestFailures: every way a server fails gives an *Error wrapping the
// right sentinel, and only refusals are retried.
func TestFailures(t *testing.T) {
	down := closedAddr(t)
	tests := []struct {
		name     string
		api      API
		stream   bool
		server   string // "" means the fake server
		replies  []llmtest.Reply
		want     error
		attempts int // requests the server saw
		status   int
		text     string // in the message
	}{
		{name: "server down", server: down, want: ErrUnreachable, text: "connection refused"},
		{name: "500", replies: []llmtest.Reply{{Status: 500, Message: "model failed to load"}}, want: ErrStatus, attempts: 1, status: 500, text: "model failed to load"},
		{name: "404", api: OpenAI, replies: []llmtest.Reply{{Status: 404, Message: "no such model"}}, want: ErrStatus, attempts: 1, status: 404, text: "HTTP 404 Not Found: no such model"},
		{name: "401 names no key", api: OpenAI, replies: []llmtest.Reply{{Status: 401, Message: "Invalid API Key"}}, want: ErrStatus, attempts: 1, status: 401},
		{name: "503 until the retries run out", replies: []llmtest.Reply{{Status: 503, Message: "Loading model"}}, want: ErrStatus, attempts: 4, status: 503, text: "(4 attempts)"},
		{name: "malformed json", replies: []llmtest.Reply{{Raw: `{"content": "half`, ContentType: "application/json"}}, want: ErrTruncated, attempts: 1},
		{name: "not json", replies: []llmtest.Reply{{Raw: `<html>502 Bad Gateway</html>`, ContentType: "text/html"}}, want: ErrMalformed, attempts: 1},
		{name: "json without content", replies: []llmtest.Reply{{Raw: `{"tokens": [1, 2]}`, ContentType: "application/json"}}, want: ErrMalformed, attempts: 1},
		{name: "chat without choices", api: OpenAI, replies: []llmtest.Reply{{Raw: `{"object": "chat.completion"}`, ContentType: "application/json"}}, want: ErrMalformed, attempts: 1},
		{name: "chat message without content", api: OpenAI, replies: []llmtest.Reply{{Raw: `{"choices": [{"message": {"role": "assistant", "content": null}}]}`, ContentType: "application/json"}}, want: ErrMalformed, attempts: 1},
		{name: "stream cut off", stream: true, replies: []llmtest.Reply{{Text: answer, CutAfter: 3}}, want: ErrTruncated, attempts: 1, text: "stop: true"},
		{name: "chat stream cut off", api: OpenAI, stream: true, replies: []llmtest.Reply{{Text: answer, CutAfter: 3}}, want: ErrTruncated, attempts: 1, text: "[DONE]"},
		{name: "stream cut inside an event", stream: true, replies: []llmtest.Reply{{Raw: "data: {\"content\": \"a\", \"stop\": false}\n\ndata: {\"conte", ContentType: "text/event-stream"}}, want: ErrTruncated, attempts: 1},
		{name: "stream event not json", stream: true, replies: []llmtest.Reply{{Raw: "data: hello\n\n", ContentType: "text/event-stream"}}, want: ErrMalformed, attempts: 1},
		{name: "stream error event", stream: true, replies: []llmtest.Reply{{Raw: "data: {\"error\": {\"code\": 500, \"message\": \"context size exceeded\"}}\n\n", ContentType: "text/event-stream"}}, want: ErrStatus, attempts: 1, text: "context size exceeded"},
		{name: "stream of event type error", api: OpenAI, stream: true, replies: []llmtest.Reply{{Raw: "event: error\ndata: overloaded\n\n", ContentType: "text/event-stream"}}, want: ErrStatus, attempts: 1},
		{name: "no answer before the timeout", replies: []llmtest.Reply{{Text: "late", Delay: 2 * time.Second}}, want: ErrTimeout, attempts: 1, text: "nothing received for 300ms"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			api := tc.api
			if api == "" {
				api = LlamaCPP
			}
			server := tc.server
			var srv *llmtest.Server
			if server == "" {
				srv = llmtest.New(t, tc.replies...)
				server = srv.URL
			}
			o := testOptions(server, api, tc.stream)
			o.Timeout = 300 * time.Millisecond
			var sleeps []time.Duration
			o.Sleep = func(_ context.Context, d time.Duration) error { sleeps = append(sleeps, d); return nil }
			resp, err := Complete(context.Background(), testPrompt(t), o)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Complete = %+v, %v; want %v", resp, err, tc.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%T is not an *Error", err)
			}
			if e.Status != tc.status {
				t.Errorf("status %d, want %d", e.Status, tc.status)
			}
			if !strings.Contains(err.Error(), "POST http://") {
				t.Errorf("message %q does not name the endpoint", err)
			}
			if !strings.Contains(err.Error(), tc.text) {
				t.Errorf("message %q does not say %q", err, tc.text)
			}
			if srv != nil && len(srv.Requests()) != tc.attempts {
				t.Errorf("%d requests, want %d", len(srv.Requests()), tc.attempts)
			}
			if srv == nil && e.Attempts != 4 {
				t.Errorf("a refused connection was tried %d times, want 4", e.Attempts)
			}
			if tc.attempts == 4 || srv == nil {
				if len(sleeps) != 3 || sleeps[0] != 500*time.Millisecond || sleeps[2] != 2*time.Second {
					t.Errorf("backoff %v, want 0.5s, 1s, 2s", sleeps)
				}
			} else if len(sleeps) != 0 {
				t.Errorf("a failure that is not a refusal was retried: %v", sleeps)
			}
		})
	}
}

// A 429 with Retry-After, then success: the request is sent again after
// the server's delay.
func TestRetryThenSuccess(t *testing.T) {
	for _, api := range []API{LlamaCPP, OpenAI} {
		t.Run(string(api), func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Reply{Status: 429, Message: "slow down", RetryAfter: "3"}, llmtest.Reply{Text: answer})
			o := testOptions(srv.URL, api, true)
			var sleeps []time.Duration
			o.Sleep = func(_ context.Context, d time.Duration) error { sleeps = append(sleeps, d); return nil }
			resp, err := Complete(context.Background(), testPrompt(t), o)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != answer || resp.Attempts != 2 || len(srv.Requests()) != 2 {
				t.Errorf("text %q after %d attempts, %d requests", resp.Text, resp.Attempts, len(srv.Requests()))
			}
			if len(sleeps) != 1 || sleeps[0] != 3*time.Second {
				t.Errorf("waits %v, want the server's Retry-After of 3s", sleeps)
			}
			if string(srv.Requests()[0].Body) != string(srv.Requests()[1].Body) {
				t.Error("the retry sent another body")
			}
		})
	}
}

func TestRetryAfterDate(t *testing.T) {
	o := testOptions("http://h", LlamaCPP, false)
	now := time.Unix(1790000000, 0)
	o.Clock = clock.Fixed(now)
	for in, want := range map[string]time.Duration{
		"":  0,
		"2": 2 * time.Second,
		now.Add(5 * time.Second).UTC().Format(http.TimeFormat): 5 * time.Second,
		"999":     maxBackoff,
		"garbage": 0,
		now.Add(-time.Hour).UTC().Format(http.TimeFormat): 0,
	} {
		if got := o.retryAfter(in); got != want {
			t.Errorf("retryAfter(%q) = %v, want %v", in, got, want)
		}
	}
	if got := o.backoff(1, 0); got != 500*time.Millisecond {
		t.Errorf("backoff(1) = %v", got)
	}
	if got := o.backoff(30, 0); got != maxBackoff {
		t.Errorf("backoff(30) = %v", got)
	}
}

func TestCancel(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Text: "late", Delay: 5 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := Complete(ctx, testPrompt(t), testOptions(srv.URL, LlamaCPP, true))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Complete = %v, want context.Canceled", err)
	}
}

// An error of OnText (stdout closed) ends the request with that error.
func TestOnTextError(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Text: answer})
	o := testOptions(srv.URL, LlamaCPP, true)
	boom := errors.New("write stdout: broken pipe")
	o.OnText = func(string) error { return boom }
	if _, err := Complete(context.Background(), testPrompt(t), o); err != boom {
		t.Fatalf("Complete = %v, want %v", err, boom)
	}
}

// The idle timeout bounds silences, not the whole exchange: a stream
// whose events keep coming is read to its end.
func TestSlowStreamIsNotATimeout(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Text: answer, Delay: 100 * time.Millisecond})
	o := testOptions(srv.URL, LlamaCPP, true)
	o.Timeout = 400 * time.Millisecond
	var mu sync.Mutex
	var inText time.Duration
	o.OnText = func(string) error {
		mu.Lock()
		defer mu.Unlock()
		// A slow reader of the pieces: its time is not the server's
		// silence, even when the pieces arrived at once.
		start := time.Now()
		time.Sleep(50 * time.Millisecond)
		inText += time.Since(start)
		return nil
	}
	if _, err := Complete(context.Background(), testPrompt(t), o); err != nil {
		t.Fatal(err)
	}
	if inText <= o.Timeout {
		t.Fatalf("OnText took %v in all, not more than the timeout %v: the test proves nothing", inText, o.Timeout)
	}
}

// TestSlowReaderOfOneBurst: pieces that arrived together and are handed
// over slowly, for longer than the timeout, do not make the next read a
// timeout. The server sends the last event only once the client has
// taken every piece of the burst, so the body is read again after the
// slow hand-over.
func TestSlowReaderOfOneBurst(t *testing.T) {
	words := strings.SplitAfter(answer, " ")
	handed := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		var burst strings.Builder
		for _, word := range words {
			fmt.Fprintf(&burst, "data: {\"content\":%q,\"stop\":false}\n\n", word)
		}
		_, _ = io.WriteString(w, burst.String())
		w.(http.Flusher).Flush()
		select {
		case <-handed:
		case <-r.Context().Done():
			return
		}
		_, _ = io.WriteString(w, "data: {\"content\":\"\",\"stop\":true,\"stop_type\":\"eos\"}\n\n")
	}))
	defer srv.Close()
	o := testOptions(srv.URL, LlamaCPP, true)
	o.Timeout = 200 * time.Millisecond
	var got strings.Builder
	n := 0
	o.OnText = func(text string) error {
		got.WriteString(text)
		time.Sleep(o.Timeout / 4) // a slow reader: all the pieces take several timeouts
		if n++; n == len(words) {
			close(handed)
		}
		return nil
	}
	if _, err := Complete(context.Background(), testPrompt(t), o); err != nil {
		t.Fatal(err)
	}
	if got.String() != answer || len(words) < 8 {
		t.Fatalf("text %q of %d pieces, want %q in 8 or more", got.String(), len(words), answer)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(o *Options)
		bad  string
	}{
		{"ok", func(o *Options) {}, ""},
		{"server", func(o *Options) { o.Server = "127.0.0.1:8080" }, "server"},
		{"api", func(o *Options) { o.API = "x" }, "api"},
		{"tokens", func(o *Options) { o.MaxTokens = 0 }, "max tokens"},
		{"temperature", func(o *Options) { o.Temperature = 3 }, "temperature"},
		{"timeout", func(o *Options) { o.Timeout = 0 }, "timeout"},
		{"retries", func(o *Options) { o.Retries = 11 }, "retries"},
		{"slot", func(o *Options) { o.Slot = -2 }, "slot"},
		{"key", func(o *Options) { o.APIKey = "a\nb" }, "API key"},
	}
	for _, tc := range tests {
		o := testOptions("http://127.0.0.1:1", LlamaCPP, false)
		tc.edit(&o)
		err := o.Validate()
		if tc.bad == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), tc.bad) {
			t.Errorf("%s: Validate = %v, want ErrInvalidOptions naming %q", tc.name, err, tc.bad)
		}
	}
}

// closedAddr returns the URL of a port nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

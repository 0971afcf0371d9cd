// Package llmtest is an in-process language model server for tests: it
// follows the documented request and response formats of llama.cpp's
// POST /completion and of the OpenAI-compatible POST
// /v1/chat/completions, streaming (server-sent events, with llama.cpp's
// final "stop": true event and timings, the chat API's usage chunk and
// "data: [DONE]") and not, keeps a prompt cache per slot as llama.cpp
// does with cache_prompt (so that cached token counts are real), records
// every request, and answers from a script of replies that can also fail
// in the ways servers fail.
package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Reply is one scripted answer.
type Reply struct {
	// Text is the response text; Chunks, if set, are the pieces a stream
	// sends it in (default: Text cut after each space).
	Text   string
	Chunks []string
	// Status, if not 0 or 200, is an error status sent with an error
	// body naming Message; RetryAfter is its Retry-After header.
	Status     int
	Message    string
	RetryAfter string
	// Raw, if set, is sent as the whole body (with ContentType), for
	// malformed responses.
	Raw         string
	ContentType string
	// CutAfter, if > 0, ends a stream after that many text events,
	// without its last event: a truncated stream.
	CutAfter int
	// Done makes a llama.cpp stream also end with "data: [DONE]" (the
	// chat API's always does).
	Done bool
	// NoUsage leaves the token counts and timings out.
	NoUsage bool
	// Delay is waited before the headers are sent.
	Delay time.Duration
	// FinishReason of a chat completion (default "stop"); StopType of a
	// llama.cpp one (default "eos").
	FinishReason string
	StopType     string
}

// Request is a request the server received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// Server is the fake server.
type Server struct {
	*httptest.Server
	// Model is the model name the server reports.
	Model string

	mu       sync.Mutex
	replies  []Reply
	next     int
	requests []Request
	slots    []slot
	clock    int
}

type slot struct {
	prompt   string
	lastUsed int
}

// New starts a server with two slots that answers with the replies in
// order, the last one repeating. It is closed when the test ends.
func New(tb testing.TB, replies ...Reply) *Server {
	tb.Helper()
	if len(replies) == 0 {
		replies = []Reply{{Text: "OK."}}
	}
	s := &Server{Model: "test-model", replies: replies, slots: make([]slot, 2)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(s.Close)
	return s
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// SetReplies replaces the script (and starts it over).
func (s *Server) SetReplies(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies, s.next = replies, 0
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	reply := s.replies[min(s.next, len(s.replies)-1)]
	s.next++
	s.mu.Unlock()
	if reply.Delay > 0 {
		select {
		case <-time.After(reply.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		if reply.RetryAfter != "" {
			w.Header().Set("Retry-After", reply.RetryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": reply.Status, "message": reply.Message, "type": "server_error"}})
		_, _ = w.Write(b)
		return
	}
	if reply.Raw != "" {
		if reply.ContentType != "" {
			w.Header().Set("Content-Type", reply.ContentType)
		}
		_, _ = io.WriteString(w, reply.Raw)
		return
	}
	switch r.URL.Path {
	case "/completion":
		s.completion(w, body, reply)
	case "/v1/chat/completions":
		s.chat(w, body, reply)
	default:
		http.Error(w, `{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}`, http.StatusNotFound)
	}
}

// useSlot runs a prompt on a slot as llama.cpp's cache_prompt does: the
// requested slot, or the least recently used one; the tokens of the
// prefix it shares with the slot's last prompt are cached.
func (s *Server) useSlot(prompt string, want int) (id, cached int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clock++
	id = want
	if id < 0 || id >= len(s.slots) {
		id = 0
		for i := range s.slots {
			if s.slots[i].lastUsed < s.slots[id].lastUsed {
				id = i
			}
		}
	}
	old := s.slots[id].prompt
	n := 0
	for n < len(old) && n < len(prompt) && old[n] == prompt[n] {
		n++
	}
	s.slots[id] = slot{prompt: prompt, lastUsed: s.clock}
	return id, n / 4
}

func tokens(s string) int { return (len(s) + 3) / 4 }

func (r Reply) chunks() []string {
	if r.Chunks != nil {
		return r.Chunks
	}
	return strings.SplitAfter(r.Text, " ")
}

func timings(prompt, cached, predicted int) map[string]any {
	return map[string]any{
		"cache_n": cached, "prompt_n": prompt - cached, "prompt_ms": 12.5, "prompt_per_token_ms": 0.25, "prompt_per_second": 4000.0,
		"predicted_n": predicted, "predicted_ms": 50.0, "predicted_per_token_ms": 5.0, "predicted_per_second": 200.0,
	}
}

func (s *Server) completion(w http.ResponseWriter, body []byte, reply Reply) {
	var req struct {
		Prompt      string `json:"prompt"`
		NPredict    int    `json:"n_predict"`
		Stream      bool   `json:"stream"`
		IDSlot      *int   `json:"id_slot"`
		CachePrompt *bool  `json:"cache_prompt"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"code":400,"message":"invalid JSON","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	want := -1
	if req.IDSlot != nil {
		want = *req.IDSlot
	}
	id, cached := s.useSlot(req.Prompt, want)
	if req.CachePrompt != nil && !*req.CachePrompt {
		cached = 0
	}
	pt, ct := tokens(req.Prompt), tokens(reply.Text)
	stopType := reply.StopType
	if stopType == "" {
		stopType = "eos"
	}
	final := map[string]any{
		"content": "", "id_slot": id, "stop": true, "model": s.Model, "tokens_predicted": ct, "tokens_evaluated": pt,
		"tokens_cached": cached + ct, "truncated": false, "stop_type": stopType, "stopping_word": "", "has_new_line": strings.Contains(reply.Text, "\n"),
		"timings": timings(pt, cached, ct),
	}
	if reply.NoUsage {
		for _, k := range []string{"tokens_predicted", "tokens_evaluated", "tokens_cached", "timings"} {
			delete(final, k)
		}
	}
	if !req.Stream {
		final["content"] = reply.Text
		writeJSON(w, final)
		return
	}
	sse := startEvents(w)
	for i, c := range reply.chunks() {
		if reply.CutAfter > 0 && i == reply.CutAfter {
			return
		}
		sse.event(map[string]any{"content": c, "tokens": []int{}, "stop": false, "id_slot": id})
	}
	sse.event(final)
	if reply.Done {
		sse.raw("data: [DONE]\n\n")
	}
}

func (s *Server) chat(w http.ResponseWriter, body []byte, reply Reply) {
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Stream        bool `json:"stream"`
		StreamOptions *struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"code":400,"message":"'messages' is required","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	var prompt strings.Builder
	for _, m := range req.Messages {
		prompt.WriteString(m.Role + ":" + m.Content + "\n")
	}
	_, cached := s.useSlot(prompt.String(), 0) // hosted APIs cache prefixes on their own
	pt, ct := tokens(prompt.String()), tokens(reply.Text)
	finish := reply.FinishReason
	if finish == "" {
		finish = "stop"
	}
	usage := map[string]any{"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct, "prompt_tokens_details": map[string]any{"cached_tokens": cached}}
	base := func(object string) map[string]any {
		return map[string]any{"id": "chatcmpl-test", "object": object, "created": 1790000000, "model": s.Model, "system_fingerprint": "b1-test"}
	}
	if !req.Stream {
		v := base("chat.completion")
		v["choices"] = []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": reply.Text}, "finish_reason": finish}}
		if !reply.NoUsage {
			v["usage"], v["timings"] = usage, timings(pt, cached, ct)
		}
		writeJSON(w, v)
		return
	}
	sse := startEvents(w)
	first := base("chat.completion.chunk")
	first["choices"] = []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": nil}, "finish_reason": nil}}
	sse.event(first)
	for i, c := range reply.chunks() {
		if reply.CutAfter > 0 && i == reply.CutAfter {
			return
		}
		v := base("chat.completion.chunk")
		v["choices"] = []any{map[string]any{"index": 0, "delta": map[string]any{"content": c}, "finish_reason": nil}}
		sse.event(v)
	}
	last := base("chat.completion.chunk")
	last["choices"] = []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}
	sse.event(last)
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage && !reply.NoUsage {
		u := base("chat.completion.chunk")
		u["choices"], u["usage"], u["timings"] = []any{}, usage, timings(pt, cached, ct)
		sse.event(u)
	}
	sse.raw("data: [DONE]\n\n")
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	_, _ = w.Write(b.Bytes())
}

type events struct {
	w http.ResponseWriter
	f http.Flusher
}

func startEvents(w http.ResponseWriter) *events {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &events{w: w, f: f}
}

func (e *events) event(v any) {
	b, _ := json.Marshal(v)
	e.raw(fmt.Sprintf("data: %s\n\n", b))
}

func (e *events) raw(s string) {
	_, _ = io.WriteString(e.w, s)
	if e.f != nil {
		e.f.Flush()
	}
}

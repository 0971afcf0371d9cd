package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// API is a server protocol. The zero value is invalid.
type API string

// The APIs.
const (
	// LlamaCPP is llama.cpp server's native POST /completion.
	LlamaCPP API = "llamacpp"
	// OpenAI is the OpenAI-compatible POST /v1/chat/completions that
	// llama.cpp, Ollama, vLLM and hosted APIs serve.
	OpenAI API = "openai"
)

// ParseAPI accepts llamacpp (also llama.cpp, llama-cpp) or openai.
func ParseAPI(s string) (API, error) {
	switch strings.ToLower(s) {
	case "llamacpp", "llama.cpp", "llama-cpp":
		return LlamaCPP, nil
	case "openai":
		return OpenAI, nil
	}
	return "", fmt.Errorf("%w: api %q (want llamacpp or openai)", ErrInvalidOptions, s)
}

// String returns the API's name.
func (a API) String() string { return string(a) }

// Endpoint returns the URL a request of the API goes to on server: the
// server URL with /completion (llamacpp) or /v1/chat/completions (openai)
// appended to its path, unless the path already ends with it; for openai a
// path ending in /v1 gets /chat/completions (https://api.openai.com/v1).
func Endpoint(server string, a API) (*url.URL, error) {
	u, err := url.Parse(server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, fmt.Errorf("%w: server %q is not an http(s) URL with a host", ErrInvalidOptions, server)
	}
	p := strings.TrimSuffix(u.Path, "/")
	switch a {
	case LlamaCPP:
		if !strings.HasSuffix(p, "/completion") {
			p += "/completion"
		}
	case OpenAI:
		switch {
		case strings.HasSuffix(p, "/chat/completions"):
		case strings.HasSuffix(p, "/v1"):
			p += "/chat/completions"
		default:
			p += "/v1/chat/completions"
		}
	default:
		return nil, fmt.Errorf("%w: api %q", ErrInvalidOptions, a)
	}
	u.Path, u.RawPath = p, ""
	return u, nil
}

// Display returns a URL as ctx shows and records it: scheme, host and
// path, without user information (a password), query or fragment.
func Display(u *url.URL) string {
	c := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	return c.String()
}

// llamaRequest is the body of POST /completion, in the order sent. Model
// is sent only when one was named other than "default" (a llama.cpp
// router picks the model by it; a single-model server ignores it).
type llamaRequest struct {
	Prompt      string  `json:"prompt"`
	Model       string  `json:"model,omitempty"`
	NPredict    int     `json:"n_predict"`
	Temperature float64 `json:"temperature"`
	CachePrompt bool    `json:"cache_prompt"`
	IDSlot      int     `json:"id_slot"`
	Stream      bool    `json:"stream"`
}

// chatRequest is the body of POST /v1/chat/completions, in the order
// sent. llama.cpp's own cache_prompt and id_slot are not sent: hosted
// APIs refuse unknown fields (and cache prefixes on their own).
type chatRequest struct {
	Model         string         `json:"model"`
	Messages      []chatMessage  `json:"messages"`
	MaxTokens     int            `json:"max_tokens"`
	Temperature   float64        `json:"temperature"`
	Stream        bool           `json:"stream"`
	StreamOptions *streamOptions `json:"stream_options,omitempty"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Body returns the JSON request body o sends for p with slot (llamacpp's
// id_slot; -1 lets the server choose): the exact bytes, so that tests can
// compare them with golden files.
func Body(p Prompt, o *Options, slot int) ([]byte, error) {
	var v any
	switch o.API {
	case LlamaCPP:
		r := llamaRequest{Prompt: p.Text(), NPredict: o.MaxTokens, Temperature: o.Temperature, CachePrompt: o.CachePrompt, IDSlot: slot, Stream: o.Stream}
		if o.Model != "default" {
			r.Model = o.Model
		}
		v = r
	case OpenAI:
		r := chatRequest{Model: o.Model, MaxTokens: o.MaxTokens, Temperature: o.Temperature, Stream: o.Stream}
		if sys := p.System(); sys != "" {
			r.Messages = append(r.Messages, chatMessage{"system", sys})
		}
		r.Messages = append(r.Messages, chatMessage{"user", p.User()})
		if o.Stream {
			r.StreamOptions = &streamOptions{IncludeUsage: true}
		}
		v = r
	default:
		return nil, fmt.Errorf("%w: api %q", ErrInvalidOptions, o.API)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// serverTimings is llama.cpp's "timings" object (both APIs).
type serverTimings struct {
	CacheN              *int     `json:"cache_n"`
	PromptN             *int     `json:"prompt_n"`
	PromptMS            float64  `json:"prompt_ms"`
	PromptPerSecond     float64  `json:"prompt_per_second"`
	PredictedN          *int     `json:"predicted_n"`
	PredictedMS         float64  `json:"predicted_ms"`
	PredictedPerSecond  float64  `json:"predicted_per_second"`
	PromptPerTokenMS    *float64 `json:"prompt_per_token_ms"`
	PredictedPerTokenMS *float64 `json:"predicted_per_token_ms"`
}

// apiError is an error object in a body or a stream: {"error": {...}} with
// a message (OpenAI, llama.cpp), or {"error": "text"} (Ollama).
type apiError struct {
	Message string
}

func (e *apiError) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		e.Message = s
		return nil
	}
	var o struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	e.Message = o.Message
	if e.Message == "" {
		e.Message = strings.TrimSpace(fmt.Sprint(o.Type, " ", o.Code))
	}
	return nil
}

// llamaChunk is a /completion response, or one event of its stream.
type llamaChunk struct {
	Content         *string        `json:"content"`
	Stop            bool           `json:"stop"`
	IDSlot          *int           `json:"id_slot"`
	Model           string         `json:"model"`
	StopType        string         `json:"stop_type"`
	TokensPredicted *int           `json:"tokens_predicted"`
	TokensEvaluated *int           `json:"tokens_evaluated"`
	TokensCached    *int           `json:"tokens_cached"`
	Truncated       bool           `json:"truncated"`
	Timings         *serverTimings `json:"timings"`
	Error           *apiError      `json:"error"`
}

// chatChunk is a chat completion, or one chunk of its stream.
type chatChunk struct {
	Object  string         `json:"object"`
	Model   string         `json:"model"`
	Choices *[]chatChoice  `json:"choices"`
	Usage   *chatUsage     `json:"usage"`
	Timings *serverTimings `json:"timings"`
	Error   *apiError      `json:"error"`
}

type chatChoice struct {
	Message      *chatContent `json:"message"`
	Delta        *chatContent `json:"delta"`
	FinishReason *string      `json:"finish_reason"`
}

type chatContent struct {
	Content *string `json:"content"`
}

type chatUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

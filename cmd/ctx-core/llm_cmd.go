package main

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/index"
	"github.com/ctx-dev/ctx/internal/regfile"
	"github.com/ctx-dev/ctx/llm"
	"github.com/ctx-dev/ctx/object"
	"github.com/ctx-dev/ctx/pack"
	"github.com/ctx-dev/ctx/repo"
)

// LLMCmd is `ctx llm` (design §13.2.8, §14).
type LLMCmd struct {
	Server      string        `placeholder:"URL" help:"The model server (default: [llm] server_url of .ctx/config.toml, http://127.0.0.1:8080)."`
	API         string        `name:"api" placeholder:"API" help:"The server's protocol: llamacpp (POST /completion) or openai (POST /v1/chat/completions: llama.cpp, Ollama, vLLM, hosted APIs). Default: [llm] api."`
	Pack        string        `placeholder:"FILE" help:"Read the prompt pack from FILE (ctx query -o FILE) instead of standard input."`
	Query       string        `placeholder:"TEXT" help:"Build the pack first, as ctx query TEXT does."`
	Model       string        `placeholder:"NAME" help:"Model name sent to the server (default: [llm] model)."`
	MaxTokens   int           `name:"max-tokens" placeholder:"N" help:"Most tokens of the response (default: [llm] max_response_tokens, 2048)."`
	Temperature float64       `default:"-1" placeholder:"F" help:"Sampling temperature, 0-2 (default: [llm] temperature, 0.7)."`
	Timeout     time.Duration `placeholder:"DURATION" help:"Longest wait for the server without receiving anything (default: [llm] timeout, 120s)."`
	NoStream    bool          `name:"no-stream" help:"Ask for the whole response at once instead of a stream."`
	Commit      bool          `help:"Record the response: a note with its mentions edges, the response blob, a summary line in today's log, and a commit (a step in a staging session)."`
	Message     string        `short:"m" placeholder:"MSG" help:"Commit message with --commit (default: llm: TASK)."`
	Author      string        `env:"CTX_AUTHOR" help:"Author recorded in the commit."`
}

// Validate checks the flags before the store is opened.
func (c *LLMCmd) Validate() error {
	switch {
	case c.Pack != "" && c.Query != "":
		return fmt.Errorf("--pack or --query, not both")
	case c.Query != "" && strings.TrimSpace(c.Query) == "":
		return fmt.Errorf("--query: give the question or task")
	case c.MaxTokens < 0 || c.MaxTokens > llm.MaxTokens:
		return fmt.Errorf("--max-tokens %d: want 1 to %d", c.MaxTokens, llm.MaxTokens)
	case c.Temperature != -1 && !(c.Temperature >= 0 && c.Temperature <= 2):
		return fmt.Errorf("--temperature %g: want 0 to 2", c.Temperature)
	case c.Timeout < 0:
		return fmt.Errorf("--timeout %v: want a positive duration", c.Timeout)
	case c.Message != "" && !c.Commit:
		return fmt.Errorf("-m goes with --commit")
	}
	if c.API != "" {
		if _, err := llm.ParseAPI(c.API); err != nil {
			return fmt.Errorf("--api %s: want llamacpp or openai", c.API)
		}
	}
	if c.Server != "" {
		if u, err := url.Parse(c.Server); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
			return fmt.Errorf("--server %q: want an http(s) URL with a host", c.Server)
		}
	}
	return nil
}

// Run sends the pack, streams the response to stdout, and with --commit
// records it. The store is locked only after the response has come, so
// that a long generation holds no lock.
func (c *LLMCmd) Run(app *App, r *repo.Repo) error {
	opts, err := c.options(app, r)
	if err != nil {
		return err
	}
	if c.Commit {
		// Refuse before the request if the session cannot take a step.
		if _, err := r.ActiveSession(); err != nil {
			return err
		}
	}
	prompt, err := c.prompt(app, r, opts.MaxTokens)
	if err != nil {
		return err
	}
	out := &streamOut{w: app.Stdout}
	if !app.Globals.JSON {
		opts.OnText = out.write
	}
	x, err := llm.Ask(app.Ctx, prompt, llm.AskOptions{Options: opts, CachePath: filepath.Join(r.Root, filepath.FromSlash(llm.CacheFile))})
	if x == nil {
		_ = out.end() // the failure goes to stderr, after what was streamed
		return err
	}
	if err != nil {
		fmt.Fprintf(app.Stderr, "ctx: warning: the prefix-cache state was not saved: %s\n", message(err))
	}
	if err := out.end(); err != nil {
		return err
	}
	if x.CacheDamaged {
		fmt.Fprintf(app.Stderr, "ctx: warning: %s did not read; started it over\n", llm.CacheFile)
	}
	var ob *llm.Observation
	if err := useIndex(app, r, func(ix *index.Index) (err error) {
		ob, err = llm.Observe(x.Response.Text, llm.ResolveOptions{Index: ix, Project: filepath.Dir(r.Root), RepoID: r.Config.Repo.ID})
		return err
	}); err != nil {
		return err
	}
	res := llmResult{Endpoint: x.Endpoint, API: x.API, Model: x.Model, Prompt: x.Prompt, Cache: x.Cache, Response: x.Response,
		Blob: ob.Blob, CodeBlocks: ob.CodeBlocks, Decisions: ob.Decisions, Mentions: ob.Mentions, Unresolved: ob.Unresolved, Redacted: ob.Redacted}
	if c.Commit {
		w, err := app.lockForCommand("llm")
		if err != nil {
			return err
		}
		if res.Recorded, err = llm.Record(app.Ctx, w, llm.RecordOptions{Prompt: prompt, Exchange: x, Observation: ob, Message: c.Message, Author: c.Author}); err != nil {
			return fmt.Errorf("the response was not recorded: %w", err)
		}
		res.Stored = true
		if s := res.Recorded.Session; s != "" && res.Recorded.Step != nil {
			app.notice(map[string]any{"session": s, "step": res.Recorded.Step}, "ctx: session %s: step %s\n", s, res.Recorded.Step.Short())
		}
	}
	if app.Globals.JSON {
		return app.emit(res)
	}
	c.report(app, &res)
	return nil
}

// options are the request's options: the flags over config.toml [llm].
func (c *LLMCmd) options(app *App, r *repo.Repo) (llm.Options, error) {
	cfg := r.Config.LLM
	o := llm.Options{
		Server: cfg.ServerURL, Model: cfg.Model, MaxTokens: cfg.MaxResponseTokens, Temperature: cfg.Temperature,
		Stream: cfg.Stream && !c.NoStream, CachePrompt: cfg.CachePrompt, Slot: cfg.Slot,
		Timeout: cfg.TimeoutDuration(), Retries: cfg.Retries, Clock: app.Clock,
	}
	var err error
	if o.API, err = llm.ParseAPI(cfg.API); err != nil {
		return o, err
	}
	if c.API != "" {
		o.API, _ = llm.ParseAPI(c.API) // checked by Validate
	}
	if c.Server != "" {
		o.Server = c.Server
	}
	if c.Model != "" {
		o.Model = c.Model
	}
	if c.MaxTokens > 0 {
		o.MaxTokens = c.MaxTokens
	}
	if c.Temperature != -1 {
		o.Temperature = c.Temperature
	}
	if c.Timeout > 0 {
		o.Timeout = c.Timeout
	}
	if name := cfg.APIKeyEnv; name != "" {
		if o.APIKey = app.Getenv(name); o.APIKey == "" {
			return o, &usageError{err: fmt.Errorf("[llm] api_key_env names %s, which is not set: export %s=KEY (ctx reads the key from the environment and never stores it)", name, name), cmd: "llm"}
		}
	}
	return o, o.Validate()
}

// prompt composes the prompt: from --query's pack, --pack's file, or the
// pack piped in.
func (c *LLMCmd) prompt(app *App, r *repo.Repo, maxTokens int) (llm.Prompt, error) {
	cfg := llm.PromptConfig{SystemPrefix: r.Config.LLM.SystemPrefix, ResponseInstruction: r.Config.LLM.ResponseInstruction}
	var data []byte
	switch {
	case c.Query != "":
		q := QueryCmd{Query: []string{c.Query}, Reserve: -1, MinConfidence: "medium"}
		opts := q.packOptions(app, r)
		opts.Format = pack.JSON
		budget := opts.Budget
		if maxTokens < budget/2 {
			opts.Reserve = maxTokens // the response's share is what it may take
		}
		p, err := buildPack(app, r, strings.TrimSpace(c.Query), opts, "llm")
		if err != nil {
			return llm.Prompt{}, err
		}
		return llm.Compose(p, cfg), nil
	case c.Pack != "":
		wd, err := app.wd()
		if err != nil {
			return llm.Prompt{}, err
		}
		p := c.Pack
		if !filepath.IsAbs(p) {
			p = filepath.Join(wd, p)
		}
		if data, err = regfile.Read(p, llm.MaxInputBytes+1); err != nil {
			if errors.Is(err, os.ErrNotExist) || errors.Is(err, regfile.ErrNotRegular) || errors.Is(err, regfile.ErrTooLarge) {
				return llm.Prompt{}, &usageError{err: fmt.Errorf("--pack: %w", err), cmd: "llm"}
			}
			return llm.Prompt{}, err
		}
	case piped(app.Stdin):
		var err error
		if data, err = io.ReadAll(io.LimitReader(app.Stdin, llm.MaxInputBytes+1)); err != nil {
			return llm.Prompt{}, fmt.Errorf("read standard input: %w", err)
		}
	default:
		return llm.Prompt{}, &usageError{err: errors.New(`no prompt pack: pipe one in (ctx query "…" | ctx llm), or give --pack FILE or --query TEXT`), cmd: "llm"}
	}
	return llm.Read(data, cfg)
}

// piped reports whether standard input is a pipe or a file rather than a
// terminal (or /dev/null): ctx never waits on a terminal.
func piped(r io.Reader) bool {
	if r == nil {
		return false
	}
	f, ok := r.(*os.File)
	if !ok {
		return true // a reader a test or a program gave
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice == 0
}

// report prints what came back, on stderr: stdout holds the response
// alone, for redirection.
func (c *LLMCmd) report(app *App, res *llmResult) {
	r := res.Response
	u := r.Usage
	tokens := "the server reported no token counts"
	if u.Reported {
		tokens = fmt.Sprintf("%d prompt tokens (%d cached, %d new), %d generated", u.PromptTokens, u.CachedTokens, u.NewTokens, u.CompletionTokens)
	}
	fmt.Fprintf(app.Stderr, "ctx: llm: %s at %s: %s in %.1fs; %s, %s, %s\n", res.Model, res.Endpoint, tokens, r.Timings.ElapsedMS/1000,
		plural(len(res.CodeBlocks), "code block"), plural(len(res.Decisions), "decision"), plural(len(res.Mentions), "mention"))
	for _, red := range res.Redacted {
		fmt.Fprintf(app.Stderr, "ctx: redacted a secret in the stored response (%s)\n", red)
	}
	if rec := res.Recorded; rec != nil && rec.Commit != nil {
		fmt.Fprintf(app.Stderr, "[%s %s] %s\n", strings.TrimPrefix(rec.Commit.Ref, "refs/"), rec.Commit.ID.Short(), firstLine(rec.Commit.Commit.Message))
		fmt.Fprintf(app.Stderr, "ctx: note %s (narrative/%s), %d edges\n", rec.NoteID, rec.File, len(rec.Edges))
	}
}

// llmResult is ctx llm's JSON output.
type llmResult struct {
	Endpoint      string           `json:"endpoint"`
	API           llm.API          `json:"api"`
	Model         string           `json:"model"`
	Prompt        llm.PromptInfo   `json:"prompt"`
	Cache         llm.CacheMatch   `json:"cache"`
	*llm.Response                  // response, server_model, finish_reason, slot, usage, timings, attempts, streamed
	Blob          object.ID        `json:"blob"`
	Stored        bool             `json:"stored"`
	CodeBlocks    []llm.CodeBlock  `json:"code_blocks"`
	Decisions     []string         `json:"decisions"`
	Mentions      []llm.Mention    `json:"mentions"`
	Unresolved    []llm.Unresolved `json:"unresolved"`
	Redacted      []string         `json:"redacted,omitempty"`
	Recorded      *llm.Recorded    `json:"recorded,omitempty"`
}

// streamOut writes the streamed response and ends it with a line break.
type streamOut struct {
	w    io.Writer
	last byte
	n    int
}

func (s *streamOut) write(text string) error {
	if text == "" {
		return nil
	}
	s.last = text[len(text)-1]
	s.n += len(text)
	_, err := io.WriteString(s.w, text)
	return err
}

func (s *streamOut) end() error {
	if s.n > 0 && s.last != '\n' {
		s.last = '\n'
		_, err := io.WriteString(s.w, "\n")
		return err
	}
	return nil
}

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/internal/clock"
	"github.com/ctx-dev/ctx/repo"
)

// Options configure a Server.
type Options struct {
	// Root is the store's .ctx directory (repo.Locate finds it).
	Root string
	// Session selects the staging session writes go to (--session,
	// CTX_SESSION); empty means the one STAGE names, if any.
	Session string
	// Clock tells the time of new nodes and commits; nil is the wall
	// clock.
	Clock clock.Clock
	// LockTimeout is how long a writing tool waits for another writer's
	// lock before it fails.
	LockTimeout time.Duration
	// Wd is the directory relative paths in relate's arguments are read
	// from; empty means the project directory.
	Wd string
	// Log receives the server's diagnostics; nil discards them. It must
	// not be the protocol's output.
	Log io.Writer
}

// Validate checks the options.
func (o *Options) Validate() error {
	if o.Root == "" {
		return fmt.Errorf("%w: no store (Options.Root is empty)", ErrInvalidOptions)
	}
	if o.LockTimeout < 0 {
		return fmt.Errorf("%w: negative lock timeout %s", ErrInvalidOptions, o.LockTimeout)
	}
	return nil
}

var (
	// ErrInvalidOptions is returned by New for options that cannot work.
	ErrInvalidOptions = errors.New("mcp: invalid options")
	// ErrInvalidArgument is a tool argument the schema lets through but
	// the tool cannot use (a missing query, a bad tag).
	ErrInvalidArgument = errors.New("mcp: invalid argument")
	// ErrInternal is what a client is told when a tool panicked; the log
	// has the stack.
	ErrInternal = errors.New("mcp: internal error")
)

// Server is the MCP server of one store.
type Server struct {
	opts Options
	log  *slog.Logger
	mcp  *sdk.Server
	// mu guards narrative: the SDK may handle requests concurrently.
	mu sync.Mutex
	// narrative holds the URIs of the narrative resources registered
	// with mcp, so that a refresh adds and removes only what changed.
	narrative map[string]bool
}

// instructions is what an MCP client is told about the server at
// initialize; agents read it to learn when to use which tool.
const instructions = `ctx is the durable, queryable memory of this code base (.ctx/).
Use query to get the code and narrative that answer a question or task,
fitted to a token budget; search for ranked full-text hits; recall to list
narrative nodes by a filter (type:decision AND tag:x, created:>7d) or words;
show for one node. Use remember to record a fact, decision, pattern,
observation, hypothesis, open-question or task worth keeping; relate to
assert an edge between nodes, files or symbols. status summarizes the
store. stage_start / stage_compact bracket a staging session whose writes
become steps, squashed into one commit. activate / deactivate load files
and tool outputs into, or out of, an agent session's working set (ctx
context). Narrative files are resources (ctx://narrative/PATH).`

// New returns the server of the store opts.Root. The store is opened per
// call; New only checks that it opens.
func New(opts Options) (*Server, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	out := opts.Log
	if out == nil {
		out = io.Discard
	}
	s := &Server{opts: opts, log: slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelWarn})), narrative: map[string]bool{}}
	if _, err := s.open(); err != nil {
		return nil, err
	}
	s.mcp = sdk.NewServer(&sdk.Implementation{Name: "ctx", Title: "ctx", Version: repo.Version}, &sdk.ServerOptions{
		Instructions: instructions,
		Logger:       s.log,
	})
	s.mcp.AddReceivingMiddleware(s.recoverer)
	s.addTools()
	s.addResources()
	return s, nil
}

// Run serves one client over the transport until it disconnects or ctx
// is done.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	return s.mcp.Run(ctx, t)
}

// Serve serves one client speaking newline-delimited JSON-RPC on in and
// out (the stdio transport of the MCP specification) until in ends or ctx
// is done. A client that closes its end is a normal end, not an error.
// A line that is not a JSON-RPC message is answered with a JSON-RPC error
// and skipped (see stdio).
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	err := s.Run(ctx, &stdio{in: in, out: out})
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// MCP returns the SDK server, for a caller that connects its own
// transport (tests use in-memory ones).
func (s *Server) MCP() *sdk.Server { return s.mcp }

// open opens the store for one call.
func (s *Server) open() (*repo.Repo, error) {
	return repo.Open(s.opts.Root, repo.Options{Clock: s.opts.Clock, Session: s.opts.Session})
}

// lock opens the store and takes its writer lock for one call of tool;
// the caller unlocks it (unlock), before the call returns.
func (s *Server) lock(ctx context.Context, tool string) (*repo.Writer, error) {
	r, err := s.open()
	if err != nil {
		return nil, err
	}
	return r.Lock(ctx, repo.LockOptions{Timeout: s.opts.LockTimeout, Command: "ctx mcp " + tool})
}

// unlock releases the writer lock, logging the notices of what the call
// did besides what was asked (an automatic compaction).
func (s *Server) unlock(w *repo.Writer) {
	for _, n := range w.Notices {
		s.log.Warn("notice", "text", n)
	}
	if err := w.Unlock(); err != nil {
		s.log.Warn("unlock", "err", err)
	}
}

// recoverer answers a request whose handler panicked with a JSON-RPC
// internal error, logging the stack, so that no client input ends the
// server. (Tools recover on their own, into an isError result.)
func (s *Server) recoverer(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (res sdk.Result, err error) {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("handler panicked", "method", method, "panic", r, "stack", string(debug.Stack()))
				res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%v in %s: %v", ErrInternal, method, r)}
			}
		}()
		return next(ctx, method, req)
	}
}

// handler is a tool's body: it returns the text of the tool's result.
type handler[In any] func(ctx context.Context, in In) (text string, err error)

// addTool registers a tool whose input schema is inferred from In. Its
// handler's error becomes an isError result; a panic becomes ErrInternal,
// logged with its stack, and the server goes on.
func addTool[In any](s *Server, t *sdk.Tool, h handler[In]) {
	sdk.AddTool(s.mcp, t, func(ctx context.Context, _ *sdk.CallToolRequest, in In) (res *sdk.CallToolResult, _ any, err error) {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("tool panicked", "tool", t.Name, "panic", r, "stack", string(debug.Stack()))
				res, err = errorResult(fmt.Errorf("%w in tool %s: %v", ErrInternal, t.Name, r)), nil
			}
		}()
		text, err := h(ctx, in)
		if err != nil {
			return errorResult(err), nil, nil
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil, nil
	})
}

// errorResult is a tool's failure as the MCP specification has tools
// report it: a result with isError, the reason as text, so that the model
// sees it and can correct the call.
func errorResult(err error) *sdk.CallToolResult {
	r := &sdk.CallToolResult{}
	r.SetError(err)
	return r
}

// jsonText renders v as indented JSON, the text of most tools' results,
// as --json prints it (no HTML escaping: "<" stays "<" for the model).
func jsonText(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

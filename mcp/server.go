package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"runtime/debug"
	"strings"
	"time"

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
	// ErrInternal is what a client is told when a handler panicked; the
	// log has the stack.
	ErrInternal = errors.New("mcp: internal error")
)

// Server is the MCP server of one store. Its tools and resources are
// fixed at New; Serve may run several sessions, one after another or at
// once.
type Server struct {
	opts Options
	log  *slog.Logger
	// tools in the order tools/list gives them, and by name.
	tools  []*tool
	byName map[string]*tool
}

// tool is a registered tool: what tools/list says of it, and its body.
type tool struct {
	def toolDef
	// call decodes the arguments (checked against def.InputSchema) and
	// runs the tool, returning its result's text. An error is the tool's
	// failure (an isError result).
	call func(ctx context.Context, args json.RawMessage) (string, error)
}

// toolDef is a tool as tools/list describes it.
type toolDef struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	InputSchema *schema          `json:"inputSchema"`
	Annotations *toolAnnotations `json:"annotations,omitempty"`
}

// toolAnnotations are a tool's behaviour hints (MCP 2025-03-26 and
// later). A nil pointer leaves the hint to the specification's default.
type toolAnnotations struct {
	ReadOnlyHint    bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	IdempotentHint  bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool `json:"openWorldHint,omitempty"`
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
	s := &Server{opts: opts, log: slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelWarn})), byName: map[string]*tool{}}
	if _, err := s.open(); err != nil {
		return nil, err
	}
	if err := s.addTools(); err != nil {
		return nil, err
	}
	return s, nil
}

// Serve serves one client speaking newline-delimited JSON-RPC on in and
// out (the stdio transport of the MCP specification) until in ends or ctx
// is done. A client that closes its end is a normal end, not an error:
// Serve first answers every request it has read and the client has not
// cancelled. A line that is not a JSON-RPC message is answered with a
// JSON-RPC error and skipped (see decode). Only protocol messages are
// written on out, each on its own line; writes to out are serialized.
//
// When ctx is done, the requests in progress are cancelled and not
// answered, and Serve returns without waiting for in: a read of in that
// is blocked then stays so, on a goroutine of its own, until in yields
// or fails, and what it reads is dropped. Give Serve an in of its own
// (a process's stdin, a pipe), not one whose later bytes matter.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	return newSession(s, out).serve(ctx, in)
}

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

// handler is a tool's body: it returns the text of the tool's result.
type handler[In any] func(ctx context.Context, in In) (text string, err error)

// addTool registers a tool whose input schema is derived from In (see
// schema). Arguments that do not fit the schema, and the handler's
// error, become an isError result; a panic becomes ErrInternal, logged
// with its stack, and the server goes on. It fails for an In that has no
// JSON schema or a name already taken.
func addTool[In any](s *Server, def toolDef, h handler[In]) error {
	sc, err := schemaOf(reflect.TypeFor[In]())
	switch {
	case err != nil:
		return fmt.Errorf("tool %s: %w", def.Name, err)
	case sc.Type != "object":
		return fmt.Errorf("tool %s: its input must be a struct, not %s", def.Name, reflect.TypeFor[In]())
	case s.byName[def.Name] != nil:
		return fmt.Errorf("tool %s: added twice", def.Name)
	}
	def.InputSchema = sc
	t := &tool{def: def, call: func(ctx context.Context, args json.RawMessage) (text string, err error) {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("tool panicked", "tool", def.Name, "panic", r, "stack", string(debug.Stack()))
				text, err = "", fmt.Errorf("%w in tool %s: %v", ErrInternal, def.Name, r)
			}
		}()
		var in In
		if err := sc.decodeArgs(args, &in); err != nil {
			return "", err
		}
		return h(ctx, in)
	}}
	s.tools = append(s.tools, t)
	s.byName[def.Name] = t
	return nil
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

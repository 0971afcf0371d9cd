package mcp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/workset"
)

// WorksetInput is the input of the activate and deactivate tools.
type WorksetInput struct {
	IDs   []string `json:"ids" jsonschema:"The objects of the working set: ids (or a prefix of at least 4 hex digits) as ctx context show lists them, tool call ids, or file paths as the agent sees them (relative ones from the project directory)."`
	Agent string   `json:"agent,omitempty" jsonschema:"The agent session whose working set changes (Claude Code's session_id, say); default \"default\", as ctx context --agent."`
}

// WorksetResult is the result of activate and deactivate: what changed,
// ctx context activate --json's shape. Activating a file the session has
// not met reads it (ctx context observe read).
type WorksetResult struct {
	Agent   string           `json:"agent"`
	Changes []workset.Change `json:"changes"`
}

func (s *Server) activate(ctx context.Context, in WorksetInput) (string, error) {
	return s.worksetOp(ctx, in, func(ss *workset.Session, ref string) (workset.Change, error) {
		ch, err := ss.Activate(ref)
		if errors.Is(err, workset.ErrNotFound) && strings.HasPrefix(ref, "/") {
			// A file the session has not met: the agent reads it now.
			return ss.ReadFile(ref, nil)
		}
		return ch, err
	})
}

func (s *Server) deactivate(ctx context.Context, in WorksetInput) (string, error) {
	return s.worksetOp(ctx, in, (*workset.Session).Deactivate)
}

// worksetOp applies op to each object in.IDs names, in one update of the
// agent session's working set: all of them, or none on an error.
func (s *Server) worksetOp(ctx context.Context, in WorksetInput, op func(*workset.Session, string) (workset.Change, error)) (string, error) {
	if len(in.IDs) == 0 {
		return "", fmt.Errorf("%w: ids is empty: name at least one object (ctx context show lists them)", ErrInvalidArgument)
	}
	agent := strings.TrimSpace(in.Agent)
	if agent == "" {
		agent = "default"
	}
	ws, err := workset.Open(s.opts.Root, workset.Options{Clock: s.opts.Clock, LockTimeout: s.opts.LockTimeout})
	if err != nil {
		return "", err
	}
	wd := s.opts.Wd
	if wd == "" {
		wd = filepath.Dir(s.opts.Root)
	}
	res := WorksetResult{Agent: agent}
	err = ws.Update(ctx, agent, func(ss *workset.Session) error {
		var err error
		// A ref that names nothing is a path relative to the project.
		res.Changes, err = ss.Apply(in.IDs, filepath.ToSlash(wd), op)
		return err
	})
	if err != nil {
		return "", err
	}
	return jsonText(res)
}

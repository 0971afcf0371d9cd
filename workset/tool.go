package workset

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/object"
)

// ToolInput is one tool call as the agent host observed it.
type ToolInput struct {
	// Tool is the tool's name: bash, Read, Grep, ls, rg, …
	Tool string
	// CallID is the harness's id of the call (Claude Code's tool_use_id);
	// "" gives "<session>/t<turn>.<seq>".
	CallID string
	// Args is the command line or a summary of the arguments.
	Args string
	// Status is "ok" (default) or "fail".
	Status string
	// Output is what the tool returned.
	Output []byte
	// Cwd is the agent-visible directory relative paths of the output
	// are relative to; absolute.
	Cwd string
}

// ToolResult is what Tool did.
type ToolResult struct {
	Call Change `json:"call"`
	// Discovered are the files found in the output (stubs created, or
	// objects already known).
	Discovered []Change `json:"discovered"`
	// Collapsed are the tool outputs the call pushed out of the window.
	Collapsed []Change `json:"collapsed"`
}

// Tool records a tool call (seed §5.7): its output becomes a toolcall
// object in the index, the pool and the active set and a toolcall_ref in
// the chat's current turn; the paths its output names (ls, grep, find, rg,
// …: Paths) that are regular files become discovery stubs in the pool;
// tool outputs that leave the collapse window are deactivated. Recording
// the same call (id, tool, args, status and output) again changes nothing
// (Outcome Unchanged).
func (s *Session) Tool(in ToolInput) (*ToolResult, error) {
	if in.Tool == "" || strings.ContainsAny(in.Tool, " \t\n") {
		return nil, fmt.Errorf("%w: tool name %q", ErrInvalid, in.Tool)
	}
	switch in.Status {
	case "":
		in.Status = StatusOK
	case StatusOK, StatusFail:
	default:
		return nil, fmt.Errorf("%w: status %q is neither ok nor fail", ErrInvalid, in.Status)
	}
	if in.Cwd != "" && !strings.HasPrefix(in.Cwd, "/") {
		return nil, fmt.Errorf("%w: cwd %q is not absolute", ErrInvalid, in.Cwd)
	}
	res := &ToolResult{}
	var call Call
	var err error
	again := false
	res.Collapsed = s.moveWindow(func() {
		t := s.turn()
		seq := 1
		for _, c := range s.Calls {
			if c.Turn == t.N {
				seq++
			}
		}
		if in.CallID == "" {
			in.CallID = fmt.Sprintf("%s/t%d.%d", s.Session, t.N, seq)
		}
		id := CallID(in.CallID)
		if c := s.call(id); c != nil {
			// A retry (the host crashed, or ran the hook twice) records
			// nothing; another call under the same id is refused.
			if c.Tool != in.Tool || c.Args != in.Args || c.Status != in.Status || c.Blob != object.Sum(object.KindBlob, in.Output) {
				err = fmt.Errorf("%w: tool call %s is already recorded with another output", ErrInvalid, in.CallID)
			}
			call, again = *c, true
			return
		}
		blob, perr := s.store.putBlob(in.Output)
		if perr != nil {
			err = perr
			return
		}
		call = Call{ID: id, CallID: in.CallID, Tool: in.Tool, Args: in.Args, Status: in.Status, Turn: t.N, Seq: seq,
			Blob: blob, CharCount: utf8.RuneCount(in.Output)}
		s.addActive(id) // before what its output names, in the pool's order
		if in.Cwd != "" {
			for _, p := range Paths(FormatOf(in.Tool, in.Args), string(in.Output), in.Cwd, in.Args) {
				r, rerr := s.Resolve(p)
				if rerr != nil || !isRegular(r) {
					continue
				}
				f, out, derr := s.store.Discover(r.Source)
				if derr != nil {
					err = derr
					return
				}
				s.addPool(f.ID)
				note := ""
				if f.Latest().Stub() {
					note = "stub"
				}
				res.Discovered = append(res.Discovered, Change{ID: f.ID, Type: "file", Path: r.Display, Outcome: out, Note: note})
				call.Files = append(call.Files, f.ID)
			}
		}
		s.Calls = append(s.Calls, call)
		t.Entries = append(t.Entries, Entry{Role: RoleTool, Ref: &call.ID})
		s.dirty = true
	})
	if err != nil {
		return nil, err
	}
	res.Call = Change{ID: call.ID, Type: "toolcall", Outcome: Created}
	if again {
		res.Call.Outcome = Unchanged
	}
	return res, nil
}

// inWindow returns the tool calls whose outputs the window keeps active:
// among the last PerTurn of their turn, in one of the last Turns turns.
func (s *Session) inWindow() map[ID]bool {
	cur := len(s.Turns)
	perTurn := map[int]int{}
	for _, c := range s.Calls {
		perTurn[c.Turn]++
	}
	in := map[ID]bool{}
	for _, c := range s.Calls {
		if cur-c.Turn < s.Window.Turns && perTurn[c.Turn]-c.Seq < s.Window.PerTurn {
			in[c.ID] = true
		}
	}
	return in
}

// moveWindow runs fn, which may add a turn or a call, and deactivates the
// tool outputs that left the window with it, unless pinned (seed §4.3). An
// output the agent activates again stays active until the agent
// deactivates it: the window only acts on outputs as they leave it.
func (s *Session) moveWindow(fn func()) []Change {
	before := s.inWindow()
	fn()
	after := s.inWindow()
	var collapsed []Change
	for _, c := range s.Calls {
		if before[c.ID] && !after[c.ID] && !has(s.Pinned, c.ID) && s.removeActive(c.ID) {
			collapsed = append(collapsed, Change{ID: c.ID, Type: "toolcall", Note: "collapsed"})
		}
	}
	return collapsed
}

// SetWindow changes the collapse window (both values at least 1). Tool
// outputs the new window leaves out are deactivated at once, unless
// pinned.
func (s *Session) SetWindow(w Window) ([]Change, error) {
	if w.PerTurn < 1 || w.Turns < 1 {
		return nil, fmt.Errorf("%w: collapse window %d per turn, %d turns: both must be at least 1", ErrInvalid, w.PerTurn, w.Turns)
	}
	if w == s.Window {
		return nil, nil
	}
	return s.moveWindow(func() {
		s.Window = w
		s.dirty = true
	}), nil
}

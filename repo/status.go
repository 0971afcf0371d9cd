package repo

import (
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/object"
)

// Status is the state of a store at a glance: `ctx status`.
type Status struct {
	Root        string      `json:"root"`
	Objects     int         `json:"objects"`
	ObjectBytes int64       `json:"object_bytes"`
	Ref         string      `json:"ref"`   // the ref HEAD names
	Heads       []object.ID `json:"heads"` // its effective heads; several after a git merge
	Message     string      `json:"message,omitempty"`
	// Session is the active staging session, Stage its head step; the
	// ref and heads above are then the session's ("session/<id>").
	Session        string              `json:"session,omitempty"`
	Stage          *object.ID          `json:"stage,omitempty"`
	SessionProblem string              `json:"session_problem,omitempty"` // a damaged session: run ctx stage recover
	Nodes          NodeStats           `json:"nodes"`
	Changes        []Change            `json:"uncommitted"`
	Problems       []narrative.Problem `json:"problems"`
}

// NodeStats counts nodes.
type NodeStats struct {
	Active     int          `json:"active"`
	Tokens     int          `json:"tokens"` // of the active nodes
	Superseded int          `json:"superseded"`
	Deleted    int          `json:"deleted"`
	Tags       int          `json:"tags"` // distinct tags on active nodes
	ByType     []GroupCount `json:"by_type"`
	ByTier     []GroupCount `json:"by_tier"`
}

// GroupCount is how many active nodes a group has and their tokens.
type GroupCount struct {
	Name   string `json:"name"`
	Nodes  int    `json:"nodes"`
	Tokens int    `json:"tokens"`
}

// Status reads the store's state: object usage, the current ref, node
// counts per type and tier with token estimates, uncommitted narrative
// changes and narrative files that do not parse.
func (r *Repo) Status(ctx context.Context) (*Status, error) {
	st := &Status{Root: r.Root, Changes: []Change{}, Problems: []narrative.Problem{}}
	var err error
	if st.Objects, st.ObjectBytes, err = r.Objects.Usage(ctx); err != nil {
		return nil, err
	}
	st.Ref, st.Heads, err = r.WorkingHeads()
	if errors.Is(err, ErrSessionDamaged) || errors.Is(err, ErrSessionState) {
		// Status must work to say what is wrong: show main.
		st.SessionProblem = strings.TrimPrefix(err.Error(), "repo: ")
		target, terr := r.Refs.Target()
		if terr != nil {
			return nil, terr
		}
		st.Ref = target.String()
		st.Heads, err = r.Heads(target)
	}
	if err != nil {
		return nil, err
	}
	if len(st.Heads) == 1 {
		if c, err := r.ReadCommit(st.Heads[0]); err == nil {
			st.Message = c.Message
		}
	}
	// After a git merge the narrative is compared with what all heads
	// recorded together: what the next commit would record.
	if st.Changes, err = r.NarrativeChanges(ctx, nil, st.Heads...); err != nil {
		return nil, err
	}
	if st.Changes == nil {
		st.Changes = []Change{}
	}
	if sess, err := r.ActiveSession(); err == nil && sess != nil {
		head := sess.State.Head
		st.Session, st.Stage = sess.ID, &head
	}
	cat, err := r.Narrative().Load()
	if err != nil {
		return nil, err
	}
	st.Problems = append(st.Problems, cat.Problems...)
	st.Nodes.Tags = len(cat.Tags(""))
	types, tiers := map[string]*GroupCount{}, map[string]*GroupCount{}
	for _, n := range cat.Nodes {
		switch {
		case n.Deleted:
			st.Nodes.Deleted++
			continue
		case n.SupersededBy != "":
			st.Nodes.Superseded++
			continue
		}
		tok := n.Tokens()
		st.Nodes.Active++
		st.Nodes.Tokens += tok
		count(types, string(n.Type), tok)
		tier := string(n.Tier())
		if tier == "" {
			tier = "(none)"
		}
		count(tiers, tier, tok)
	}
	for _, t := range narrative.Types {
		if g := types[string(t)]; g != nil {
			st.Nodes.ByType = append(st.Nodes.ByType, *g)
		}
	}
	for _, t := range append(append([]narrative.Tier(nil), narrative.Tiers...), "(none)") {
		g := tiers[string(t)]
		if g == nil {
			g = &GroupCount{Name: string(t)}
		}
		st.Nodes.ByTier = append(st.Nodes.ByTier, *g)
	}
	if st.Nodes.ByType == nil {
		st.Nodes.ByType = []GroupCount{}
	}
	sort.SliceStable(st.Problems, func(i, j int) bool { return st.Problems[i].Path < st.Problems[j].Path })
	return st, nil
}

func count(m map[string]*GroupCount, name string, tokens int) {
	g := m[name]
	if g == nil {
		g = &GroupCount{Name: name}
		m[name] = g
	}
	g.Nodes++
	g.Tokens += tokens
}

// NodeVersion is a node as one commit recorded it.
type NodeVersion struct {
	Commit  object.ID       `json:"commit"`
	Time    int64           `json:"time"`
	Message string          `json:"message"`
	Node    *narrative.Node `json:"node"`
}

// NodeHistory returns the versions of a node that commits reachable from
// starts recorded, newest first: every commit that snapshotted its file.
func (r *Repo) NodeHistory(ctx context.Context, starts []object.ID, id narrative.ID, path string) ([]NodeVersion, error) {
	entries, err := r.Log(ctx, starts, 0)
	if err != nil {
		return nil, err
	}
	var out []NodeVersion
	for _, e := range entries {
		if e.Commit == nil {
			continue
		}
		for _, nr := range e.Commit.NarrativeRefs {
			if nr.Deleted || path != "" && nr.Path != path {
				continue
			}
			n, err := r.nodeInBlob(nr, id)
			if err != nil {
				return nil, err
			}
			if n != nil {
				out = append(out, NodeVersion{Commit: e.ID, Time: e.Commit.TimestampUnix, Message: e.Commit.Message, Node: n})
				break
			}
		}
	}
	return out, nil
}

// NodeAt returns node id as commit recorded it (with its ancestors), or
// narrative.ErrNotFound.
func (r *Repo) NodeAt(ctx context.Context, commit object.ID, id narrative.ID, path string) (*narrative.Node, error) {
	state, err := r.NarrativeAt(ctx, commit)
	if err != nil {
		return nil, err
	}
	if nr, ok := state[path]; ok {
		if n, err := r.nodeInBlob(nr, id); n != nil || err != nil {
			return n, err
		}
	}
	paths := make([]string, 0, len(state))
	for p := range state {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if n, err := r.nodeInBlob(state[p], id); n != nil || err != nil {
			return n, err
		}
	}
	return nil, narrative.ErrNotFound
}

// nodeInBlob parses a narrative snapshot and returns node id if it is the
// node it holds.
func (r *Repo) nodeInBlob(nr object.NarrativeRef, id narrative.ID) (*narrative.Node, error) {
	_, data, err := r.Objects.Get(nr.BlobID)
	if err != nil {
		return nil, err
	}
	n, _ := narrative.ParseNode(nr.Path, data)
	if n == nil || n.ID != id {
		return nil, nil
	}
	return n, nil
}

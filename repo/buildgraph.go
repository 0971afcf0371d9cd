package repo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/graph/build"
	"github.com/ctx-dev/ctx/object"
)

// ErrToolMissing means a build tool ctx runs (go, cargo) is not installed.
var ErrToolMissing = build.ErrToolMissing

// ErrToolFailed means a build tool ctx runs failed.
var ErrToolFailed = build.ErrToolFailed

// BuildOptions configure Writer.AddBuild.
type BuildOptions struct {
	// Ecosystem is graph.EcosystemGo or graph.EcosystemCargo.
	Ecosystem string
	// Dir is the directory to run the tool in, relative to Wd when Wd is
	// inside the project, else to the project root; "" is the project
	// root.
	Dir, Wd         string
	Message, Author string
}

// BuildResult is what AddBuild did.
type BuildResult struct {
	Committed bool       `json:"committed"`
	ID        *object.ID `json:"id,omitempty"`
	Ref       string     `json:"ref"`
	Message   string     `json:"message,omitempty"`
	Ecosystem string     `json:"ecosystem"`
	Root      string     `json:"root"`
	Snapshot  object.ID  `json:"snapshot"`
	// Packages counts the project's own packages (workspace members for
	// Cargo), External the others, Edges the build graph's edges, Broken
	// the project packages with errors.
	Packages int `json:"packages"`
	External int `json:"external"`
	Edges    int `json:"edges"`
	Broken   int `json:"broken"`
}

// AddBuild runs the ecosystem's tool (go list, cargo metadata) in a
// directory of the project, stores its build graph as a snapshot object,
// and records it in a commit's build_snapshot, replacing the previous
// snapshot of the same ecosystem and directory (design A.5 step 3). A
// missing tool or a tool that fails writes nothing.
func (w *Writer) AddBuild(ctx context.Context, opts BuildOptions) (*BuildResult, error) {
	root := w.ProjectRoot()
	rel := "."
	if opts.Dir != "" {
		p, ok := w.projectPath(opts.Dir, opts.Wd)
		if !ok {
			return nil, fmt.Errorf("%w: %s is not a directory of the project %s", ErrInvalidArgument, opts.Dir, root)
		}
		rel = p
	}
	dir := filepath.Join(root, filepath.FromSlash(rel))
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: %s is not a directory of the project", ErrInvalidArgument, rel)
	}
	// The tool runs in the directory a link leads to: one outside the
	// project would record another project's build.
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		realRoot, err := filepath.EvalSymlinks(root)
		if in, rerr := filepath.Rel(realRoot, real); err != nil || rerr != nil || !filepath.IsLocal(in) {
			return nil, fmt.Errorf("%w: %s leads outside the project through a symbolic link (to %s)", ErrInvalidArgument, rel, real)
		}
	}
	res := &BuildResult{Ecosystem: opts.Ecosystem, Root: rel}
	var snap object.Typed
	var edges []graph.Edge
	switch opts.Ecosystem {
	case graph.EcosystemGo:
		out, err := build.GoList(ctx, dir)
		if err != nil {
			return nil, err
		}
		s, err := build.ParseGoList(out, root)
		if err != nil {
			return nil, err
		}
		snap, edges = s, build.GoEdges(w.Config.Repo.ID, s)
		for _, p := range s.Packages {
			if p.Dir == "" {
				res.External++
				continue
			}
			res.Packages++
			if p.Error != "" {
				res.Broken++
			}
		}
		// go list run outside a module reports the pattern ./... as a
		// package in error and exits 0: a snapshot of no package is no
		// build graph, and would replace the one recorded.
		if res.Packages == 0 {
			return nil, fmt.Errorf("%w: go list found no package of the project in %s: is there a go.mod (or go.work) there or above it, and Go files below it?", ErrToolFailed, rel)
		}
	case graph.EcosystemCargo:
		out, err := build.CargoMetadata(ctx, dir)
		if err != nil {
			return nil, err
		}
		s, err := build.ParseCargoMetadata(out, root)
		if err != nil {
			return nil, err
		}
		snap, edges = s, build.CargoEdges(w.Config.Repo.ID, s)
		for _, p := range s.Packages {
			if p.WorkspaceMember {
				res.Packages++
			} else {
				res.External++
			}
		}
	default:
		return nil, fmt.Errorf("%w: ecosystem %q (want go or cargo)", ErrInvalidArgument, opts.Ecosystem)
	}
	res.Edges = len(edges)
	t, err := w.currentTip(ctx, object.StepFileRead)
	if err != nil {
		return nil, err
	}
	base, head := t.commit, t.head
	res.Ref = t.label
	b := w.Objects.NewBatch()
	defer b.Abort()
	sid, err := object.PutTyped(b, snap)
	if err != nil {
		return nil, err
	}
	res.Snapshot = sid
	var entries []build.BuildEntry
	if base.BuildSnapshot != nil {
		old := new(build.BuildSnapshot)
		if err := object.GetTyped(w.Objects, *base.BuildSnapshot, old); err != nil {
			return nil, fmt.Errorf("repo: build snapshot of %s: %w", head.Short(), err)
		}
		for _, e := range old.Entries {
			if e.Ecosystem != opts.Ecosystem || e.Root != rel {
				entries = append(entries, e)
			}
		}
	}
	entries = append(entries, build.BuildEntry{Ecosystem: opts.Ecosystem, Root: rel, Snapshot: sid})
	bs, err := build.NewBuildSnapshot(entries...)
	if err != nil {
		return nil, err
	}
	bid, err := object.PutTyped(b, bs)
	if err != nil {
		return nil, err
	}
	if base.BuildSnapshot != nil && *base.BuildSnapshot == bid {
		return res, nil // the same build graph as recorded
	}
	msg := opts.Message
	if msg == "" {
		tool := map[string]string{graph.EcosystemGo: "go list", graph.EcosystemCargo: "cargo metadata"}[opts.Ecosystem]
		msg = fmt.Sprintf("Build graph of %s (%s): %d packages, %d external, %d edges", rel, tool, res.Packages, res.External, res.Edges)
	}
	c := t.child(w, opts.Author, msg)
	c.BuildSnapshot = &bid
	id, err := w.advance(b, t, c)
	if err != nil {
		return nil, err
	}
	res.Committed, res.ID, res.Message = true, &id, msg
	return res, nil
}

// buildEdges adds the edges of the heads' build snapshots: like code
// edges, a head's build graph is its latest snapshot's, not its history's.
func (r *Repo) buildEdges(g *Graph) error {
	seen := map[object.ID]bool{}
	for _, h := range g.Heads {
		c, err := r.ReadCommit(h)
		if err != nil {
			return err
		}
		if c.BuildSnapshot == nil || seen[*c.BuildSnapshot] {
			continue
		}
		seen[*c.BuildSnapshot] = true
		bs := new(build.BuildSnapshot)
		if err := object.GetTyped(r.Objects, *c.BuildSnapshot, bs); err != nil {
			return fmt.Errorf("build snapshot of %s: %w", h.Short(), err)
		}
		for _, e := range bs.Entries {
			var edges []graph.Edge
			switch e.Ecosystem {
			case graph.EcosystemGo:
				s := new(build.GoPackages)
				if err := object.GetTyped(r.Objects, e.Snapshot, s); err != nil {
					return err
				}
				edges = build.GoEdges(g.repoID, s)
			case graph.EcosystemCargo:
				s := new(build.CargoMetadataSnapshot)
				if err := object.GetTyped(r.Objects, e.Snapshot, s); err != nil {
					return err
				}
				edges = build.CargoEdges(g.repoID, s)
			}
			snap := e.Snapshot
			for _, ed := range edges {
				g.edges = append(g.edges, ed)
				g.origins = append(g.origins, EdgeOrigin{Snapshot: &snap, Derived: "build graph " + e.Ecosystem + " " + e.Root})
			}
		}
	}
	return nil
}

package pack

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/graph"
)

// The expansion is spreading activation (Collins and Loftus, 1975; Crestani,
// 1997) from the best files and their best items: each node hands half of
// its activation to its neighbours, split evenly among them, for Depth
// steps. It is chosen over personalized PageRank because it touches only
// the neighbourhood of the seeds (no iteration over the whole graph, so
// it costs the same on a store of ten files or a hundred thousand), it
// stops after Depth steps as the design asks, and a node's score says how
// much of the seeds reached it and by which edges, which --explain shows.
// Splitting by degree keeps hubs (a package with 300 files, `error`)
// from drowning the rest; nodes with more than maxDegree neighbours do
// not spread at all. Ties are broken by node name, so the result is the
// same on every run.
const (
	decay      = 0.5
	seedItems  = 3 // best items of a seed file that seed too
	spreadStop = 1e-4
)

type activation struct {
	a   float64
	via string // the edge that brought the most, "from -label->"
	by  float64
}

// expand spreads activation from the best files and credits the files
// it reaches (graphScore), recording the seeds and the nodes reached.
func (b *builder) expand(ctx context.Context) error {
	seeds := map[string]float64{}
	for _, f := range b.ranked[:min(seedFiles, len(b.ranked))] {
		a := f.fused / b.maxFused
		seeds[graph.NodeID{Kind: graph.NodeFile, Key: f.path}.Name()] = a
		for _, it := range f.items[:min(seedItems, len(f.items))] {
			seeds[it.meta.Node.Name()] += a * it.score / f.items[0].score
		}
	}
	b.seedList = slices.Collect(maps.Keys(seeds))
	slices.SortFunc(b.seedList, func(x, y string) int { return cmp.Or(cmp.Compare(seeds[y], seeds[x]), strings.Compare(x, y)) })
	reached := map[string]*activation{}
	frontier := seeds
	for step := 0; step < b.opts.Depth && len(frontier) > 0; step++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		b.depth = step + 1
		next := map[string]float64{}
		for _, name := range slices.Sorted(maps.Keys(frontier)) {
			a := frontier[name]
			if a < spreadStop {
				continue
			}
			var nbs []neighbor
			for _, out := range []bool{true, false} {
				ns, err := b.src.Graph.Neighbors(name, out, b.opts.Labels...)
				if err != nil {
					return err
				}
				for _, n := range ns {
					nbs = append(nbs, neighbor{name: n.Node.Name(), label: n.Label, out: out})
				}
			}
			if len(nbs) == 0 || len(nbs) > maxDegree {
				continue
			}
			share := a * decay / float64(len(nbs))
			for _, n := range nbs {
				if _, isSeed := seeds[n.name]; isSeed {
					continue
				}
				next[n.name] += share
				r := reached[n.name]
				if r == nil {
					r = &activation{}
					reached[n.name] = r
				}
				r.a += share
				if share > r.by {
					r.by, r.via = share, edgeText(name, n)
				}
			}
		}
		frontier = next
	}
	// The nodes reached, most activated first; files get what their own
	// node and their items received.
	names := slices.Collect(maps.Keys(reached))
	slices.SortFunc(names, func(x, y string) int {
		return cmp.Or(cmp.Compare(reached[y].a, reached[x].a), strings.Compare(x, y))
	})
	if len(names) > b.opts.MaxExpanded {
		names = names[:b.opts.MaxExpanded]
	}
	b.expanded = names
	for _, name := range names {
		r := reached[name]
		path, err := b.pathOfNode(name)
		if err != nil {
			return err
		}
		if path == "" {
			continue
		}
		f := b.file(path)
		if f.graphScore == 0 {
			f.reach = r.via
		}
		f.graphScore += r.a
	}
	return nil
}

type neighbor struct {
	name  string
	label graph.Label
	out   bool
}

func edgeText(from string, n neighbor) string {
	if n.out {
		return from + " -" + string(n.label) + "-> " + n.name
	}
	return from + " <-" + string(n.label) + "- " + n.name
}

// pathOfNode returns the file a node lives in: the file itself, or the
// file that defines an item; "" for other nodes.
func (b *builder) pathOfNode(name string) (string, error) {
	kind, key, ok := strings.Cut(name, ":")
	if !ok {
		return "", nil
	}
	switch graph.NodeKind(kind) {
	case graph.NodeFile:
		return key, nil
	case graph.NodeItem:
		docs, err := b.src.Index.Lookup("key", key)
		if err != nil || len(docs) == 0 {
			return "", err
		}
		d, err := b.src.Index.DocMeta(docs[0])
		if err != nil {
			return "", err
		}
		return d.Path, nil
	}
	return "", nil
}

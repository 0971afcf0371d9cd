package pack

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/index"
	"github.com/ctx-dev/ctx/narrative"
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
	decay         = 0.5
	seedItems     = 3 // best items of a seed file that seed too
	seedNarrative = 5 // best narrative and diagnostic hits that seed
	spreadStop    = 1e-4
	maxFrontier   = 100
)

type activation struct {
	a   float64
	via string // the edge that brought the most, "from -label->"
	by  float64
}

// expand spreads activation from the best files and credits the files
// it reaches (graphScore), recording the seeds and the nodes reached. It
// walks node numbers and decodes only the nodes it keeps.
func (b *builder) expand(ctx context.Context) error {
	gx := b.src.Graph
	seeds := map[string]float64{}
	for _, f := range b.ranked[:min(seedFiles, len(b.ranked))] {
		a := f.fused / b.maxFused
		seeds[graph.NodeID{Kind: graph.NodeFile, Key: f.path}.Name()] = a
		for _, it := range f.items[:min(seedItems, len(f.items))] {
			seeds[it.meta.Node.Name()] += float64(a * it.score / f.items[0].score)
		}
	}
	// The best narrative and diagnostic hits seed too: a note that
	// mentions a file, a diagnostic at a line of one.
	for _, h := range b.narr[:min(seedNarrative, len(b.narr))] {
		seeds[h.meta.Node.Name()] += h.score / b.narrTop()
	}
	b.seedList = slices.Collect(maps.Keys(seeds))
	slices.SortFunc(b.seedList, func(x, y string) int { return cmp.Or(cmp.Compare(seeds[y], seeds[x]), strings.Compare(x, y)) })
	frontier := map[index.NodeNum]float64{}
	isSeed := map[index.NodeNum]bool{}
	for _, name := range b.seedList {
		n, ok, err := gx.Lookup(name)
		if err != nil {
			return err
		}
		if ok {
			frontier[n] += seeds[name]
			isSeed[n] = true
		}
	}
	type edge struct {
		from  index.NodeNum
		label graph.Label
		out   bool
	}
	reached := map[index.NodeNum]float64{}
	best := map[index.NodeNum]float64{} // the largest share one edge brought
	via := map[index.NodeNum]edge{}
	for step := 0; step < b.opts.Depth && len(frontier) > 0; step++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		b.depth = step + 1
		next := map[index.NodeNum]float64{}
		// The most activated nodes spread, at most maxFrontier of them: the
		// rest would pass on too little to matter.
		order := slices.Collect(maps.Keys(frontier))
		slices.SortFunc(order, func(x, y index.NodeNum) int { return cmp.Or(cmp.Compare(frontier[y], frontier[x]), cmp.Compare(x, y)) })
		for _, n := range order[:min(len(order), maxFrontier)] {
			a := frontier[n]
			if a < spreadStop {
				break
			}
			var nbs []edge
			var targets []index.NodeNum
			for _, out := range []bool{true, false} {
				adj, err := gx.Adjacent(n, out, b.opts.MinConfidence, b.opts.Labels...)
				if err != nil {
					return err
				}
				for _, x := range adj {
					nbs = append(nbs, edge{from: n, label: x.Label, out: out})
					targets = append(targets, x.Node)
				}
			}
			if len(nbs) == 0 || len(nbs) > maxDegree {
				continue
			}
			share := a * decay / float64(len(nbs))
			for i, t := range targets {
				if isSeed[t] {
					continue
				}
				next[t] += share
				reached[t] += share
				if share > best[t] {
					best[t], via[t] = share, nbs[i]
				}
			}
		}
		frontier = next
	}
	// The nodes reached, most activated first (ties by number, which
	// follows kind and key); files get what their own node and their
	// items received.
	nums := slices.Collect(maps.Keys(reached))
	slices.SortFunc(nums, func(x, y index.NodeNum) int { return cmp.Or(cmp.Compare(reached[y], reached[x]), cmp.Compare(x, y)) })
	if len(nums) > b.opts.MaxExpanded {
		nums = nums[:b.opts.MaxExpanded]
	}
	for _, n := range nums {
		node, err := gx.Node(n)
		if err != nil {
			return err
		}
		name := node.Name()
		b.expanded = append(b.expanded, name)
		if nn := b.narrativeOf(node); nn != nil {
			e := via[n]
			from, err := gx.Node(e.from)
			if err != nil {
				return err
			}
			b.graphNarr = append(b.graphNarr, reachedNode{node: nn, a: reached[n], via: edgeText(from.Name(), neighbor{name: name, label: e.label, out: e.out})})
			continue
		}
		path, err := b.pathOfNode(name)
		if err != nil {
			return err
		}
		if path == "" {
			continue
		}
		f := b.file(path)
		if f.graphScore == 0 {
			e := via[n]
			from, err := gx.Node(e.from)
			if err != nil {
				return err
			}
			f.reach = edgeText(from.Name(), neighbor{name: name, label: e.label, out: e.out})
		}
		f.graphScore += reached[n]
	}
	return nil
}

// reachedNode is a narrative node the expansion reached.
type reachedNode struct {
	node *narrative.Node
	a    float64
	via  string
}

// narrativeOf returns the narrative node a graph node stands for, if the
// pack has the narrative and the node is in it, active.
func (b *builder) narrativeOf(node graph.NodeID) *narrative.Node {
	if b.src.Catalog == nil || !b.opts.IncludeNarrative {
		return nil
	}
	n := b.src.Catalog.Nodes[narrative.ID(node.Key)]
	if n == nil || graph.NarrativeNode(string(n.Type), string(n.ID)).ID != node.ID || n.Deleted || n.SupersededBy != "" && !b.opts.IncludeSuperseded {
		return nil
	}
	return n
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

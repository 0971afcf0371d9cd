package pack

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrBudget reports a budget too small for even an empty pack.
var ErrBudget = errors.New("pack: budget too small")

// Section caps, as shares of the budget left after the response's: the
// narrative's chunks take at most a quarter when there is code to show,
// the recent log a tenth, and the graph context's lists of nodes a
// tenth.
const (
	narrativeShare = 4
	recentShare    = 10
	graphShare     = 10
)

// Reading stops when less than minChunk characters of the budget are
// left (no chunk is that small), or after maxMisses candidates in a row
// did not fit: the rest are counted as cut without being read.
const (
	minChunk  = 160
	maxMisses = 10
)

// fit fills p with chunks, best first, until the rendering of p in
// opts.Format would exceed the budget less the response's reserve. Code
// and narrative chunks are interleaved by relevance; the narrative's may
// not take more than their share. A chunk that does not fit is skipped
// (with Explain, listed as cut) and smaller ones after it may still fit.
func fit(p *Pack, cands []candidate, recent string, opts Options) (*Pack, error) {
	r, err := newRenderer(opts.Format)
	if err != nil {
		return nil, err
	}
	avail := opts.Budget - opts.Reserve
	limit := 4 * avail // characters: Tokens(s) <= avail ⟺ runes(s) <= 4·avail
	p.RecentNarrative = truncate(recent, avail/recentShare)
	p.Retrieved = nil
	// Sized with Used at its largest value, so that writing the real one
	// never makes the pack longer.
	p.TokenBudget.Used = p.TokenBudget.Total
	shrinkGraph(p, r, limit/graphShare)
	if err := shrinkBase(p, r, limit); err != nil {
		return nil, err
	}
	size := runes(r.header(p)) + runes(r.footer(p))

	narrCap := limit
	if slices.ContainsFunc(cands, func(c candidate) bool { return !c.narr }) {
		narrCap = limit / narrativeShare
	}
	// Relevance order; code first among equals, then the order given.
	cands = slices.Clone(cands)
	slices.SortStableFunc(cands, func(x, y candidate) int {
		if c := cmp.Compare(y.rel, x.rel); c != 0 {
			return c
		}
		if x.narr != y.narr {
			if x.narr {
				return 1
			}
			return -1
		}
		return 0
	})
	var cut []Cut
	unread := 0
	narrUsed, misses := 0, 0
	first := true
	for i, k := range cands {
		if limit-size < minChunk || misses == maxMisses {
			unread = len(cands) - i
			break
		}
		c, err := k.load()
		if err != nil {
			return nil, err
		}
		if c == nil {
			continue
		}
		piece := r.chunk(c, len(p.Retrieved))
		n := runes(piece)
		if first {
			// The footer of a pack with chunks differs from an empty one's.
			p.Retrieved = append(p.Retrieved, *c)
			n += runes(r.footer(p)) - runes(r.footer(&Pack{TokenBudget: p.TokenBudget, GraphContext: p.GraphContext, RecentNarrative: p.RecentNarrative, Explain: p.Explain}))
			p.Retrieved = p.Retrieved[:0]
		}
		reason := ""
		switch {
		case size+n > limit:
			reason = "budget"
		case k.narr && narrUsed+n > narrCap:
			reason = "narrative share"
		}
		if reason != "" {
			cut = append(cut, Cut{Title: c.Title, Tokens: Tokens(piece), Reason: reason})
			misses++
			continue
		}
		misses = 0
		p.Retrieved = append(p.Retrieved, *c)
		size += n
		if k.narr {
			narrUsed += n
		}
		first = false
	}
	if p.Explain != nil {
		p.Explain.Cut = cut[:min(len(cut), maxCutListed)]
		p.Explain.CutMore = len(cut) - len(p.Explain.Cut) + unread
		if p.Explain.Cut == nil {
			p.Explain.Cut = []Cut{}
		}
	}
	// The list of cuts lengthens the footer: shorten it (the rest are
	// counted), and drop the last chunks only when it is empty, until the
	// whole rendering fits.
	for {
		out, err := Render(p, opts.Format)
		if err != nil {
			return nil, err
		}
		if size = runes(out); size <= limit {
			break
		}
		if p.Explain != nil && len(p.Explain.Cut) > 0 {
			keep := len(p.Explain.Cut) / 2 // in a few renderings, not one per entry
			p.Explain.CutMore += len(p.Explain.Cut) - keep
			p.Explain.Cut = p.Explain.Cut[:keep]
			continue
		}
		if len(p.Retrieved) == 0 {
			return nil, fmt.Errorf("%w: %d tokens (%d reserved for the response) cannot hold the pack's frame", ErrBudget, opts.Budget, opts.Reserve)
		}
		p.Retrieved = p.Retrieved[:len(p.Retrieved)-1]
		if p.Explain != nil {
			p.Explain.CutMore++
		}
	}
	if p.Retrieved == nil {
		p.Retrieved = []Chunk{}
	}
	// Used counts the rendering that states it. The rendering measured
	// has Used = Total; writing a shorter number shortens it by the
	// difference in digits: a fixed point, reached in a step or two.
	total := len(strconv.Itoa(p.TokenBudget.Total))
	used := p.TokenBudget.Total
	for range 4 {
		u := (size - total + len(strconv.Itoa(used)) + 3) / 4
		if u == used {
			break
		}
		used = u
	}
	p.TokenBudget.Used = used
	return p, nil
}

// shrinkGraph cuts the graph context's lists, the longer one first and
// its last (least activated) nodes first, until they take at most max characters of the rendering.
func shrinkGraph(p *Pack, r renderer, max int) {
	bare := *p
	bare.GraphContext.SeedNodes, bare.GraphContext.ExpandedNodes = nil, nil
	base := runes(r.footer(&bare))
	size := func() int { return runes(r.footer(p)) - base }
	g := &p.GraphContext
	for size() > max && len(g.SeedNodes)+len(g.ExpandedNodes) > 0 {
		if len(g.ExpandedNodes) >= len(g.SeedNodes) {
			g.ExpandedNodes = g.ExpandedNodes[:len(g.ExpandedNodes)*3/4]
		} else {
			g.SeedNodes = g.SeedNodes[:len(g.SeedNodes)*3/4]
		}
	}
}

// shrinkBase makes the pack without chunks fit in limit characters:
// shorter graph lists, no recent log, then a shorter task.
func shrinkBase(p *Pack, r renderer, limit int) error {
	base := func() int { return runes(r.header(p)) + runes(r.footer(p)) }
	for base() > limit && len(p.GraphContext.ExpandedNodes) > 0 {
		p.GraphContext.ExpandedNodes = p.GraphContext.ExpandedNodes[:len(p.GraphContext.ExpandedNodes)/2]
	}
	for base() > limit && len(p.GraphContext.SeedNodes) > 0 {
		p.GraphContext.SeedNodes = p.GraphContext.SeedNodes[:len(p.GraphContext.SeedNodes)/2]
	}
	if base() > limit {
		p.RecentNarrative = ""
	}
	// Then a shorter task: halving it until the frame fits (a rendering
	// may show only the start of a long task, so characters cut do not
	// all count).
	for base() > limit && p.Task != "" {
		t := []rune(strings.TrimSuffix(p.Task, "…"))
		if len(t) <= 1 {
			p.Task = ""
		} else {
			p.Task = string(t[:len(t)/2]) + "…"
		}
	}
	if base() > limit {
		return fmt.Errorf("%w: %d tokens cannot hold even an empty pack (%d); raise the budget", ErrBudget, limit/4, (base()+3)/4)
	}
	return nil
}

func runes(s string) int { return utf8.RuneCountInString(s) }

package pack

import "math"

// Explain is what --explain adds to a pack: the query's terms, and what
// the budget left out.
type Explain struct {
	// Terms are the query's terms, as the tokenizer read them.
	Terms []string `json:"terms"`
	// Variants are the inflections of its words the query also looked
	// for, at a lower weight ("tests" → "test").
	Variants []string `json:"variants,omitempty"`
	// Cut are the chunks retrieved but left out for the budget, best
	// first (at most maxCutListed, then a count).
	Cut []Cut `json:"cut"`
	// CutMore counts the chunks left out beyond those listed.
	CutMore int `json:"cut_more,omitempty"`
}

// Cut is a chunk the budget left out.
type Cut struct {
	Title  string `json:"title"`
	Tokens int    `json:"tokens"`
	Reason string `json:"reason"`
}

const maxCutListed = 20

// Why says why a chunk is in the pack.
type Why struct {
	// Reason is a reason that is not a score (the active task).
	Reason string `json:"reason,omitempty"`
	// Fused is the file's CombSUM score: the sum over the signals of its
	// score divided by the best file's.
	Fused float64 `json:"fused,omitempty"`
	// Ranks are the file's ranks by each signal that ranked it: chunk
	// (its best item's BM25), chunks (its items' BM25, each counting
	// half the one before), path (BM25 of its path), names (the names it
	// declares that the query mentions), graph (activation spread from
	// the best files).
	Ranks map[string]int `json:"ranks,omitempty"`
	// Text is the chunk's own full-text match.
	Text *TextMatch `json:"text,omitempty"`
	// Names are the names the file declares that the query mentions.
	Names []string `json:"names,omitempty"`
	// Graph is the edge that brought the file the most activation.
	Graph string `json:"graph,omitempty"`
}

// TextMatch is a chunk's BM25 score and the query terms it contains.
type TextMatch struct {
	Score float64  `json:"score"`
	Terms []string `json:"terms"`
}

// why explains a code chunk: the file's ranks, and, for an item, its
// own match.
func (b *builder) why(f *fileCand, it hit, first bool) *Why {
	w := &Why{Fused: math.Round(f.fused*1e5) / 1e5, Ranks: map[string]int{}, Names: f.nameOf, Graph: f.reach}
	for k, v := range f.ranks {
		w.Ranks[k] = v
	}
	if it.meta.Kind != "" {
		full, err := b.src.Index.Doc(it.doc)
		terms := []string{}
		if err == nil {
			terms = b.matched(full.Text)
		}
		w.Text = &TextMatch{Score: round(it.score), Terms: terms}
	}
	if !first {
		w.Reason = "the file's second-best item"
	}
	return w
}

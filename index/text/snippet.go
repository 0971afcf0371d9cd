package text

import (
	"slices"
	"strings"
)

// DefaultSnippetLen is the length of a snippet, in bytes, when none is
// given: about two lines of code or two of prose.
const DefaultSnippetLen = 200

// Snippet is a short window of a document that shows why it matched.
type Snippet struct {
	// Start and End are the window's byte offsets in the document.
	Start, End int
	// Text is document[Start:End].
	Text string
	// Marks are the occurrences of query terms in Text, as byte offsets
	// into Text, in order and not overlapping.
	Marks []Range
}

// Range is a span of bytes [Start, End).
type Range struct {
	Start, End int
}

// BestSnippet returns the window of doc, at most maxLen bytes (0 means
// DefaultSnippetLen), that best shows the query's clauses. A window covers
// whole lines when they fit, so that code keeps its shape, from the line
// of a match down to a blank line at most; a line too long for the window
// is cut at spaces around the match. Windows are
// ranked by the number of clauses they show whole (a phrase in full, a
// term), then by clauses shown in part (some terms of a phrase), then by
// the number of matches, then by earliest start. Without any match the
// window is the document's first lines. Offsets always fall on UTF-8
// boundaries of doc.
func BestSnippet(doc string, q Query, maxLen int) Snippet {
	if maxLen <= 0 {
		maxLen = DefaultSnippetLen
	}
	s := snipper{doc: doc, q: q, max: maxLen}
	s.find()
	s.units()
	return s.best()
}

type snipper struct {
	doc string
	q   Query
	max int

	occ   map[string][]occurrence // query term → where it occurs
	unit  []unit                  // sorted by start
	cover []float64               // scratch: per clause
}

// occurrence is one emitted term that is a query term.
type occurrence struct {
	pos        uint32
	start, end int
}

// unit is evidence for a clause: a whole phrase or term (full), or one
// term of a phrase that does not occur whole (partial).
type unit struct {
	clause     int
	full       bool
	start, end int
}

// find tokenizes doc and records where the query's terms occur.
func (s *snipper) find() {
	s.occ = make(map[string][]occurrence)
	for _, c := range s.q.Clauses {
		for _, t := range c.Terms {
			s.occ[t] = nil
		}
	}
	if len(s.occ) == 0 {
		return
	}
	t := tokenizers.Get().(*Tokenizer)
	t.scan(s.doc, 0, func(tk *token) {
		if l, ok := s.occ[tk.term]; ok {
			s.occ[tk.term] = append(l, occurrence{pos: tk.pos, start: tk.start, end: tk.end})
		}
	})
	tokenizers.Put(t)
}

// units turns occurrences into evidence for clauses.
func (s *snipper) units() {
	for ci, c := range s.q.Clauses {
		first := s.occ[c.Terms[0]]
		n := len(s.unit)
		if len(c.Terms) > 1 {
		anchor:
			for _, o := range first {
				end := o.end
				for i := 1; i < len(c.Terms); i++ {
					want := uint64(o.pos) + uint64(c.Pos[i])
					l := s.occ[c.Terms[i]]
					j, ok := slices.BinarySearchFunc(l, want, func(x occurrence, w uint64) int {
						return cmpUint64(uint64(x.pos), w)
					})
					if !ok {
						continue anchor
					}
					// A term may occur twice at one position (a
					// whole and its first part); take the longest.
					for ; j < len(l) && uint64(l[j].pos) == want; j++ {
						end = max(end, l[j].end)
					}
				}
				s.unit = append(s.unit, unit{clause: ci, full: true, start: o.start, end: end})
			}
		}
		if len(s.unit) > n {
			continue
		}
		full := len(c.Terms) == 1
		for _, t := range c.Terms {
			for _, o := range s.occ[t] {
				s.unit = append(s.unit, unit{clause: ci, full: full, start: o.start, end: o.end})
			}
		}
	}
	slices.SortFunc(s.unit, func(a, b unit) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return a.end - b.end
	})
	s.cover = make([]float64, len(s.q.Clauses))
}

func cmpUint64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// best picks the best-ranked window.
func (s *snipper) best() Snippet {
	doc := s.doc
	bs, be := -1, -1
	var bscore [3]float64
	try := func(ws, we int) {
		sc := s.score(ws, we)
		if bs < 0 || greater(sc, bscore) || sc == bscore && ws < bs {
			bs, be, bscore = ws, we, sc
		}
	}
	const maxCandidates = 512
	lastLine := -1
	for i, u := range s.unit {
		if i >= maxCandidates {
			break
		}
		ls := lineStart(doc, u.start)
		if ls == lastLine {
			continue
		}
		lastLine = ls
		le := lineEnd(doc, ls)
		if le-ls <= s.max {
			try(ls, s.growLines(ls, le))
			continue
		}
		// The line is too long: try a window around each unit on it.
		for _, v := range s.unit[i:] {
			if v.start >= le {
				break
			}
			ws, we := s.cut(ls, le, v)
			try(ws, we)
		}
	}
	if bs < 0 {
		ls, le := 0, lineEnd(doc, 0)
		if le-ls <= s.max {
			bs, be = ls, s.growLines(ls, le)
		} else {
			bs, be = s.cut(ls, le, unit{})
		}
	}
	be = bs + len(strings.TrimRight(doc[bs:be], " \t\r\n"))
	return s.snippet(bs, be)
}

// greater compares scores lexicographically.
func greater(a, b [3]float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] > b[i]
		}
	}
	return false
}

// score ranks the window [ws, we): clauses shown whole, clauses shown in
// part, matches.
func (s *snipper) score(ws, we int) [3]float64 {
	clear(s.cover)
	var matches float64
	i, _ := slices.BinarySearchFunc(s.unit, ws, func(u unit, w int) int { return u.start - w })
	for ; i < len(s.unit) && s.unit[i].start < we; i++ {
		u := s.unit[i]
		if u.end > we {
			continue
		}
		matches++
		if u.full {
			s.cover[u.clause] = 2
		} else if s.cover[u.clause] == 0 {
			s.cover[u.clause] = 1
		}
	}
	var full, part float64
	for _, c := range s.cover {
		switch c {
		case 2:
			full++
		case 1:
			part++
		}
	}
	return [3]float64{full, part, matches}
}

// growLines extends the lines [ls, le) by whole lines while they fit, up
// to a blank line: the end of a paragraph or, in code, most often of a
// declaration.
func (s *snipper) growLines(ls, le int) int {
	doc := s.doc
	for le < len(doc) {
		next := lineEnd(doc, le+1)
		if next-ls > s.max || strings.TrimSpace(doc[le+1:next]) == "" {
			break
		}
		le = next
	}
	return le
}

// cut returns a window within the line [ls, le), which is longer than the
// window, that starts a little before u and breaks at spaces.
func (s *snipper) cut(ls, le int, u unit) (int, int) {
	doc := s.doc
	ctx := min(40, s.max/4)
	ws := max(ls, u.start-ctx)
	if ws > ls {
		if k := strings.IndexAny(doc[ws:max(ws, u.start)], " \t"); k >= 0 {
			ws += k + 1
		}
		ws = runeStart(doc, ws)
	}
	we := min(le, ws+s.max)
	if we < le {
		if k := strings.LastIndexAny(doc[ws:we], " \t"); k > 0 && ws+k >= u.end {
			we = ws + k
		}
		for we > ws && we < len(doc) && doc[we]&0xC0 == 0x80 {
			we--
		}
	}
	return ws, we
}

// runeStart moves i forward to the start of a rune.
func runeStart(doc string, i int) int {
	for i < len(doc) && doc[i]&0xC0 == 0x80 {
		i++
	}
	return i
}

// lineStart returns the offset of the line holding offset i.
func lineStart(doc string, i int) int {
	return strings.LastIndexByte(doc[:i], '\n') + 1
}

// lineEnd returns the end of the line starting at i, before its newline.
func lineEnd(doc string, i int) int {
	if i >= len(doc) {
		return len(doc)
	}
	if k := strings.IndexByte(doc[i:], '\n'); k >= 0 {
		return i + k
	}
	return len(doc)
}

// snippet builds the result for [ws, we), with the marks inside it.
func (s *snipper) snippet(ws, we int) Snippet {
	sn := Snippet{Start: ws, End: we, Text: s.doc[ws:we]}
	var marks []Range
	for _, l := range s.occ {
		for _, o := range l {
			if o.start >= ws && o.end <= we {
				marks = append(marks, Range{o.start - ws, o.end - ws})
			}
		}
	}
	slices.SortFunc(marks, func(a, b Range) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return b.End - a.End
	})
	for _, m := range marks {
		if n := len(sn.Marks); n > 0 && m.Start <= sn.Marks[n-1].End {
			sn.Marks[n-1].End = max(sn.Marks[n-1].End, m.End)
			continue
		}
		sn.Marks = append(sn.Marks, m)
	}
	return sn
}

package text

// Hit is a document found by a search and its score.
type Hit struct {
	Doc   uint32
	Score float64
}

// better reports whether a ranks before b: higher score first, then lower
// document number, so that equal scores always come out in one order.
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Doc < b.Doc
}

// Collector keeps the best K hits pushed to it: a heap whose root is the
// worst hit kept, so that a hit that does not make the cut costs one
// comparison. The order is total (score, then document number), which
// makes the result independent of the order of pushes.
type Collector struct {
	k int
	h []Hit
}

// NewCollector returns a Collector that keeps k hits; k < 1 keeps none.
func NewCollector(k int) *Collector {
	k = max(k, 0)
	return &Collector{k: k, h: make([]Hit, 0, min(k, 1024))}
}

// Push offers a hit.
func (c *Collector) Push(h Hit) {
	if len(c.h) < c.k {
		c.h = append(c.h, h)
		c.up(len(c.h) - 1)
		return
	}
	if c.k == 0 || !better(h, c.h[0]) {
		return
	}
	c.h[0] = h
	c.down(0)
}

// Len returns the number of hits kept.
func (c *Collector) Len() int { return len(c.h) }

// Min returns the worst hit kept, the one a new hit must beat once the
// collector is full; false when it is not full yet.
func (c *Collector) Min() (Hit, bool) {
	if len(c.h) < c.k || c.k == 0 {
		return Hit{}, false
	}
	return c.h[0], true
}

// Hits returns the hits kept, best first, and empties the collector.
func (c *Collector) Hits() []Hit {
	h := c.h
	out := make([]Hit, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = h[0]
		h[0] = h[len(h)-1]
		h = h[:len(h)-1]
		c.h = h
		c.down(0)
	}
	c.h = c.h[:0]
	return out
}

// The heap is ordered by worse-first: a parent is never better than its
// children.

func (c *Collector) up(i int) {
	h := c.h
	for i > 0 {
		p := (i - 1) / 2
		if !better(h[p], h[i]) {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (c *Collector) down(i int) {
	h := c.h
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		w := l
		if r := l + 1; r < n && better(h[l], h[r]) {
			w = r
		}
		if !better(h[i], h[w]) {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}

// Package retry computes retry delays.
package retry

import (
	"math/rand/v2"
	"time"
)

// Backoff is exponential backoff with jitter: the n-th delay is
// Initial * 2^n, capped at Cap, plus up to 10% random jitter so that
// clients do not retry in lockstep (the thundering herd).
type Backoff struct {
	Max     int           // attempts before giving up
	Initial time.Duration // first delay
	Cap     time.Duration // largest delay; 0 means no cap
}

// Next returns the delay before retry n (0-based) and whether to retry.
func (b Backoff) Next(n int) (time.Duration, bool) {
	if n >= b.Max {
		return 0, false
	}
	d := b.Initial << n
	if b.Cap > 0 && (d > b.Cap || d <= 0) {
		d = b.Cap
	}
	return d + time.Duration(rand.Int64N(int64(d)/10+1)), true
}

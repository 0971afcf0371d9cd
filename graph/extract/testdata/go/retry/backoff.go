package retry

import "time"

// Backoff doubles a delay up to a cap.
type Backoff struct {
	Initial, Cap time.Duration
}

// Default is a backoff from 100ms to 10s.
func Default() Backoff { return Backoff{Initial: 100 * time.Millisecond, Cap: 10 * time.Second} }

// Next returns the delay before attempt n.
func (b Backoff) Next(n int) time.Duration {
	d := b.Initial << n
	if d > b.Cap || d <= 0 {
		return b.Cap
	}
	return d
}

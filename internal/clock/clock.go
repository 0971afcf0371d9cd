// Package clock provides the time source of ctx. Library code takes a Clock
// instead of calling time.Now, so that tests and reproducible runs can fix
// the time (CTX_DATE in the command line tool).
package clock

import "time"

// Clock tells the current time.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
}

// Real is the wall clock.
type Real struct{}

// Now returns the wall-clock time.
func (Real) Now() time.Time { return time.Now() }

// Fixed is a clock that always returns the same instant.
type Fixed time.Time

// Now returns the fixed instant.
func (f Fixed) Now() time.Time { return time.Time(f) }

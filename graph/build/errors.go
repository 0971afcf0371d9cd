package build

import "errors"

var (
	// ErrToolMissing means the build tool (go, cargo) is not on PATH; the
	// wrapping message says what to install.
	ErrToolMissing = errors.New("build: tool not installed")
	// ErrToolFailed means the build tool exited without usable output; the
	// wrapping message carries the first lines of what it printed to
	// standard error.
	ErrToolFailed = errors.New("build: tool failed")
	// ErrParse means a tool's output could not be decoded.
	ErrParse = errors.New("build: cannot parse tool output")
)

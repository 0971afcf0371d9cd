package text

import "errors"

var (
	// ErrInvalidOptions is returned for search options out of range.
	ErrInvalidOptions = errors.New("text: invalid options")
)

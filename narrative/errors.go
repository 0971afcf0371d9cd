package narrative

import (
	"errors"
	"fmt"
	"github.com/ctx-dev/ctx/narrative/vocab"
	"strings"
)

var (
	// ErrInvalidID means a string is not a node ID or ID prefix.
	ErrInvalidID = errors.New("narrative: invalid node id")
	// ErrInvalidType means a string names no node type.
	ErrInvalidType = vocab.ErrInvalidType
	// ErrInvalidTag means a string is not a valid tag.
	ErrInvalidTag = vocab.ErrInvalidTag
	// ErrInvalidContent means node content is empty or not UTF-8.
	ErrInvalidContent = errors.New("narrative: invalid content")
	// ErrInvalidStream means a stream name is not main or feature-<slug>.
	ErrInvalidStream = errors.New("narrative: invalid stream")
	// ErrInvalidMeta means a metadata key or value is malformed.
	ErrInvalidMeta = errors.New("narrative: invalid metadata")
	// ErrNotFound means no node has the ID.
	ErrNotFound = errors.New("narrative: no such node")
	// ErrAmbiguous means an ID prefix matches several nodes.
	ErrAmbiguous = errors.New("narrative: ambiguous node id prefix")
	// ErrMalformed means a narrative file does not parse; see Problem.
	ErrMalformed = errors.New("narrative: malformed narrative file")
)

// Problem is something wrong in a narrative file, at a position a human
// can go to.
type Problem struct {
	Path string `json:"path"` // relative to narrative/
	Line int    `json:"line"` // 1-based; 0 when the whole file is concerned
	Msg  string `json:"message"`
}

// Error formats the problem as "narrative/PATH:LINE: MSG".
func (p Problem) Error() string {
	if p.Line > 0 {
		return fmt.Sprintf("narrative/%s:%d: %s", p.Path, p.Line, p.Msg)
	}
	return fmt.Sprintf("narrative/%s: %s", p.Path, p.Msg)
}

// Unwrap returns ErrMalformed.
func (p Problem) Unwrap() error { return ErrMalformed }

// AmbiguousError lists the nodes an ambiguous prefix matches.
type AmbiguousError struct {
	Prefix     string
	Candidates []ID
}

// Error lists the candidates.
func (e *AmbiguousError) Error() string {
	ids := make([]string, len(e.Candidates))
	for i, c := range e.Candidates {
		ids[i] = string(c)
	}
	return fmt.Sprintf("node id prefix %s matches %d nodes: %s", e.Prefix, len(e.Candidates), strings.Join(ids, " "))
}

// Unwrap returns ErrAmbiguous.
func (e *AmbiguousError) Unwrap() error { return ErrAmbiguous }

package narrative

import "github.com/ctx-dev/ctx/narrative/vocab"

// The node types and tags are package vocab's (narrative/vocab), which a
// reader of the index links without this package's Markdown parser.

// Type is the kind of knowledge a node holds.
type Type = vocab.Type

// The node types of the knowledge layer. The zero value is invalid.
const (
	Fact         = vocab.Fact
	Decision     = vocab.Decision
	Pattern      = vocab.Pattern
	Observation  = vocab.Observation
	Hypothesis   = vocab.Hypothesis
	OpenQuestion = vocab.OpenQuestion
	Task         = vocab.Task
	Summary      = vocab.Summary
	Source       = vocab.Source
)

// Types lists every type.
var Types = vocab.Types

// ParseType accepts a type name or alias ("note", "question"), in any case.
// An unknown type is an error that lists the valid ones.
func ParseType(s string) (Type, error) { return vocab.ParseType(s) }

// Tier is a tag "tier:X" that decides how a node enters composed context.
type Tier = vocab.Tier

// The tiers.
const (
	Pinned     = vocab.Pinned
	Reference  = vocab.Reference
	Working    = vocab.Working
	OffContext = vocab.OffContext
)

// Tiers lists the tiers, highest priority first.
var Tiers = vocab.Tiers

// TierPrefix starts every tier tag.
const TierPrefix = vocab.TierPrefix

// maxTagLen bounds a tag.
const maxTagLen = vocab.MaxTagLen

// ParseTag validates and normalizes a tag (vocab.ParseTag).
func ParseTag(s string) (string, error) { return vocab.ParseTag(s) }

func isAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

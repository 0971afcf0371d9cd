// Package vocab is the narrative's vocabulary: its node types and tags,
// how they are named and checked. It imports nothing beyond the standard
// library, so that a reader of the index (index/reader) can check a
// search's filters without linking the narrative's Markdown parser;
// package narrative re-exports all of it.
package vocab

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrInvalidType means a string names no node type.
	ErrInvalidType = errors.New("narrative: invalid node type")
	// ErrInvalidTag means a string is not a valid tag.
	ErrInvalidTag = errors.New("narrative: invalid tag")
)

// Type is the kind of knowledge a node holds.
type Type string

// The node types of the knowledge layer. The zero value is invalid.
const (
	Fact         Type = "fact"          // stable knowledge about the user, project or domain
	Decision     Type = "decision"      // a choice made, with its rationale
	Pattern      Type = "pattern"       // a recurring approach or structure
	Observation  Type = "observation"   // a situational note (`ctx add note`)
	Hypothesis   Type = "hypothesis"    // an idea not yet validated
	OpenQuestion Type = "open-question" // something unresolved
	Task         Type = "task"          // a unit of work and its context
	Summary      Type = "summary"       // a compression of other nodes
	Source       Type = "source"        // ingested external content
)

// Types lists every type.
var Types = []Type{Fact, Decision, Pattern, Observation, Hypothesis, OpenQuestion, Task, Summary, Source}

// aliases are the other names users may give a type.
var aliases = map[string]Type{
	"note":          Observation,
	"question":      OpenQuestion,
	"open_question": OpenQuestion,
	"openquestion":  OpenQuestion,
}

// ParseType accepts a type name or alias ("note", "question"), in any case.
// An unknown type is an error that lists the valid ones.
func ParseType(s string) (Type, error) {
	l := strings.ToLower(strings.TrimSpace(s))
	for _, t := range Types {
		if string(t) == l {
			return t, nil
		}
	}
	if t, ok := aliases[l]; ok {
		return t, nil
	}
	names := make([]string, len(Types))
	for i, t := range Types {
		names[i] = string(t)
	}
	return "", fmt.Errorf("%w: %q (valid: %s; note = observation, question = open-question)", ErrInvalidType, s, strings.Join(names, ", "))
}

// Valid reports whether t is a defined type.
func (t Type) Valid() bool {
	for _, x := range Types {
		if t == x {
			return true
		}
	}
	return false
}

// Dir is the directory under narrative/ where nodes of the type are
// created. A node whose type changes later keeps its file.
func (t Type) Dir() string {
	switch t {
	case Fact:
		return "facts"
	case Decision:
		return "decisions"
	case Pattern:
		return "patterns"
	case Observation:
		return "observations"
	case Hypothesis:
		return "hypotheses"
	case OpenQuestion:
		return "questions"
	case Task:
		return "tasks"
	case Summary:
		return "summaries"
	case Source:
		return "sources"
	}
	return "nodes"
}

// String returns the type's name.
func (t Type) String() string { return string(t) }

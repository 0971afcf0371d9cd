package staging

import (
	"fmt"
	"strings"
)

// Summary is what a compaction or an abort says about a session, built
// from its steps with no model: the files it changed, the decisions it
// recorded and the commands it ran (the A.5 step 12 shape of the design).
type Summary struct {
	Session string
	// Message is the compaction's message (its first line is used), or
	// the abort's reason when Aborted.
	Message string
	Aborted bool
	// Steps counts the steps by kind, in the order kinds first appear.
	Steps []KindCount
	// Created, Modified and Removed are files of the code snapshot.
	Created, Modified, Removed []FileChange
	// Decisions are decisions the session recorded.
	Decisions []NodeRef
	// Runs are the commands the session ran, in order.
	Runs []RunOutcome
}

// KindCount is a number of steps of one kind.
type KindCount struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
}

// FileChange is a changed file and, for a created one, the first names it
// declares.
type FileChange struct {
	Path  string   `json:"path"`
	Names []string `json:"names,omitempty"`
}

// NodeRef names a narrative node.
type NodeRef struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// RunOutcome is one recorded command run.
type RunOutcome struct {
	Name     string `json:"name"`
	ExitCode int    `json:"exit_code"`
	// Summary is the run's one-line summary ("15 passed", "1 error").
	Summary string `json:"summary,omitempty"`
	// FirstError is the first error diagnostic's code and message.
	FirstError string `json:"first_error,omitempty"`
}

// maxListed bounds the files named in one summary line.
const maxListed = 20

// Lines returns the summary as journal lines for the daily log, without
// the "- HH:MM " each gets there. Each line names the session, so lines
// stay unique: the log is merged with git's union driver, which is safe
// only for distinct single lines (docs/FORMAT.md §14.5).
func (s *Summary) Lines() []string {
	var out []string
	steps := s.stepsText()
	if s.Aborted {
		line := fmt.Sprintf("session %s aborted", s.Session)
		if r := firstLine(s.Message); r != "" {
			line += ": " + r
		}
		return append(out, line+" (discarded "+steps+")")
	}
	out = append(out, fmt.Sprintf("session %s compacted: %s (%s)", s.Session, firstLine(s.Message), steps))
	if files := s.filesText(); files != "" {
		out = append(out, fmt.Sprintf("session %s changed: %s", s.Session, files))
	}
	if len(s.Decisions) > 0 {
		parts := make([]string, len(s.Decisions))
		for i, d := range s.Decisions {
			parts[i] = fmt.Sprintf("%s [%s]", oneLine(d.Title), d.ID)
		}
		out = append(out, fmt.Sprintf("session %s decided: %s", s.Session, strings.Join(parts, "; ")))
	}
	if len(s.Runs) > 0 {
		parts := make([]string, len(s.Runs))
		for i, r := range s.Runs {
			parts[i] = r.text()
		}
		out = append(out, fmt.Sprintf("session %s tested: %s", s.Session, strings.Join(parts, "; ")))
	}
	return out
}

func (s *Summary) stepsText() string {
	total := 0
	parts := make([]string, 0, len(s.Steps))
	for _, k := range s.Steps {
		total += k.Count
		parts = append(parts, fmt.Sprintf("%d %s", k.Count, strings.ReplaceAll(k.Kind, "_", " ")))
	}
	noun := "steps"
	if total == 1 {
		noun = "step"
	}
	if len(parts) == 0 {
		return "0 steps"
	}
	return fmt.Sprintf("%d %s: %s", total, noun, strings.Join(parts, ", "))
}

func (s *Summary) filesText() string {
	var parts []string
	listed := 0
	group := func(verb string, fs []FileChange) {
		if len(fs) == 0 {
			return
		}
		var names []string
		for _, f := range fs {
			if listed == maxListed {
				break
			}
			listed++
			n := oneLine(f.Path)
			if len(f.Names) > 0 {
				n += " (" + strings.Join(f.Names, ", ") + ")"
			}
			names = append(names, n)
		}
		if len(names) == 0 {
			parts = append(parts, fmt.Sprintf("%s %d more file(s)", verb, len(fs)))
			return
		}
		text := verb + " " + strings.Join(names, ", ")
		if rest := len(fs) - len(names); rest > 0 {
			text += fmt.Sprintf(" and %d more", rest)
		}
		parts = append(parts, text)
	}
	group("created", s.Created)
	group("modified", s.Modified)
	group("removed", s.Removed)
	return strings.Join(parts, "; ")
}

func (r RunOutcome) text() string {
	verdict := "passed"
	if r.ExitCode != 0 {
		verdict = "failed"
	}
	detail := fmt.Sprintf("exit %d", r.ExitCode)
	if r.Summary != "" {
		detail += ": " + oneLine(r.Summary)
	}
	if r.FirstError != "" && r.ExitCode != 0 {
		detail += "; " + oneLine(r.FirstError)
	}
	return fmt.Sprintf("`%s` %s (%s)", strings.ReplaceAll(oneLine(r.Name), "`", "'"), verdict, detail)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return oneLine(s)
}

// oneLine folds whitespace runs, newlines included, into single spaces
// and bounds the text, so that it fits one journal line.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}

package diag

import (
	"bytes"
	"fmt"
	"strings"
)

// Retention limits (design §16.3).
const (
	// DefaultMaxLines is the cap on the kept output of a failing run when
	// the caller gives none: the default of max_log_lines (design §16.4,
	// StepBudgets).
	DefaultMaxLines = 500
	// PassingLines is how much of a passing run's output is kept.
	PassingLines = 20
	// contextBefore and contextAfter are the lines kept around each line
	// a diagnostic came from.
	contextBefore = 3
	contextAfter  = 3
)

// Keep returns the part of a run's output worth storing (design §16.3:
// failures are always kept, passing runs as a short summary, under a
// max_log_lines cap).
//
// A run fails when exitCode is not 0 or res has an error. Of a failing
// run, Keep keeps the whole output if it has at most maxLines lines;
// otherwise it keeps the lines the diagnostics came from with a few lines
// of context, in the order of the diagnostics until they fill most of the
// cap, then the head and the tail. Of a passing run it keeps at most
// PassingLines lines: the lines that summarise it ("ok pkg 0.1s",
// "test result: ok. …") and the tail. A line "… N lines omitted …"
// replaces each gap, and counts against the cap; truncated reports
// whether any line was left out. maxLines ≤ 0 means DefaultMaxLines.
//
// res may be nil, or a Result not made by Parse for this output; Keep
// then finds the diagnostics' lines by their messages.
func Keep(output []byte, exitCode int, res *Result, maxLines int) (kept []byte, truncated bool) {
	if maxLines <= 0 {
		maxLines = DefaultMaxLines
	}
	if len(output) == 0 {
		return output, false
	}
	trailingNL := bytes.HasSuffix(output, []byte("\n"))
	lines := strings.Split(strings.TrimSuffix(string(output), "\n"), "\n")
	n := len(lines)
	failing := exitCode != 0 || res.HasErrors()
	budget := maxLines
	if !failing {
		budget = min(maxLines, PassingLines)
	}
	if n <= budget {
		return output, false
	}

	var want []group // in order of priority
	if failing {
		want = diagnosticLines(res, lines)
	} else {
		want = []group{{all: summaryLines(res, lines)}}
	}
	// Select lines; if the markers for the gaps push the total over the
	// budget, reserve room for them and select again.
	sel := make([]bool, n)
	for reserve := 0; reserve < budget; {
		clear(sel)
		selectLines(sel, want, budget, budget-reserve, failing)
		total := 0
		for i := 0; i < n; i++ {
			if sel[i] || i == 0 || sel[i-1] {
				total++ // a kept line, or the marker of a gap
			}
		}
		if total <= budget {
			break
		}
		reserve += total - budget
		if reserve >= budget {
			clear(sel) // one marker for everything
		}
	}
	var b strings.Builder
	for i := 0; i < n; {
		if sel[i] {
			b.WriteString(lines[i])
			b.WriteByte('\n')
			i++
			continue
		}
		j := i
		for j < n && !sel[j] {
			j++
		}
		fmt.Fprintf(&b, "… %s omitted …\n", plural(j-i, "line"))
		i = j
	}
	out := b.String()
	if !trailingNL {
		out = strings.TrimSuffix(out, "\n")
	}
	return []byte(out), true
}

// group is the lines one diagnostic came from (core) and the same with
// context (all); a passing run's summary lines are one group.
type group struct{ core, all []int }

// selectLines marks up to lines lines of sel: the groups in order, each
// whole, or else its core, or else not at all; then the head and the
// tail. The head and the tail are sized from the budget: a failing run
// keeps a tenth (at most 10 lines) for the head and a fifth (at most 50)
// for the tail, a passing run half for the tail. The tail also takes
// whatever the groups leave.
func selectLines(sel []bool, want []group, budget, lines int, failing bool) {
	n := len(sel)
	used := 0
	mark := func(i int) {
		if i >= 0 && i < n && !sel[i] && used < lines {
			sel[i] = true
			used++
		}
	}
	need := func(g []int) int {
		k := 0
		for _, i := range g {
			if i >= 0 && i < n && !sel[i] {
				k++
			}
		}
		return k
	}
	head, tail := 0, budget/2
	if failing {
		head, tail = min(10, budget/10), min(50, budget/5)
	}
	groupsMax := lines - head - tail
	for _, g := range want {
		switch {
		case used+need(g.all) <= groupsMax:
			for _, i := range g.all {
				mark(i)
			}
		case failing && used+need(g.core) <= groupsMax:
			for _, i := range g.core {
				mark(i)
			}
		case !failing && groupsMax > used:
			// Summary lines: keep the last that fit.
			k := groupsMax - used
			for _, i := range g.all[max(0, len(g.all)-k):] {
				mark(i)
			}
		}
	}
	for i := 0; i < head; i++ {
		mark(i)
	}
	for i := n - 1; i >= 0 && used < lines; i-- {
		mark(i)
	}
}

// diagnosticLines returns, for each diagnostic, errors first, the output
// lines it came from with and without context.
func diagnosticLines(res *Result, lines []string) []group {
	if res == nil {
		return nil
	}
	n := len(lines)
	srcs := res.sources
	if len(srcs) != len(res.Diagnostics) {
		srcs = findSources(res, lines)
	}
	groups := make([]group, 0, len(srcs))
	// Errors first: when the cap is tight, they matter most.
	order := make([]int, 0, len(srcs))
	for pass := 0; pass < 2; pass++ {
		for k := range srcs {
			if (res.Diagnostics[k].Severity == SeverityError) == (pass == 0) {
				order = append(order, k)
			}
		}
	}
	for _, k := range order {
		s := srcs[k]
		if s.from < 0 || s.from >= n {
			continue
		}
		var g group
		for i := max(0, s.from-contextBefore); i <= min(n-1, s.to+contextAfter); i++ {
			g.all = append(g.all, i)
			if i >= s.from && i <= s.to {
				g.core = append(g.core, i)
			}
		}
		groups = append(groups, g)
	}
	return groups
}

// findSources finds each diagnostic's line by its message, for a Result
// that does not carry them.
func findSources(res *Result, lines []string) []span {
	srcs := make([]span, 0, len(res.Diagnostics))
	from := 0
	for k, d := range res.Diagnostics {
		if k >= 1000 {
			break
		}
		needle := d.Message
		if len(needle) > 80 {
			needle = needle[:80]
		}
		at := -1
		for pass := 0; pass < 2 && at < 0; pass++ {
			start := from
			if pass == 1 {
				start = 0 // diagnostics need not be in output order
			}
			for i := start; i < len(lines); i++ {
				if strings.Contains(lines[i], needle) {
					at = i
					break
				}
			}
		}
		if at >= 0 {
			from = at
		}
		srcs = append(srcs, span{at, at})
	}
	return srcs
}

// summaryLines returns the lines that summarise a passing run.
func summaryLines(res *Result, lines []string) []int {
	var g []int
	if res != nil {
		for _, i := range res.summaryLines {
			if i >= 0 && i < len(lines) {
				g = append(g, i)
			}
		}
	}
	return g
}

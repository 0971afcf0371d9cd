package directive

import (
	"sort"
	"strings"
)

// codeRanges returns the byte ranges of text that are Markdown code:
// fenced blocks and inline code spans, sorted and disjoint.
//
// A fence is a line indented by at most three spaces that starts with
// three or more backticks or tildes; the block runs to a line holding a
// fence of the same character at least as long (and nothing else), or to
// the end of the text, as CommonMark has it. Outside fenced blocks, a run
// of backticks opens a code span closed by the next run of exactly the
// same length; a run that is never closed is literal text.
func codeRanges(text string) []span {
	var out []span
	var fenceChar byte
	fenceLen, fenceStart := 0, 0
	// Inline code is found within runs of lines outside fences, so that a
	// span may cross line ends but not a fence.
	proseStart := 0
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		next := len(text)
		if end >= 0 {
			next = off + end + 1
		}
		line := text[off:next]
		c, n, rest := fence(line)
		switch {
		case fenceLen == 0 && n >= 3 && !(c == '`' && strings.IndexByte(rest, '`') >= 0):
			out = append(out, inlineCode(text, proseStart, off)...)
			fenceChar, fenceLen, fenceStart = c, n, off
		case fenceLen > 0 && c == fenceChar && n >= fenceLen && strings.TrimSpace(rest) == "":
			out = append(out, span{fenceStart, next})
			fenceLen = 0
			proseStart = next
		}
		off = next
	}
	if fenceLen > 0 {
		out = append(out, span{fenceStart, len(text)})
	} else {
		out = append(out, inlineCode(text, proseStart, len(text))...)
	}
	return out
}

// fence reports the fence a line starts with: its character, its length
// (0 for none) and what follows it.
func fence(line string) (byte, int, string) {
	i := 0
	for i < 3 && i < len(line) && line[i] == ' ' {
		i++
	}
	if i >= len(line) || line[i] != '`' && line[i] != '~' {
		return 0, 0, ""
	}
	c := line[i]
	j := i
	for j < len(line) && line[j] == c {
		j++
	}
	return c, j - i, line[j:]
}

// inlineCode returns the code spans of text[from:to]. Each run of
// backticks is looked up once, so a text full of unmatched runs costs
// no more than a clean one.
func inlineCode(text string, from, to int) []span {
	type brun struct{ at, n int }
	var runs []brun
	byLen := map[int][]int{} // run length → indexes into runs, ascending
	for i := from; i < to; {
		if text[i] != '`' {
			i++
			continue
		}
		n := run(text, i, to)
		byLen[n] = append(byLen[n], len(runs))
		runs = append(runs, brun{i, n})
		i += n
	}
	var out []span
	for k := 0; k < len(runs); {
		same := byLen[runs[k].n]
		j := sort.SearchInts(same, k+1)
		if j == len(same) {
			k++ // never closed: literal backticks
			continue
		}
		c := runs[same[j]]
		out = append(out, span{runs[k].at, c.at + c.n})
		k = same[j] + 1
	}
	return out
}

// run counts the backticks starting at i (before to).
func run(text string, i, to int) int {
	n := 0
	for i+n < to && text[i+n] == '`' {
		n++
	}
	return n
}

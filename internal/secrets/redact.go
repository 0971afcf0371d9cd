package secrets

import "slices"

// Redact returns content with the value of every finding replaced by the
// redaction marker "[REDACTED:<kind>]", and the findings, whose offsets
// refer to content. All other bytes are kept as they are: a private key
// block keeps its BEGIN and END lines, and an assignment keeps its name,
// operator and quotes. Redacting the result again finds nothing and changes
// nothing. When there is nothing to redact, Redact returns content itself.
func Redact(content []byte) ([]byte, []Finding) {
	found := Scan(content)
	if len(found) == 0 {
		return content, nil
	}
	out, _ := redact(content, found)
	return out, found
}

// piece is a run of n bytes of content kept by redact, at offset in in the
// content and at offset out in the result.
type piece struct{ in, out, n int }

// redact returns content with found (ordered by Start, not overlapping)
// replaced by their markers, and the pieces of content between them.
func redact(content []byte, found []Finding) ([]byte, []piece) {
	size := len(content)
	for _, f := range found {
		size += len(f.Kind.marker()) - (f.End - f.Start)
	}
	out := make([]byte, 0, size)
	pieces := make([]piece, 0, len(found)+1)
	pos := 0
	for _, f := range found {
		pieces = append(pieces, piece{pos, len(out), f.Start - pos})
		out = append(out, content[pos:f.Start]...)
		out = append(out, f.Kind.marker()...)
		pos = f.End
	}
	pieces = append(pieces, piece{pos, len(out), len(content) - pos})
	return append(out, content[pos:]...), pieces
}

// translate moves findings in redacted content back to the content it was
// made from. A finding never includes a marker's bytes: no token format
// has '[' or ':' in its alphabet, a key body line may not hold them, and an
// assigned value stops at '[' or, quoted, contains the placeholder
// "redacted". So each lies within one piece; one that did not could not be
// moved, and is dropped.
func translate(found []Finding, pieces []piece) []Finding {
	moved := found[:0]
	for _, f := range found {
		i, _ := slices.BinarySearchFunc(pieces, f.Start, func(p piece, start int) int {
			if p.out+p.n <= start {
				return -1
			}
			if p.out > start {
				return 1
			}
			return 0
		})
		if i == len(pieces) || f.Start < pieces[i].out || f.End > pieces[i].out+pieces[i].n {
			continue
		}
		d := pieces[i].in - pieces[i].out
		f.Start, f.End = f.Start+d, f.End+d
		moved = append(moved, f)
	}
	return moved
}

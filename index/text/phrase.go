package text

// PhraseFreq returns how often a phrase occurs: the number of anchors a
// such that a+offs[i] is in lists[i] for every i. lists[i] holds the
// positions of the phrase's i-th term in one document, in increasing
// order; offs are the terms' positions in the phrase (Clause.Pos). It
// reads each list once and does not allocate for phrases of up to 16
// terms.
func PhraseFreq(lists [][]uint32, offs []uint32) int {
	if len(lists) == 0 || len(lists) != len(offs) {
		return 0
	}
	var stack [16]int
	idx := stack[:0]
	if len(lists) > len(stack) {
		idx = make([]int, 0, len(lists))
	}
	idx = idx[:len(lists)]
	clear(idx)
	n := 0
next:
	for _, p0 := range lists[0] {
		if p0 < offs[0] {
			continue
		}
		a := uint64(p0 - offs[0])
		for i := 1; i < len(lists); i++ {
			want := a + uint64(offs[i])
			l, j := lists[i], idx[i]
			for j < len(l) && uint64(l[j]) < want {
				j++
			}
			idx[i] = j
			if j == len(l) {
				return n
			}
			if uint64(l[j]) != want {
				continue next
			}
		}
		n++
	}
	return n
}

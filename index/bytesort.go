package index

import (
	"bytes"
	"cmp"
	"math/bits"
	"slices"
	"unsafe"
)

// sortKinded sorts ids by kind, then key, then tie (for equal kinds and
// keys), as documents and graph nodes are ordered. The kinds are few:
// ids are put in order of kind by counting, then each kind's by key with
// a byteSort, and only those of equal keys are compared by tie.
func sortKinded(ids []uint32, kind, key func(id uint32) string, tie func(a, b uint32) int) {
	var kinds []string // in order
	for _, id := range ids {
		if k := kind(id); !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	slices.Sort(kinds)
	// Each id's kind, and where each kind's ids start.
	rank := make([]int32, len(ids))
	starts := make([]int, len(kinds)+1)
	for i, id := range ids {
		r := slices.Index(kinds, kind(id))
		rank[i] = int32(r)
		starts[r+1]++
	}
	for r := range kinds {
		starts[r+1] += starts[r]
	}
	sorted := make([]uint32, len(ids))
	next := slices.Clone(starts[:len(kinds)])
	for i, r := range rank {
		sorted[next[r]] = ids[i]
		next[r]++
	}
	bs := byteSort{str: func(id uint32) []byte { return stringBytes(key(id)) }, tie: tie}
	for r := range kinds {
		bs.order(sorted[starts[r]:starts[r+1]])
	}
	copy(ids, sorted)
}

// stringBytes returns the bytes of s, which must not be changed.
func stringBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// byteSort sorts numbers by byte strings: a vocabulary's terms by their
// bytes, a segment's documents by their keys. It is a radix sort, a word
// of 8 bytes at a time from the first, which needs no comparisons for
// most strings, where a comparison sort would compare long shared
// prefixes (paths, package-qualified names) over and over.
type byteSort struct {
	// str returns the bytes of number id.
	str func(id uint32) []byte
	// tie orders numbers of equal bytes; nil if none are equal.
	tie func(a, b uint32) int
}

// sortKey is a word of 8 bytes of a string as a big-endian number,
// zero-padded (so that comparing words orders strings by those bytes),
// the string's number, and whether the string goes on after the word.
type sortKey struct {
	pre  uint64
	id   uint32
	more bool
}

// order sorts ids by their strings and returns them.
func (s *byteSort) order(ids []uint32) []uint32 {
	keys := make([]sortKey, len(ids))
	for i, id := range ids {
		keys[i].id = id
	}
	s.sort(keys, 0, make([]sortKey, len(keys)))
	for i, k := range keys {
		ids[i] = k.id
	}
	return ids
}

// sort sorts keys, whose strings share their first 8*depth bytes
// (zero-padded), by their bytes: by their next 8 bytes with a radix sort,
// then each run of strings that share those too, one word deeper.
func (s *byteSort) sort(keys []sortKey, depth int, tmp []sortKey) {
	if len(keys) <= 16 {
		s.compareSort(keys)
		return
	}
	end := 8 * (depth + 1)
	for i := range keys {
		t := s.str(keys[i].id)
		keys[i].pre, keys[i].more = termWord(t, depth), len(t) > end
	}
	if len(keys) < 1024 {
		// Too few for the radix sort's counts to pay.
		slices.SortFunc(keys, func(a, b sortKey) int { return cmp.Compare(a.pre, b.pre) })
	} else {
		radixSort(keys, tmp)
	}
	for i := 0; i < len(keys); {
		j, more := i+1, keys[i].more
		for j < len(keys) && keys[j].pre == keys[i].pre {
			more = more || keys[j].more
			j++
		}
		if j-i > 1 {
			if more {
				s.sort(keys[i:j], depth+1, tmp[i:j])
			} else {
				// Strings that end in this word: equal, or only
				// differing in their lengths, as "a" and "a\x00".
				s.compareSort(keys[i:j])
			}
		}
		i = j
	}
}

// compareSort sorts keys by their strings' bytes, then by tie.
func (s *byteSort) compareSort(keys []sortKey) {
	slices.SortFunc(keys, func(a, b sortKey) int {
		if c := bytes.Compare(s.str(a.id), s.str(b.id)); c != 0 || s.tie == nil {
			return c
		}
		return s.tie(a.id, b.id)
	})
}

// termWord returns the bytes b[8*depth:8*depth+8] as a big-endian number,
// zero-padded.
func termWord(b []byte, depth int) uint64 {
	return bits.ReverseBytes64(loadHead(b[min(len(b), 8*depth):]))
}

// radixSort sorts keys by pre, stably, a byte at a time from the
// lowest, using tmp (as long as keys) as scratch. It skips the bytes
// that all keys share, such as the padding of short strings.
func radixSort(keys, tmp []sortKey) {
	if len(keys) < 2 {
		return
	}
	var counts [8][256]int
	for _, k := range keys {
		for b := range 8 {
			counts[b][byte(k.pre>>(8*b))]++
		}
	}
	src, dst := keys, tmp
	for b := range 8 {
		c := &counts[b]
		if c[byte(keys[0].pre>>(8*b))] == len(keys) {
			continue
		}
		sum := 0
		for i, n := range c {
			c[i] = sum
			sum += n
		}
		for _, k := range src {
			d := byte(k.pre >> (8 * b))
			dst[c[d]] = k
			c[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}

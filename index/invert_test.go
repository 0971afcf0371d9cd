package index

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestInverter checks the inverters' postings against a direct encoding
// with table.AppendDocPositions, for random documents split among random
// numbers of inverters at random boundaries.
func TestInverter(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 1))
		// Documents: lists of (term, position), positions non-decreasing,
		// as a tokenizer emits them (an inner term shares its position
		// with its first part).
		nDocs := 1 + rng.IntN(40)
		vocab := 1 + rng.IntN(30)
		docs := make([][]occurrence, nDocs)
		for d := range docs {
			var pos uint32
			for range rng.IntN(25) {
				docs[d] = append(docs[d], occurrence{fmt.Sprintf("t%02d", rng.IntN(vocab)), pos})
				if rng.IntN(4) != 0 {
					pos++
				}
			}
		}
		// Split among inverters.
		cuts := []int{0}
		for d := 1; d < nDocs; d++ {
			if rng.IntN(3) == 0 {
				cuts = append(cuts, d)
			}
		}
		cuts = append(cuts, nDocs)
		checkInverters(t, docs, cuts)
	}
}

package text

// stopWords are the English prose words that the tokenizer drops. The
// list is short on purpose: function words that carry no meaning on their
// own and are not names in code. Function words that are also common
// identifiers or callees in Go, Rust, Python or TypeScript are kept: "a",
// "to", "from", "it" (a test function in Jest and Mocha), "at", "on",
// "of", "that", "not", "no", "then". BM25's inverse document frequency
// already makes them nearly weightless, and dropping a name someone
// searches for is worse than an index a little larger. The keywords in the
// list ("for", "if", "in", "is", "as", "and", "or", "with", "this") are
// reserved words, never names.
//
// A stop word is only dropped when it stands alone: as a part of a
// compound ("is_valid", "IsValid", "for-each") it is kept, and so is the
// compound.
var stopWords = []string{
	"an", "and", "are", "as", "be", "been", "but", "by", "for", "if",
	"in", "into", "is", "its", "or", "such", "than", "the", "their",
	"there", "these", "they", "this", "those", "was", "were", "which",
	"with",
}

// isStopWord reports whether term, lower-cased, is a stop word. A switch
// on strings compiles to a search by length and value, which is several
// times faster than hashing for a map; TestStopWords keeps it in step with
// stopWords.
func isStopWord(term string) bool {
	switch term {
	case "an", "and", "are", "as", "be", "been", "but", "by", "for", "if",
		"in", "into", "is", "its", "or", "such", "than", "the", "their",
		"there", "these", "they", "this", "those", "was", "were", "which",
		"with":
		return true
	}
	return false
}

// IsStopWord reports whether Tokenize drops term, lower-cased, when it
// stands alone.
func IsStopWord(term string) bool { return isStopWord(term) }

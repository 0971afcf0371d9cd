// Package text is the full-text machinery of ctx's index: a code-aware
// tokenizer, the query syntax of ctx search, BM25 scoring over postings,
// phrase matching, top-K collection and snippets. It does no I/O: the
// index package stores what Tokenize emits and serves it back through the
// Reader and Postings interfaces, and MemIndex does the same in memory.
//
// # Nouns
//
//   - Term: a lower-cased string that the tokenizer emits and the index
//     keys postings by.
//   - Token: a run of letters and digits joined by connectors ('/', '.',
//     "::", '_', '-'), such as "net/http.Client.Do" or "max_file_bytes".
//   - Part (leaf): a term with no smaller term inside it: "net", "client",
//     "do". Whole (inner) terms are the token and its compound pieces.
//   - Position: the ordinal of a part in its document. Phrases are matched
//     on positions.
//   - Document length: the number of positions of a document (what
//     Tokenize returns), the len(d) of BM25.
//   - Postings: for one term, the documents holding it with its
//     frequency and positions in each.
//   - Clause: a term or phrase of a query, as leaf terms at relative
//     positions; Query: clauses to match, clauses to exclude, filters.
//   - Hit: a document and its score; Snippet: a short window of a
//     document around its matches.
//
// # Tokens and terms
//
// Text is read as UTF-8; letters, digits and combining marks of any
// script make words, and everything else, invalid bytes included,
// separates them. A connector joins two words into one token only when a
// word follows it, so "end." and "--flag" have no connector. A token is
// split level by level, and every piece that splits further is emitted
// whole before its pieces:
//
//	level  splits on          example
//	1      '/'                net/http/client.go → net, http, client.go
//	2      '.' and "::"       client.go → client, go; core::net → core, net
//	3      '_' runs and '-'   max_file_bytes → max, file, bytes
//	4      case changes       HTTPClientConnect → http, client, connect
//
// So "net/http/client.go" gives net/http/client.go, net, http, client.go,
// client and go; "core::net::Client::connect" gives the whole and core,
// net, client, connect. Case splitting puts a boundary before a capital
// that follows a lower-case letter, a digit or an uncased letter, and
// before the last capital of a run followed by a lower-case letter; digits
// stay with what they follow (int64, utf8Decode → utf8, decode,
// HTTP2Server → http2, server) and a word that starts with a digit is a
// number and is not split (0x1F, 3d). Leading and trailing '_' are not
// part of a token (__init__ → init).
//
// Qualified names get no extra terms for pairs of adjacent segments
// ("http.client" inside "net/http.Client.Do"): positions make the phrase
// "http.Client" match them, so pair terms would only make the index
// larger.
//
// # Positions
//
// Parts get consecutive positions, in the order they appear; a whole term
// takes the position of its first part:
//
//	c.Client.connect()      c.client.connect@0 c@0 client@1 connect@2
//	ExponentialBackoff      exponentialbackoff@0 exponential@0 backoff@1
//	exponential backoff     exponential@0 backoff@1
//
// Queries are matched on parts only: a query word that splits is a phrase
// of its parts, so "Client.connect" (client@0 connect@1) finds the code
// above, and so does client_connect or the prose "client connect"; the
// phrase "exponential backoff" finds both ExponentialBackoff and the
// prose. Whole terms serve queries typed as one lower-case word: httpclient
// finds HTTPClient, maxfilebytes finds MaxFileBytes. A whole term at the
// position of its first part does not chain in a phrase with the word
// after it (the phrase "httpclient do" does not match HTTPClient.Do, while
// HTTPClient.Do does), which is why queries use parts. Punctuation takes
// no position: "client) connect(" is the phrase "client connect" too.
//
// What Tokenize emits is part of the index format: Version changes with
// it.
//
// # Stop words
//
// A small list of English function words that are never names in code
// ("the", "and", "is", "for", "with", …; see stopword.go) is dropped when a
// word stands alone. The word keeps its position, so the phrase "state of
// the art" still matches with its gap, and is kept as a part of a
// compound (IsValid, for_each). Words that are also common names (a, to,
// from, it, at, on, of, that, not, no, then) are kept; BM25's idf makes
// them nearly weightless.
//
// # Query syntax
//
// ParseQuery never fails. Words are tokenized like documents; "quoted
// text" is a phrase; a leading '-' excludes a word or phrase; field:value
// (type:decision, path:"index/", -tag:draft) is a Filter for the caller.
// By default a document must match every clause (as in FTS5); Any makes
// any clause enough.
//
// # Scoring
//
// BM25 with Lucene's idf, K1 = 1.2 and B = 0.75 by default; a phrase
// scores as one term whose idf is the sum of its terms' and whose tf is
// the phrase's frequency. Hits are ordered by score, then by document
// number, so results never depend on the order of evaluation.
package text

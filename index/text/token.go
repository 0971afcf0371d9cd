package text

import (
	"encoding/binary"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Connector levels, outermost first: a token is split on '/' into
// components, a component on '.' and "::" into segments, a segment on '_'
// and '-' into words, and a word on case changes into parts.
const (
	levelPath = iota // '/'
	levelQual        // '.' and "::"
	levelWord        // '_' runs and '-'
	levelCase        // camelCase, PascalCase, acronyms
)

// ASCII character classes.
const (
	cWord  = 1 << iota // letter or digit
	cUpper             // A-Z
	cDigit             // 0-9
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := '0'; c <= '9'; c++ {
		t[c] = cWord | cDigit
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = cWord
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = cWord | cUpper
	}
	return t
}()

// internCap bounds a Tokenizer's cache of lower-cased terms; the cache is
// cleared when it is full, so memory stays bounded on any input.
const internCap = 1 << 15

// Tokenizer splits text into lower-cased terms with positions (see the
// package documentation for the rules). Its zero value is ready to use. A
// Tokenizer keeps scratch space and a cache of lower-cased terms between
// calls, which is what makes tokenizing free of allocations once a
// vocabulary has been seen; it must not be used by two goroutines at once.
type Tokenizer struct {
	buf        []byte
	parts      []int
	intern     map[string]string
	recent     []string // direct-mapped cache in front of intern
	recentBits uint8
	lookups    int // since the last check of the hit rate
	misses     int

	// State of the current call.
	text   string
	pos    uint32
	fn     func(*token)                  // internal callers
	emitFn func(term string, pos uint32) // Tokenize's callers, if fn is nil
	tk     token
	flags  uint8 // of the current token: fUpper, fNonASCII
}

// Flags of a token that decide whether it needs case work.
const (
	fUpper    = 1 << iota // has an ASCII capital
	fNonASCII             // has a non-ASCII rune
)

// Tokenizer.recent starts with 1<<minRecentBits entries on first use, and
// doubles up to 1<<maxRecentBits while more than a quarter of lookups
// miss: small for a short text, large enough for the vocabulary of a code
// base.
const (
	minRecentBits = 8
	maxRecentBits = 14
)

// token is one emitted term as the tokenizer's internal callers see it:
// the query parser needs to know which terms are leaves and where a
// top-level token starts, the snippet maker needs byte offsets.
type token struct {
	term       string
	pos        uint32
	start, end int  // byte offsets in the text
	leaf       bool // a part: no emitted term lies inside it
	first      bool // the first term of a top-level token
}

var tokenizers = sync.Pool{New: func() any { return new(Tokenizer) }}

// Tokenize calls emit for every term of text, in order, with positions
// starting at 0, and returns the number of positions used: the document
// length that BM25 uses. Positions passed to emit never decrease.
//
// term is immutable but may share memory with text or with a cache, so a
// caller keeping terms of large, short-lived texts should clone them
// (strings.Clone) when it first stores them. emit is called on the calling
// goroutine, before Tokenize returns.
func Tokenize(text string, emit func(term string, pos uint32)) uint32 {
	t := tokenizers.Get().(*Tokenizer)
	n := t.Tokenize(text, 0, emit)
	tokenizers.Put(t)
	return n
}

// Tokenize is like the package's Tokenize, with positions starting at pos;
// it returns the position after the last one used. Tokenizing the fields
// of one document in turn, each starting where the previous one ended
// (plus a gap, to stop phrases from matching across fields), gives the
// document one position space.
func (t *Tokenizer) Tokenize(text string, pos uint32, emit func(term string, pos uint32)) uint32 {
	t.emitFn = emit
	n := t.scan(text, pos, nil)
	t.emitFn = nil
	return n
}

// scan is the tokenizer: it splits text into top-level tokens (runs of
// letters and digits joined by connectors) and emits each with its parts.
func (t *Tokenizer) scan(text string, pos uint32, fn func(*token)) uint32 {
	t.text, t.pos, t.fn = text, pos, fn
	i := 0
	for i < len(text) {
		if c := text[i]; c < utf8.RuneSelf {
			if asciiClass[c]&cWord == 0 {
				i++
				continue
			}
		} else if r, n := utf8.DecodeRuneInString(text[i:]); !isWordRune(r) {
			i += n
			continue
		}
		s := i
		e, flags := atomEnd(text, i)
		var mask uint8
		for {
			n, lvl := connectorAt(text, e)
			if n == 0 || !wordAt(text, e+n) {
				break
			}
			mask |= 1 << lvl
			var f uint8
			e, f = atomEnd(text, e+n)
			flags |= f
		}
		t.flags = flags
		t.tk.first = true
		t.token(s, e, mask)
		i = e
	}
	t.text, t.fn = "", nil
	return t.pos
}

// token emits the top-level token text[s:e], whose connectors are the
// levels in mask.
func (t *Tokenizer) token(s, e int, mask uint8) {
	if mask == 0 {
		t.atom(s, e, true)
		return
	}
	t.node(s, e, levelPath, mask)
}

// node emits text[s:e] if it splits at some level from lvl on, then its
// children in order. mask holds the connector levels that may occur in
// the span (a superset).
func (t *Tokenizer) node(s, e, lvl int, mask uint8) {
	for ; lvl < levelCase; lvl++ {
		if mask&(1<<lvl) != 0 && hasConnector(t.text[s:e], lvl) {
			break
		}
	}
	if lvl == levelCase {
		t.atom(s, e, false)
		return
	}
	t.emit(s, e, false)
	text := t.text
	cs := s
	for i := s; i < e; {
		n, l := connectorAt(text, i)
		if n == 0 || l != lvl {
			i++
			continue
		}
		t.node(cs, i, lvl+1, mask)
		i += n
		cs = i
	}
	t.node(cs, e, lvl+1, mask)
}

// atom emits the run of letters and digits text[s:e]: as a leaf if it has
// one case part, else whole and then its parts. A standalone atom (top)
// that is a stop word is dropped but keeps its position, so that a phrase
// query with a stop word in it still matches.
func (t *Tokenizer) atom(s, e int, top bool) {
	if t.flags == 0 {
		// Lower-case ASCII, the common case: one part, its own term.
		t.leaf(t.text[s:e], s, e, top)
		return
	}
	parts := t.caseParts(s, e)
	if len(parts) == 2 {
		t.leaf(t.lower(s, e), s, e, top)
		return
	}
	t.emit(s, e, false)
	// emit does not touch t.parts, so parts stays valid.
	for k := 0; k+1 < len(parts); k++ {
		t.emit(parts[k], parts[k+1], true)
	}
}

// leaf emits term, the lower-cased atom text[s:e] of one part, or drops
// it if it stands alone (top) and is a stop word. Stop words are checked
// on the lower-cased term: "İs" lowers to "is".
func (t *Tokenizer) leaf(term string, s, e int, top bool) {
	if top && isStopWord(term) {
		t.pos++
		return
	}
	t.emitTerm(term, s, e, true)
}

// emit passes text[s:e], lower-cased, to the callback. A leaf takes the
// current position and advances it; an inner node takes the position of
// its first leaf, which is the current one.
func (t *Tokenizer) emit(s, e int, leaf bool) {
	t.emitTerm(t.lower(s, e), s, e, leaf)
}

func (t *Tokenizer) emitTerm(term string, s, e int, leaf bool) {
	tk := &t.tk
	tk.term = term
	tk.pos = t.pos
	tk.start, tk.end = s, e
	tk.leaf = leaf
	if t.fn != nil {
		t.fn(tk)
	} else {
		t.emitFn(term, tk.pos)
	}
	tk.first = false
	if leaf {
		t.pos++
	}
}

// lower returns text[s:e] in lower case: the substring itself when it is
// ASCII without capitals, else an interned copy.
func (t *Tokenizer) lower(s, e int) string {
	sub := t.text[s:e]
	if t.flags == 0 {
		return sub
	}
	i := 0
	for ; i < len(sub); i++ {
		c := sub[i]
		if c >= utf8.RuneSelf || asciiClass[c]&cUpper != 0 {
			break
		}
	}
	if i == len(sub) {
		return sub
	}
	buf := append(t.buf[:0], sub[:i]...)
	for ; i < len(sub); i++ {
		c := sub[i]
		if c >= utf8.RuneSelf {
			for _, r := range sub[i:] {
				buf = utf8.AppendRune(buf, unicode.ToLower(r))
			}
			break
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	t.buf = buf
	if t.recent == nil {
		t.recent = make([]string, 1<<minRecentBits)
		t.recentBits = minRecentBits
	}
	if t.lookups++; t.lookups == 8<<t.recentBits {
		if t.misses > t.lookups/4 && t.recentBits < maxRecentBits {
			// The vocabulary outgrows the cache: double it.
			t.recentBits++
			t.recent = make([]string, 1<<t.recentBits)
		}
		t.lookups, t.misses = 0, 0
	}
	slot := &t.recent[hashTerm(buf, t.recentBits)]
	if *slot == string(buf) {
		return *slot
	}
	t.misses++
	lc, ok := t.intern[string(buf)]
	if !ok {
		if t.intern == nil {
			t.intern = make(map[string]string, 256)
		} else if len(t.intern) >= internCap {
			clear(t.intern)
		}
		lc = string(buf)
		t.intern[lc] = lc
	}
	*slot = lc
	return lc
}

// hashTerm maps a term to a slot of Tokenizer.recent from its length and
// its first and last bytes, in constant time.
func hashTerm(b []byte, bits uint8) uint64 {
	var lo, hi uint64
	if len(b) >= 8 {
		lo = binary.LittleEndian.Uint64(b)
		hi = binary.LittleEndian.Uint64(b[len(b)-8:])
	} else {
		for i, c := range b {
			lo |= uint64(c) << (8 * i)
		}
	}
	h := (lo*0x9E3779B97F4A7C15 ^ hi*0xC2B2AE3D27D4EB4F ^ uint64(len(b))) * 0x165667B19E3779F9
	return h >> (64 - bits)
}

// caseParts splits the atom text[s:e] at case changes and returns the
// boundaries, s first and e last (so one part gives two boundaries). A
// boundary falls before a capital that follows a lower-case letter, a
// digit or an uncased letter ("fooBar", "utf8Decode"), and before the last
// capital of a run followed by a lower-case letter ("HTTPClient"). Digits
// stay with what precedes them ("int64", "HTTP2Server" → "HTTP2",
// "Server"), and an atom starting with a digit is a number and is never
// split ("0x1F", "3D").
func (t *Tokenizer) caseParts(s, e int) []int {
	parts := append(t.parts[:0], s)
	text := t.text
	if c := text[s]; c < utf8.RuneSelf && asciiClass[c]&cDigit != 0 {
		t.parts = append(parts, e)
		return t.parts
	}
	const (
		kNone = iota
		kLower
		kUpper
		kDigit
	)
	prev := kNone
	for i := s; i < e; {
		var k, n int
		if c := text[i]; c < utf8.RuneSelf {
			n = 1
			switch cl := asciiClass[c]; {
			case cl&cUpper != 0:
				k = kUpper
			case cl&cDigit != 0:
				k = kDigit
			default:
				k = kLower
			}
		} else {
			var r rune
			r, n = utf8.DecodeRuneInString(text[i:])
			switch {
			case unicode.IsMark(r):
				// A combining mark belongs to the letter before it.
				i += n
				continue
			case isUpper(r):
				k = kUpper
			case unicode.IsDigit(r):
				k = kDigit
			default:
				k = kLower
			}
		}
		if k == kUpper && i > s {
			switch prev {
			case kLower, kDigit:
				parts = append(parts, i)
			case kUpper:
				if nextIsLower(text, i+n, e) {
					parts = append(parts, i)
				}
			}
		}
		prev = k
		i += n
	}
	t.parts = append(parts, e)
	return t.parts
}

// nextIsLower reports whether the rune at text[i:e] (skipping combining
// marks) is a lower-case or uncased letter.
func nextIsLower(text string, i, e int) bool {
	for i < e {
		c := text[i]
		if c < utf8.RuneSelf {
			return asciiClass[c]&(cUpper|cDigit) == 0
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if unicode.IsMark(r) {
			i += n
			continue
		}
		return !isUpper(r) && !unicode.IsDigit(r)
	}
	return false
}

// isUpper reports whether r is a capital (upper or title case) that has a
// lower case. A capital without one (ϒ) stays as it is in terms, so it
// must count as uncased, or a term would split differently when
// tokenized again, as a query.
func isUpper(r rune) bool {
	return (unicode.IsUpper(r) || unicode.IsTitle(r)) && unicode.ToLower(r) != r
}

// wordAt reports whether a letter, digit or combining mark starts at
// text[i]; false at the end of text and on invalid UTF-8.
func wordAt(text string, i int) bool {
	if i >= len(text) {
		return false
	}
	if c := text[i]; c < utf8.RuneSelf {
		return asciiClass[c]&cWord != 0
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return isWordRune(r)
}

func isWordRune(r rune) bool {
	if r == utf8.RuneError {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// atomEnd returns the end of the run of letters, digits and marks that
// starts at text[i], and its flags (fUpper, fNonASCII).
func atomEnd(text string, i int) (int, uint8) {
	var f uint8
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			cl := asciiClass[c]
			if cl&cWord == 0 {
				return i, f
			}
			if cl&cUpper != 0 {
				f |= fUpper
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			return i, f
		}
		f |= fNonASCII
		i += n
	}
	return i, f
}

// connectorAt returns the length and level of the connector at text[i], or
// 0: a run of '_', or one '-', '.', '/', or "::". Whether it joins depends
// on a word following it.
func connectorAt(text string, i int) (n, lvl int) {
	if i >= len(text) {
		return 0, 0
	}
	switch text[i] {
	case '/':
		return 1, levelPath
	case '.':
		return 1, levelQual
	case ':':
		if i+1 < len(text) && text[i+1] == ':' {
			return 2, levelQual
		}
	case '-':
		return 1, levelWord
	case '_':
		n = 1
		for i+n < len(text) && text[i+n] == '_' {
			n++
		}
		return n, levelWord
	}
	return 0, 0
}

// hasConnector reports whether span, a part of a token, contains a
// connector of level lvl. Inside a token every connector joins two words,
// and ':' only occurs as "::", so one byte identifies the level.
func hasConnector(span string, lvl int) bool {
	for i := 0; i < len(span); i++ {
		switch span[i] {
		case '/':
			if lvl == levelPath {
				return true
			}
		case '.', ':':
			if lvl == levelQual {
				return true
			}
		case '_', '-':
			if lvl == levelWord {
				return true
			}
		}
	}
	return false
}

package text

import (
	"encoding/binary"
	"math/bits"
	"slices"
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

// Byte classes.
const (
	cWord  = 1 << iota // ASCII letter or digit
	cUpper             // A-Z
	cDigit             // 0-9
	cHigh              // not ASCII: part of a multi-byte rune, or invalid
)

// byteClass is the class of each byte.
var byteClass = func() (t [256]uint8) {
	for c := utf8.RuneSelf; c < len(t); c++ {
		t[c] = cHigh
	}
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
	lc         []byte // TokenizeBytes's text, its ASCII letters lower-cased
	parts      []int
	conns      []conn // of the current token
	intern     map[string]string
	recent     []string // direct-mapped cache in front of intern
	recentBits uint8
	lookups    int // since the last check of the hit rate
	misses     int

	// State of the current call.
	text      string
	pos       uint32
	fn        func(*token)                  // internal callers
	emitFn    func(term string, pos uint32) // Tokenize's callers
	emitBytes func(term []byte, pos uint32) // TokenizeBytes's callers
	tk        token
	flags     uint8 // of the current token: fUpper, fNonASCII
}

// Flags of a token that decide whether it needs case work. They are the
// classes of the bytes that set them, so that atomEnd sets them with an
// OR.
const (
	fUpper    = cUpper // has an ASCII capital
	fNonASCII = cHigh  // has a non-ASCII rune
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

// TokenizeBytes is like Tokenize, but passes each term as bytes that are
// valid only until emit returns (the Tokenizer reuses them) and that emit
// must not modify. It emits the same terms at the same positions. It is
// for a caller that looks terms up by their bytes and copies the few it
// keeps, such as the index's inverter: handing out a lower-cased term as
// a string takes a copy or a lookup in the Tokenizer's cache of
// lower-cased terms, which TokenizeBytes skips.
//
// The Tokenizer keeps a copy of text, ASCII letters lower-cased in one
// pass, so that a term without non-ASCII letters (nearly all terms of
// code) is passed as a part of it, with no further work.
func (t *Tokenizer) TokenizeBytes(text string, pos uint32, emit func(term []byte, pos uint32)) uint32 {
	t.lc = appendLowerASCII(t.lc[:0], text)
	t.emitBytes = emit
	n := t.scan(text, pos, nil)
	t.emitBytes = nil
	return n
}

// scan is the tokenizer: it splits text into top-level tokens (runs of
// letters and digits joined by connectors) and emits each with its parts.
func (t *Tokenizer) scan(text string, pos uint32, fn func(*token)) uint32 {
	t.text, t.pos, t.fn = text, pos, fn
	i := 0
	for i < len(text) {
		if i+8 <= len(text) {
			// Skip up to 8 separators at once.
			w := load64(text[i : i+8])
			word, _ := classify8(w)
			stop := word | w&high8
			if stop == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(stop) / 8
		}
		if c := text[i]; c < utf8.RuneSelf {
			if byteClass[c]&cWord == 0 {
				i++
				continue
			}
		} else if r, n := utf8.DecodeRuneInString(text[i:]); !isWordRune(r) {
			i += n
			continue
		}
		s := i
		e, flags := atomEnd(text, i)
		conns := t.conns[:0]
		for {
			n, lvl := connectorAt(text, e)
			if n == 0 || !wordAt(text, e+n) {
				break
			}
			conns = append(conns, conn{at: e, n: n, lvl: lvl})
			var f uint8
			e, f = atomEnd(text, e+n)
			flags |= f
		}
		t.conns = conns
		t.flags = flags
		t.tk.first = true
		t.token(s, e)
		i = e
	}
	t.text, t.fn = "", nil
	return t.pos
}

// conn is a connector of a token: text[at:at+n], of level lvl.
type conn struct {
	at, n, lvl int
}

// token emits the top-level token text[s:e], whose connectors are
// t.conns.
func (t *Tokenizer) token(s, e int) {
	if len(t.conns) == 0 {
		t.atom(s, e, true)
		return
	}
	t.node(s, e, t.conns)
}

// node emits text[s:e] if it has connectors (conns, in order), then the
// parts between those of the outermost level, in order.
func (t *Tokenizer) node(s, e int, conns []conn) {
	if len(conns) == 0 {
		t.atom(s, e, false)
		return
	}
	// The outermost level of a connector in the span.
	top := levelCase
	for _, c := range conns {
		top = min(top, c.lvl)
	}
	t.emit(s, e, false)
	cs, from := s, 0
	for k, c := range conns {
		if c.lvl == top {
			t.node(cs, c.at, conns[from:k])
			cs, from = c.at+c.n, k+1
		}
	}
	t.node(cs, e, conns[from:])
}

// atom emits the run of letters and digits text[s:e]: as a leaf if it has
// one case part, else whole and then its parts. A standalone atom (top)
// that is a stop word is dropped but keeps its position, so that a phrase
// query with a stop word in it still matches.
func (t *Tokenizer) atom(s, e int, top bool) {
	if t.flags == 0 {
		// Lower-case ASCII, the common case: one part, its own term.
		t.leaf(s, e, top)
		return
	}
	parts := t.caseParts(s, e)
	if len(parts) == 2 {
		t.leaf(s, e, top)
		return
	}
	t.emit(s, e, false)
	// emit does not touch t.parts, so parts stays valid.
	for k := 0; k+1 < len(parts); k++ {
		t.emit(parts[k], parts[k+1], true)
	}
}

// leaf emits the atom text[s:e] of one part, lower-cased, or drops it if
// it stands alone (top) and is a stop word. Stop words are checked on the
// lower-cased term: "İs" lowers to "is".
func (t *Tokenizer) leaf(s, e int, top bool) {
	if t.emitBytes != nil {
		term := t.lowerBytes(s, e)
		if top && len(term) <= maxStopWordLen {
			// A lower-case ASCII atom is its own term, and needs no
			// conversion to a string.
			if t.flags == 0 && isStopWord(t.text[s:e]) || t.flags != 0 && isStopWord(string(term)) {
				t.pos++
				return
			}
		}
		t.emitBytes(term, t.pos)
		t.pos++
		return
	}
	term := t.lower(s, e)
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
	if t.emitBytes != nil {
		t.emitBytes(t.lowerBytes(s, e), t.pos)
		if leaf {
			t.pos++
		}
		return
	}
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
		if c >= utf8.RuneSelf || byteClass[c]&cUpper != 0 {
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

// maxStopWordLen is the length of the longest stop word (stopword.go): a
// longer term is none, which spares most terms a conversion to a string
// to ask isStopWord. TestStopWordLen checks it.
const maxStopWordLen = 5

// lowerBytes returns text[s:e] in lower case, as lower does, during
// TokenizeBytes: a part of t.lc if the token is ASCII, else in t.buf.
func (t *Tokenizer) lowerBytes(s, e int) []byte {
	if t.flags&fNonASCII == 0 {
		return t.lc[s:e:e]
	}
	sub := t.text[s:e]
	buf := t.buf[:0]
	for i := 0; i < len(sub); i++ {
		c := sub[i]
		if c >= utf8.RuneSelf {
			for _, r := range sub[i:] {
				buf = utf8.AppendRune(buf, unicode.ToLower(r))
			}
			break
		}
		buf = append(buf, asciiLower[c])
	}
	t.buf = buf
	return buf
}

// appendLowerASCII appends s to b with its ASCII capitals lower-cased, 8
// bytes at a time: a byte is a capital if adding 0x80-'A' to its low 7
// bits sets its high bit and adding 0x80-'Z'-1 does not, and its own high
// bit is clear; lower-casing sets its 0x20 bit. No sum carries into the
// next byte.
func appendLowerASCII(b []byte, s string) []byte {
	const ones = 0x0101010101010101
	n := len(b)
	b = slices.Grow(b, len(s))[:n+len(s)]
	out := b[n:]
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := load64(s[i : i+8])
		low := w &^ high8
		upper := (low + (0x80-'A')*ones) &^ (low + (0x80-'Z'-1)*ones) &^ w & high8
		binary.LittleEndian.PutUint64(out[i:], w|upper>>2)
	}
	for ; i < len(s); i++ {
		out[i] = asciiLower[s[i]]
	}
	return b
}

// asciiLower maps a byte to its lower case if it is an ASCII letter, and
// to itself otherwise.
var asciiLower = func() (t [256]byte) {
	for c := range t {
		t[c] = byte(c)
		if 'A' <= c && c <= 'Z' {
			t[c] += 'a' - 'A'
		}
	}
	return t
}()

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

// Kinds of runes for caseParts.
const (
	kNone = iota
	kLower
	kUpper
	kDigit
)

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
	if c := text[s]; c < utf8.RuneSelf && byteClass[c]&cDigit != 0 {
		t.parts = append(parts, e)
		return t.parts
	}
	prev := kNone
	for i := s; i < e; {
		var k, n int
		if c := text[i]; c < utf8.RuneSelf {
			n = 1
			k = int(asciiKind[c])
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

// asciiKind is caseParts's kind of each ASCII byte of an atom: kUpper,
// kDigit or kLower.
var asciiKind = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch cl := byteClass[c]; {
		case cl&cUpper != 0:
			t[c] = kUpper
		case cl&cDigit != 0:
			t[c] = kDigit
		default:
			t[c] = kLower
		}
	}
	return t
}()

// nextIsLower reports whether the rune at text[i:e] (skipping combining
// marks) is a lower-case or uncased letter.
func nextIsLower(text string, i, e int) bool {
	for i < e {
		c := text[i]
		if c < utf8.RuneSelf {
			return byteClass[c]&(cUpper|cDigit) == 0
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
		return byteClass[c]&cWord != 0
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
	for i+8 <= len(text) {
		// 8 bytes at a time; most atoms end in the first 8.
		w := load64(text[i : i+8])
		word, upper := classify8(w)
		if word == high8 {
			if upper != 0 {
				f |= fUpper
			}
			i += 8
			continue
		}
		k := bits.TrailingZeros64(^word & high8) // 8 times the first other byte
		if upper&(1<<k-1) != 0 {
			f |= fUpper
		}
		i += k / 8
		if text[i] < utf8.RuneSelf {
			return i, f
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			return i, f
		}
		f |= fNonASCII
		i += n
	}
	for i < len(text) {
		cl := byteClass[text[i]]
		if cl&cWord != 0 {
			f |= cl & fUpper
			i++
			continue
		}
		if cl&cHigh == 0 {
			return i, f
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

// high8 has the high bit of each of 8 bytes.
const high8 = 0x8080808080808080

// load64 returns the 8 bytes of b, little-endian.
func load64(b string) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// classify8 returns, for the 8 bytes of w, the high bit of each that is
// an ASCII letter or digit (cWord), and of each that is an ASCII capital
// (cUpper). A byte is in a range [lo, hi] if adding 0x80-lo to its low 7
// bits sets its high bit and adding 0x80-hi-1 does not, and its own high
// bit is clear; no sum carries into the next byte.
func classify8(w uint64) (word, upper uint64) {
	const ones = 0x0101010101010101
	low := w &^ high8
	digit := (low + (0x80-'0')*ones) &^ (low + (0x80-'9'-1)*ones)
	upper = (low + (0x80-'A')*ones) &^ (low + (0x80-'Z'-1)*ones)
	lower := (low + (0x80-'a')*ones) &^ (low + (0x80-'z'-1)*ones)
	ascii := ^w & high8
	return (digit | upper | lower) & ascii, upper & ascii
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

package secrets

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
)

// The assignment heuristic finds a value assigned to a name that ends in a
// secret word, in any of the forms code and configuration use:
//
//	password = "…"            Python, TOML, HCL, INI
//	DB_PASSWORD=…             .env, shell, properties
//	token: …                  YAML
//	"api_key": "…"            JSON, Python and Go maps
//	Secret: "…",              Go and JS composite literals
//	apiKey := "…"             Go
//
// It is built to stay quiet on code that merely handles secrets:
// `password := r.FormValue("password")` assigns a call, `Token string` has
// no operator, `case token:` has no value, and `tokenURL = "https://…"`
// has a name that does not end in the secret word.
const (
	// maxKeyName bounds the name on each side of the secret word.
	maxKeyName = 64
	// minValue is the shortest value taken for a secret: anything shorter
	// is too weak to be worth the false alarms.
	minValue = 8
	// minValueTwoClasses is the shortest value taken for a secret if it
	// mixes only two classes of character (lower case, upper case, digits,
	// others).
	minValueTwoClasses = 12
	// maxValue is the longest: longer values are certificates, blobs or
	// prose, which the token formats handle if they are secrets at all.
	maxValue = 256
	// minValueEntropy is the least entropy, in bits per byte, of a value.
	// A random 8-character value scores 3.0 if no character repeats;
	// words and identifiers score less.
	minValueEntropy = 3.0
)

// keywordMatcher returns a matcher for the secret word w, ignoring case;
// an '_' in w stands for an optional '_', '-' or '.', so "api_key" matches
// apiKey, API_KEY and api-key. It records where the word is, for
// assignment to look at once the token formats are settled.
func keywordMatcher(w string) func(sc *scanner, at int) {
	return func(sc *scanner, at int) {
		if end, ok := matchFold(sc.s, at, w); ok {
			sc.words = append(sc.words, word{at, end})
		}
	}
}

func matchFold(s []byte, at int, word string) (end int, ok bool) {
	if at < 0 {
		return 0, false
	}
	p := at
	for i := 0; i < len(word); i++ {
		if word[i] == '_' {
			if p < len(s) && is(s[p], cUnder|cDash|cDot) {
				p++
			}
			continue
		}
		if p >= len(s) || lower(s[p]) != word[i] {
			return 0, false
		}
		p++
	}
	return p, true
}

// keySuffixes are what may follow the secret word in a name (compared
// without case and separators): DB_PASSWORD, secret_key, token_value,
// PASSWORD_2. Anything else means the name is about something else:
// tokenURL, password_file, secretName, token_type, passwords.
var keySuffixes = map[string]bool{
	"": true, "key": true, "value": true, "val": true, "str": true, "string": true,
	"plain": true, "plaintext": true, "raw": true, "b64": true, "base64": true, "hex": true,
}

// notCredentials lists, for a secret word, what may end a name before it
// to make it something that is not a credential: pagination, cancellation,
// CSRF and lexer tokens; the derived secrets of TLS 1.3 (RFC 8446 §7.1)
// and HPKE (RFC 9180), which only ever appear as published test vectors.
var notCredentials = map[string][]string{
	"token": {
		"next", "page", "continuation", "cursor", "cancel", "cancellation", "resume", "sync",
		"csrf", "xsrf", "lexer", "parser",
	},
	"secret": {
		"shared", "exporter", "master", "handshake", "traffic", "early", "premaster", "derived",
		"resumption", "binder",
	},
}

// assignment looks at the secret word s[kwStart:kwEnd] and reports the
// value assigned to the name around it, if it looks like a secret. The
// name ends at the findings in kept (ordered by Start), as it would at
// their redaction markers.
func (sc *scanner) assignment(kwStart, kwEnd int, kept []Finding) {
	s := sc.s
	lo, hi := 0, len(s)
	i, _ := slices.BinarySearchFunc(kept, kwStart, func(k Finding, start int) int { return cmp.Compare(k.Start, start) })
	if i > 0 {
		if lo = kept[i-1].End; lo > kwStart {
			return
		}
	}
	if i < len(kept) {
		if hi = kept[i].Start; hi < kwEnd {
			return
		}
	}
	ks := kwStart
	for ks > lo && is(s[ks-1], cKey) {
		if kwStart-ks >= maxKeyName {
			return
		}
		ks--
	}
	ke := kwEnd
	for ke < hi && is(s[ke], cKey) {
		if ke-kwEnd >= maxKeyName {
			return
		}
		ke++
	}
	key := s[ks:ke]
	norm := normalize(key)
	aws := bytes.HasSuffix(norm, []byte("secretaccesskey")) || bytes.HasSuffix(norm, []byte("awssecretkey"))
	if !aws {
		if !keySuffixes[string(bytes.TrimRight(normalize(s[kwEnd:ke]), "0123456789"))] {
			return
		}
		if hasAnySuffix(normalize(s[ks:kwStart]), notCredentials[string(normalize(s[kwStart:kwEnd]))]) {
			return
		}
	}
	p := ke
	// The closing quote of a quoted name: "password": …
	if p < len(s) && (s[p] == '"' || s[p] == '\'') && ks > 0 && s[ks-1] == s[p] {
		p++
	}
	p, ok := operator(s, skipBlanks(s, p))
	if !ok {
		return
	}
	start, end, quoted, ok := value(s, skipBlanks(s, p))
	if !ok {
		return
	}
	v := s[start:end]
	if aws {
		if len(v) == 40 && span(v, 0, cAlnum|cB64, 40) == 40 && !bytes.ContainsRune(v, '=') && entropy(v) >= 4 {
			sc.add(Finding{Kind: AWSSecretAccessKey, Start: start, End: end, Reason: "AWS secret access key"})
		}
		return
	}
	if !looksSecret(v, quoted) {
		return
	}
	sc.add(Finding{Kind: Assignment, Start: start, End: end, Reason: "secret assigned to " + string(key)})
}

// operator returns the position after the assignment operator at s[p]:
// '=', ':=', '=>', or ':' followed by a blank or a quote (YAML, JSON; not
// "::", and not the ':' of a URL or of "user:password").
func operator(s []byte, p int) (int, bool) {
	if p >= len(s) {
		return 0, false
	}
	next := byte(0)
	if p+1 < len(s) {
		next = s[p+1]
	}
	switch s[p] {
	case '=':
		switch next {
		case '=', '~':
			return 0, false
		case '>':
			return p + 2, true
		}
		return p + 1, true
	case ':':
		switch next {
		case '=':
			return p + 2, true
		case ' ', '\t', '"', '\'', '`':
			return p + 1, true
		}
	}
	return 0, false
}

// value returns the extent of the value at s[p]: the inside of a string
// literal on the same line, or a bare word that ends the line (or is
// followed by a comment). A bare word followed by anything else is an
// expression, such as a call or a field: code, not a literal secret.
func value(s []byte, p int) (start, end int, quoted, ok bool) {
	if p < len(s) && strings.IndexByte("rRbBuU", s[p]) >= 0 && p+1 < len(s) && (s[p+1] == '"' || s[p+1] == '\'') {
		p++ // a Python string prefix
	}
	if p >= len(s) {
		return 0, 0, false, false
	}
	if q := s[p]; q == '"' || q == '\'' || q == '`' {
		for i := p + 1; i < len(s) && i-p <= maxValue+1; i++ {
			switch s[i] {
			case q:
				return p + 1, i, true, true
			case '\n':
				return 0, 0, false, false
			case '\\':
				if q != '`' {
					i++
				}
			}
		}
		return 0, 0, false, false
	}
	if strings.IndexByte("$%&*!@/~.-:", s[p]) >= 0 {
		// Variables, YAML anchors, aliases and tags, paths, flags.
		return 0, 0, false, false
	}
	end = p
	for end < len(s) && end-p <= maxValue && s[end] > ' ' && s[end] < 0x7f && strings.IndexByte(",;()[]{}<>\"'`", s[end]) < 0 {
		end++
	}
	rest := skipBlanks(s, end)
	if rest < len(s) && s[rest] != '\n' && s[rest] != '\r' && s[rest] != '#' && !hasAt(s, rest, "//") {
		return 0, 0, false, false
	}
	return p, end, false, end > p
}

// placeholders, found anywhere in a value (ignoring case), mark it as a
// stand-in for a secret rather than one: templates, environment lookups,
// redaction markers (which makes Redact idempotent) and the words people
// use in examples.
var placeholders = bytesList(
	"changeme", "change_me", "change-me", "changeit", "xxx", "***", "...",
	"<", ">", "${", "{{", "}}", "$(", "%(", "%s", "%v", "%d", "{0}",
	"example", "sample", "placeholder", "dummy", "fake", "test", "redacted", "your",
	"replace", "insert", "enter", "secret", "password", "passwd", "token", "apikey", "api_key",
	"qwerty", "letmein", "default", "null", "undefined", "todo", "fixme", "foobar",
	"getenv", "environ", "process.env",
)

func bytesList(s ...string) [][]byte {
	b := make([][]byte, len(s))
	for i := range s {
		b[i] = []byte(s[i])
	}
	return b
}

// looksSecret reports whether a value assigned to a secret name is a
// secret: long enough, random-looking (entropy, a mix of character
// classes, no runs like "1234" or "aaaa"), printable without spaces
// (which rules out prompts and prose), and not a placeholder, path or URL.
func looksSecret(v []byte, quoted bool) bool {
	if len(v) < minValue || len(v) > maxValue {
		return false
	}
	var seen uint8
	for _, c := range v {
		if c <= ' ' || c >= 0x7f {
			return false
		}
		seen |= classes[c]
	}
	kinds := 0
	for _, class := range []uint8{cLower, cUpper, cDigit, ^cAlnum} {
		if seen&class != 0 {
			kinds++
		}
	}
	// Two classes of character need more length to be random: hex, or
	// lower case and digits, as in "23sdf876234" from documentation.
	if kinds < 2 || kinds == 2 && len(v) < minValueTwoClasses {
		return false
	}
	if seen&cDigit == 0 && span(v, 0, cAlnum|cUnder|cDash|cDot, len(v)) == len(v) {
		// Letters alone are words or an identifier, like the quoted
		// type name in Python's `private_key: "_RSAPrivateKey"` or the
		// tag in `base-passwd: no-debconf-config`.
		return false
	}
	if bytes.Contains(v, []byte("://")) || v[0] == '/' || hasAt(v, 0, "./") || hasAt(v, 0, "~/") {
		return false
	}
	if hasRun(v, 4) || entropy(v) < minValueEntropy {
		return false
	}
	l := bytes.ToLower(v)
	for _, p := range placeholders {
		if bytes.Contains(l, p) {
			return false
		}
	}
	if !quoted && span(v, 0, cAlnum|cUnder|cDot, len(v)) == len(v) && !is(v[0], cDigit) {
		// A bare word that could be an identifier is most likely code:
		// `pwd = a.Package.Dir`, `key = curvePrivateKey`. Take it only
		// when it is long and random, as API keys in .env files are.
		digits := 0
		for _, c := range v {
			if is(c, cDigit) {
				digits++
			}
		}
		if bytes.IndexByte(v, '.') >= 0 || len(v) < 16 || digits < 2 || entropy(v) < 3.5 {
			return false
		}
	}
	return true
}

// hasRun reports whether v has n bytes in a row that repeat or count up or
// down by one: "aaaa", "1234", "dcba".
func hasRun(v []byte, n int) bool {
	same, up, down := 1, 1, 1
	for i := 1; i < len(v); i++ {
		d := int(v[i]) - int(v[i-1])
		same, up, down = count(same, d == 0), count(up, d == 1), count(down, d == -1)
		if same >= n || up >= n || down >= n {
			return true
		}
	}
	return false
}

func count(run int, more bool) int {
	if more {
		return run + 1
	}
	return 1
}

func skipBlanks(s []byte, p int) int {
	for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	return p
}

// normalize returns name in lower case without separators.
func normalize(name []byte) []byte {
	out := make([]byte, 0, len(name))
	for _, c := range name {
		if !is(c, cUnder|cDash|cDot) {
			out = append(out, lower(c))
		}
	}
	return out
}

func hasAnySuffix(b []byte, suffixes []string) bool {
	for _, x := range suffixes {
		if bytes.HasSuffix(b, []byte(x)) {
			return true
		}
	}
	return false
}

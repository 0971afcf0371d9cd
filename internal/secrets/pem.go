package secrets

import "bytes"

const (
	// minKeyBody is the least number of base64 characters in the body of
	// a private key block. The smallest real one, a PKCS #8 Ed25519 key,
	// has 64; documentation that writes "..." or "<your key>" has none.
	minKeyBody = 60
	// maxKeyLine bounds the length of one line of a key body, so that
	// content built to look like endless keys costs linear time. Real
	// lines have 64 or 70 characters; a key that uses spaces for newlines
	// has a few thousand.
	maxKeyLine = 16 << 10
	// maxBlankLines bounds the run of blank lines inside a body, for the
	// same reason. OpenPGP armor has one after its headers, and a Go
	// string concatenation has a line of `" +` after each line of base64.
	maxBlankLines = 3
)

// matchPrivateKey finds a private key block. at is where "PRIVATE KEY"
// would start, inside a BEGIN line: PEM (RFC 7468) labels ending in
// PRIVATE KEY (PKCS #1 "RSA PRIVATE KEY", SEC 1 "EC PRIVATE KEY", PKCS #8
// "PRIVATE KEY" and "ENCRYPTED PRIVATE KEY", "DSA PRIVATE KEY", OpenSSH's
// "OPENSSH PRIVATE KEY") and OpenPGP's "PGP PRIVATE KEY BLOCK" (RFC 4880
// §6.2). The secret value is the body: everything between the BEGIN line
// and the END line, so that redaction keeps both and the reader still sees
// what was there.
func matchPrivateKey(sc *scanner, at int) {
	s := sc.s
	if !hasAt(s, at, "PRIVATE KEY") {
		return
	}
	const begin = "-----BEGIN "
	lo := max(0, at-32)
	j := bytes.LastIndex(s[lo:at], []byte(begin))
	if j < 0 {
		return
	}
	labelStart := lo + j + len(begin)
	for _, c := range s[labelStart:at] {
		if !is(c, cUpper|cDigit) && c != ' ' {
			return
		}
	}
	p := at + len("PRIVATE KEY")
	if hasAt(s, p, " BLOCK") {
		p += len(" BLOCK")
	}
	if !hasAt(s, p, "-----") {
		return
	}
	label := string(s[labelStart:p])
	start, end, n, complete := keyBody(s, p+len("-----"))
	if n < minKeyBody {
		return
	}
	reason := label + " block"
	if !complete {
		reason += " without an END line"
	}
	sc.add(Finding{Kind: PrivateKey, Start: start, End: end, Reason: reason})
	sc.resume = end
}

// keyBody walks the lines that follow a BEGIN line, from p (just after
// its dashes), and returns the extent of the body and the number of base64
// characters in it. A line ends at a newline or at a `\n` escape, since
// keys are often pasted into string literals; quotes, indentation and the
// `" +` of a concatenation around a line are not part of the body. The
// body is complete if it ends at an END line; it stops early at the first
// line that is neither base64 nor an armor header.
func keyBody(s []byte, p int) (start, end, n int, complete bool) {
	start, end = -1, -1
	blank := 0
	for p < len(s) {
		line, next, final, ok := keyLine(s, p)
		if !ok {
			return start, end, n, false
		}
		a, b := trimLine(line)
		switch {
		case a == b:
			blank++
			if blank > maxBlankLines {
				return start, end, n, false
			}
		case isArmorHeader(line[a:b]):
			blank = 0
		default:
			k, ok := base64Words(line[a:b])
			if !ok {
				return start, end, n, false
			}
			n += k
			blank = 0
		}
		if a < b {
			if start < 0 {
				start = p + a
			}
			end = p + b
		}
		if final {
			return start, end, n, true
		}
		p = next
	}
	return start, end, n, false
}

// keyLine returns the line of a key body that starts at s[p], where the
// next line starts, and whether the line ends at an END marker. It gives
// up (ok is false) at the first byte that cannot be part of a body line,
// unless the line is an armor header, so that a BEGIN line amid code costs
// a look at a few bytes rather than at the rest of a long line.
func keyLine(s []byte, p int) (line []byte, next int, final, ok bool) {
	limit := min(len(s), p+maxKeyLine)
	a := p
	for a < limit && isQuoteOrSpace(s[a]) {
		a++
	}
	header := isArmorHeader(s[a:limit])
	for q := p; q < limit; q++ {
		switch c := s[q]; {
		case c == '\n':
			return s[p:q], q + 1, false, true
		case c == '\\' && q+1 < len(s) && s[q+1] == 'n':
			return s[p:q], q + 2, false, true
		case c == '-' && hasAt(s, q, "-----END "):
			return s[p:q], q, true, true
		case !header && !is(c, cBase64) && !isQuoteOrSpace(c) && c != ',' && c != ';' && c != ')' && c != '\\':
			return nil, 0, false, false
		}
	}
	if limit == len(s) {
		return s[p:limit], limit, false, true // the last line of the content
	}
	return nil, 0, false, false
}

// trimLine returns the extent of line without the indentation, quotes,
// string concatenation and escaped carriage return around its content.
// A '+' is junk only next to a space or quote or alone: base64 may begin
// or end with one.
func trimLine(line []byte) (a, b int) {
	a, b = 0, len(line)
	for a < b && (isQuoteOrSpace(line[a]) || line[a] == '+' && (a+1 == b || isQuoteOrSpace(line[a+1]))) {
		a++
	}
	for a < b {
		c := line[b-1]
		switch {
		case isQuoteOrSpace(c) || c == ',' || c == ';' || c == ')' || c == '\\':
			b--
		case c == 'r' && b-2 >= a && line[b-2] == '\\':
			b -= 2
		case c == '+' && b-2 >= a && isQuoteOrSpace(line[b-2]):
			b--
		default:
			return a, b
		}
	}
	return a, b
}

func isQuoteOrSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '"' || c == '\'' || c == '`'
}

// armorHeaders start the header lines of encrypted PEM (RFC 1421) and of
// OpenPGP armor (RFC 4880 §6.2).
var armorHeaders = []string{"Proc-Type:", "DEK-Info:", "Version:", "Comment:", "Hash:", "Charset:", "MessageID:"}

func isArmorHeader(line []byte) bool {
	for _, h := range armorHeaders {
		if bytes.HasPrefix(line, []byte(h)) {
			return true
		}
	}
	return false
}

// base64Words reports whether line is base64, and how many characters of
// it. A line may hold several words only when a key has had its newlines
// turned into spaces, as environment variables often do; then every word
// but the last is a full line of base64, which rules out prose.
func base64Words(line []byte) (n int, ok bool) {
	word := 0
	for _, c := range line {
		switch {
		case is(c, cBase64):
			n++
			word++
		case c == ' ' || c == '\t':
			if word > 0 && word < 40 {
				return 0, false
			}
			word = 0
		default:
			return 0, false
		}
	}
	return n, true
}

package secrets

import "math"

// Byte classes, as bits of classes[c].
const (
	cLower  uint8 = 1 << iota // a-z
	cUpper                    // A-Z
	cDigit                    // 0-9
	cB64                      // + / =, the rest of standard base64
	cDash                     // -
	cUnder                    // _
	cDot                      // .
	cSymbol                   // other printable ASCII, not space

	cAlnum     = cLower | cUpper | cDigit
	cBase64    = cAlnum | cB64           // standard base64 with padding
	cBase64URL = cAlnum | cDash | cUnder // base64url without padding
	cKey       = cBase64URL | cDot       // the name in an assignment: DB_PASSWORD, db-password, spring.datasource.password
)

var classes = func() (t [256]uint8) {
	for c := 0x21; c < 0x7f; c++ {
		switch {
		case 'a' <= c && c <= 'z':
			t[c] = cLower
		case 'A' <= c && c <= 'Z':
			t[c] = cUpper
		case '0' <= c && c <= '9':
			t[c] = cDigit
		case c == '+' || c == '/' || c == '=':
			t[c] = cB64
		case c == '-':
			t[c] = cDash
		case c == '_':
			t[c] = cUnder
		case c == '.':
			t[c] = cDot
		default:
			t[c] = cSymbol
		}
	}
	return t
}()

func is(c byte, class uint8) bool { return classes[c]&class != 0 }

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// hasAt reports whether s[i:] begins with prefix; i may be out of range.
func hasAt(s []byte, i int, prefix string) bool {
	return i >= 0 && len(s)-i >= len(prefix) && string(s[i:i+len(prefix)]) == prefix
}

// span returns the end of the run of bytes of class that starts at s[i],
// looking at no more than limit+1 bytes, so that a result beyond i+limit
// means "longer than limit".
func span(s []byte, i int, class uint8, limit int) int {
	j := i
	for j < len(s) && j-i <= limit && classes[s[j]]&class != 0 {
		j++
	}
	return j
}

// entropy returns the Shannon entropy of b in bits per byte. A random
// string over an alphabet of n symbols approaches log2(n); English words
// and identifiers stay well below that.
//
// It is log2(len) - Σ k·log2(k) / len over the count k of each distinct
// byte, with k·log2(k) from a table for the lengths Scan looks at.
func entropy(b []byte) float64 {
	n := len(b)
	if n == 0 {
		return 0
	}
	var count [256]uint32
	for _, c := range b {
		count[c]++
	}
	sum := 0.0
	for _, c := range b {
		if k := count[c]; k > 0 {
			sum += kLog2k(k)
			count[c] = 0
		}
	}
	return math.Log2(float64(n)) - sum/float64(n)
}

var kLog2kTable = func() (t [maxValue + 1]float64) {
	for k := 1; k < len(t); k++ {
		t[k] = float64(k) * math.Log2(float64(k))
	}
	return t
}()

func kLog2k(k uint32) float64 {
	if int(k) < len(kLog2kTable) {
		return kLog2kTable[k]
	}
	return float64(k) * math.Log2(float64(k))
}

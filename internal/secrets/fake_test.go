package secrets

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
)

// Tests make their secrets at run time from a seeded generator and build
// prefixes by concatenation, so that no file of ctx holds a literal that
// this or any other scanner would flag.

const (
	alnum    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upperNum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	digits   = "0123456789"
	hex      = "0123456789abcdef"
	b64      = alnum + "+/"
	b64url   = alnum + "-_"
	symbols  = alnum + "!#%^&*-_=+"
)

// fake returns n characters of alphabet, pseudo-random but the same for
// the same seed.
func fake(seed uint64, n int, alphabet string) string {
	r := rand.New(rand.NewPCG(seed, 0x5ec2e7))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// keyLines returns the lines of a fake key body: full lines of 64 base64
// characters, a shorter last line with padding.
func keyLines(seed uint64, full int) []string {
	lines := make([]string, 0, full+1)
	for i := range full {
		lines = append(lines, fake(seed+uint64(i), 64, b64))
	}
	return append(lines, fake(seed+uint64(full), 30, b64)+"==")
}

// pk is the end of every private key label.
const pk = "PRIVATE" + " KEY"

func begin(label string) string { return "-----BEGIN " + label + "-----" }
func end(label string) string   { return "-----END " + label + "-----" }

// fakeJWT returns a token with the given JSON header and a signature of
// sig base64url characters.
func fakeJWT(seed uint64, header string, sig int) string {
	enc := base64.RawURLEncoding
	payload := `{"sub":"1234567890","name":"Ada","iat":1516239022}`
	return enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString([]byte(payload)) + "." + fake(seed, sig, b64url)
}

// fill puts secret where text has its first '@'.
func fill(text, secret string) (content string, start int) {
	start = strings.IndexByte(text, '@')
	if start < 0 {
		panic("no @ in " + text)
	}
	return text[:start] + secret + text[start+1:], start
}

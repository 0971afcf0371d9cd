package secrets

import (
	"math/rand/v2"
	"testing"
)

// FuzzScan checks that Scan never panics, that its findings are in order,
// within the content and apart, and that Redact removes them all.
func FuzzScan(f *testing.F) {
	for _, tc := range positives() {
		content, _ := fill(tc.text, tc.secret)
		f.Add([]byte(content))
	}
	for _, tc := range negatives {
		f.Add([]byte(tc.text))
	}
	for _, tc := range tokenInName() {
		f.Add([]byte(tc.content))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		found := Scan(content)
		checkFindings(t, content, found)
		out, redacted := Redact(content)
		if len(redacted) != len(found) {
			t.Fatalf("Redact found %d secrets, Scan %d", len(redacted), len(found))
		}
		checkRedacted(t, content, out, redacted)
	})
}

// TestRedactRandomDocuments checks the properties of FuzzScan on documents
// put together at random from pieces of secrets and of their context
// (names, operators, quotes, markers, armor lines), which reach corners
// that byte-level mutation rarely does.
func TestRedactRandomDocuments(t *testing.T) {
	runs := 20000
	if testing.Short() {
		runs = 2000
	}
	redactRandomDocuments(t, 7, runs)
}

func redactRandomDocuments(t *testing.T, seed uint64, runs int) {
	var pieces []string
	for _, tc := range positives() {
		content, start := fill(tc.text, tc.secret)
		pieces = append(pieces, tc.secret, content[:start], content[start+len(tc.secret):], tc.secret[:len(tc.secret)/2])
	}
	pieces = append(pieces,
		"password", "token", "secret", "api_key", "passwd", "PRIVATE_KEY", "next", "aws_secret_access_key", "DB_",
		"=", ": ", ":=", " = ", "=>", "\"", "'", "`", " ", "\t", "\n", "\r\n", `\n`, "#", "//", ".", "_", "-", "x", "[", "]",
		"gh"+"p_", "AK"+"IA", "ey"+"J", "sk"+"-", "xox"+"b-", begin(pk), end(pk), begin("RSA "+pk)+"\n", "\n"+end("RSA "+pk),
		"[REDACTED:github-token]", "[REDACTED:assigned-secret]", "[REDACTED:private-key]",
	)
	r := rand.New(rand.NewPCG(seed, seed))
	for i := range runs {
		var doc []byte
		for range 1 + r.IntN(60) {
			p := pieces[r.IntN(len(pieces))]
			if r.IntN(4) == 0 {
				p = fake(r.Uint64(), 1+r.IntN(50), symbols)
			}
			doc = append(doc, p...)
		}
		func() {
			defer func() {
				if t.Failed() {
					t.Logf("document %d: %q", i, doc)
				}
			}()
			out, found := Redact(doc)
			checkRedacted(t, doc, out, found)
		}()
	}
}

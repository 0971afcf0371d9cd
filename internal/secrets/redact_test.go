package secrets

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	for _, tc := range positives() {
		t.Run(tc.name, func(t *testing.T) {
			content, _ := fill(tc.text, tc.secret)
			want, _ := fill(tc.text, "[REDACTED:"+string(tc.kind)+"]")
			got, found := Redact([]byte(content))
			if string(got) != want {
				t.Errorf("Redact =\n%s\nwant\n%s", got, want)
			}
			if !slices.Equal(found, Scan([]byte(content))) {
				t.Errorf("Redact found %+v, Scan finds %+v", found, Scan([]byte(content)))
			}
			checkRedacted(t, []byte(content), got, found)
		})
	}
}

// TestRedactDocument redacts a document with every kind of secret in it,
// next to text without secrets.
func TestRedactDocument(t *testing.T) {
	var doc strings.Builder
	for i, tc := range positives() {
		content, _ := fill(tc.text, tc.secret)
		doc.WriteString(content)
		doc.WriteString("\n")
		doc.WriteString(negatives[i%len(negatives)].text)
		doc.WriteString("\n\n")
	}
	content := []byte(doc.String())
	out, found := Redact(content)
	if len(found) < len(positives()) {
		t.Errorf("Redact found %d secrets, want at least %d", len(found), len(positives()))
	}
	checkRedacted(t, content, out, found)
}

func TestRedactNothing(t *testing.T) {
	content := []byte("password := r.FormValue(\"password\")\n")
	out, found := Redact(content)
	if found != nil || &out[0] != &content[0] {
		t.Errorf("Redact(no secrets) = %q, %+v; want content itself and no findings", out, found)
	}
	if out, found := Redact(nil); len(out) != 0 || found != nil {
		t.Errorf("Redact(nil) = %q, %+v", out, found)
	}
}

// checkRedacted checks the properties of Redact's output: only the bytes
// of the findings have changed, each into its marker; rescanning finds
// nothing, so redacting again changes nothing.
func checkRedacted(tb testing.TB, content, out []byte, found []Finding) {
	tb.Helper()
	checkFindings(tb, content, found)
	rest := out
	pos := 0
	for _, f := range found {
		keep := content[pos:f.Start]
		if !bytes.HasPrefix(rest, keep) {
			tb.Fatalf("bytes before %+v changed", f)
		}
		rest = rest[len(keep):]
		if !bytes.HasPrefix(rest, []byte(f.Kind.marker())) {
			tb.Fatalf("no marker for %+v", f)
		}
		rest = rest[len(f.Kind.marker()):]
		pos = f.End
	}
	if !bytes.Equal(rest, content[pos:]) {
		tb.Fatalf("bytes after the last finding changed")
	}
	if again := Scan(out); len(again) != 0 {
		tb.Fatalf("redacted content still has secrets: %+v in\n%s", again, out)
	}
	if twice, _ := Redact(out); !bytes.Equal(twice, out) {
		tb.Fatalf("Redact is not idempotent")
	}
}

// tokenInName are contents with names that run into a token: what the
// assignment heuristic decides about them must not change once the token
// is redacted, or a second Redact would find more.
func tokenInName() []struct {
	name, content string
	want          int
} {
	value := fake(500, 24, alnum)
	gh := "gh" + "p_" + fake(501, 32, alnum)
	return []struct {
		name, content string
		want          int
	}{
		{"long name with a token", "x." + gh + "abcd_" + strings.Repeat("a", 40) + "_password = '" + value + "'\n", 2},
		{"token ending in next", gh + "next_token = '" + value + "'\n", 2},
		{"secret word inside a token", gh + "secret = '" + value + "'\n", 1},
	}
}

func TestRedactTokenInName(t *testing.T) {
	for _, tc := range tokenInName() {
		t.Run(tc.name, func(t *testing.T) {
			content := []byte(tc.content)
			out, found := Redact(content)
			if len(found) != tc.want {
				t.Errorf("Redact found %+v, want %d findings", found, tc.want)
			}
			checkRedacted(t, content, out, found)
		})
	}
}

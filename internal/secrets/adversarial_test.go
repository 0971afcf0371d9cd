package secrets

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

// adversarial returns contents built to make every closer look as long as
// it can be: Scan must stay linear on them.
func adversarial() map[string][]byte {
	const size = 2 << 20
	fill := func(unit string) []byte { return bytes.Repeat([]byte(unit), size/len(unit)) }
	return map[string][]byte{
		"BEGIN lines on one line":       fill(begin("RSA "+pk) + " "),
		"BEGIN lines and blank lines":   fill(begin("RSA "+pk) + "\n\n\n"),
		"BEGIN lines and short bodies":  fill(begin("RSA "+pk) + "\n" + fake(1, 50, b64) + "\n"),
		"keys without END":              fill(begin(pk) + "\n" + fake(2, 64, b64) + "\n"),
		"JWT headers":                   fill("eyJhbGciOiJIUzI1NiJ9." + fake(3, 100, b64url) + " "),
		"JWT headers, one long payload": append(fill("eyJhbGciOiJIUzI1NiJ9."), fill("a")...),
		"keywords":                      fill("password token secret api_key "),
		"assignments":                   fill("password = " + fake(4, 20, alnum) + " x\n"),
		"long names":                    fill("a_password_"),
		"quotes":                        fill(`"password": "`),
		"tokens":                        fill("gh" + "p_" + fake(5, 36, alnum) + " "),
		"random":                        []byte(fake(6, size, b64)),
	}
}

func TestScanAdversarial(t *testing.T) {
	if testing.Short() {
		t.Skip("scans megabytes")
	}
	for name, content := range adversarial() {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			found := Scan(content)
			d := time.Since(start)
			t.Logf("%d findings in %v (%.0f MB/s)", len(found), d, float64(len(content))/d.Seconds()/1e6)
			// Linear time is well under a second here even on a loaded
			// machine; quadratic time would be hours.
			if d > 20*time.Second {
				t.Errorf("Scan took %v", d)
			}
		})
	}
}

func BenchmarkScanAdversarial(b *testing.B) {
	for name, content := range adversarial() {
		b.Run(fmt.Sprint(name), func(b *testing.B) {
			b.SetBytes(int64(len(content)))
			for b.Loop() {
				Scan(content)
			}
		})
	}
}

package reader

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand"
	"testing"
)

// encodingJSON is what ctx printed with encoding/json.
func encodingJSON(t *testing.T, res Result) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var jsonStrings = []string{"", "plain", `a "quoted" \ back`, "tab\there\nline\r\b\f\x00\x1f\x7f", "<html> & 'x'",
	"ünïcödé 日本語", "bad \xff\xfe utf-8 \xc3", "line\u2028sep\u2029", "emoji 🦘", "\x01"}

func randomString(rng *rand.Rand) string {
	if rng.Intn(3) == 0 {
		return jsonStrings[rng.Intn(len(jsonStrings))]
	}
	b := make([]byte, rng.Intn(12))
	for i := range b {
		b[i] = byte(rng.Intn(256))
	}
	return string(b)
}

func TestAppendJSON(t *testing.T) {
	floats := []float64{0, 1, -1, 23.4349, 1e-7, -1e-7, 1e-6, 9.99e20, 1e21, 1.5e300, 5e-324, math.MaxFloat64, 0.1 + 0.2, -0.0}
	rng := rand.New(rand.NewSource(5))
	cases := []Result{{Query: "q", Hits: nil}, {Query: "q", Hits: []HitView{}}}
	for range 500 {
		res := Result{Query: randomString(rng), Matched: rng.Intn(1000) - 10}
		for range rng.Intn(4) {
			h := HitView{Kind: randomString(rng), Node: randomString(rng), Title: randomString(rng), Snippet: randomString(rng),
				Score: floats[rng.Intn(len(floats))] * float64(rng.Intn(3)-1)}
			if rng.Intn(2) == 0 {
				h.Score = rng.NormFloat64() * math.Pow(10, float64(rng.Intn(60)-30))
			}
			if rng.Intn(2) == 0 {
				h.Path = randomString(rng)
			}
			if rng.Intn(2) == 0 {
				h.StartLine, h.EndLine = uint32(rng.Intn(3)), rng.Uint32()
			}
			switch rng.Intn(3) {
			case 1:
				h.Tags = []string{}
			case 2:
				for range 1 + rng.Intn(3) {
					h.Tags = append(h.Tags, randomString(rng))
				}
			}
			res.Hits = append(res.Hits, h)
		}
		cases = append(cases, res)
	}
	for _, res := range cases {
		got, err := AppendJSON(nil, res)
		if err != nil {
			t.Fatal(err)
		}
		if want := encodingJSON(t, res); !bytes.Equal(got, want) {
			t.Fatalf("AppendJSON\n%s\nencoding/json\n%s", got, want)
		}
	}
	if _, err := AppendJSON(nil, Result{Hits: []HitView{{Score: math.NaN()}}}); err == nil {
		t.Error("a NaN score encoded")
	}
}

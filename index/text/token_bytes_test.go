package text

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// bytesTerms returns what TokenizeBytes emits for s, as stringTerms does for
// Tokenize.
func bytesTerms(tok *Tokenizer, s string, pos uint32) ([]string, uint32) {
	var out []string
	n := tok.TokenizeBytes(s, pos, func(term []byte, pos uint32) {
		out = append(out, fmt.Sprintf("%s@%d", term, pos))
	})
	return out, n
}

func stringTerms(tok *Tokenizer, s string, pos uint32) ([]string, uint32) {
	var out []string
	n := tok.Tokenize(s, pos, func(term string, pos uint32) {
		out = append(out, fmt.Sprintf("%s@%d", term, pos))
	})
	return out, n
}

// checkTokenizeBytes checks that TokenizeBytes emits what Tokenize does,
// with a fresh Tokenizer and with one that has tokenized other texts.
func checkTokenizeBytes(t *testing.T, used *Tokenizer, s string) {
	t.Helper()
	want, wn := stringTerms(new(Tokenizer), s, 7)
	for _, tok := range []*Tokenizer{new(Tokenizer), used} {
		got, n := bytesTerms(tok, s, 7)
		if n != wn || !slices.Equal(got, want) {
			t.Fatalf("TokenizeBytes(%q) = %q, %d\nTokenize gives %q, %d", s, got, n, want, wn)
		}
	}
}

func TestTokenizeBytes(t *testing.T) {
	var used Tokenizer
	tests := []string{
		"", "client", "Client", "EOF", "fooBarBaz", "HTTPClientConnect",
		"HTTP2Server", "max_file_bytes", "MAX_FILE_BYTES", "new_HTTPClient",
		"net/http.Client.Do", "core::net::Client::connect", "The exponential backoff is for retries.",
		"THE Is İs", "is_valid IsValid for-each", "ÉtatCivil état", "E\u0301tatCivil",
		"ΣΊΣΥΦΟΣ", "\u212Aelvin", "日本Client", "foo\xffbar\xc3", "ship🚀it",
		"ǅungla ϒϒ İstanbul", "Their THERE these_Those WHICH", "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
	}
	files, _ := filepath.Glob("testdata/tokenize/*.txt")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tests = append(tests, string(b))
	}
	for _, s := range tests {
		name := s
		if len(name) > 20 {
			name = name[:20]
		}
		t.Run(name, func(t *testing.T) {
			checkTokenizeBytes(t, &used, s)
			stringTerms(&used, s, 0)
		})
	}
}

// TestTokenizeBytesGoSource compares the two on the sources of net/http,
// file by file with one Tokenizer, as the index uses it.
func TestTokenizeBytesGoSource(t *testing.T) {
	var a, b Tokenizer
	for _, src := range goSources(t) {
		want, wn := stringTerms(&a, src, 0)
		got, n := bytesTerms(&b, src, 0)
		if n != wn || !slices.Equal(got, want) {
			t.Fatalf("TokenizeBytes differs from Tokenize on %.40q", src)
		}
	}
}

func TestTokenizeBytesAllocs(t *testing.T) {
	src := readGoSource(t)
	var tok Tokenizer
	emit := func([]byte, uint32) {}
	tok.TokenizeBytes(src, 0, emit)
	allocs := testing.AllocsPerRun(10, func() { tok.TokenizeBytes(src, 0, emit) })
	if allocs > 0 {
		t.Errorf("TokenizeBytes allocates %v times per call, want 0", allocs)
	}
}

// TestStopWordLen checks maxStopWordLen, on which TokenizeBytes relies to
// skip the stop word check of longer terms.
func TestStopWordLen(t *testing.T) {
	n := 0
	for _, w := range stopWords {
		n = max(n, len(w))
	}
	if n != maxStopWordLen {
		t.Errorf("longest stop word has %d bytes, maxStopWordLen is %d", n, maxStopWordLen)
	}
}

// FuzzTokenizeBytes checks that TokenizeBytes emits exactly what Tokenize
// does, on any input.
func FuzzTokenizeBytes(f *testing.F) {
	addSeeds(f)
	var used Tokenizer
	f.Fuzz(func(t *testing.T, s string) {
		checkTokenizeBytes(t, &used, s)
		// Leave something in used's buffer and caches.
		stringTerms(&used, strings.ToUpper(s), 0)
	})
}

func BenchmarkTokenizeBytes(b *testing.B) {
	src := readGoSource(b)
	var tok Tokenizer
	emit := func([]byte, uint32) {}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		tok.TokenizeBytes(src, 0, emit)
	}
}

func TestAppendLowerASCII(t *testing.T) {
	var all []byte
	for c := range 256 {
		all = append(all, byte(c))
	}
	tests := []string{"", "A", "Hello, World!", "ABCDEFGHIJKLMNOPQRSTUVWXYZ@[`{", "ÉtatCIVIL\xff\x80Z", string(all), string(all[7:]) + string(all[:7])}
	for _, s := range tests {
		want := make([]byte, len(s))
		for i := range len(s) {
			want[i] = s[i]
			if 'A' <= s[i] && s[i] <= 'Z' {
				want[i] += 'a' - 'A'
			}
		}
		if got := appendLowerASCII([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("appendLowerASCII(%q) = %q, want %q", s, got[1:], want)
		}
	}
}

// TestClassify8 checks classify8 against byteClass for every byte at
// every place in a word, among neighbours of every class.
func TestClassify8(t *testing.T) {
	for c := range 256 {
		for at := range 8 {
			for _, fill := range []byte{'a', 'Z', '5', ' ', 0x80, 0xff, '@', '['} {
				var b [8]byte
				for i := range b {
					b[i] = fill
				}
				b[at] = byte(c)
				word, upper := classify8(load64(string(b[:])))
				for i, x := range b {
					bit := uint64(0x80) << (8 * i)
					if got, want := word&bit != 0, byteClass[x]&cWord != 0; got != want {
						t.Fatalf("%q: byte %d word %v, want %v", b, i, got, want)
					}
					if got, want := upper&bit != 0, byteClass[x]&cUpper != 0; got != want {
						t.Fatalf("%q: byte %d upper %v, want %v", b, i, got, want)
					}
				}
				if word&^high8 != 0 || upper&^high8 != 0 {
					t.Fatalf("%q: bits outside the high bits: %#x %#x", b, word, upper)
				}
			}
		}
	}
}

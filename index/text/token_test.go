package text

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// terms returns what Tokenize emits for s as "term@pos" words, and the
// length it returns.
func terms(s string) (string, uint32) {
	var b strings.Builder
	n := Tokenize(s, func(term string, pos uint32) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s@%d", term, pos)
	})
	return b.String(), n
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"Empty", "", ""},
		{"Punctuation", "(){}[];,!?%&*=+<>|^~`'\"", ""},
		{"Word", "client", "client@0"},
		{"Capitalized", "Client", "client@0"},
		{"Upper", "EOF", "eof@0"},
		{"Camel", "fooBarBaz", "foobarbaz@0 foo@0 bar@1 baz@2"},
		{"Pascal", "ReadFile", "readfile@0 read@0 file@1"},
		{"Acronym", "HTTPClientConnect", "httpclientconnect@0 http@0 client@1 connect@2"},
		{"AcronymEnd", "ServeHTTP", "servehttp@0 serve@0 http@1"},
		{"AcronymDigit", "HTTP2Server", "http2server@0 http2@0 server@1"},
		{"DigitsStay", "int64 utf8Decode", "int64@0 utf8decode@1 utf8@1 decode@2"},
		{"Number", "0x1F 3D 42 3.14", "0x1f@0 3d@1 42@2 3.14@3 3@3 14@4"},
		{"Version", "v1.2.3", "v1.2.3@0 v1@0 2@1 3@2"},
		{"Snake", "max_file_bytes", "max_file_bytes@0 max@0 file@1 bytes@2"},
		{"ScreamingSnake", "MAX_FILE_BYTES", "max_file_bytes@0 max@0 file@1 bytes@2"},
		{"SnakeCamel", "new_HTTPClient", "new_httpclient@0 new@0 httpclient@1 http@1 client@2"},
		{"Kebab", "max-file-bytes", "max-file-bytes@0 max@0 file@1 bytes@2"},
		{"Underscores", "__init__ _private a__b", "init@0 private@1 a__b@2 a@2 b@3"},
		{"Path", "net/http/client.go", "net/http/client.go@0 net@0 http@1 client.go@2 client@2 go@3"},
		{"GoQualified", "net/http.Client.Do", "net/http.client.do@0 net@0 http.client.do@1 http@1 client@2 do@3"},
		{"RustPath", "core::net::Client::connect", "core::net::client::connect@0 core@0 net@1 client@2 connect@3"},
		{"PythonDotted", "pkg.mod.Class.method", "pkg.mod.class.method@0 pkg@0 mod@1 class@2 method@3"},
		{"MethodCall", "c.Client.connect()", "c.client.connect@0 c@0 client@1 connect@2"},
		{"NotConnectors", "a..b a:::b a:b a\\b --flag end.", "a@0 b@1 a@2 b@3 a@4 b@5 a@6 b@7 flag@8 end@9"},
		{"Sentence", "The exponential backoff is for retries.", "exponential@1 backoff@2 retries@5"},
		{"StopWordUpper", "THE Is İs", ""},
		{"StopWordInCompound", "is_valid IsValid for-each", "is_valid@0 is@0 valid@1 isvalid@2 is@2 valid@3 for-each@4 for@4 each@5"},
		{"KeptCommonNames", "a to it from", "a@0 to@1 it@2 from@3"},
		{"Accents", "ÉtatCivil état", "étatcivil@0 état@0 civil@1 état@2"},
		{"Decomposed", "E\u0301tatCivil", "e\u0301tatcivil@0 e\u0301tat@0 civil@1"},
		{"Greek", "ΣΊΣΥΦΟΣ", "σίσυφοσ@0"},
		{"Kelvin", "\u212Aelvin", "kelvin@0"},
		{"CJK", "日本語のテキスト", "日本語のテキスト@0"},
		{"CJKThenLatin", "日本Client", "日本client@0 日本@0 client@1"},
		{"InvalidUTF8", "foo\xffbar\xc3", "foo@0 bar@1"},
		{"Emoji", "ship🚀it", "ship@0 it@1"},
		{"Date", "2024-01-15", "2024-01-15@0 2024@0 01@1 15@2"},
		{"Email", "me@example.com", "me@0 example.com@1 example@1 com@2"},
		{"URL", "https://x.io/a", "https@0 x.io/a@1 x.io@1 x@1 io@2 a@3"},
		{"Tag", "tier:working", "tier@0 working@1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := terms(tt.in)
			if got != tt.want {
				t.Errorf("Tokenize(%q)\n got  %s\n want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestTokenizeLength(t *testing.T) {
	tests := []struct {
		in   string
		want uint32
	}{
		{"", 0},
		{"the", 1},
		{"HTTPClientConnect", 3},
		{"net/http/client.go", 4},
		{"state of the art", 4},
	}
	for _, tt := range tests {
		if _, n := terms(tt.in); n != tt.want {
			t.Errorf("Tokenize(%q) = %d, want %d", tt.in, n, tt.want)
		}
	}
}

func TestTokenizeBase(t *testing.T) {
	var tok Tokenizer
	var got []string
	emit := func(term string, pos uint32) { got = append(got, fmt.Sprintf("%s@%d", term, pos)) }
	n := tok.Tokenize("client.go", 0, emit)
	n = tok.Tokenize("Dial the server", n+100, emit)
	want := "client.go@0 client@0 go@1 dial@102 server@104"
	if s := strings.Join(got, " "); s != want || n != 105 {
		t.Errorf("got %s (%d), want %s (105)", s, n, want)
	}
}

// TestTokenizeGolden tokenizes code in four languages, prose, paths and
// keys; each line of a golden file is one top-level token.
func TestTokenizeGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/tokenize/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			in, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			var tok Tokenizer
			n := tok.scan(string(in), 0, func(tk *token) {
				if tk.first && b.Len() > 0 {
					b.WriteByte('\n')
				} else if b.Len() > 0 {
					b.WriteByte(' ')
				}
				mark := ""
				if !tk.leaf {
					mark = "+"
				}
				fmt.Fprintf(&b, "%s%s@%d", mark, tk.term, tk.pos)
			})
			fmt.Fprintf(&b, "\nlength %d\n", n)
			golden := strings.TrimSuffix(file, ".txt") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if b.String() != string(want) {
				t.Errorf("%s differs from %s:\n%s", file, golden, b.String())
			}
		})
	}
}

func TestTokenizeAllocs(t *testing.T) {
	src := readGoSource(t)
	var tok Tokenizer
	emit := func(string, uint32) {}
	tok.Tokenize(src, 0, emit) // fill the cache
	allocs := testing.AllocsPerRun(10, func() { tok.Tokenize(src, 0, emit) })
	if allocs > 1 {
		t.Errorf("Tokenize allocates %v times per call on a known vocabulary, want at most 1", allocs)
	}
}

func TestStopWords(t *testing.T) {
	n := 0
	for _, w := range stopWords {
		if !IsStopWord(w) {
			t.Errorf("IsStopWord(%q) = false", w)
		}
	}
	for _, w := range []string{"a", "to", "it", "from", "at", "on", "of", "that", "not", "no", "then", "The", "client", ""} {
		if IsStopWord(w) {
			t.Errorf("IsStopWord(%q) = true", w)
		}
		n++
	}
	// Every stop word is dropped when it stands alone, in any case.
	for _, w := range stopWords {
		for _, v := range []string{w, strings.ToUpper(w), strings.ToUpper(w[:1]) + w[1:]} {
			if got, n := terms(v); got != "" || n != 1 {
				t.Errorf("Tokenize(%q) = %q, %d; want nothing, 1", v, got, n)
			}
		}
	}
}

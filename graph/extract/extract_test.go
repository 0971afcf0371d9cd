package extract

import (
	"math/rand"
	"strings"
	"testing"
)

// TestCollapse checks Collapse against its definition, strings.Fields
// joined by single spaces, on fixed and random strings.
func TestCollapse(t *testing.T) {
	cases := []string{"", " ", "a", " a", "a ", "a b", "a  b", "a\tb", "a \n b", "\t\nfunc F(a int)  {\n",
		"func (x *T) M() error", "x\u00a0y", "é  ü", "a\u2003 b", " \v\f\r"}
	r := rand.New(rand.NewSource(1))
	const alphabet = "ab( ) \t\n\r\v\f\u00a0é"
	for range 2000 {
		var b strings.Builder
		for range r.Intn(12) {
			b.WriteString(string([]rune(alphabet)[r.Intn(len([]rune(alphabet)))]))
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		if got, want := Collapse(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("Collapse(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestGoSpanLineDirective checks that spans are lines of the file itself:
// a //line directive (generated code) names another file's lines.
func TestGoSpanLineDirective(t *testing.T) {
	src := []byte("package p\n\n//line other.y:100\nfunc F() {}\n")
	r, err := goLang{}.Extract(&File{Path: "p/p.go", Src: src, ModuleInfo: goLang{}.Module(&memProject{}, "p/p.go")})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Items) != 1 || r.Items[0].Span.StartLine != 4 {
		t.Fatalf("items %+v, want F on line 4", r.Items)
	}
}

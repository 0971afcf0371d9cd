package extract

import (
	"go/parser"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/graph"
)

func TestGoTypeKey(t *testing.T) {
	x := &goExtractor{pkg: "example.com/p", imports: map[string]string{"retry": "example.com/netlib/retry", "stdnet": "net"}}
	x.localType("T")
	for _, tc := range []struct{ expr, want string }{
		{"Client", "example.com/p.Client"},
		{"*Client", "example.com/p.Client"},
		{"**Client", "example.com/p.Client"},
		{"(*Client)", "example.com/p.Client"},
		{"retry.Backoff", "example.com/netlib/retry.Backoff"},
		{"*stdnet.Conn", "net.Conn"},
		{"List[int]", "example.com/p.List"},
		{"*retry.Map[string, Client]", "example.com/netlib/retry.Map"},
		{"string", ""},    // built-in
		{"error", ""},     // built-in
		{"T", ""},         // a type parameter
		{"*T", ""},        // a pointer to one
		{"unknown.X", ""}, // not an import
		{"x.y.Z", ""},     // not a type name
		{"[]Client", ""},  // not a named type
		{"[4]Client", ""}, // nor an array
		{"map[string]Client", ""},
		{"chan Client", ""},
		{"func() Client", ""},
		{"struct{ c Client }", ""},
		{"interface{ M() }", ""},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			e, err := parser.ParseExpr(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			if got := x.typeKey(e); got != tc.want {
				t.Errorf("typeKey(%s) = %q, want %q", tc.expr, got, tc.want)
			}
		})
	}
}

// TestGoCallRecv checks the receiver types of the calls on values of a
// function: want lists "name recv path…" for each call x.M() in order.
func TestGoCallRecv(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"receiver and fields", `func (c *Client) F() { c.M(); c.a.b.M() }`,
			[]string{"M p.Client", "M p.Client a b"}},
		{"parameters and named results", `func F(a A, b, c *retry.B, d ...D) (r R, _ error) { a.M(); b.M(); c.M(); d.M(); r.M() }`,
			[]string{"M p.A", "M retry.B", "M retry.B", "M", "M p.R"}},
		{"var", `func F() { var a A; var b, c = B{}, &C{}; var d = f(); a.M(); b.M(); c.M(); d.M() }`,
			[]string{"M p.A", "M p.B", "M p.C", "M"}},
		{"short declarations", `func F() { a := A{}; b := &retry.B{}; c := new(C); d, e := D{}, f(); g := a.x; a.M(); b.M(); c.M(); d.M(); e.M(); g.M() }`,
			[]string{"M p.A", "M retry.B", "M p.C", "M p.D", "M", "M p.A x"}},
		{"composite literals and conversions", `func F() { (&A{}).M(); A{}.M(); (*A)(nil).M() }`,
			[]string{"M p.A", "M p.A", "M"}},
		{"type assertions", `func F(v any) { a := v.(A); b, ok := v.(*B); c, d := v.(C), 1; a.M(); b.M(); c.M(); _ = ok; _ = d }`,
			[]string{"M p.A", "M p.B", "M p.C"}},
		{"shadowing makes a name unknown from there on", `func (c *Client) F() { c.M(); { c := Other{}; c.M() }; c.M() }`,
			[]string{"M p.Client", "M", "M"}},
		{"the same type again is still known", `func F() { a := A{}; { a := &A{}; a.M() }; a.M() }`,
			[]string{"M p.A", "M p.A"}},
		{"unknown types shadow", `func F(c Client) { for c := range cs { c.M() }; c.M() }`,
			[]string{"M", "M"}},
		{"function literals", `func F() { f := func(a A) { a.M() }; a := B{}; a.M(); _ = f }`,
			[]string{"M p.A", "M"}},
		{"right side before left", `func F(c Client) { c := c.x; c.M() }`,
			[]string{"M"}},
		{"type parameters", `func F[T any, U I](t T, u U, l List[T]) { t.M(); u.M(); l.M() }`,
			[]string{"M", "M", "M p.List"}},
		{"receiver type parameters", `func (l *List[K, V]) F(k K, v V, m List[K, V]) { k.M(); v.M(); m.M(); l.M() }`,
			[]string{"M", "M", "M p.List", "M p.List"}},
		{"local types", `func F() { type A struct{}; var a A; var b B; a.M(); b.M() }`,
			[]string{"M", "M p.B"}},
		{"imports and package-level values", `func F() { stdnet.Conn.M(nil); v.M(); v.x.M(); f().M() }`,
			[]string{"M", "M", "M", "M"}},
		{"a local named like an import", `func F(retry Client) { retry.M() }`,
			[]string{"M p.Client"}},
		{"each function has its own names", `func F(a A) {}; func G() { a.M() }`,
			[]string{"M"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "package p\nimport \"example.com/retry\"\nimport stdnet \"net\"\n" + tc.src
			r, err := goLang{}.Extract(&File{Path: "p/p.go", Src: []byte(src), ModuleInfo: ModuleInfo{Module: Node{Kind: graph.NodePackage, Key: "p"}}})
			if err != nil {
				t.Fatal(err)
			}
			if r.SyntaxErrors > 0 {
				t.Fatalf("%d syntax errors", r.SyntaxErrors)
			}
			var got []string
			for _, c := range r.Calls {
				if c.Method && c.Name == "M" {
					got = append(got, strings.TrimSpace(strings.Join(append([]string{c.Name, strings.TrimPrefix(c.Recv, "example.com/")}, c.Path...), " ")))
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("calls:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestGoStructFields(t *testing.T) {
	src := `package p
import "example.com/retry"
type S[T any] struct {
	a, b A
	*retry.B
	List[T]
	t    T
	p    *T
	s    []A
	_    A
	n    struct{ x X }
}`
	r, err := goLang{}.Extract(&File{Path: "p/p.go", Src: []byte(src), ModuleInfo: ModuleInfo{Module: Node{Kind: graph.NodePackage, Key: "p"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Field{{"p.S", "a", "p.A"}, {"p.S", "b", "p.A"}, {"p.S", "B", "example.com/retry.B"}, {"p.S", "List", "p.List"}}
	if !slices.Equal(r.Fields, want) {
		t.Errorf("fields:\n got %v\nwant %v", r.Fields, want)
	}
}

// TestResolveRecv checks how Resolve follows a call's receiver type and
// fields, and when it falls back to the methods of the unit by name.
func TestResolveRecv(t *testing.T) {
	unit := func(c Call) *Result {
		c.From, c.Method, c.Span = "p.F", true, graph.Span{StartLine: 1, StartCol: 1, EndLine: 1, EndCol: 1}
		return &Result{Path: "p/a.go", Module: Node{Kind: graph.NodePackage, Key: "p"},
			Items: []Item{
				{Kind: Function, Name: "F", Key: "p.F"},
				{Kind: Struct, Name: "S", Key: "p.S"},
				{Kind: Struct, Name: "E", Key: "p.E"},
				{Kind: Method, Name: "M", Key: "p.S.M", Parent: "p.S"},
				{Kind: Method, Name: "M", Key: "p.E.M", Parent: "p.E"},
				{Kind: Method, Name: "N", Key: "p.E.N", Parent: "p.E"},
			},
			Fields: []Field{{"p.S", "e", "p.E"}, {"p.S", "ext", "q.X"}},
			Calls:  []Call{c}}
	}
	for _, tc := range []struct {
		name string
		call Call
		want []string // "to confidence"
	}{
		{"the type's method", Call{Name: "M", Recv: "p.S"}, []string{"p.S.M medium"}},
		{"through a field", Call{Name: "M", Recv: "p.S", Path: []string{"e"}}, []string{"p.E.M medium"}},
		{"to a field's type elsewhere", Call{Name: "Write", Recv: "p.S", Path: []string{"ext"}}, []string{"q.X.Write medium"}},
		{"another unit's type", Call{Name: "M", Recv: "q.X"}, []string{"q.X.M medium"}},
		{"promoted: by name", Call{Name: "N", Recv: "p.S"}, []string{"p.E.N medium"}},
		{"an unknown field: by name", Call{Name: "M", Recv: "p.S", Path: []string{"nope"}}, []string{"p.E.M low", "p.S.M low"}},
		{"fields of another unit's type: by name", Call{Name: "N", Recv: "p.S", Path: []string{"ext", "y"}}, []string{"p.E.N medium"}},
		{"the package's type declared nowhere: by name", Call{Name: "N", Recv: "p.Gone"}, []string{"p.E.N medium"}},
		{"no type: by name", Call{Name: "M"}, []string{"p.E.M low", "p.S.M low"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range Resolve([]*Result{unit(tc.call)}, ResolveOptions{KeepLow: true})[0] {
				if e.Label == graph.Calls {
					got = append(got, e.To.Key+" "+string(e.Confidence))
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("calls %q, want %q", got, tc.want)
			}
		})
	}
}

// FuzzExtractGo extracts and resolves any Go source.
func FuzzExtractGo(f *testing.F) {
	for _, src := range fixtures(f, "go", ".go") {
		f.Add(src)
	}
	f.Add([]byte("package p\nfunc (c *C[K, V]) F(a A, b ...B) (r R) { x := a.f.g; var y = &T{}; x.M(); y.N().O(); func(a X) { a.M() }() }"))
	f.Fuzz(func(t *testing.T, src []byte) {
		p := "src/fuzz/mod.go"
		lang := ForPath(p)
		r, err := lang.Extract(&File{Path: p, Src: src, ModuleInfo: lang.Module(&memProject{}, p)})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, r, src)
		Resolve([]*Result{r}, ResolveOptions{KeepLow: true})
	})
}

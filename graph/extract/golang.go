package extract

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/graph"
)

// Go reads Go with the standard library's go/parser: several times faster
// than a tree-sitter grammar on this workload (docs/benchmarks.md), and
// exactly the language the Go toolchain accepts. Keys are import paths
// and names: "net/http.Client.Do".
type goLang struct{}

func init() { Register(goLang{}) }

func (goLang) Name() string         { return "go" }
func (goLang) Extensions() []string { return []string{".go"} }

// Module finds the package's import path from the nearest go.mod: its
// module path joined with the directory below it. Go's own source tree
// (module std) has import paths without a module prefix. Without a
// go.mod, the directory is the import path.
func (goLang) Module(p Project, file string) ModuleInfo {
	dir := path.Dir(file)
	key := p.Memo("go:importpath:"+dir, func() any { return goImportPath(p, dir) }).(string)
	return ModuleInfo{Module: Node{Kind: graph.NodePackage, Key: key, Ecosystem: graph.EcosystemGo}, Unit: dir}
}

func goImportPath(p Project, dir string) string {
	for d := dir; ; d = path.Dir(d) {
		gomod := "go.mod"
		if d != "." {
			gomod = d + "/go.mod"
		}
		if data, err := p.ReadFile(gomod); err == nil {
			mod := goModulePath(data)
			if mod == "" {
				break
			}
			rel := strings.TrimPrefix(strings.TrimPrefix(dir, d), "/")
			if d == "." {
				rel = dir
			}
			switch {
			case rel == "." || rel == "":
				if mod == "std" {
					return dir
				}
				return mod
			case mod == "std":
				return rel
			}
			return mod + "/" + rel
		}
		if d == "." {
			break
		}
	}
	return dir
}

// goModulePath reads the module path of a go.mod.
func goModulePath(data []byte) string {
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			rest = strings.TrimSpace(rest)
			if i := strings.Index(rest, "//"); i >= 0 {
				rest = strings.TrimSpace(rest[:i])
			}
			if s, err := strconv.Unquote(rest); err == nil {
				return s
			}
			return rest
		}
	}
	return ""
}

func (goLang) Extract(f *File) (*Result, error) {
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, f.Path, f.Src, parser.ParseComments|parser.SkipObjectResolution)
	r := &Result{Path: f.Path, Language: "go", Module: f.Module, Sep: "."}
	if err != nil {
		if list, ok := err.(scanner.ErrorList); ok {
			r.SyntaxErrors = len(list)
		} else {
			r.SyntaxErrors = 1
		}
		if af == nil {
			return r, nil
		}
	}
	if af.Name != nil && strings.HasSuffix(af.Name.Name, "_test") && strings.HasSuffix(f.Path, "_test.go") {
		r.Module.Key += "_test" // an external test package
	}
	x := &goExtractor{r: r, fset: fset, tf: fset.File(af.Pos()), src: f.Src, pkg: r.Module.Key, imports: map[string]string{}}
	x.file(af)
	return r, nil
}

type goExtractor struct {
	r       *Result
	fset    *token.FileSet
	tf      *token.File
	src     []byte
	pkg     string
	imports map[string]string  // local name → import path
	from    string             // the item whose body is being read
	seen    map[[2]string]bool // names recorded for it
	// locals are the types of the names declared so far in the function
	// being read (parameters, variables), ltypes the names that are not
	// the package's types there (type parameters, local types): see
	// declare.
	locals map[string]goValue
	ltypes map[string]bool
}

// goValue is the type of a value as the declarations say: the key of a
// named type and the fields selected from a value of it (c.f.g: c's type
// and [f g]), which Resolve follows. A zero goValue is unknown.
type goValue struct {
	typ  string
	path []string
}

func (x *goExtractor) span(from, to token.Pos) graph.Span {
	if !from.IsValid() || !to.IsValid() {
		return graph.Span{}
	}
	// A node the parser closed at EOF (after an unterminated literal) may
	// end past the last line the scanner counted.
	if end := token.Pos(x.tf.Base() + len(x.src)); to > end {
		to = end
		if from >= end && len(x.src) > 0 {
			from = end - 1
		}
	}
	// Unadjusted positions: a //line directive (generated code) must not
	// move a span into another file; and they skip the directives' lookup.
	s, e := x.tf.PositionFor(from, false), x.tf.PositionFor(to-1, false)
	if to-1 < from {
		e = s
	}
	return graph.Span{StartLine: uint32(s.Line), StartCol: uint32(s.Column), EndLine: uint32(e.Line), EndCol: uint32(e.Column)}
}

func (x *goExtractor) text(from, to token.Pos) string {
	a, b := x.tf.Offset(from), x.tf.Offset(to)
	if a < 0 || b > len(x.src) || a > b {
		return ""
	}
	return string(x.src[a:b])
}

func goVisibility(name string) Visibility {
	if ast.IsExported(name) {
		return Public
	}
	return Package
}

func (x *goExtractor) file(af *ast.File) {
	for _, im := range af.Imports {
		p, err := strconv.Unquote(im.Path.Value)
		if err != nil || p == "" { // import "" does not compile: nothing is imported
			continue
		}
		local := path.Base(p)
		if im.Name != nil {
			local = im.Name.Name
		} else if v := strings.TrimPrefix(local, "v"); local != v && isDigits(v) {
			// gopkg.in/yaml.v3 style and major versions: module/v2 is
			// imported under its package name, which the path does not
			// say; the element before is the usual guess.
			local = path.Base(path.Dir(p))
		}
		if local != "_" && local != "." {
			x.imports[local] = p
		}
		x.r.Imports = append(x.r.Imports, Import{Path: p, Alias: aliasOf(im), Target: Node{Kind: graph.NodePackage, Key: p, Ecosystem: graph.EcosystemGo}, Span: x.span(im.Pos(), im.End())})
	}
	for _, d := range af.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			x.funcDecl(d)
		case *ast.GenDecl:
			x.genDecl(d)
		}
	}
}

func aliasOf(im *ast.ImportSpec) string {
	if im.Name != nil {
		return im.Name.Name
	}
	return ""
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func docText(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.TrimSpace(g.Text())
}

// recvType returns the name of a method's receiver type.
func recvType(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

func (x *goExtractor) funcDecl(d *ast.FuncDecl) {
	x.resetScope()
	x.funcScope(d.Recv, d.Type)
	it := Item{Kind: Function, Name: d.Name.Name, Key: x.pkg + "." + d.Name.Name, Visibility: goVisibility(d.Name.Name),
		Span: x.span(d.Pos(), d.End()), Doc: docText(d.Doc)}
	if d.Recv != nil && len(d.Recv.List) > 0 {
		if t := recvType(d.Recv.List[0].Type); t != "" {
			it.Kind, it.Parent = Method, x.pkg+"."+t
			it.Key = it.Parent + "." + d.Name.Name
		}
	}
	sigEnd := d.End()
	if d.Body != nil {
		sigEnd = d.Body.Lbrace
	}
	it.Signature = Collapse(x.text(d.Pos(), sigEnd))
	if d.Name.Name == "init" && d.Recv == nil || d.Name.Name == "_" {
		// init functions and blank ones cannot be named: their calls and
		// references belong to the package.
		x.body(d.Type, "")
		x.body(d.Body, "")
		return
	}
	x.r.Items = append(x.r.Items, it)
	x.body(d.Type, it.Key)
	if d.Recv != nil {
		x.body(d.Recv, it.Key)
	}
	x.body(d.Body, it.Key)
}

func (x *goExtractor) genDecl(d *ast.GenDecl) {
	x.resetScope()
	for _, s := range d.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			kind := Type
			switch s.Type.(type) {
			case *ast.StructType:
				kind = Struct
			case *ast.InterfaceType:
				kind = Interface
			}
			doc := s.Doc
			if doc == nil && len(d.Specs) == 1 {
				doc = d.Doc
			}
			key := x.pkg + "." + s.Name.Name
			if s.Name.Name == "_" {
				continue
			}
			x.r.Items = append(x.r.Items, Item{Kind: kind, Name: s.Name.Name, Key: key, Visibility: goVisibility(s.Name.Name),
				Span: x.span(s.Pos(), s.End()), Signature: Collapse(x.text(s.Pos(), s.End())), Doc: docText(doc)})
			if it, ok := s.Type.(*ast.InterfaceType); ok && it.Methods != nil {
				for _, m := range it.Methods.List {
					for _, n := range m.Names {
						x.r.Items = append(x.r.Items, Item{Kind: Method, Name: n.Name, Key: key + "." + n.Name, Parent: key,
							Visibility: goVisibility(n.Name), Span: x.span(m.Pos(), m.End()), Signature: Collapse(x.text(m.Pos(), m.End())), Doc: docText(m.Doc)})
					}
				}
			}
			if st, ok := s.Type.(*ast.StructType); ok {
				x.fields(key, s.TypeParams, st)
			}
			x.body(s.TypeParams, key)
			x.body(s.Type, key)
		case *ast.ValueSpec:
			kind := Var
			if d.Tok == token.CONST {
				kind = Const
			}
			doc := s.Doc
			if doc == nil && len(d.Specs) == 1 {
				doc = d.Doc
			}
			owner := ""
			for _, n := range s.Names {
				if n.Name == "_" {
					continue
				}
				key := x.pkg + "." + n.Name
				if owner == "" {
					owner = key
				}
				x.r.Items = append(x.r.Items, Item{Kind: kind, Name: n.Name, Key: key, Visibility: goVisibility(n.Name),
					Span: x.span(s.Pos(), s.End()), Signature: Collapse(x.text(s.Pos(), s.End())), Doc: docText(doc)})
			}
			x.body(s.Type, owner)
			for _, v := range s.Values {
				x.body(v, owner)
			}
		}
	}
}

// body records the calls and references in a node, as made by the item
// from (empty: the package). Each name is recorded once per item.
func (x *goExtractor) body(n ast.Node, from string) {
	if x.from != from || x.seen == nil {
		x.from, x.seen = from, map[[2]string]bool{}
	}
	x.walk(n, from)
}

// walk visits a sub-tree: calls, import-qualified selectors, and the
// identifiers that may name package-level items (not declarations of
// locals, field names or labels).
func (x *goExtractor) walk(n ast.Node, from string) {
	if n == nil || isNilNode(n) {
		return
	}
	ast.Inspect(n, func(n ast.Node) bool {
		switch e := n.(type) {
		case *ast.CallExpr:
			x.call(e, from)
			switch f := unparen(e.Fun).(type) {
			case *ast.Ident:
			case *ast.SelectorExpr:
				if id, ok := f.X.(*ast.Ident); !ok || x.importPath(id.Name) == "" {
					x.walk(f.X, from)
				}
			default:
				x.walk(e.Fun, from)
			}
			for _, a := range e.Args {
				x.walk(a, from)
			}
			return false
		case *ast.SelectorExpr:
			if id, ok := e.X.(*ast.Ident); ok {
				if p := x.importPath(id.Name); p != "" {
					x.ref(from, e.Sel.Name, p+"."+e.Sel.Name, e.Pos(), e.End())
					return false
				}
			}
			x.walk(e.X, from) // x.f: only x can name a package-level item
			return false
		case *ast.KeyValueExpr:
			// In a composite literal the key is usually a field name.
			if _, ok := e.Key.(*ast.Ident); ok {
				x.walk(e.Value, from)
				return false
			}
		case *ast.Field:
			x.walk(e.Type, from) // parameter, result and field names are declarations
			return false
		case *ast.AssignStmt:
			if e.Tok == token.DEFINE {
				for _, r := range e.Rhs {
					x.walk(r, from)
				}
				x.assign(e.Lhs, e.Rhs)
				return false
			}
		case *ast.ValueSpec:
			x.walk(e.Type, from)
			for _, v := range e.Values {
				x.walk(v, from)
			}
			if e.Type != nil {
				v := goValue{typ: x.typeKey(e.Type)}
				for _, n := range e.Names {
					x.declare(n.Name, v)
				}
			} else {
				x.assign(identExprs(e.Names), e.Values)
			}
			return false
		case *ast.RangeStmt:
			if e.Tok == token.DEFINE {
				x.walk(e.X, from)
				for _, v := range [...]ast.Expr{e.Key, e.Value} {
					if id, ok := v.(*ast.Ident); ok {
						x.declare(id.Name, goValue{})
					}
				}
				x.walk(e.Body, from)
				return false
			}
		case *ast.FuncLit:
			x.funcScope(nil, e.Type)
		case *ast.TypeSpec:
			x.localType(e.Name.Name) // a local type hides the package's
		case *ast.LabeledStmt:
			x.walk(e.Stmt, from)
			return false
		case *ast.BranchStmt:
			return false
		case *ast.Ident:
			x.ident(e, from)
		}
		return true
	})
}

func unparen(e ast.Expr) ast.Expr {
	for {
		switch f := e.(type) {
		case *ast.ParenExpr:
			e = f.X
		case *ast.IndexExpr:
			e = f.X
		case *ast.IndexListExpr:
			e = f.X
		default:
			return e
		}
	}
}

func isNilNode(n ast.Node) bool {
	switch v := n.(type) {
	case *ast.BlockStmt:
		return v == nil
	case *ast.FieldList:
		return v == nil
	case *ast.FuncType:
		return v == nil
	}
	return false
}

// goBuiltins are the universe's names, never package items.
var goBuiltins = map[string]bool{
	"append": true, "cap": true, "clear": true, "close": true, "complex": true, "copy": true, "delete": true,
	"imag": true, "len": true, "make": true, "max": true, "min": true, "new": true, "panic": true, "print": true,
	"println": true, "real": true, "recover": true, "bool": true, "byte": true, "comparable": true, "complex64": true,
	"complex128": true, "error": true, "float32": true, "float64": true, "int": true, "int8": true, "int16": true,
	"int32": true, "int64": true, "rune": true, "string": true, "uint": true, "uint8": true, "uint16": true,
	"uint32": true, "uint64": true, "uintptr": true, "any": true, "true": true, "false": true, "iota": true, "nil": true, "_": true,
}

// importPath returns the path of the package imported as name, unless a
// local of the function being read hides it.
func (x *goExtractor) importPath(name string) string {
	p := x.imports[name]
	if p != "" && len(x.locals) > 0 {
		if _, local := x.locals[name]; local {
			return ""
		}
	}
	return p
}

func (x *goExtractor) ident(id *ast.Ident, from string) {
	if goBuiltins[id.Name] {
		return
	}
	if _, isImport := x.imports[id.Name]; isImport {
		return
	}
	x.ref(from, id.Name, "", id.Pos(), id.End())
}

func (x *goExtractor) ref(from, name, key string, pos, end token.Pos) {
	k := [2]string{name, key}
	if x.seen[k] {
		return
	}
	x.seen[k] = true
	x.r.Refs = append(x.r.Refs, Ref{From: from, Name: name, Key: key, Span: x.span(pos, end)})
}

func (x *goExtractor) call(c *ast.CallExpr, from string) {
	switch f := unparen(c.Fun).(type) {
	case *ast.Ident:
		if goBuiltins[f.Name] {
			return
		}
		x.r.Calls = append(x.r.Calls, Call{From: from, Name: f.Name, Span: x.span(c.Pos(), c.End())})
	case *ast.SelectorExpr:
		if id, ok := f.X.(*ast.Ident); ok {
			if p := x.importPath(id.Name); p != "" {
				x.r.Calls = append(x.r.Calls, Call{From: from, Name: f.Sel.Name, Key: p + "." + f.Sel.Name, Span: x.span(c.Pos(), c.End())})
				return
			}
		}
		// v.M() or T.M(v): the receiver's type, if the declarations say
		// it, else only the unit can tell.
		v := x.valueOf(f.X)
		x.r.Calls = append(x.r.Calls, Call{From: from, Name: f.Sel.Name, Method: true, Recv: v.typ, Path: v.path, Span: x.span(c.Pos(), c.End())})
	}
}

// The types of values, as far as declarations say them: enough to tell
// that c.Backoff.Next(i) in a method of *Client calls
// retry.Backoff.Next, without type checking. Resolve finishes the chains
// of fields, since a struct may be declared in another file of the
// package.

// resetScope forgets the names of the last function.
func (x *goExtractor) resetScope() {
	if len(x.locals) > 0 {
		clear(x.locals)
	}
	if len(x.ltypes) > 0 {
		clear(x.ltypes)
	}
}

// declare records that name is declared as a value of type v. The blocks
// of a function are not told apart: a name declared again with another
// type (in an inner block, or redeclared by :=) is unknown from there on.
// As a use follows its declaration in the source, a use before the
// second declaration still sees the first type.
func (x *goExtractor) declare(name string, v goValue) {
	if name == "_" {
		return
	}
	if x.locals == nil {
		x.locals = map[string]goValue{}
	}
	if old, ok := x.locals[name]; ok && (old.typ != v.typ || !slices.Equal(old.path, v.path)) {
		v = goValue{}
	}
	x.locals[name] = v
}

// localType records that name, in the function being read, is not the
// package's type of that name: a type parameter or a local type.
func (x *goExtractor) localType(name string) {
	if x.ltypes == nil {
		x.ltypes = map[string]bool{}
	}
	x.ltypes[name] = true
}

func (x *goExtractor) typeParams(fl *ast.FieldList) {
	if fl == nil {
		return
	}
	for _, f := range fl.List {
		for _, n := range f.Names {
			x.localType(n.Name)
		}
	}
}

// funcScope declares a function's type parameters, receiver, parameters
// and named results.
func (x *goExtractor) funcScope(recv *ast.FieldList, ft *ast.FuncType) {
	if recv != nil && len(recv.List) > 0 {
		// func (l *List[K, V]) …: K and V are type parameters.
		t := recv.List[0].Type
		for {
			if st, ok := t.(*ast.StarExpr); ok {
				t = st.X
			} else if p, ok := t.(*ast.ParenExpr); ok {
				t = p.X
			} else {
				break
			}
		}
		var idx []ast.Expr
		switch t := t.(type) {
		case *ast.IndexExpr:
			idx = []ast.Expr{t.Index}
		case *ast.IndexListExpr:
			idx = t.Indices
		}
		for _, e := range idx {
			if id, ok := e.(*ast.Ident); ok {
				x.localType(id.Name)
			}
		}
	}
	x.typeParams(ft.TypeParams)
	for _, fl := range [...]*ast.FieldList{recv, ft.Params, ft.Results} {
		if fl == nil {
			continue
		}
		for _, f := range fl.List {
			if len(f.Names) == 0 {
				continue
			}
			v := goValue{typ: x.typeKey(f.Type)}
			for _, n := range f.Names {
				x.declare(n.Name, v)
			}
		}
	}
}

// assign declares the names on the left of lhs := rhs (or var lhs = rhs).
func (x *goExtractor) assign(lhs, rhs []ast.Expr) {
	for i, l := range lhs {
		id, ok := l.(*ast.Ident)
		if !ok {
			continue
		}
		var v goValue
		switch {
		case len(lhs) == len(rhs):
			v = x.valueOf(rhs[i])
		case i == 0 && len(rhs) == 1:
			if ta, ok := rhs[0].(*ast.TypeAssertExpr); ok {
				v = x.valueOf(ta) // v, ok := e.(T)
			}
		}
		x.declare(id.Name, v)
	}
}

func identExprs(ids []*ast.Ident) []ast.Expr {
	out := make([]ast.Expr, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

// valueOf returns the type of the value of e as far as the declarations
// say: a declared name, T{…}, &T{…}, new(T), e.(T), and fields selected
// from them.
func (x *goExtractor) valueOf(e ast.Expr) goValue {
	switch e := e.(type) {
	case *ast.Ident:
		return x.locals[e.Name]
	case *ast.ParenExpr:
		return x.valueOf(e.X)
	case *ast.StarExpr:
		return x.valueOf(e.X)
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			return x.valueOf(e.X)
		}
	case *ast.CompositeLit:
		return goValue{typ: x.typeKey(e.Type)}
	case *ast.TypeAssertExpr:
		return goValue{typ: x.typeKey(e.Type)}
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok && id.Name == "new" && len(e.Args) == 1 {
			return goValue{typ: x.typeKey(e.Args[0])}
		}
	case *ast.SelectorExpr:
		if v := x.valueOf(e.X); v.typ != "" {
			return goValue{typ: v.typ, path: append(v.path[:len(v.path):len(v.path)], e.Sel.Name)}
		}
	}
	return goValue{}
}

// typeKey returns the key of the named type a type expression is or
// points to: T is the package's (not a built-in, type parameter or local
// type), p.T an imported package's; *T, (T) and T[X] are T. Any other
// type (slices, maps, functions, literal structs) gives "".
func (x *goExtractor) typeKey(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.Ident:
			if goBuiltins[t.Name] || x.ltypes[t.Name] {
				return ""
			}
			return x.pkg + "." + t.Name
		case *ast.SelectorExpr:
			if id, ok := t.X.(*ast.Ident); ok {
				if p := x.imports[id.Name]; p != "" {
					return p + "." + t.Sel.Name
				}
			}
			return ""
		case *ast.StarExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		default:
			return ""
		}
	}
}

// fields records the fields of struct type key whose types are named.
func (x *goExtractor) fields(key string, tparams *ast.FieldList, st *ast.StructType) {
	if st.Fields == nil {
		return
	}
	x.resetScope()
	x.typeParams(tparams)
	for _, f := range st.Fields.List {
		t := x.typeKey(f.Type)
		if t == "" {
			continue
		}
		if len(f.Names) == 0 { // embedded: the field is named after its type
			x.r.Fields = append(x.r.Fields, Field{Struct: key, Name: t[strings.LastIndexByte(t, '.')+1:], Type: t})
		}
		for _, n := range f.Names {
			if n.Name != "_" {
				x.r.Fields = append(x.r.Fields, Field{Struct: key, Name: n.Name, Type: t})
			}
		}
	}
}

// goLines counts lines as wc -l would, plus a last line without newline.
func goLines(src []byte) int {
	n := bytes.Count(src, []byte{'\n'})
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}

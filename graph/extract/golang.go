package extract

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"path"
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
}

func (x *goExtractor) span(from, to token.Pos) graph.Span {
	if !from.IsValid() || !to.IsValid() {
		return graph.Span{}
	}
	s, e := x.tf.Position(from), x.tf.Position(to-1)
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
		if err != nil {
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
				if id, ok := f.X.(*ast.Ident); !ok || x.imports[id.Name] == "" {
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
				if p, ok := x.imports[id.Name]; ok {
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
				return false
			}
		case *ast.ValueSpec:
			x.walk(e.Type, from)
			for _, v := range e.Values {
				x.walk(v, from)
			}
			return false
		case *ast.RangeStmt:
			if e.Tok == token.DEFINE {
				x.walk(e.X, from)
				x.walk(e.Body, from)
				return false
			}
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
			if p, ok := x.imports[id.Name]; ok {
				x.r.Calls = append(x.r.Calls, Call{From: from, Name: f.Sel.Name, Key: p + "." + f.Sel.Name, Span: x.span(c.Pos(), c.End())})
				return
			}
		}
		// v.M() or T.M(v): the receiver's type is not known here.
		x.r.Calls = append(x.r.Calls, Call{From: from, Name: f.Sel.Name, Method: true, Span: x.span(c.Pos(), c.End())})
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

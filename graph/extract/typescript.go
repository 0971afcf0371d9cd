package extract

import (
	"path"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"

	"github.com/ctx-dev/ctx/graph"
)

// TypeScript and JavaScript share this reader: tree-sitter-typescript
// for .ts, .mts and .cts, its tsx dialect for .tsx, tree-sitter-javascript
// (which reads JSX) for .js, .jsx, .mjs and .cjs. Keys are module paths
// and names: "src/net/client.Client.connect". A file is its own unit.
//
// What a default export is called: the declaration exported as default
// (export default function f, export default class, export default f;
// export { f as default }, module.exports = f) has the key
// "<module>.default" and keeps its own Name, so that an importer's
// `import f from './m'` (which names "<module>.default") and the module's
// own calls of f (by name) both find it.
type jsLang struct {
	name string
	exts []string
}

var (
	jsGrammarTS  = newTSGrammar(typescript.GetLanguage)
	jsGrammarTSX = newTSGrammar(tsx.GetLanguage)
	jsGrammarJS  = newTSGrammar(javascript.GetLanguage)
)

func init() {
	Register(jsLang{name: "typescript", exts: []string{".ts", ".tsx", ".mts", ".cts"}})
	Register(jsLang{name: "javascript", exts: []string{".js", ".jsx", ".mjs", ".cjs"}})
}

func (l jsLang) Name() string         { return l.name }
func (l jsLang) Extensions() []string { return l.exts }

// Module names a file by its path without extension; an index file names
// its directory (src/net/index.ts is "src/net"), as imports do.
func (jsLang) Module(_ Project, file string) ModuleInfo {
	return ModuleInfo{Module: Node{Kind: graph.NodeModule, Key: jsModuleKey(file)}, Unit: file}
}

// jsExts are the extensions of modules, longest first.
var jsExts = []string{".d.ts", ".d.mts", ".d.cts", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}

// jsAssetExts are extensions of imported files that are not modules.
var jsAssetExts = map[string]bool{
	".css": true, ".scss": true, ".sass": true, ".less": true, ".json": true, ".svg": true, ".png": true,
	".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".ico": true, ".html": true, ".md": true,
	".txt": true, ".wasm": true, ".vue": true, ".svelte": true, ".graphql": true, ".gql": true, ".yaml": true,
	".yml": true, ".woff": true, ".woff2": true, ".ttf": true,
}

func jsModuleKey(p string) string {
	for _, e := range jsExts {
		if strings.HasSuffix(p, e) && len(p) > len(e) {
			p = p[:len(p)-len(e)]
			break
		}
	}
	if path.Base(p) == "index" {
		if d := path.Dir(p); d != "." {
			return d
		}
	}
	return p
}

func (l jsLang) Extract(f *File) (*Result, error) {
	g := jsGrammarJS
	switch {
	case strings.HasSuffix(f.Path, ".tsx"):
		g = jsGrammarTSX
	case l.name == "typescript":
		g = jsGrammarTS
	}
	t, err := g.parse(f.Src)
	if err != nil {
		return nil, err
	}
	defer t.close()
	r := &Result{Path: f.Path, Language: l.name, Module: f.Module, Sep: ".", SyntaxErrors: t.errors()}
	mod := f.Module.Key
	if mod == "" {
		mod = jsModuleKey(f.Path)
		r.Module = Node{Kind: graph.NodeModule, Key: mod}
	}
	x := &jsExtractor{tsTree: t, r: r, path: f.Path, mod: mod, binds: map[string]jsBinding{}, defs: map[string]bool{},
		exported: map[string]bool{}, overloads: map[string]int{}, sites: tsSites{r: r}}
	stmts := x.kids(t.root)
	x.sites.begin("")
	x.prescan(stmts)
	x.statements(stmts, mod, "", true)
	x.sites.end()
	// Names exported by a list or module.exports are public.
	for i := range r.Items {
		if it := &r.Items[i]; it.Parent == "" && x.exported[it.Name] {
			it.Visibility = Public
		}
	}
	tsFinish(r)
	return r, nil
}

// jsBinding is what an imported name stands for: an item's key, or a
// module's (ns) whose members are key.name.
type jsBinding struct {
	key string
	ns  bool
}

type jsExtractor struct {
	*tsTree
	r         *Result
	path      string
	mod       string
	binds     map[string]jsBinding // imported names (file-wide)
	defs      map[string]bool      // module-level declarations
	exported  map[string]bool      // names exported by a list or module.exports
	dflt      string               // the module-level name exported as default
	overloads map[string]int       // function signatures by key: their item's index
	sites     tsSites
}

// prescan reads the top level's imports, re-exports, export lists and
// declared names before any body uses them.
func (x *jsExtractor) prescan(stmts []*sitter.Node) {
	for _, s := range stmts {
		switch x.typ(s) {
		case "import_statement":
			x.importStmt(s)
		case "export_statement":
			if src := x.field(s, "source"); src != nil {
				spec := x.str(src)
				if spec == "" {
					continue
				}
				target, _ := x.resolveSpec(spec)
				x.r.Imports = append(x.r.Imports, Import{Path: spec, Target: target, Span: x.span(s)})
				continue
			}
			if v := x.field(s, "value"); x.typ(v) == "identifier" {
				x.dflt = x.text(v)
			}
			for _, k := range x.kids(s) {
				if x.typ(k) != "export_clause" {
					continue
				}
				for _, sp := range x.kids(k) {
					if x.typ(sp) != "export_specifier" {
						continue
					}
					name := x.text(x.field(sp, "name"))
					if a := x.field(sp, "alias"); a != nil && x.text(a) == "default" {
						x.dflt = name
					} else {
						x.exported[name] = true
					}
				}
			}
			x.declNames(x.field(s, "declaration"))
		case "expression_statement":
			a := x.firstNamed(s)
			if x.typ(a) != "assignment_expression" {
				if x.typ(a) == "internal_module" {
					x.declNames(a)
				}
				continue
			}
			if c := x.chain(x.field(a, "left")); len(c) == 2 && c[0] == "module" && c[1] == "exports" {
				right := x.field(a, "right")
				switch x.typ(right) {
				case "identifier":
					x.dflt = x.text(right)
				case "object":
					for _, p := range x.kids(right) {
						switch x.typ(p) {
						case "shorthand_property_identifier":
							x.exported[x.text(p)] = true
						case "pair":
							if v := x.field(p, "value"); x.typ(v) == "identifier" {
								x.exported[x.text(v)] = true
							}
						}
					}
				}
			} else if len(c) >= 2 && (c[0] == "exports" || c[0] == "module" && c[1] == "exports") {
				if right := x.field(a, "right"); x.typ(right) == "identifier" {
					x.exported[x.text(right)] = true
				}
			}
		case "lexical_declaration", "variable_declaration":
			x.declNames(s)
			for _, d := range x.kids(s) {
				if x.typ(d) == "variable_declarator" {
					x.requireBinding(d)
				}
			}
		default:
			x.declNames(s)
		}
	}
}

// declNames records the names a module-level declaration declares.
func (x *jsExtractor) declNames(n *sitter.Node) {
	switch x.typ(n) {
	case "lexical_declaration", "variable_declaration":
		for _, d := range x.kids(n) {
			if x.typ(d) == "variable_declarator" {
				if name := x.field(d, "name"); x.typ(name) == "identifier" {
					x.defs[x.text(name)] = true
				}
			}
		}
	case "ambient_declaration":
		x.declNames(x.firstNamed(n))
	case "":
	default:
		if name := x.field(n, "name"); name != nil {
			x.defs[x.text(name)] = true
		}
	}
}

func (x *jsExtractor) firstNamed(n *sitter.Node) *sitter.Node {
	for _, k := range x.kids(n) {
		if k.IsNamed() {
			return k
		}
	}
	return nil
}

// str returns a string literal's value.
func (x *jsExtractor) str(n *sitter.Node) string {
	s := x.text(n)
	if len(s) >= 2 {
		s = s[1 : len(s)-1]
	}
	return s
}

// resolveSpec returns the node an import specifier names and the key its
// members hang on: a relative path is a module of the project (its key,
// whichever of the extensions and index files it is) or a file that is
// not code; a bare specifier is an npm package, members keyed by the
// specifier ("react.useState", "@scope/pkg/sub.f").
func (x *jsExtractor) resolveSpec(spec string) (Node, string) {
	if spec == "." || spec == ".." || strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || strings.HasPrefix(spec, "/") {
		p := path.Join(path.Dir(x.path), spec)
		if strings.HasPrefix(spec, "/") {
			p = strings.TrimPrefix(path.Clean(spec), "/")
		}
		if jsAssetExts[path.Ext(p)] {
			return Node{Kind: graph.NodeFile, Key: p}, p
		}
		key := jsModuleKey(p)
		if key == "." {
			key = "index"
		}
		return Node{Kind: graph.NodeModule, Key: key}, key
	}
	spec = strings.TrimPrefix(spec, "node:")
	parts := strings.Split(spec, "/")
	pkg := parts[0]
	if strings.HasPrefix(pkg, "@") && len(parts) > 1 {
		pkg += "/" + parts[1]
	}
	return Node{Kind: graph.NodePackage, Key: pkg, Ecosystem: graph.EcosystemNPM}, spec
}

// isPackage tells a bare specifier's members key from a module's.
func isPackage(n Node) bool { return n.Kind == graph.NodePackage }

// importStmt records an import and binds its names: a default import to
// "<module>.default" (a package's default is the package, as CommonJS
// interop has it), a namespace to the module, named imports to
// "<module>.<name>".
func (x *jsExtractor) importStmt(n *sitter.Node) {
	src := x.field(n, "source")
	if src == nil {
		// import x = require('y')
		for _, k := range x.kids(n) {
			if x.typ(k) == "import_require_clause" {
				spec := x.str(x.field(k, "source"))
				name := x.text(x.firstNamed(k))
				if spec == "" || name == "" {
					continue
				}
				target, key := x.resolveSpec(spec)
				x.r.Imports = append(x.r.Imports, Import{Path: spec, Alias: name, Target: target, Span: x.span(n)})
				x.binds[name] = jsBinding{key: key, ns: true}
			}
		}
		return
	}
	spec := x.str(src)
	if spec == "" {
		return
	}
	target, key := x.resolveSpec(spec)
	imp := Import{Path: spec, Target: target, Span: x.span(n)}
	for _, c := range x.kids(n) {
		if x.typ(c) != "import_clause" {
			continue
		}
		for _, k := range x.kids(c) {
			switch x.typ(k) {
			case "identifier":
				imp.Alias = x.text(k)
				if isPackage(target) {
					x.binds[imp.Alias] = jsBinding{key: key, ns: true}
				} else {
					x.binds[imp.Alias] = jsBinding{key: key + ".default"}
				}
			case "namespace_import":
				imp.Alias = x.text(x.firstNamed(k))
				x.binds[imp.Alias] = jsBinding{key: key, ns: true}
			case "named_imports":
				for _, s := range x.kids(k) {
					if x.typ(s) != "import_specifier" {
						continue
					}
					name := x.field(s, "name")
					imported := x.text(name)
					if x.typ(name) == "string" {
						imported = x.str(name)
					}
					local := imported
					if a := x.field(s, "alias"); a != nil {
						local = x.text(a)
					}
					x.binds[local] = jsBinding{key: key + "." + imported}
				}
			}
		}
	}
	x.r.Imports = append(x.r.Imports, imp)
}

// requireSpec returns the module of require('x') (not shadowed) or
// import('x').
func (x *jsExtractor) requireSpec(call *sitter.Node) (string, bool) {
	fn := x.field(call, "function")
	switch x.typ(fn) {
	case "import":
	case "identifier":
		if x.text(fn) != "require" || x.sites.isLocal("require") {
			return "", false
		}
	default:
		return "", false
	}
	args := x.field(call, "arguments")
	var lit *sitter.Node
	for _, a := range x.kids(args) {
		if a.IsNamed() {
			if lit != nil {
				return "", false
			}
			lit = a
		}
	}
	switch x.typ(lit) {
	case "string":
		return x.str(lit), x.str(lit) != ""
	case "template_string":
		if x.firstNamedOf(lit, "template_substitution") == nil {
			return x.str(lit), x.str(lit) != ""
		}
	}
	return "", false
}

func (x *jsExtractor) firstNamedOf(n *sitter.Node, typ string) *sitter.Node {
	for _, k := range x.kids(n) {
		if x.typ(k) == typ {
			return k
		}
	}
	return nil
}

// requireBinding binds const m = require('x') (the module) and const {a,
// b: c} = require('x') (its members); true if the declarator is one.
func (x *jsExtractor) requireBinding(d *sitter.Node) bool {
	v := x.field(d, "value")
	if x.typ(v) == "await_expression" {
		v = x.firstNamed(v)
	}
	if x.typ(v) != "call_expression" {
		return false
	}
	spec, ok := x.requireSpec(v)
	if !ok {
		return false
	}
	_, key := x.resolveSpec(spec)
	name := x.field(d, "name")
	switch x.typ(name) {
	case "identifier":
		x.binds[x.text(name)] = jsBinding{key: key, ns: true}
	case "object_pattern":
		for _, p := range x.kids(name) {
			switch x.typ(p) {
			case "shorthand_property_identifier_pattern":
				x.binds[x.text(p)] = jsBinding{key: key + "." + x.text(p)}
			case "pair_pattern":
				if v := x.field(p, "value"); x.typ(v) == "identifier" {
					x.binds[x.text(v)] = jsBinding{key: key + "." + x.text(x.field(p, "key"))}
				}
			}
		}
	}
	return true
}

// statements reads a module's (or namespace's) statements: declarations
// are items keyed under prefix, their parent the namespace.
func (x *jsExtractor) statements(stmts []*sitter.Node, prefix, parent string, top bool) {
	doc := ""
	for _, s := range stmts {
		typ := x.typ(s)
		if typ == "comment" {
			if t := x.text(s); strings.HasPrefix(t, "/**") && t != "/**/" {
				doc = cleanBlockDoc(t)
			}
			continue
		}
		switch typ {
		case "import_statement":
			if !top {
				x.importStmt(s)
			}
		case "export_statement":
			dflt := x.hasToken(s, "default")
			if d := x.field(s, "declaration"); d != nil {
				x.declaration(d, s, doc, true, dflt, prefix, parent)
			} else if v := x.field(s, "value"); v != nil {
				switch x.typ(v) {
				case "function_expression", "function", "arrow_function", "generator_function", "class":
					x.declaration(v, s, doc, true, true, prefix, parent)
				case "identifier":
				default:
					x.walk(v)
				}
			}
		case "expression_statement":
			if a := x.firstNamed(s); x.typ(a) == "internal_module" || x.typ(a) == "module" {
				x.declaration(a, s, doc, false, false, prefix, parent)
			} else if !(top && x.cjsExport(s, doc)) {
				x.walk(s)
			}
		case "function_declaration", "generator_function_declaration", "function_signature", "class_declaration",
			"abstract_class_declaration", "interface_declaration", "type_alias_declaration", "enum_declaration",
			"lexical_declaration", "variable_declaration", "ambient_declaration", "internal_module", "module":
			x.declaration(s, s, doc, false, false, prefix, parent)
		default:
			x.walk(s)
		}
		doc = ""
	}
}

// hasToken reports whether n has an anonymous child of type tok.
func (x *jsExtractor) hasToken(n *sitter.Node, tok string) bool {
	for _, k := range x.kids(n) {
		if !k.IsNamed() && x.typ(k) == tok {
			return true
		}
	}
	return false
}

// cjsExport reads exports.f = …, module.exports.f = … and
// module.exports = function … at the top level as declarations of
// exported items; false for other statements.
func (x *jsExtractor) cjsExport(s *sitter.Node, doc string) bool {
	a := x.firstNamed(s)
	if x.typ(a) != "assignment_expression" {
		return false
	}
	c := x.chain(x.field(a, "left"))
	name := ""
	switch {
	case len(c) == 2 && c[0] == "module" && c[1] == "exports":
		name = "default"
	case len(c) == 3 && c[0] == "module" && c[1] == "exports":
		name = c[2]
	case len(c) == 2 && c[0] == "exports":
		name = c[1]
	default:
		return false
	}
	right := x.field(a, "right")
	key := x.mod + "." + name
	it := Item{Name: name, Key: key, Visibility: Public, Span: x.span(s), Doc: doc}
	if fn := x.text(x.field(right, "name")); name == "default" && fn != "" {
		it.Name = fn // module.exports = function clean: called clean here
	}
	switch x.typ(right) {
	case "function_expression", "function", "arrow_function", "generator_function":
		it.Kind = Function
		it.Signature = Collapse(x.between(s, x.field(right, "body")))
		x.r.Items = append(x.r.Items, it)
		x.sites.begin(key)
		x.function(right)
		x.sites.end()
	case "class":
		x.class(right, s, doc, key, it.Name, "", Public)
	case "identifier", "object":
		x.walk(right) // exported by name: prescan saw it
	default:
		if name == "default" {
			x.walk(right)
			return true
		}
		it.Kind = Var
		it.Signature = Collapse(x.text(s))
		x.r.Items = append(x.r.Items, it)
		x.sites.begin(key)
		x.walk(right)
		x.sites.end()
	}
	return true
}

// declaration reads a declaration whose whole statement (with export and
// declare) is outer.
func (x *jsExtractor) declaration(n, outer *sitter.Node, doc string, exported, dflt bool, prefix, parent string) {
	vis := Private
	if exported {
		vis = Public
	}
	nameNode := x.field(n, "name")
	name := x.text(nameNode)
	key := prefix + "." + name
	if prefix == x.mod && name != "" && name == x.dflt {
		dflt = true
	}
	if dflt && prefix == x.mod {
		key, vis = x.mod+".default", Public
		if name == "" {
			name = "default"
		}
	}
	switch x.typ(n) {
	case "function_declaration", "generator_function_declaration", "function_signature", "function_expression",
		"function", "arrow_function", "generator_function":
		if name == "" {
			return
		}
		body := x.field(n, "body")
		it := Item{Kind: Function, Name: name, Key: key, Parent: parent, Visibility: vis, Span: x.span(outer),
			Signature: strings.TrimSuffix(Collapse(x.between(outer, body)), ";"), Doc: doc}
		// Overload signatures come first; the implementation is the item.
		if i, ok := x.overloads[key]; ok && body != nil {
			if it.Doc == "" {
				it.Doc = x.r.Items[i].Doc
			}
			x.r.Items[i] = it
			delete(x.overloads, key)
		} else {
			if body == nil {
				x.overloads[key] = len(x.r.Items)
			}
			x.r.Items = append(x.r.Items, it)
		}
		x.sites.begin(key)
		x.function(n)
		x.sites.end()
	case "class_declaration", "abstract_class_declaration", "class":
		if name == "" {
			return
		}
		x.class(n, outer, doc, key, name, parent, vis)
	case "interface_declaration":
		x.r.Items = append(x.r.Items, Item{Kind: Interface, Name: name, Key: key, Parent: parent, Visibility: vis, Span: x.span(outer),
			Signature: Collapse(x.text(outer)), Doc: doc})
		x.sites.begin(key)
		x.typeParams(x.field(n, "type_parameters"))
		for _, k := range x.kids(n) {
			if x.typ(k) == "extends_type_clause" {
				for _, t := range x.kids(k) {
					if t.IsNamed() {
						x.heritage(t, key)
					}
				}
			}
		}
		x.members(x.field(n, "body"), key)
		x.sites.end()
	case "type_alias_declaration", "enum_declaration":
		kind := Type
		if x.typ(n) == "enum_declaration" {
			kind = Enum
		}
		x.r.Items = append(x.r.Items, Item{Kind: kind, Name: name, Key: key, Parent: parent, Visibility: vis, Span: x.span(outer),
			Signature: strings.TrimSuffix(Collapse(x.text(outer)), ";"), Doc: doc})
		x.sites.begin(key)
		x.typeParams(x.field(n, "type_parameters"))
		x.walk(x.field(n, "value"))
		x.walk(x.field(n, "body"))
		x.sites.end()
	case "lexical_declaration", "variable_declaration":
		x.variables(n, outer, doc, vis, prefix, parent)
	case "ambient_declaration":
		for _, k := range x.kids(n) {
			if k.IsNamed() {
				x.declaration(k, outer, doc, exported, dflt, prefix, parent)
				return
			}
		}
	case "internal_module", "module":
		body := x.field(n, "body")
		if x.typ(nameNode) == "string" || name == "" {
			return // declare module 'x': declarations of another module
		}
		name = strings.Join(strings.Fields(name), "")
		key = prefix + "." + name
		x.r.Items = append(x.r.Items, Item{Kind: Module, Name: name, Key: key, Parent: parent, Visibility: vis, Span: x.span(outer),
			Signature: Collapse(x.between(outer, body)), Doc: doc})
		x.statements(x.kids(body), key, key, false)
	}
}

// variables reads a const, let or var declaration: each name declared is
// an item, a function when its value is an arrow function or function
// expression; require() calls are imports, not items.
func (x *jsExtractor) variables(n, outer *sitter.Node, doc string, vis Visibility, prefix, parent string) {
	kind := Var
	for _, k := range x.kids(n) {
		if !k.IsNamed() && x.typ(k) == "const" {
			kind = Const
		}
	}
	var decls []*sitter.Node
	for _, d := range x.kids(n) {
		if x.typ(d) == "variable_declarator" {
			decls = append(decls, d)
		}
	}
	if len(decls) == 0 {
		return
	}
	lead := x.between(outer, decls[0]) // "export const "
	for _, d := range decls {
		if prefix == x.mod && x.requireBinding(d) {
			x.walk(x.field(d, "value"))
			continue
		}
		value := x.field(d, "value")
		span := x.span(d)
		if len(decls) == 1 {
			span = x.span(outer)
		}
		var names []*sitter.Node
		x.patternNames(x.field(d, "name"), &names)
		owner := ""
		for _, nm := range names {
			name := x.text(nm)
			key, v := prefix+"."+name, vis
			if prefix == x.mod && name == x.dflt {
				key, v = x.mod+".default", Public
			}
			if owner == "" {
				owner = key
			}
			it := Item{Kind: kind, Name: name, Key: key, Parent: parent, Visibility: v, Span: span, Doc: doc}
			switch x.typ(value) {
			case "arrow_function", "function_expression", "function", "generator_function":
				it.Kind = Function
				it.Signature = Collapse(lead + x.between(d, x.field(value, "body")))
			default:
				it.Signature = strings.TrimSuffix(Collapse(lead+x.text(d)), ";")
			}
			x.r.Items = append(x.r.Items, it)
		}
		if owner == "" {
			x.walk(value)
			continue
		}
		x.sites.begin(owner)
		x.walk(x.field(d, "type"))
		switch x.typ(value) {
		case "arrow_function", "function_expression", "function", "generator_function":
			x.function(value)
		default:
			x.walk(value)
		}
		x.sites.end()
	}
}

// patternNames collects the names a binding pattern declares.
func (x *jsExtractor) patternNames(p *sitter.Node, out *[]*sitter.Node) {
	switch x.typ(p) {
	case "identifier", "shorthand_property_identifier_pattern":
		*out = append(*out, p)
	case "pair_pattern":
		x.patternNames(x.field(p, "value"), out)
	case "assignment_pattern", "object_assignment_pattern":
		x.patternNames(x.field(p, "left"), out)
	case "object_pattern", "array_pattern", "rest_pattern":
		for _, k := range x.kids(p) {
			if k.IsNamed() {
				x.patternNames(k, out)
			}
		}
	}
}

// class reads a class: its heritage (implementations), decorators and
// members.
func (x *jsExtractor) class(n, outer *sitter.Node, doc, key, name, parent string, vis Visibility) {
	body := x.field(n, "body")
	x.r.Items = append(x.r.Items, Item{Kind: Class, Name: name, Key: key, Parent: parent, Visibility: vis, Span: x.span(outer),
		Signature: Collapse(x.between(outer, body)), Doc: doc})
	x.sites.begin(key)
	x.typeParams(x.field(n, "type_parameters"))
	for _, k := range x.kids(n) {
		switch x.typ(k) {
		case "decorator":
			x.decorator(k)
		case "class_heritage":
			for _, h := range x.kids(k) {
				switch x.typ(h) {
				case "extends_clause":
					x.heritage(x.field(h, "value"), key)
					x.walk(x.field(h, "type_arguments"))
				case "implements_clause":
					for _, t := range x.kids(h) {
						if t.IsNamed() {
							x.heritage(t, key)
						}
					}
				default:
					if h.IsNamed() {
						x.heritage(h, key) // JavaScript: extends expr
					}
				}
			}
		}
	}
	x.members(body, key)
	x.sites.end()
}

// heritage records that class or interface key extends or implements t.
func (x *jsExtractor) heritage(t *sitter.Node, key string) {
	if x.typ(t) == "generic_type" {
		x.walk(x.field(t, "type_arguments"))
		t = x.field(t, "name")
	}
	var chain []string
	switch x.typ(t) {
	case "identifier", "type_identifier":
		chain = []string{x.text(t)}
	case "member_expression", "nested_type_identifier":
		chain = x.chain(t)
	default:
		x.walk(t)
		return
	}
	if len(chain) == 0 {
		return
	}
	im := Implementation{Type: key, Name: chain[len(chain)-1], Span: x.span(t)}
	if k, ok := x.chainKey(chain, false); ok {
		im.Key = k
	} else if len(chain) > 1 {
		return
	}
	x.r.Impls = append(x.r.Impls, im)
}

// members reads a class or interface body: methods (and fields holding
// functions) are method items; other fields are code of the class.
func (x *jsExtractor) members(body *sitter.Node, owner string) {
	doc := ""
	var decos []*sitter.Node
	for _, m := range x.kids(body) {
		typ := x.typ(m)
		switch typ {
		case "comment":
			if t := x.text(m); strings.HasPrefix(t, "/**") && t != "/**/" {
				doc = cleanBlockDoc(t)
			}
			continue
		case "decorator":
			decos = append(decos, m)
			continue
		}
		for _, d := range decos {
			x.decorator(d)
		}
		decos = nil
		switch typ {
		case "method_definition", "method_signature", "abstract_method_signature":
			x.method(m, m, doc, owner)
		case "public_field_definition", "field_definition":
			v := x.field(m, "value")
			switch x.typ(v) {
			case "arrow_function", "function_expression", "function":
				x.method(m, v, doc, owner)
			default:
				for _, k := range x.kids(m) {
					if x.typ(k) == "decorator" {
						x.decorator(k)
					}
				}
				x.walk(x.field(m, "type"))
				x.walk(v)
			}
		case "property_signature", "index_signature", "call_signature", "construct_signature", "class_static_block":
			x.walk(m)
		case "{", "}", ";", ",":
		default:
			x.walk(m)
		}
		doc = ""
	}
}

// method reads a method (m) whose function is fn: m itself, or a field's
// arrow function.
func (x *jsExtractor) method(m, fn *sitter.Node, doc, owner string) {
	nameNode := x.field(m, "name")
	if nameNode == nil {
		nameNode = x.field(m, "property") // JavaScript fields
	}
	name := x.text(nameNode)
	if x.typ(nameNode) == "string" {
		name = x.str(nameNode)
	}
	if name == "" {
		return
	}
	vis := Public
	if strings.HasPrefix(name, "#") {
		vis = Private
	}
	var decos []*sitter.Node
	for _, k := range x.kids(m) {
		switch x.typ(k) {
		case "accessibility_modifier":
			switch x.text(k) {
			case "private":
				vis = Private
			case "protected":
				vis = Package // the class and its subclasses
			}
		case "decorator":
			decos = append(decos, k)
		}
	}
	key := owner + "." + name
	body := x.field(fn, "body")
	sig := x.between(m, body)
	if body == nil {
		sig = strings.TrimSuffix(strings.TrimSpace(sig), ";")
	}
	x.r.Items = append(x.r.Items, Item{Kind: Method, Name: name, Key: key, Parent: owner, Visibility: vis, Span: x.span(m),
		Signature: Collapse(sig), Doc: doc})
	x.sites.begin(key)
	for _, d := range decos {
		x.decorator(d)
	}
	x.function(fn)
	x.sites.end()
}

// function reads a function's type parameters, parameters, result and
// body into the current body.
func (x *jsExtractor) function(n *sitter.Node) {
	x.typeParams(x.field(n, "type_parameters"))
	if p := x.field(n, "parameter"); p != nil {
		x.bindPattern(p) // x => …
	}
	x.params(x.field(n, "parameters"))
	x.walk(x.field(n, "return_type"))
	x.walk(x.field(n, "body"))
}

// typeParams binds a declaration's type parameters; constraints and
// defaults are code.
func (x *jsExtractor) typeParams(tp *sitter.Node) {
	for _, p := range x.kids(tp) {
		if x.typ(p) == "type_parameter" {
			x.sites.bind(x.text(x.field(p, "name")))
			x.walk(x.field(p, "constraint"))
			x.walk(x.field(p, "value"))
		}
	}
}

// params binds a function's parameters.
func (x *jsExtractor) params(ps *sitter.Node) {
	for _, p := range x.kids(ps) {
		switch x.typ(p) {
		case "required_parameter", "optional_parameter":
			x.bindPattern(x.field(p, "pattern"))
			x.walk(x.field(p, "type"))
			x.walk(x.field(p, "value"))
		case "this", "comment", "(", ")", ",":
		default:
			if p.IsNamed() {
				x.bindPattern(p)
			}
		}
	}
}

// bindPattern binds the names a pattern declares; defaults are code.
func (x *jsExtractor) bindPattern(p *sitter.Node) {
	switch x.typ(p) {
	case "identifier", "shorthand_property_identifier_pattern":
		x.sites.bind(x.text(p))
	case "pair_pattern":
		x.bindPattern(x.field(p, "value"))
	case "assignment_pattern", "object_assignment_pattern":
		x.bindPattern(x.field(p, "left"))
		x.walk(x.field(p, "right"))
	case "object_pattern", "array_pattern", "rest_pattern":
		for _, k := range x.kids(p) {
			if k.IsNamed() {
				x.bindPattern(k)
			}
		}
	case "this", "":
	default:
		x.walk(p)
	}
}

// decorator records a decorator: applying it calls it.
func (x *jsExtractor) decorator(d *sitter.Node) {
	e := x.firstNamed(d)
	switch x.typ(e) {
	case "identifier", "member_expression":
		x.callee(e, x.span(d))
	default:
		x.walk(e)
	}
}

// chain returns the names of a.b.c (member expressions or nested type
// names), nil for anything else.
func (x *jsExtractor) chain(n *sitter.Node) []string {
	switch x.typ(n) {
	case "identifier", "type_identifier", "property_identifier":
		return []string{x.text(n)}
	case "member_expression":
		c := x.chain(x.field(n, "object"))
		p := x.field(n, "property")
		if c == nil || x.typ(p) != "property_identifier" {
			return nil
		}
		return append(c, x.text(p))
	case "nested_type_identifier", "nested_identifier":
		var c []string
		for _, k := range x.kids(n) {
			if k.IsNamed() {
				kc := x.chain(k)
				if kc == nil {
					return nil
				}
				c = append(c, kc...)
			}
		}
		return c
	}
	return nil
}

// chainKey returns the key a.b.c names when a is imported, or a
// module-level declaration (Client.create). A call of a module binding
// itself calls its default export.
func (x *jsExtractor) chainKey(chain []string, called bool) (string, bool) {
	if x.sites.isLocal(chain[0]) {
		return "", false
	}
	if b, ok := x.binds[chain[0]]; ok {
		if len(chain) == 1 && b.ns {
			if called {
				return b.key + ".default", true
			}
			return "", false // the module itself: the import says it
		}
		return joinDotted(b.key, chain[1:]), true
	}
	if len(chain) > 1 && x.defs[chain[0]] {
		if chain[0] == x.dflt {
			return joinDotted(x.mod+".default", chain[1:]), true
		}
		return joinDotted(x.mod, chain), true
	}
	return "", false
}

// callee records a call of a name or member chain: of an import (its
// key), of a module-level name (by name), of a class's static member
// (its key), or of a method on a value.
func (x *jsExtractor) callee(fn *sitter.Node, sp graph.Span) {
	chain := x.chain(fn)
	if chain == nil {
		if x.typ(fn) == "member_expression" {
			x.walk(x.field(fn, "object"))
			if p := x.field(fn, "property"); p != nil {
				x.sites.call("", x.text(p), "", true, sp)
			}
			return
		}
		x.walk(fn)
		return
	}
	if key, ok := x.chainKey(chain, true); ok {
		x.sites.call(chain[0], chain[len(chain)-1], key, len(chain) > 1, sp)
		return
	}
	if len(chain) == 1 {
		x.sites.call(chain[0], chain[0], "", false, sp)
		return
	}
	if chain[0] != "this" {
		x.walk(x.field(fn, "object"))
	}
	x.sites.call("", chain[len(chain)-1], "", true, sp)
}

// ref records a name used as a value or type.
func (x *jsExtractor) ref(n *sitter.Node) {
	name := x.text(n)
	key := ""
	if b, ok := x.binds[name]; ok {
		if b.ns {
			return // the module itself: the import says it
		}
		key = b.key
	}
	x.sites.ref(name, name, key, x.span(n))
}

// walk records the calls and references in code, binding the names it
// declares.
func (x *jsExtractor) walk(n *sitter.Node) {
	if n == nil {
		return
	}
	switch x.typ(n) {
	case "identifier", "type_identifier", "shorthand_property_identifier":
		x.ref(n)
	case "member_expression", "nested_type_identifier":
		if chain := x.chain(n); chain != nil {
			if b, ok := x.binds[chain[0]]; ok && !b.ns && !x.sites.isLocal(chain[0]) {
				// A member of an imported item that is not called: an
				// enum member or static field, which are not items.
				x.sites.ref(chain[0], chain[0], b.key, x.span(n))
				return
			}
			if key, ok := x.chainKey(chain, false); ok {
				x.sites.ref(chain[0], chain[len(chain)-1], key, x.span(n))
				return
			}
		}
		x.walk(x.field(n, "object"))
		if x.typ(n) == "nested_type_identifier" {
			x.walk(x.field(n, "module"))
		}
	case "call_expression":
		if spec, ok := x.requireSpec(n); ok {
			target, _ := x.resolveSpec(spec)
			x.r.Imports = append(x.r.Imports, Import{Path: spec, Target: target, Span: x.span(n)})
			return
		}
		fn := x.field(n, "function")
		switch x.typ(fn) {
		case "identifier", "member_expression":
			x.callee(fn, x.span(n))
		case "super", "import":
		default:
			x.walk(fn)
		}
		x.walk(x.field(n, "type_arguments"))
		x.walk(x.field(n, "arguments"))
	case "new_expression":
		c := x.field(n, "constructor")
		switch x.typ(c) {
		case "identifier", "member_expression":
			x.callee(c, x.span(n))
		default:
			x.walk(c)
		}
		x.walk(x.field(n, "type_arguments"))
		x.walk(x.field(n, "arguments"))
	case "jsx_opening_element", "jsx_self_closing_element":
		name := x.field(n, "name")
		switch x.typ(name) {
		case "identifier":
			if isUpper(x.text(name)) {
				x.callee(name, x.span(n))
			}
		case "member_expression", "nested_identifier":
			x.callee(name, x.span(n))
		}
		for _, k := range x.kids(n) {
			if x.typ(k) == "jsx_attribute" || x.typ(k) == "jsx_expression" {
				x.walk(k)
			}
		}
	case "jsx_attribute":
		for _, k := range x.kids(n) {
			if t := x.typ(k); t != "property_identifier" && t != "jsx_namespace_name" && k.IsNamed() {
				x.walk(k)
			}
		}
	case "variable_declarator":
		if x.requireBinding(n) {
			x.walk(x.field(n, "value"))
			return
		}
		x.walk(x.field(n, "type"))
		x.walk(x.field(n, "value"))
		x.bindPattern(x.field(n, "name"))
	case "arrow_function", "function_expression", "function", "generator_function":
		x.sites.bind(x.text(x.field(n, "name")))
		x.function(n)
	case "function_declaration", "generator_function_declaration":
		x.sites.bind(x.text(x.field(n, "name")))
		x.function(n)
	case "method_definition":
		x.function(n)
	case "class_declaration", "class":
		x.sites.bind(x.text(x.field(n, "name")))
		for _, k := range x.kids(n) {
			if k.IsNamed() && x.typ(k) != "type_identifier" && x.typ(k) != "identifier" {
				x.walk(k)
			}
		}
	case "formal_parameters":
		x.params(n)
	case "type_parameters":
		x.typeParams(n)
	case "catch_clause":
		x.bindPattern(x.field(n, "parameter"))
		x.walk(x.field(n, "type"))
		x.walk(x.field(n, "body"))
	case "for_in_statement":
		if x.field(n, "kind") != nil {
			x.bindPattern(x.field(n, "left"))
		} else {
			x.walk(x.field(n, "left"))
		}
		x.walk(x.field(n, "right"))
		x.walk(x.field(n, "body"))
	case "pair":
		if k := x.field(n, "key"); x.typ(k) == "computed_property_name" {
			x.walk(k)
		}
		x.walk(x.field(n, "value"))
	case "labeled_statement":
		x.walk(x.field(n, "body"))
	case "import_statement":
		x.importStmt(n)
	case "decorator":
		x.decorator(n)
	case "property_identifier", "private_property_identifier", "statement_identifier", "string", "number", "regex",
		"comment", "this", "super", "true", "false", "null", "undefined", "predefined_type", "jsx_text",
		"jsx_closing_element", "literal_type", "accessibility_modifier", "break_statement", "continue_statement":
	default:
		for _, k := range x.kids(n) {
			if k.IsNamed() {
				x.walk(k)
			}
		}
	}
}

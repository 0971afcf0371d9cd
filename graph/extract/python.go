package extract

import (
	"path"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"

	"github.com/ctx-dev/ctx/graph"
)

// Python reads Python with tree-sitter-python. Keys are dotted module
// paths and names: "pkg.mod.Class.method". A file is its own unit.
type pythonLang struct{}

var pythonGrammar = newTSGrammar(python.GetLanguage)

func init() { Register(pythonLang{}) }

func (pythonLang) Name() string         { return "python" }
func (pythonLang) Extensions() []string { return []string{".py", ".pyi"} }

// Module names a file by its dotted module path: the directories above it
// that are packages (have an __init__.py), up to the first that is not,
// then its name; a package's __init__.py is the package itself. A file
// outside packages is a top-level module of its own name. The src/ of a
// src layout is never part of the name.
func (pythonLang) Module(p Project, file string) ModuleInfo {
	dir := path.Dir(file)
	pkg := p.Memo("python:package:"+dir, func() any { return pyPackage(p, dir) }).([]string)
	stem := strings.TrimSuffix(strings.TrimSuffix(path.Base(file), ".pyi"), ".py")
	parts := pkg
	if stem != "__init__" || len(pkg) == 0 {
		parts = append(pkg[:len(pkg):len(pkg)], stem)
	}
	return ModuleInfo{Module: Node{Kind: graph.NodeModule, Key: strings.Join(parts, ".")}, Unit: file}
}

// pyPackage returns the dotted package a directory is, nil for none.
func pyPackage(p Project, dir string) []string {
	var parts []string
	for d := dir; d != "." && d != "/" && d != ""; d = path.Dir(d) {
		if !p.Exists(d+"/__init__.py") && !p.Exists(d+"/__init__.pyi") {
			break
		}
		parts = append([]string{path.Base(d)}, parts...)
	}
	if len(parts) > 0 && parts[0] == "src" {
		parts = parts[1:]
	}
	return parts
}

func (pythonLang) Extract(f *File) (*Result, error) {
	t, err := pythonGrammar.parse(f.Src)
	if err != nil {
		return nil, err
	}
	defer t.close()
	r := &Result{Path: f.Path, Language: "python", Module: f.Module, Sep: ".", SyntaxErrors: t.errors()}
	mod := f.Module.Key
	if mod == "" {
		mod = strings.TrimSuffix(strings.TrimSuffix(path.Base(f.Path), ".pyi"), ".py")
		r.Module = Node{Kind: graph.NodeModule, Key: mod}
	}
	x := &pyExtractor{tsTree: t, r: r, proj: f.Project, mod: mod, imports: map[string]string{}, items: map[string]bool{}, defs: map[string]bool{}, sites: tsSites{r: r}}
	// The package relative imports start from, and the directory the
	// top package is in (where absolute imports are looked up).
	init := strings.HasPrefix(path.Base(f.Path), "__init__.")
	depth := strings.Count(mod, ".")
	x.pkg = mod
	if !init {
		x.pkg = pyParent(mod)
	} else {
		depth++
	}
	x.root = path.Dir(f.Path)
	for ; depth > 0 && x.root != "."; depth-- {
		x.root = path.Dir(x.root)
	}
	stmts := x.kids(t.root)
	x.sites.begin("")
	x.prescan(stmts)
	x.block(stmts, "")
	x.sites.end()
	tsFinish(r)
	return r, nil
}

// pyParent drops a dotted name's last part.
func pyParent(s string) string {
	if i := strings.LastIndex(s, "."); i >= 0 {
		return s[:i]
	}
	return ""
}

type pyExtractor struct {
	*tsTree
	r       *Result
	proj    Project
	mod     string
	pkg     string            // the package of the module: where . imports from
	root    string            // directory of the top package (the import root)
	imports map[string]string // local name → key it imports
	items   map[string]bool   // local names imported that are items, not modules
	defs    map[string]bool   // module-level functions and classes
	sites   tsSites
}

// prescan reads the module level's imports (in any if or try) and the
// names of its functions and classes before the bodies that use them.
func (x *pyExtractor) prescan(stmts []*sitter.Node) {
	for _, s := range stmts {
		switch x.typ(s) {
		case "import_statement", "import_from_statement", "future_import_statement":
			x.importStmt(s)
		case "function_definition", "class_definition":
			x.defs[x.text(x.field(s, "name"))] = true
		case "decorated_definition":
			x.defs[x.text(x.field(x.field(s, "definition"), "name"))] = true
		case "if_statement", "try_statement", "with_statement", "else_clause", "elif_clause", "except_clause",
			"finally_clause", "block":
			x.prescan(x.kids(s))
		}
	}
}

// block reads statements at module level (owner "") or in a class body
// (owner its key): definitions there are items.
func (x *pyExtractor) block(stmts []*sitter.Node, owner string) {
	for _, s := range stmts {
		switch x.typ(s) {
		case "function_definition", "class_definition":
			x.definition(s, s, nil, owner)
		case "decorated_definition":
			var decos []*sitter.Node
			for _, k := range x.kids(s) {
				if x.typ(k) == "decorator" {
					decos = append(decos, k)
				}
			}
			if def := x.field(s, "definition"); def != nil {
				x.definition(def, s, decos, owner)
			}
		case "import_statement", "import_from_statement", "future_import_statement":
			if owner != "" {
				x.importStmt(s)
			}
		case "expression_statement":
			if owner == "" && x.assignment(s) {
				continue
			}
			x.walk(s)
		case "type_alias_statement":
			if owner == "" {
				x.typeAlias(s)
				continue
			}
			x.walk(s)
		case "if_statement", "try_statement", "with_statement", "else_clause", "elif_clause", "except_clause",
			"finally_clause", "for_statement", "while_statement", "block", "ERROR":
			// Definitions under an if, a try or a with are still the
			// module's (or class's); the rest is code.
			for _, k := range x.kids(s) {
				switch x.typ(k) {
				case "block", "else_clause", "elif_clause", "except_clause", "finally_clause",
					"function_definition", "class_definition", "decorated_definition", "expression_statement":
					x.block([]*sitter.Node{k}, owner)
				case "as_pattern":
					x.walk(x.firstNamed(k))
				default:
					if k.IsNamed() {
						x.walk(k)
					}
				}
			}
		case "comment":
		default:
			x.walk(s)
		}
	}
}

func (x *pyExtractor) firstNamed(n *sitter.Node) *sitter.Node {
	for _, k := range x.kids(n) {
		if k.IsNamed() {
			return k
		}
	}
	return nil
}

// pyVisibility: a leading underscore is private by convention, except
// for the dunder names Python itself calls.
func pyVisibility(name string) Visibility {
	if strings.HasPrefix(name, "_") && !(strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__")) {
		return Private
	}
	return Public
}

// pyConstName tells an UPPER_CASE name, a constant by convention.
func pyConstName(name string) bool {
	letter := false
	for _, c := range name {
		switch {
		case c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9' || c == '_':
		default:
			return false
		}
	}
	return letter
}

// definition reads a def or class (n) whose declaration, decorators
// included, is outer.
func (x *pyExtractor) definition(n, outer *sitter.Node, decos []*sitter.Node, owner string) {
	name := x.text(x.field(n, "name"))
	if name == "" {
		x.walk(n)
		return
	}
	prefix := x.mod
	if owner != "" {
		prefix = owner
	}
	key := prefix + "." + name
	body := x.field(n, "body")
	it := Item{Name: name, Key: key, Parent: owner, Visibility: pyVisibility(name), Span: x.span(outer),
		Signature: strings.TrimSuffix(Collapse(x.between(outer, body)), ":"), Doc: x.docstring(body)}
	if x.typ(n) == "class_definition" {
		it.Kind = Class
		x.r.Items = append(x.r.Items, it)
		x.sites.begin(key)
		for _, d := range decos {
			x.decorator(d)
		}
		x.bases(x.field(n, "superclasses"), key)
		x.block(x.kids(body), key)
		x.sites.end()
		return
	}
	it.Kind = Function
	if owner != "" {
		it.Kind = Method
	}
	x.r.Items = append(x.r.Items, it)
	x.sites.begin(key)
	for _, d := range decos {
		x.decorator(d)
	}
	x.function(n)
	x.sites.end()
}

// function reads a function's parameters, result and body into the
// current body.
func (x *pyExtractor) function(n *sitter.Node) {
	x.params(x.field(n, "parameters"))
	x.walk(x.field(n, "return_type"))
	x.walk(x.field(n, "body"))
}

// decorator records a decorator: applying it calls it.
func (x *pyExtractor) decorator(d *sitter.Node) {
	e := x.firstNamed(d)
	switch x.typ(e) {
	case "identifier", "attribute":
		x.callee(e, x.span(d))
	default:
		x.walk(e)
	}
}

// bases records a class's base classes as implementations.
func (x *pyExtractor) bases(list *sitter.Node, key string) {
	for _, b := range x.kids(list) {
		switch x.typ(b) {
		case "identifier", "attribute":
			x.base(b, b, key)
		case "subscript": // Generic[T]
			x.base(x.field(b, "value"), b, key)
			for _, k := range x.kids(b) {
				if k.IsNamed() && !same(k, x.field(b, "value")) {
					x.walk(k)
				}
			}
		case "keyword_argument":
			x.walk(x.field(b, "value"))
		default:
			if b.IsNamed() {
				x.walk(b)
			}
		}
	}
}

func (x *pyExtractor) base(b, site *sitter.Node, key string) {
	chain := x.chain(b)
	if len(chain) == 0 || len(chain) == 1 && chain[0] == "object" {
		return
	}
	im := Implementation{Type: key, Name: chain[len(chain)-1], Span: x.span(site)}
	if k, ok := x.chainKey(chain); ok {
		im.Key = k
	} else if len(chain) > 1 {
		return // a base through a value: nothing tells what it is
	}
	x.r.Impls = append(x.r.Impls, im)
}

// chain returns the names of a.b.c, nil for anything else.
func (x *pyExtractor) chain(n *sitter.Node) []string {
	switch x.typ(n) {
	case "identifier":
		return []string{x.text(n)}
	case "attribute":
		c := x.chain(x.field(n, "object"))
		if c == nil {
			return nil
		}
		return append(c, x.text(x.field(n, "attribute")))
	}
	return nil
}

// chainKey returns the key a.b.c names when a is imported or defined at
// module level (a class's attribute: Client.create).
func (x *pyExtractor) chainKey(chain []string) (string, bool) {
	if x.sites.isLocal(chain[0]) {
		return "", false
	}
	if k, ok := x.imports[chain[0]]; ok {
		return joinDotted(k, chain[1:]), true
	}
	if len(chain) > 1 && x.defs[chain[0]] {
		return joinDotted(x.mod, chain), true
	}
	return "", false
}

func joinDotted(base string, names []string) string {
	if len(names) == 0 {
		return base
	}
	return base + "." + strings.Join(names, ".")
}

// docstring returns a body's docstring, cleaned as inspect.cleandoc does.
func (x *pyExtractor) docstring(body *sitter.Node) string {
	var first *sitter.Node
	for _, k := range x.kids(body) {
		if t := x.typ(k); t != "comment" {
			first = k
			break
		}
	}
	if x.typ(first) != "expression_statement" {
		return ""
	}
	s := x.firstNamed(first)
	if x.typ(s) != "string" {
		return ""
	}
	return pyCleanDoc(x.text(s))
}

// pyCleanDoc strips a string literal's prefix and quotes and the
// docstring's indentation.
func pyCleanDoc(s string) string {
	s = strings.TrimLeft(s, "rRuUbBfF")
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if strings.HasPrefix(s, q) && strings.HasSuffix(s, q) && len(s) >= 2*len(q) {
			s = s[len(q) : len(s)-len(q)]
			break
		}
	}
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	indent := -1
	for _, l := range lines[1:] {
		if t := strings.TrimLeft(l, " \t"); t != "" {
			if n := len(l) - len(t); indent < 0 || n < indent {
				indent = n
			}
		}
	}
	lines[0] = strings.TrimSpace(lines[0])
	for i := 1; i < len(lines); i++ {
		if indent > 0 && len(lines[i]) >= indent {
			lines[i] = lines[i][indent:]
		}
		lines[i] = strings.TrimRight(lines[i], " \t")
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// assignment reads a module-level assignment into items (UPPER_CASE
// names are constants); false if the statement is not one.
func (x *pyExtractor) assignment(stmt *sitter.Node) bool {
	a := x.firstNamed(stmt)
	if x.typ(a) != "assignment" {
		return false
	}
	// a = b = 1 chains assignments through right.
	var targets []*sitter.Node
	var value, typ *sitter.Node
	for n := a; x.typ(n) == "assignment"; n = x.field(n, "right") {
		targets = append(targets, x.field(n, "left"))
		typ = x.field(n, "type")
		value = x.field(n, "right")
		if x.typ(value) != "assignment" {
			break
		}
	}
	var names []*sitter.Node
	var others []*sitter.Node
	for _, t := range targets {
		x.targetNames(t, &names, &others)
	}
	if len(names) == 0 {
		return false
	}
	owner := ""
	for _, n := range names {
		name := x.text(n)
		kind := Var
		if pyConstName(name) {
			kind = Const
		}
		key := x.mod + "." + name
		if owner == "" {
			owner = key
		}
		x.r.Items = append(x.r.Items, Item{Kind: kind, Name: name, Key: key, Visibility: pyVisibility(name), Span: x.span(stmt),
			Signature: Collapse(x.text(stmt))})
	}
	x.sites.begin(owner)
	for _, o := range others {
		x.walk(o)
	}
	x.walk(typ)
	x.walk(value)
	x.sites.end()
	return true
}

// targetNames collects the names an assignment target binds; attributes
// and subscripts assigned to are code.
func (x *pyExtractor) targetNames(t *sitter.Node, names, others *[]*sitter.Node) {
	switch x.typ(t) {
	case "identifier":
		if t.EndByte() > t.StartByte() { // not a MISSING one
			*names = append(*names, t)
		}
	case "pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "list_splat_pattern", "parenthesized_expression":
		for _, k := range x.kids(t) {
			if k.IsNamed() {
				x.targetNames(k, names, others)
			}
		}
	default:
		if t != nil {
			*others = append(*others, t)
		}
	}
}

// typeAlias reads a module-level type X = … (Python 3.12).
func (x *pyExtractor) typeAlias(s *sitter.Node) {
	var parts []*sitter.Node
	for _, k := range x.kids(s) {
		if x.typ(k) == "type" && k.IsNamed() { // not the keyword
			parts = append(parts, k)
		}
	}
	if len(parts) == 0 {
		return
	}
	name := x.text(parts[0])
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	if name == "" {
		return
	}
	key := x.mod + "." + name
	x.r.Items = append(x.r.Items, Item{Kind: Type, Name: name, Key: key, Visibility: pyVisibility(name), Span: x.span(s),
		Signature: Collapse(x.text(s))})
	x.sites.begin(key)
	for _, p := range parts[1:] {
		x.walk(p)
	}
	x.sites.end()
}

// importStmt records an import statement and the names it binds.
func (x *pyExtractor) importStmt(s *sitter.Node) {
	switch x.typ(s) {
	case "import_statement":
		for _, k := range x.kids(s) {
			var name, alias *sitter.Node
			switch x.typ(k) {
			case "dotted_name":
				name = k
			case "aliased_import":
				name, alias = x.field(k, "name"), x.field(k, "alias")
			default:
				continue
			}
			mod := x.dotted(name)
			if mod == "" {
				continue
			}
			imp := Import{Path: mod, Target: Node{Kind: graph.NodeModule, Key: mod}, Span: x.span(k)}
			if alias != nil {
				imp.Alias = x.text(alias)
				x.imports[imp.Alias] = mod
			} else {
				// import a.b binds a.
				first, _, _ := strings.Cut(mod, ".")
				x.imports[first] = first
			}
			x.r.Imports = append(x.r.Imports, imp)
		}
	case "import_from_statement":
		mn := x.field(s, "module_name")
		written := x.text(mn)
		from := x.fromModule(mn)
		if from == "" || from == "__future__" {
			return
		}
		relativeOnly := strings.Trim(written, ".") == ""
		for _, k := range x.kids(s) {
			if same(k, mn) {
				continue
			}
			var name, alias *sitter.Node
			switch x.typ(k) {
			case "wildcard_import":
				x.r.Imports = append(x.r.Imports, Import{Path: written, Target: Node{Kind: graph.NodeModule, Key: from}, Span: x.span(s)})
				continue
			case "dotted_name":
				name = k
			case "aliased_import":
				name, alias = x.field(k, "name"), x.field(k, "alias")
			default:
				continue
			}
			n := x.dotted(name)
			if n == "" {
				continue
			}
			key := from + "." + n
			path := written + n
			if !strings.HasSuffix(written, ".") {
				path = written + "." + n
			}
			target := Node{Kind: graph.NodeItem, Key: key}
			if x.isModule(key, relativeOnly) {
				target.Kind = graph.NodeModule
			}
			imp := Import{Path: path, Target: target, Span: x.span(k)}
			local := n
			if alias != nil {
				imp.Alias = x.text(alias)
				local = imp.Alias
			}
			x.imports[local] = key
			x.items[local] = target.Kind == graph.NodeItem
			x.r.Imports = append(x.r.Imports, imp)
		}
	}
}

// dotted returns a dotted_name's text without white space.
func (x *pyExtractor) dotted(n *sitter.Node) string {
	return strings.Join(strings.Fields(x.text(n)), "")
}

// fromModule resolves the module of a from-import: .x against the
// module's package, ..x against its parent.
func (x *pyExtractor) fromModule(mn *sitter.Node) string {
	if x.typ(mn) != "relative_import" {
		return x.dotted(mn)
	}
	written := x.dotted(mn)
	rest := strings.TrimLeft(written, ".")
	level := len(written) - len(rest)
	base := x.pkg
	for i := 1; i < level; i++ {
		base = pyParent(base)
	}
	switch {
	case base == "":
		return rest
	case rest == "":
		return base
	}
	return base + "." + rest
}

// isModule tells whether from m import x imported a module: with the
// project, whether m/x.py or m/x/__init__.py exists below the import
// root; without, a bare relative import (from . import x) is taken for
// one.
func (x *pyExtractor) isModule(key string, relativeOnly bool) bool {
	if x.proj == nil {
		return relativeOnly
	}
	rel := strings.ReplaceAll(key, ".", "/")
	if x.root != "." {
		rel = x.root + "/" + rel
	}
	return tsExists(x.proj, rel+".py") || tsExists(x.proj, rel+"/__init__.py") || tsExists(x.proj, rel+".pyi")
}

// params binds a function's (or lambda's) parameters; their annotations
// and defaults are code.
func (x *pyExtractor) params(ps *sitter.Node) {
	for _, p := range x.kids(ps) {
		switch x.typ(p) {
		case "identifier":
			x.sites.bind(x.text(p))
		case "typed_parameter":
			for _, k := range x.kids(p) {
				switch x.typ(k) {
				case "identifier":
					x.sites.bind(x.text(k))
				case "list_splat_pattern", "dictionary_splat_pattern":
					x.bindTarget(k)
				}
			}
			x.walk(x.field(p, "type"))
		case "default_parameter", "typed_default_parameter":
			x.bindTarget(x.field(p, "name"))
			x.walk(x.field(p, "type"))
			x.walk(x.field(p, "value"))
		case "list_splat_pattern", "dictionary_splat_pattern", "tuple_pattern":
			x.bindTarget(p)
		}
	}
}

// bindTarget binds the names an assignment or loop target declares; an
// attribute or subscript target is code.
func (x *pyExtractor) bindTarget(t *sitter.Node) {
	switch x.typ(t) {
	case "identifier":
		x.sites.bind(x.text(t))
	case "pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "list_splat_pattern",
		"dictionary_splat_pattern", "parenthesized_expression", "as_pattern_target":
		for _, k := range x.kids(t) {
			if k.IsNamed() {
				x.bindTarget(k)
			}
		}
	default:
		x.walk(t)
	}
}

// walk records the calls and references in code, binding the names it
// assigns: a name assigned anywhere in a function is local to all of it.
func (x *pyExtractor) walk(n *sitter.Node) {
	if n == nil {
		return
	}
	switch x.typ(n) {
	case "identifier":
		name := x.text(n)
		x.sites.ref(name, name, x.imports[name], x.span(n))
	case "attribute":
		chain := x.chain(n)
		if chain != nil {
			if k, ok := x.imports[chain[0]]; ok && x.items[chain[0]] && !x.sites.isLocal(chain[0]) {
				// An attribute of an imported class that is not called
				// (Color.RED): attributes are not items.
				x.sites.ref(chain[0], chain[0], k, x.span(n))
				return
			}
			if key, ok := x.chainKey(chain); ok {
				x.sites.ref(chain[0], chain[len(chain)-1], key, x.span(n))
				return
			}
		}
		x.walk(x.field(n, "object"))
	case "call":
		fn := x.field(n, "function")
		switch x.typ(fn) {
		case "identifier", "attribute":
			x.callee(fn, x.span(n))
		default:
			x.walk(fn)
		}
		x.walk(x.field(n, "arguments"))
	case "keyword_argument":
		x.walk(x.field(n, "value"))
	case "assignment":
		x.walk(x.field(n, "right"))
		x.walk(x.field(n, "type"))
		x.bindTarget(x.field(n, "left"))
	case "augmented_assignment":
		// x += 1 reads x too (a global's, with global x).
		x.walk(x.field(n, "left"))
		x.walk(x.field(n, "right"))
		x.bindTarget(x.field(n, "left"))
	case "named_expression":
		x.walk(x.field(n, "value"))
		x.sites.bind(x.text(x.field(n, "name")))
	case "for_statement", "for_in_clause":
		x.bindTarget(x.field(n, "left"))
		for _, k := range x.kids(n) {
			if k.IsNamed() && !same(k, x.field(n, "left")) {
				x.walk(k)
			}
		}
	case "as_pattern":
		// with a as b, except E as e.
		for _, k := range x.kids(n) {
			if x.typ(k) == "as_pattern_target" {
				x.bindTarget(k)
			} else if k.IsNamed() {
				x.walk(k)
			}
		}
	case "lambda":
		x.params(x.field(n, "parameters"))
		x.walk(x.field(n, "body"))
	case "function_definition":
		// A function inside a body: its name is local, its code the item's.
		x.sites.bind(x.text(x.field(n, "name")))
		x.function(n)
	case "class_definition":
		x.sites.bind(x.text(x.field(n, "name")))
		x.walk(x.field(n, "superclasses"))
		x.walk(x.field(n, "body"))
	case "decorated_definition":
		for _, k := range x.kids(n) {
			if x.typ(k) == "decorator" {
				x.decorator(k)
			}
		}
		x.walk(x.field(n, "definition"))
	case "global_statement", "nonlocal_statement":
		for _, k := range x.kids(n) {
			if x.typ(k) == "identifier" {
				x.sites.global(x.text(k))
			}
		}
	case "import_statement", "import_from_statement":
		x.importStmt(n)
	case "string":
		for _, k := range x.kids(n) {
			if x.typ(k) == "interpolation" {
				x.walk(x.field(k, "expression"))
			}
		}
	case "case_pattern":
		x.casePattern(n)
	case "comment", "integer", "float", "true", "false", "none", "escape_sequence", "future_import_statement",
		"pass_statement", "break_statement", "continue_statement", "dotted_name":
	default:
		for _, k := range x.kids(n) {
			if k.IsNamed() {
				x.walk(k)
			}
		}
	}
}

// casePattern binds a match case's capture names; class patterns and
// dotted values are references.
func (x *pyExtractor) casePattern(n *sitter.Node) {
	switch x.typ(n) {
	case "class_pattern":
		for _, k := range x.kids(n) {
			if x.typ(k) == "dotted_name" {
				x.walkDotted(k)
			} else if k.IsNamed() {
				x.casePattern(k)
			}
		}
	case "keyword_pattern":
		first := true
		for _, k := range x.kids(n) {
			if !k.IsNamed() {
				continue
			}
			if !first {
				x.casePattern(k)
			}
			first = false
		}
	case "dotted_name":
		if x.text(n) == x.text(x.firstNamed(n)) {
			x.sites.bind(x.text(n)) // a capture
		} else {
			x.walkDotted(n)
		}
	case "identifier":
		x.sites.bind(x.text(n))
	default:
		for _, k := range x.kids(n) {
			if k.IsNamed() {
				x.casePattern(k)
			}
		}
	}
}

// walkDotted records a dotted name used as a value (Color.RED).
func (x *pyExtractor) walkDotted(n *sitter.Node) {
	var chain []string
	var first *sitter.Node
	for _, k := range x.kids(n) {
		if x.typ(k) == "identifier" {
			if first == nil {
				first = k
			}
			chain = append(chain, x.text(k))
		}
	}
	if len(chain) == 0 {
		return
	}
	if key, ok := x.chainKey(chain); ok {
		x.sites.ref(chain[0], chain[len(chain)-1], key, x.span(n))
		return
	}
	x.walk(first)
}

// callee records a call of a name or attribute chain: of an imported name
// (its key), of a module-level name (by name), of a class's attribute
// (Client.create: its key), or a method on a value (self.send()).
func (x *pyExtractor) callee(fn *sitter.Node, sp graph.Span) {
	if x.typ(fn) == "identifier" {
		name := x.text(fn)
		x.sites.call(name, name, x.imports[name], false, sp)
		return
	}
	chain := x.chain(fn)
	if chain == nil {
		x.walk(x.field(fn, "object"))
		x.sites.call("", x.text(x.field(fn, "attribute")), "", true, sp)
		return
	}
	if key, ok := x.chainKey(chain); ok {
		x.sites.call(chain[0], chain[len(chain)-1], key, true, sp)
		return
	}
	if chain[0] != "self" && chain[0] != "cls" {
		x.walk(x.field(fn, "object"))
	}
	x.sites.call("", chain[len(chain)-1], "", true, sp)
}

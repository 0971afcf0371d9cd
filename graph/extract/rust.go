package extract

import (
	"path"
	"strings"

	"github.com/BurntSushi/toml"
	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/rust"

	"github.com/ctx-dev/ctx/graph"
)

// Rust reads Rust with tree-sitter-rust. Keys are module paths that start
// with the crate's name: "core::net::client::Client::connect". A file is
// its own unit: its module's other files are other modules.
type rustLang struct{}

var rustGrammar = newTSGrammar(rust.GetLanguage)

func init() { Register(rustLang{}) }

func (rustLang) Name() string         { return "rust" }
func (rustLang) Extensions() []string { return []string{".rs"} }

// rustCrate is the package a Cargo.toml declares.
type rustCrate struct {
	dir    string // the directory of Cargo.toml, "." at the root
	bin    string // the crate name of src/main.rs: the package name, - as _
	lib    string // the crate name of src/lib.rs: [lib] name, else bin
	hasLib bool   // whether src/lib.rs exists: then src/ is the library's
}

// Module finds the crate from the nearest Cargo.toml with a [package] and
// the module path from the file's place in it, as Cargo lays targets out:
// src/lib.rs and src/main.rs are crate roots ("core"), src/a/mod.rs is
// core::a and src/a/b.rs core::a::b; src/bin/x.rs, tests/x.rs,
// examples/x.rs and benches/x.rs are crates of their own ("x"), as are
// the directories src/bin/x/ and tests/x/ with a main.rs. Without a
// Cargo.toml the path gives the module path.
func (rustLang) Module(p Project, file string) ModuleInfo {
	c := rustCrateOf(p, path.Dir(file))
	return ModuleInfo{Module: Node{Kind: graph.NodeModule, Key: rustModulePath(c, file)}, Unit: file}
}

func rustCrateOf(p Project, dir string) *rustCrate {
	return p.Memo("rust:crate:"+dir, func() any {
		manifest := "Cargo.toml"
		if dir != "." {
			manifest = dir + "/Cargo.toml"
		}
		if data, err := p.ReadFile(manifest); err == nil {
			if c := parseCargo(data); c != nil {
				c.dir = dir
				c.hasLib = p.Exists(path.Join(dir, "src/lib.rs"))
				return c
			}
		}
		if dir == "." || dir == "/" || dir == "" {
			return (*rustCrate)(nil)
		}
		return rustCrateOf(p, path.Dir(dir))
	}).(*rustCrate)
}

// parseCargo reads the crate names of a Cargo.toml; nil for a workspace
// manifest without a [package] (or one that does not parse).
func parseCargo(data []byte) *rustCrate {
	var m struct {
		Package struct {
			Name string `toml:"name"`
		} `toml:"package"`
		Lib struct {
			Name string `toml:"name"`
		} `toml:"lib"`
	}
	if _, err := toml.Decode(string(data), &m); err != nil || m.Package.Name == "" {
		return nil
	}
	c := &rustCrate{bin: rustIdent(m.Package.Name)}
	c.lib = c.bin
	if m.Lib.Name != "" {
		c.lib = rustIdent(m.Lib.Name)
	}
	return c
}

// rustIdent is a package or target name as code names the crate.
func rustIdent(name string) string { return strings.ReplaceAll(name, "-", "_") }

func rustModulePath(c *rustCrate, file string) string {
	rel := strings.TrimSuffix(file, ".rs")
	if c == nil {
		parts := strings.Split(rel, "/")
		// Without a manifest, the directory above src/ names the crate.
		for i := len(parts) - 2; i >= 0; i-- {
			if parts[i] == "src" {
				crate := "crate"
				if i > 0 {
					crate = rustIdent(parts[i-1])
				}
				return rustJoin(crate, parts[i+1:])
			}
		}
		return rustJoin(rustIdent(parts[0]), parts[1:])
	}
	if c.dir != "." {
		rel = strings.TrimPrefix(rel, c.dir+"/")
	}
	parts := strings.Split(rel, "/")
	switch {
	case len(parts) == 2 && parts[0] == "src" && parts[1] == "lib":
		return c.lib
	case len(parts) == 2 && parts[0] == "src" && parts[1] == "main":
		return c.bin
	case len(parts) >= 3 && parts[0] == "src" && parts[1] == "bin":
		return rustTarget(parts[2:])
	case parts[0] == "src":
		if c.hasLib {
			return rustJoin(c.lib, parts[1:])
		}
		return rustJoin(c.bin, parts[1:])
	case len(parts) >= 2 && (parts[0] == "tests" || parts[0] == "examples" || parts[0] == "benches"):
		return rustTarget(parts[1:])
	case len(parts) == 1 && parts[0] == "build":
		return "build_script_build" // Cargo's name for the build script
	}
	return rustJoin(c.lib, parts)
}

// rustTarget is the module path of a file of a target of its own: x.rs or
// x/main.rs is the crate x, x/y.rs its module x::y.
func rustTarget(parts []string) string {
	if len(parts) == 2 && parts[1] == "main" {
		parts = parts[:1]
	}
	return rustJoin(rustIdent(parts[0]), parts[1:])
}

// rustJoin joins a crate and the file path below its root: a/mod is a.
func rustJoin(crate string, parts []string) string {
	if n := len(parts); n > 0 && (parts[n-1] == "mod" || parts[n-1] == "lib" || parts[n-1] == "main") {
		parts = parts[:n-1]
	}
	if len(parts) == 0 {
		return crate
	}
	return crate + "::" + strings.Join(parts, "::")
}

func (rustLang) Extract(f *File) (*Result, error) {
	t, err := rustGrammar.parse(f.Src)
	if err != nil {
		return nil, err
	}
	defer t.close()
	r := &Result{Path: f.Path, Language: "rust", Module: f.Module, Sep: "::", SyntaxErrors: t.errors()}
	mod := f.Module.Key
	if mod == "" {
		mod = "crate"
		r.Module = Node{Kind: graph.NodeModule, Key: mod}
	}
	crate, _, _ := strings.Cut(mod, "::")
	x := &rustExtractor{tsTree: t, r: r, proj: f.Project, crate: crate, uses: map[string]string{}, sites: tsSites{r: r}}
	if x.proj != nil {
		// The directory of the crate root's modules: the file's, up one
		// level per module below the root (a/b.rs is in a/, a/mod.rs too).
		up := strings.Count(mod, "::")
		if b := path.Base(f.Path); b != "mod.rs" && up > 0 {
			up--
		}
		x.root = path.Dir(f.Path)
		for ; up > 0; up-- {
			x.root = path.Dir(x.root)
		}
	}
	x.sites.begin("")
	x.module(t.root, mod, "")
	x.sites.end()
	tsFinish(r)
	return r, nil
}

type rustExtractor struct {
	*tsTree
	r     *Result
	proj  Project
	crate string
	root  string            // directory of the crate root's module files, with proj
	uses  map[string]string // local name → key it imports (file-wide)
	sites tsSites
	mods  []*rustMod // the module being read: the file's, or inline ones
}

// rustMod is a module being read: its key and the names declared at its
// top level, which its code uses unqualified.
type rustMod struct {
	key    string
	names  map[string]bool // items, inline modules included
	inline map[string]bool // inline modules (items) by key
	subs   map[string]bool // modules declared by mod x; (files) by key
	globs  []string        // modules it imports with use m::*
}

// rustOwner is the item a declaration list belongs to: an inline module
// (key, kind Module), a trait or an impl's type.
type rustOwner struct {
	key      string
	kind     ItemKind // Module, Trait or Impl; "" for the file
	vis      Visibility
	trait    bool     // an impl of a trait: its items are as public as the trait
	generics []string // the impl's or trait's type parameters
	self     string   // the key Self names, in an impl
	selfName string   // its name
}

func (x *rustExtractor) mod() *rustMod { return x.mods[len(x.mods)-1] }

// module reads a module's declaration list (the file, or an inline mod's
// body) whose key is key; parent is the inline mod's item key.
func (x *rustExtractor) module(list *sitter.Node, key, parent string) {
	m := &rustMod{key: key, names: map[string]bool{}, inline: map[string]bool{}, subs: map[string]bool{}}
	x.mods = append(x.mods, m)
	kids := x.kids(list)
	// Names and uses first: Rust code may use what is declared below it.
	for _, k := range kids {
		switch x.typ(k) {
		case "function_item", "struct_item", "union_item", "enum_item", "trait_item", "type_item",
			"const_item", "static_item", "macro_definition":
			m.names[x.text(x.field(k, "name"))] = true
		case "mod_item":
			name := x.text(x.field(k, "name"))
			m.names[name] = true
			if x.field(k, "body") != nil {
				m.inline[key+"::"+name] = true
			} else {
				m.subs[key+"::"+name] = true
			}
		}
	}
	for _, k := range kids {
		switch x.typ(k) {
		case "use_declaration":
			x.use(k)
		case "extern_crate_declaration":
			x.externCrate(k)
		}
	}
	x.decls(kids, rustOwner{key: parent, kind: Module})
	x.mods = x.mods[:len(x.mods)-1]
}

// decls reads the declarations of a module, trait or impl body, with the
// doc comments and attributes before each.
func (x *rustExtractor) decls(kids []*sitter.Node, owner rustOwner) {
	var docs []string
	exported := false
	for _, k := range kids {
		switch x.typ(k) {
		case "line_comment", "block_comment":
			if doc, outer := rustDoc(x.text(k)); outer {
				docs = append(docs, doc)
			}
			continue
		case "attribute_item":
			if strings.Contains(x.text(k), "macro_export") {
				exported = true
			}
			continue
		case "ERROR":
			// Keep what parsed around a syntax error.
			x.decls(x.kids(k), owner)
		default:
			x.decl(k, strings.TrimSpace(strings.Join(docs, "\n")), exported, owner)
		}
		docs, exported = nil, false
	}
}

// rustDoc returns a comment's documentation text and whether it documents
// the next item (///, /**) rather than being inner (//!, /*!) or plain.
func rustDoc(s string) (string, bool) {
	switch {
	case strings.HasPrefix(s, "///") && !strings.HasPrefix(s, "////"):
		return strings.TrimPrefix(strings.TrimRight(s[3:], "\r\n"), " "), true
	case strings.HasPrefix(s, "/**") && !strings.HasPrefix(s, "/***") && s != "/**/":
		return cleanBlockDoc(s), true
	}
	return "", false
}

// rustInnerDoc returns an inner doc comment's text (//! or /*!), if it is one.
func rustInnerDoc(s string) (string, bool) {
	switch {
	case strings.HasPrefix(s, "//!"):
		return strings.TrimPrefix(strings.TrimRight(s[3:], "\r\n"), " "), true
	case strings.HasPrefix(s, "/*!"):
		return cleanBlockDoc(s), true
	}
	return "", false
}

// vis reads a declaration's visibility modifier.
func (x *rustExtractor) vis(n *sitter.Node) Visibility {
	for _, k := range x.kids(n) {
		if x.typ(k) != "visibility_modifier" {
			continue
		}
		switch strings.Join(strings.Fields(x.text(k)), "") {
		case "pub":
			return Public
		case "pub(self)":
			return Private
		}
		return Package // pub(crate), pub(super), pub(in path), crate
	}
	return Private
}

// itemKey is the key of a declaration named name in owner.
func (x *rustExtractor) itemKey(owner rustOwner, name string) string {
	if owner.key != "" {
		return owner.key + "::" + name
	}
	return x.mod().key + "::" + name
}

func (x *rustExtractor) add(it Item) {
	it.Signature = strings.TrimSuffix(it.Signature, ";")
	x.r.Items = append(x.r.Items, it)
}

// decl reads one declaration of a module, trait or impl.
func (x *rustExtractor) decl(n *sitter.Node, doc string, exported bool, owner rustOwner) {
	typ := x.typ(n)
	nameNode := x.field(n, "name")
	name := x.text(nameNode)
	vis := x.vis(n)
	if owner.kind == Trait || owner.trait {
		vis = owner.vis
	}
	switch typ {
	case "function_item", "function_signature_item":
		if name == "" {
			return
		}
		kind := Function
		if owner.kind == Trait || owner.kind == Impl {
			kind = Method
		}
		body := x.field(n, "body")
		key := x.itemKey(owner, name)
		x.add(Item{Kind: kind, Name: name, Key: key, Parent: owner.key, Visibility: vis, Span: x.span(n),
			Signature: Collapse(x.between(n, body)), Doc: doc})
		x.sites.begin(key)
		x.bindAll(owner.generics)
		x.function(n, owner)
		x.sites.end()
	case "struct_item", "union_item", "enum_item", "type_item", "associated_type":
		if name == "" {
			return
		}
		kind := map[string]ItemKind{"struct_item": Struct, "union_item": Struct, "enum_item": Enum}[typ]
		if kind == "" {
			kind = Type
		}
		key := x.itemKey(owner, name)
		x.add(Item{Kind: kind, Name: name, Key: key, Parent: owner.key, Visibility: vis, Span: x.span(n),
			Signature: Collapse(x.text(n)), Doc: doc})
		x.sites.begin(key)
		x.bindAll(owner.generics)
		x.generics(x.field(n, "type_parameters"))
		for _, k := range x.kids(n) {
			switch x.typ(k) {
			case "field_declaration_list", "ordered_field_declaration_list", "where_clause", "trait_bounds":
				x.walk(k, owner)
			case "enum_variant_list":
				for _, v := range x.kids(k) {
					if x.typ(v) == "enum_variant" {
						x.walk(x.field(v, "body"), owner)
						x.walk(x.field(v, "value"), owner)
					}
				}
			}
		}
		x.walk(x.field(n, "type"), owner)
		x.sites.end()
	case "const_item", "static_item":
		if name == "" {
			return
		}
		kind := Const
		if typ == "static_item" {
			kind = Static
		}
		key := x.itemKey(owner, name)
		x.add(Item{Kind: kind, Name: name, Key: key, Parent: owner.key, Visibility: vis, Span: x.span(n),
			Signature: Collapse(x.text(n)), Doc: doc})
		x.sites.begin(key)
		x.walk(x.field(n, "type"), owner)
		x.walk(x.field(n, "value"), owner)
		x.sites.end()
	case "macro_definition":
		if name == "" {
			return
		}
		// #[macro_export] puts a macro at the crate's root.
		key, v := x.itemKey(owner, name), Private
		if exported {
			key, v = x.crate+"::"+name, Public
		}
		x.add(Item{Kind: Macro, Name: name, Key: key, Parent: owner.key, Visibility: v, Span: x.span(n),
			Signature: "macro_rules! " + name, Doc: doc})
	case "trait_item":
		if name == "" {
			return
		}
		key := x.itemKey(owner, name)
		body := x.field(n, "body")
		x.add(Item{Kind: Trait, Name: name, Key: key, Parent: owner.key, Visibility: vis, Span: x.span(n),
			Signature: Collapse(x.between(n, body)), Doc: doc})
		inner := rustOwner{key: key, kind: Trait, vis: vis}
		x.sites.begin(key)
		inner.generics = x.generics(x.field(n, "type_parameters"))
		x.walk(x.field(n, "bounds"), inner)
		for _, k := range x.kids(n) {
			if x.typ(k) == "where_clause" {
				x.walk(k, inner)
			}
		}
		x.sites.end()
		x.decls(x.kids(body), inner)
	case "impl_item":
		x.impl(n, owner)
	case "mod_item":
		if name == "" {
			return
		}
		key := x.mod().key + "::" + name
		body := x.field(n, "body")
		if body == nil {
			x.r.Submodules = append(x.r.Submodules, Node{Kind: graph.NodeModule, Key: key})
			return
		}
		var docs []string
		if doc != "" {
			docs = append(docs, doc)
		}
		for _, k := range x.kids(body) {
			if t := x.typ(k); t == "line_comment" || t == "block_comment" {
				if d, ok := rustInnerDoc(x.text(k)); ok {
					docs = append(docs, d)
				}
			}
		}
		x.add(Item{Kind: Module, Name: name, Key: key, Parent: owner.key, Visibility: vis, Span: x.span(n),
			Signature: Collapse(x.between(n, body)), Doc: strings.TrimSpace(strings.Join(docs, "\n"))})
		x.module(body, key, key)
	case "foreign_mod_item":
		x.decls(x.kids(x.field(n, "body")), owner)
	case "macro_invocation":
		x.walk(n, owner)
	case "use_declaration", "extern_crate_declaration":
		if owner.kind != Module {
			x.use(n)
		}
	}
}

// function reads a function's parameters, result and body.
func (x *rustExtractor) function(n *sitter.Node, owner rustOwner) {
	x.generics(x.field(n, "type_parameters"))
	x.walk(x.field(n, "parameters"), owner)
	x.walk(x.field(n, "return_type"), owner)
	for _, k := range x.kids(n) {
		if x.typ(k) == "where_clause" {
			x.walk(k, owner)
		}
	}
	x.walk(x.field(n, "body"), owner)
}

// generics binds a declaration's type parameters (their uses name no
// item) and returns their names.
func (x *rustExtractor) generics(tp *sitter.Node) []string {
	var names []string
	for _, k := range x.kids(tp) {
		name := ""
		switch x.typ(k) {
		case "type_identifier":
			name = x.text(k)
		case "constrained_type_parameter":
			name = x.text(x.field(k, "left"))
			x.walk(x.field(k, "bounds"), rustOwner{})
		case "optional_type_parameter":
			name = x.text(x.field(k, "name"))
			x.walk(x.field(k, "default_type"), rustOwner{})
		case "const_parameter":
			name = x.text(x.field(k, "name"))
			x.walk(x.field(k, "type"), rustOwner{})
		}
		if name != "" {
			x.sites.bind(name)
			names = append(names, name)
		}
	}
	return names
}

func (x *rustExtractor) bindAll(names []string) {
	for _, n := range names {
		x.sites.bind(n)
	}
}

// impl reads an impl block: its items belong to the type (whose key is
// the type's, resolved like any path), and impl Trait for Type is an
// implementation of the trait.
func (x *rustExtractor) impl(n *sitter.Node, owner rustOwner) {
	typ := x.field(n, "type")
	trait := x.field(n, "trait")
	key, name := x.implType(typ)
	inner := rustOwner{key: key, kind: Impl, vis: Public, trait: trait != nil, self: key, selfName: name}
	x.sites.begin(key)
	inner.generics = x.generics(x.field(n, "type_parameters"))
	for _, t := range []*sitter.Node{trait, typ} {
		if t != nil && x.typ(t) == "generic_type" {
			x.walk(x.field(t, "type_arguments"), inner)
		}
	}
	for _, k := range x.kids(n) {
		if x.typ(k) == "where_clause" {
			x.walk(k, inner)
		}
	}
	x.sites.end()
	if trait != nil {
		base := trait
		if x.typ(base) == "generic_type" {
			base = x.field(base, "type")
		}
		im := Implementation{Type: key, Span: x.span(trait)}
		switch x.typ(base) {
		case "type_identifier":
			im.Name = x.text(base)
			im.Key = x.nameKey(im.Name)
		case "scoped_type_identifier":
			segs := x.pathSegs(base)
			if len(segs) > 0 {
				im.Name = segs[len(segs)-1]
				im.Key, _ = x.resolve(segs, inner)
			}
		}
		if im.Name != "" {
			x.r.Impls = append(x.r.Impls, im)
		}
	}
	x.decls(x.kids(x.field(n, "body")), inner)
}

// implType returns the key and name of an impl's type: an item of this
// module or an imported one; a type from elsewhere (u32, Vec<T>) is keyed
// under this module, which is where its impl's items are.
func (x *rustExtractor) implType(t *sitter.Node) (string, string) {
	base := t
	for {
		switch x.typ(base) {
		case "generic_type", "reference_type", "pointer_type":
			if b := x.field(base, "type"); b != nil {
				base = b
				continue
			}
		}
		break
	}
	switch x.typ(base) {
	case "type_identifier", "primitive_type":
		name := x.text(base)
		if k := x.nameKey(name); k != "" {
			return k, name
		}
		return x.mod().key + "::" + name, name
	case "scoped_type_identifier":
		segs := x.pathSegs(base)
		if len(segs) > 0 {
			if k, ok := x.resolve(segs, rustOwner{}); ok {
				return k, segs[len(segs)-1]
			}
			name := segs[len(segs)-1]
			return x.mod().key + "::" + name, name
		}
	}
	name := Collapse(x.text(t))
	if name == "" {
		name = "_"
	}
	return x.mod().key + "::" + name, name
}

// nameKey returns the key an unqualified name has by syntax: what a use
// imported, or an item of the module being read; empty otherwise.
func (x *rustExtractor) nameKey(name string) string {
	if k, ok := x.uses[name]; ok {
		return k
	}
	if m := x.mod(); m.names[name] {
		return m.key + "::" + name
	}
	return ""
}

// pathSegs returns the segments of a path (a::b::c, crate::x, ::std::y);
// nil for one with generic or qualified parts (<T as Tr>::f).
func (x *rustExtractor) pathSegs(n *sitter.Node) []string {
	switch x.typ(n) {
	case "identifier", "type_identifier", "crate", "self", "super", "metavariable":
		return []string{x.text(n)}
	case "scoped_identifier", "scoped_type_identifier":
		name := x.field(n, "name")
		p := x.field(n, "path")
		var segs []string
		if p == nil {
			segs = []string{""} // ::std::x
		} else if segs = x.pathSegs(p); segs == nil {
			return nil
		}
		return append(segs, x.text(name))
	}
	return nil
}

// absPath turns the segments of a use path into a key: crate, self and
// super are replaced by what they name, a leading name of the module
// stays in it, others name crates.
func (x *rustExtractor) absPath(segs []string) string {
	mod := x.mod().key
	switch segs[0] {
	case "crate", "$crate":
		return joinKey(x.crate, segs[1:])
	case "self":
		return joinKey(mod, segs[1:])
	case "super":
		for len(segs) > 0 && segs[0] == "super" {
			if i := strings.LastIndex(mod, "::"); i >= 0 {
				mod = mod[:i]
			}
			segs = segs[1:]
		}
		return joinKey(mod, segs)
	case "":
		return strings.Join(segs[1:], "::")
	}
	if x.mod().names[segs[0]] {
		return joinKey(mod, segs)
	}
	return strings.Join(segs, "::")
}

func joinKey(base string, segs []string) string {
	if len(segs) == 0 {
		return base
	}
	return base + "::" + strings.Join(segs, "::")
}

// resolve returns the key a path in code names, when the syntax tells:
// crate, self, super and Self paths, paths through a use or an item of
// the module, and paths from a crate (std::mem::swap). A path from an
// unknown type (String::new, T::default) tells nothing.
func (x *rustExtractor) resolve(segs []string, owner rustOwner) (string, bool) {
	switch segs[0] {
	case "crate", "$crate", "self", "super", "":
		return x.absPath(segs), true
	case "Self":
		if owner.self == "" {
			return "", false
		}
		return joinKey(owner.self, segs[1:]), true
	}
	if x.sites.isLocal(segs[0]) {
		return "", false
	}
	if k, ok := x.uses[segs[0]]; ok {
		return joinKey(k, segs[1:]), true
	}
	if m := x.mod(); m.names[segs[0]] {
		return joinKey(m.key, segs), true
	}
	if k := x.globKey(segs[0]); k != "" {
		return joinKey(k, segs[1:]), true
	}
	if isUpper(segs[0]) || len(segs) < 2 {
		return "", false
	}
	return strings.Join(segs, "::"), true
}

// globKey returns the key of name when a glob import of a module being
// read brings it in scope: use super::* in an inline mod tests.
func (x *rustExtractor) globKey(name string) string {
	for _, g := range x.mod().globs {
		for _, m := range x.mods {
			if m.key == g && m.names[name] {
				return g + "::" + name
			}
		}
	}
	return ""
}

// variant shortens a path to an enum variant or associated constant
// (NetError::Timeout, Duration::ZERO: an upper-case name after a type's)
// to the type's: variants are not items.
func variant(segs []string) []string {
	if n := len(segs); n >= 2 && isUpper(segs[n-1]) && isUpper(segs[n-2]) && segs[n-2] != "Self" {
		return segs[:n-1]
	}
	if n := len(segs); n == 2 && segs[0] == "Self" && isUpper(segs[1]) {
		return segs[:1]
	}
	return segs
}

// use reads a use declaration: each path it imports, expanded from
// groups, is an import of an item or module and binds its last name.
func (x *rustExtractor) use(n *sitter.Node) {
	switch x.typ(n) {
	case "extern_crate_declaration":
		x.externCrate(n)
		return
	case "use_declaration":
		x.useTree(x.field(n, "argument"), nil)
	}
}

func (x *rustExtractor) externCrate(n *sitter.Node) {
	name := x.text(x.field(n, "name"))
	alias := x.text(x.field(n, "alias"))
	if name == "" || name == "self" {
		return
	}
	x.r.Imports = append(x.r.Imports, Import{Path: name, Alias: alias, Target: Node{Kind: graph.NodeCrate, Key: name}, Span: x.span(n)})
	local := name
	if alias != "" {
		local = alias
	}
	x.uses[local] = name
}

func (x *rustExtractor) useTree(n *sitter.Node, prefix []string) {
	switch x.typ(n) {
	case "identifier", "crate", "self", "super", "metavariable", "scoped_identifier":
		x.addUse(n, append(prefix[:len(prefix):len(prefix)], x.pathSegs(n)...), "", false)
	case "use_as_clause":
		p := x.pathSegs(x.field(n, "path"))
		x.addUse(n, append(prefix[:len(prefix):len(prefix)], p...), x.text(x.field(n, "alias")), false)
	case "use_wildcard":
		var p []string
		for _, k := range x.kids(n) {
			if k.IsNamed() {
				p = x.pathSegs(k)
				break
			}
		}
		x.addUse(n, append(prefix[:len(prefix):len(prefix)], p...), "", true)
	case "scoped_use_list":
		p := prefix[:len(prefix):len(prefix)]
		if pn := x.field(n, "path"); pn != nil {
			p = append(p, x.pathSegs(pn)...)
		} else {
			p = append(p, "")
		}
		x.useTree(x.field(n, "list"), p)
	case "use_list":
		for _, k := range x.kids(n) {
			if k.IsNamed() {
				x.useTree(k, prefix)
			}
		}
	}
}

// addUse records one imported path. A glob imports the module; a group's
// self the module before it.
func (x *rustExtractor) addUse(n *sitter.Node, segs []string, alias string, glob bool) {
	if len(segs) == 0 {
		return
	}
	module := glob
	if len(segs) > 1 && segs[len(segs)-1] == "self" {
		segs, module = segs[:len(segs)-1], true
	}
	written := strings.Join(segs, "::")
	key := x.absPath(segs)
	if key == "" {
		return
	}
	if !module {
		module = x.isModule(key, segs)
	}
	target := Node{Kind: graph.NodeItem, Key: key}
	if module {
		target.Kind = graph.NodeModule
	}
	x.r.Imports = append(x.r.Imports, Import{Path: written, Alias: alias, Target: target, Span: x.span(n)})
	if glob {
		m := x.mod()
		m.globs = append(m.globs, key)
		return
	}
	local := segs[len(segs)-1]
	if alias != "" {
		local = alias
	}
	if local != "_" && local != "self" && local != "crate" && local != "super" {
		x.uses[local] = key
	}
}

// isModule tells whether a used path names a module (a file of this
// crate, or one declared by mod x;) rather than an item. Without the
// project, or for other crates, the case of the name decides: Type and
// CONST are items, snake_case is taken for a module.
func (x *rustExtractor) isModule(key string, segs []string) bool {
	if len(segs) == 1 || key == x.crate {
		return true // a crate
	}
	for _, m := range x.mods {
		if m.inline[key] {
			return false // an inline module is an item of its file
		}
		if m.subs[key] {
			return true
		}
	}
	if x.proj != nil && strings.HasPrefix(key, x.crate+"::") {
		rel := x.root + "/" + strings.ReplaceAll(key[len(x.crate)+2:], "::", "/")
		return tsExists(x.proj, rel+".rs") || tsExists(x.proj, rel+"/mod.rs")
	}
	return !isUpper(segs[len(segs)-1])
}

// tsExists asks the project whether a file exists, once per path.
func tsExists(p Project, file string) bool {
	return p.Memo("exists:"+file, func() any { return p.Exists(file) }).(bool)
}

// walk records the calls and references in a sub-tree (a body, a type,
// an expression), binding the names its patterns declare.
func (x *rustExtractor) walk(n *sitter.Node, owner rustOwner) {
	if n == nil {
		return
	}
	switch x.typ(n) {
	case "identifier":
		x.ident(n)
	case "type_identifier":
		x.typeIdent(n, owner)
	case "scoped_identifier", "scoped_type_identifier":
		x.pathRef(n, owner)
	case "call_expression":
		x.call(n, owner)
	case "macro_invocation":
		x.macro(n, owner)
	case "token_tree":
		x.tokens(n, owner)
	case "let_declaration":
		x.walk(x.field(n, "type"), owner)
		x.walk(x.field(n, "value"), owner)
		x.walk(x.field(n, "alternative"), owner)
		x.pattern(x.field(n, "pattern"), owner)
	case "let_condition":
		x.walk(x.field(n, "value"), owner)
		x.pattern(x.field(n, "pattern"), owner)
	case "parameter":
		x.pattern(x.field(n, "pattern"), owner)
		x.walk(x.field(n, "type"), owner)
	case "closure_parameters":
		for _, k := range x.kids(n) {
			if x.typ(k) == "parameter" {
				x.walk(k, owner)
			} else if k.IsNamed() {
				x.pattern(k, owner)
			}
		}
	case "for_expression":
		x.pattern(x.field(n, "pattern"), owner)
		x.walk(x.field(n, "value"), owner)
		x.walk(x.field(n, "body"), owner)
	case "match_pattern":
		guard := false
		for _, k := range x.kids(n) {
			switch {
			case !k.IsNamed():
				guard = guard || x.typ(k) == "if"
			case guard:
				x.walk(k, owner)
			default:
				x.pattern(k, owner)
			}
		}
	case "field_expression":
		x.walk(x.field(n, "value"), owner)
	case "struct_expression":
		x.walk(x.field(n, "name"), owner)
		x.walk(x.field(n, "body"), owner)
	case "field_initializer":
		x.walk(x.field(n, "value"), owner)
	case "function_item":
		// A function inside a body: its name is local.
		x.sites.bind(x.text(x.field(n, "name")))
		x.function(n, owner)
	case "use_declaration", "extern_crate_declaration":
		x.use(n)
	case "type_parameters":
		x.generics(n)
	case "attribute_item", "inner_attribute_item", "lifetime", "label", "visibility_modifier",
		"line_comment", "block_comment", "string_literal", "raw_string_literal", "char_literal",
		"macro_definition", "self", "primitive_type", "field_identifier", "shorthand_field_identifier":
	case "enum_variant":
		x.walk(x.field(n, "body"), owner)
		x.walk(x.field(n, "value"), owner)
	default:
		for _, k := range x.kids(n) {
			if k.IsNamed() {
				x.walk(k, owner)
			}
		}
	}
}

// pattern binds the names a pattern declares; the paths in it (a variant,
// a struct, a constant) are references.
func (x *rustExtractor) pattern(n *sitter.Node, owner rustOwner) {
	if n == nil {
		return
	}
	switch x.typ(n) {
	case "identifier":
		if name := x.text(n); isUpper(name) {
			x.ident(n) // a constant or unit variant
		} else {
			x.sites.bind(name)
		}
	case "shorthand_field_identifier":
		x.sites.bind(x.text(n))
	case "tuple_struct_pattern", "struct_pattern":
		t := x.field(n, "type")
		x.walk(t, owner)
		for _, k := range x.kids(n) {
			if k.IsNamed() && !same(k, t) {
				x.pattern(k, owner)
			}
		}
	case "field_pattern":
		if p := x.field(n, "pattern"); p != nil {
			x.pattern(p, owner)
		} else {
			x.sites.bind(x.text(x.field(n, "name")))
		}
	case "scoped_identifier", "scoped_type_identifier":
		x.pathRef(n, owner)
	case "match_pattern":
		x.walk(n, owner)
	case "integer_literal", "string_literal", "char_literal", "boolean_literal", "float_literal", "range_pattern":
	default:
		for _, k := range x.kids(n) {
			if k.IsNamed() {
				x.pattern(k, owner)
			}
		}
	}
}

// ident records an identifier in an expression: a use of what a use
// imported, of an item of the module, or of a local (dropped at the end).
func (x *rustExtractor) ident(n *sitter.Node) {
	name := x.text(n)
	x.sites.ref(name, name, x.nameKeyOrBare(name), x.span(n))
}

// nameKeyOrBare is nameKey without the file module's own items, which
// resolution finds by name (and with the lower confidence a bare name
// deserves).
func (x *rustExtractor) nameKeyOrBare(name string) string {
	if k, ok := x.uses[name]; ok {
		return k
	}
	if m := x.mod(); len(x.mods) > 1 && m.names[name] {
		return m.key + "::" + name
	}
	return x.globKey(name)
}

func (x *rustExtractor) typeIdent(n *sitter.Node, owner rustOwner) {
	name := x.text(n)
	if name == "Self" {
		if owner.self != "" {
			x.sites.ref("", owner.selfName, owner.self, x.span(n))
		}
		return
	}
	x.sites.ref(name, name, x.nameKeyOrBare(name), x.span(n))
}

// pathRef records a path that is not called: a constant, a variant, a
// type from a module.
func (x *rustExtractor) pathRef(n *sitter.Node, owner rustOwner) {
	segs := x.pathSegs(n)
	if len(segs) == 0 {
		for _, k := range x.kids(n) {
			if k.IsNamed() && x.typ(k) != "identifier" && x.typ(k) != "type_identifier" {
				x.walk(k, owner) // <T as Trait>::X, Vec::<T>::new: the types in it
			}
		}
		return
	}
	segs = variant(segs)
	if key, ok := x.resolve(segs, owner); ok {
		x.sites.ref(pathRoot(segs), segs[len(segs)-1], key, x.span(n))
	}
}

// pathRoot is the first segment of a path when a local could shadow it.
func pathRoot(segs []string) string {
	switch segs[0] {
	case "Self", "crate", "self", "super", "$crate", "":
		return ""
	}
	return segs[0]
}

// call records a call: of a name (imported, of the module, or a local
// closure), of a path (Backoff::new, Self::new, std::mem::swap), or of a
// method on a value (self.send()).
func (x *rustExtractor) call(n *sitter.Node, owner rustOwner) {
	fn := x.field(n, "function")
	sp := x.span(n)
	x.callee(fn, sp, owner)
	x.walk(x.field(n, "arguments"), owner)
}

func (x *rustExtractor) callee(fn *sitter.Node, sp graph.Span, owner rustOwner) {
	switch x.typ(fn) {
	case "identifier":
		name := x.text(fn)
		x.sites.call(name, name, x.nameKeyOrBare(name), false, sp)
	case "scoped_identifier":
		segs := x.pathSegs(fn)
		if len(segs) == 0 {
			x.pathRef(fn, owner)
			return
		}
		if v := variant(segs); len(v) < len(segs) {
			// A tuple variant's constructor: a use of the enum.
			if key, ok := x.resolve(v, owner); ok {
				x.sites.ref(pathRoot(v), v[len(v)-1], key, sp)
			}
			return
		}
		if key, ok := x.resolve(segs, owner); ok {
			x.sites.call(pathRoot(segs), segs[len(segs)-1], key, false, sp)
		}
	case "field_expression":
		x.walk(x.field(fn, "value"), owner)
		x.sites.call("", x.text(x.field(fn, "field")), "", true, sp)
	case "generic_function":
		x.walk(x.field(fn, "type_arguments"), owner)
		x.callee(x.field(fn, "function"), sp, owner)
	default:
		x.walk(fn, owner)
	}
}

// macro records a macro call and reads its tokens.
func (x *rustExtractor) macro(n *sitter.Node, owner rustOwner) {
	x.callee(x.field(n, "macro"), x.span(n), owner)
	for _, k := range x.kids(n) {
		if x.typ(k) == "token_tree" {
			x.tokens(k, owner)
		}
	}
}

// tokens reads a macro's arguments, which the grammar leaves as tokens:
// a path before parentheses is a call, .name( a method call, other
// names references.
func (x *rustExtractor) tokens(tt *sitter.Node, owner rustOwner) {
	kids := x.kids(tt)
	for i := 0; i < len(kids); i++ {
		k := kids[i]
		switch x.typ(k) {
		case "token_tree":
			x.tokens(k, owner)
			continue
		case "identifier", "self", "crate", "super":
		default:
			continue
		}
		// A path: k (:: name)*.
		start := i
		segs := []string{x.text(k)}
		for i+2 < len(kids) && x.typ(kids[i+1]) == "::" && x.typ(kids[i+2]) == "identifier" {
			segs = append(segs, x.text(kids[i+2]))
			i += 2
		}
		afterDot := start > 0 && x.typ(kids[start-1]) == "."
		var next *sitter.Node
		if i+1 < len(kids) {
			next = kids[i+1]
		}
		called := next != nil && x.typ(next) == "token_tree" && strings.HasPrefix(x.text(next), "(")
		if next != nil && x.typ(next) == "!" {
			continue // a macro inside: its tokens come next
		}
		sp := x.spanFrom(kids[start], kids[i])
		if called {
			sp = x.spanFrom(kids[start], next)
		}
		switch {
		case afterDot && called:
			x.sites.call("", segs[len(segs)-1], "", true, sp)
		case afterDot || segs[0] == "self":
		case len(segs) == 1 && called:
			x.sites.call(segs[0], segs[0], x.nameKeyOrBare(segs[0]), false, sp)
		case len(segs) == 1:
			x.sites.ref(segs[0], segs[0], x.nameKeyOrBare(segs[0]), sp)
		default:
			v := variant(segs)
			if key, ok := x.resolve(v, owner); ok {
				if called && len(v) == len(segs) {
					x.sites.call(pathRoot(v), v[len(v)-1], key, false, sp)
				} else {
					x.sites.ref(pathRoot(v), v[len(v)-1], key, sp)
				}
			}
		}
	}
}

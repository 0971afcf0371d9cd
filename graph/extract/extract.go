// Package extract reads source files into language-neutral semantics: the
// module a file belongs to, the items it declares (functions, methods,
// types, interfaces, constants, …) with stable keys, what it imports, and
// where it calls and references other items. Resolve turns the files of
// one unit (a Go package, a Rust, Python or TypeScript module) into graph
// edges with evidence.
//
// A language is one Language value registered with Register: its file
// extensions, how a path maps to a module key, and its Extract function.
// The pipeline (repo) and the edge model never change for a new language.
package extract

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/ctx-dev/ctx/graph"
)

// ItemKind is what an item is, the same words for every language.
type ItemKind string

// The item kinds.
const (
	Function  ItemKind = "function"
	Method    ItemKind = "method"
	Struct    ItemKind = "struct"
	Class     ItemKind = "class"
	Interface ItemKind = "interface"
	Trait     ItemKind = "trait"
	Enum      ItemKind = "enum"
	Type      ItemKind = "type" // an alias or any other named type
	Const     ItemKind = "const"
	Var       ItemKind = "var"
	Static    ItemKind = "static"
	Macro     ItemKind = "macro"
	Module    ItemKind = "module"
	Impl      ItemKind = "impl"
)

// ItemKinds lists every item kind.
var ItemKinds = []ItemKind{Function, Method, Struct, Class, Interface, Trait, Enum, Type, Const, Var, Static, Macro, Module, Impl}

// IsType reports whether items of kind k are types: a use of one is a
// uses_type edge rather than a call or reference.
func (k ItemKind) IsType() bool {
	switch k {
	case Struct, Class, Interface, Trait, Enum, Type:
		return true
	}
	return false
}

// Visibility is who may use an item.
type Visibility string

// The visibilities.
const (
	Public  Visibility = "public"  // exported: Go's capitals, Rust's pub, no leading _ in Python, export in TS
	Package Visibility = "package" // the package or crate: Rust's pub(crate), Go's lower case
	Private Visibility = "private" // the file, type or module
)

// Item is something a file declares.
type Item struct {
	Kind ItemKind
	Name string
	// Key is the item's stable key: the module key, the enclosing items'
	// names and the name, joined by the language's separator
	// ("net/http.Client.Do", "core::net::client::Client::connect",
	// "pkg.mod.Class.method").
	Key string
	// Parent is the key of the item this one is declared in (a method's
	// type, a Rust impl's type), if any.
	Parent     string
	Visibility Visibility
	// Span is the whole declaration.
	Span graph.Span
	// Signature is the declaration's text without its body, white space
	// collapsed; hashed to tell when an item's interface changes.
	Signature string
	// Doc is its documentation comment, without comment markers.
	Doc string
}

// Import is one import site.
type Import struct {
	// Path is the imported path as written ("net/http", "std::time",
	// "os.path", "./client").
	Path string
	// Alias is the local name it is imported under, if renamed.
	Alias string
	// Target is what it imports: a package, module or item node.
	Target Node
	Span   graph.Span
}

// Call is one call site.
type Call struct {
	// From is the key of the item the call is in; empty at module level.
	From string
	// Name is the callee's simple name ("Get", "connect").
	Name string
	// Key is the callee's full key when the syntax says it
	// ("net/http.Get" for http.Get with net/http imported as http,
	// "crate::retry::Backoff::new"); empty when only the unit can tell.
	Key string
	// Method marks a call on a value (x.M()): unless Recv says the
	// receiver's type, the callee is looked up among the unit's methods by
	// name.
	Method bool
	// Recv, for a call on a value whose type the declarations say (x.M()
	// with var x T, c.f.g.M() with c *T), is the key of that type
	// ("net/http.Client"); Path are the fields selected from it (f, g),
	// which Resolve follows through the unit's struct fields (Result.Fields)
	// to the receiver's type. Not type checking: a promoted method or field
	// can make it wrong, so such an edge is medium confidence.
	Recv string
	Path []string
	Span graph.Span
}

// Field is a struct field whose type the syntax names: Struct.Name is of
// type Type (keys; a pointer, generic instantiation or embedding is
// reduced to the named type). Resolve follows Call.Path through them.
type Field struct {
	Struct, Name, Type string
}

// Ref is a use of a name that is not a call: a type in a signature, a
// constant, a function value. As for calls, Key is set when the syntax
// says it.
type Ref struct {
	From, Name, Key string
	Span            graph.Span
}

// Implementation is a type implementing (or extending) an interface, trait
// or class, where the syntax says so: Rust's impl T for S, TypeScript's
// implements and extends, Python's base classes.
type Implementation struct {
	// Type is the implementing item's key.
	Type string
	// Name and Key are the implemented item's, as for a Call.
	Name, Key string
	Span      graph.Span
}

// Node names a graph node without the repository id that its graph.NodeID
// needs: a kind and a key (and, for packages, an ecosystem).
type Node struct {
	Kind      graph.NodeKind `json:"kind"`
	Key       string         `json:"key"`
	Ecosystem string         `json:"ecosystem,omitempty"`
}

// ID returns the node's graph id in repository repoID.
func (n Node) ID(repoID string) graph.NodeID {
	switch n.Kind {
	case graph.NodeFile:
		return graph.FileNode(repoID, n.Key)
	case graph.NodeDirectory:
		return graph.DirectoryNode(repoID, n.Key)
	case graph.NodeModule:
		return graph.ModuleNode(repoID, n.Key)
	case graph.NodePackage:
		return graph.PackageNode(repoID, n.Ecosystem, n.Key)
	case graph.NodeCrate:
		return graph.CrateNode(repoID, n.Key)
	}
	return graph.ItemNode(repoID, n.Key)
}

// ModuleInfo is where a file belongs.
type ModuleInfo struct {
	// Module is the node of the module or package the file is part of.
	Module Node
	// Unit groups the files resolved together: the files of a Go package
	// directory; for the other languages, the file itself.
	Unit string
}

// File is the input of Extract.
type File struct {
	Path string // slash-separated, relative to the project root
	Src  []byte
	ModuleInfo
	// Project, if set, lets Extract look at the project's other files:
	// whether a Python `from pkg import x` or a Rust `use crate::a::b`
	// imports a module or an item. Without it the language guesses.
	Project Project
}

// Result is what Extract finds in a file.
type Result struct {
	Path     string
	Language string
	// Module is the file's module; Extract may refine the one it was given
	// (a Go external test package, foo_test).
	Module Node
	// Sep joins the parts of a key: "." or "::".
	Sep          string
	Items        []Item
	Imports      []Import
	Calls        []Call
	Refs         []Ref
	Impls        []Implementation
	Fields       []Field
	Submodules   []Node // modules the file declares (Rust's mod x;)
	SyntaxErrors int
}

// Project gives a language access to the project's other files, to find
// go.mod, Cargo.toml or __init__.py. Memo caches a value for the length of
// one ingestion.
type Project interface {
	ReadFile(path string) ([]byte, error)
	Exists(path string) bool
	Memo(key string, compute func() any) any
}

// Language is one source language.
type Language interface {
	// Name is the language's name ("go", "rust", "python", "typescript",
	// "javascript").
	Name() string
	// Extensions are the file name suffixes it reads (".go").
	Extensions() []string
	// Module tells which module a file belongs to.
	Module(p Project, path string) ModuleInfo
	// Extract reads one file. A file with syntax errors still gives what
	// could be read, and counts the errors.
	Extract(f *File) (*Result, error)
}

var (
	langMu    sync.RWMutex
	languages []Language
)

// Register adds a language; a later registration of an extension wins.
func Register(l Language) {
	langMu.Lock()
	defer langMu.Unlock()
	languages = append(languages, l)
}

// ForPath returns the language of a file by its name, or nil.
func ForPath(p string) Language {
	langMu.RLock()
	defer langMu.RUnlock()
	base := path.Base(p)
	for i := len(languages) - 1; i >= 0; i-- {
		for _, ext := range languages[i].Extensions() {
			if strings.HasSuffix(base, ext) && len(base) > len(ext) {
				return languages[i]
			}
		}
	}
	return nil
}

// Languages returns the registered languages' names, sorted.
func Languages() []string {
	langMu.RLock()
	defer langMu.RUnlock()
	var out []string
	for _, l := range languages {
		out = append(out, l.Name())
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// LineCol turns byte offsets into 1-based lines and byte columns, for
// languages whose parsers give offsets only.
type LineCol struct {
	starts []int // offset of each line's first byte
}

// NewLineCol indexes src's lines.
func NewLineCol(src []byte) *LineCol {
	lc := &LineCol{starts: make([]int, 1, len(src)/32+1)}
	for i, c := range src {
		if c == '\n' {
			lc.starts = append(lc.starts, i+1)
		}
	}
	return lc
}

// Pos returns the 1-based line and column of byte offset off.
func (lc *LineCol) Pos(off int) (line, col uint32) {
	i, found := slices.BinarySearch(lc.starts, off)
	if !found {
		i--
	}
	return uint32(i + 1), uint32(off - lc.starts[i] + 1)
}

// Span returns the span of bytes [start, end).
func (lc *LineCol) Span(start, end int) graph.Span {
	sl, sc := lc.Pos(start)
	if end > start {
		end-- // inclusive end
	}
	el, ec := lc.Pos(end)
	return graph.Span{StartLine: sl, StartCol: sc, EndLine: el, EndCol: ec}
}

// Collapse joins runs of white space into single spaces and trims the
// ends: the form of Item.Signature.
func Collapse(s string) string {
	// It runs once per item: one pass and one allocation for ASCII text,
	// none when s is collapsed already; strings.Fields for the rest.
	var b strings.Builder
	copying, last := false, byte(' ') // last: the last byte kept
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return strings.Join(strings.Fields(s), " ")
		}
		space := asciiSpace(c)
		if !copying {
			// Still a prefix of s: only white space at the start, at the
			// end or in a run, or other than a ' ', needs a copy.
			if !space || c == ' ' && i > 0 && i+1 < len(s) && !asciiSpace(s[i+1]) {
				last = c
				continue
			}
			copying = true
			b.Grow(len(s))
			b.WriteString(s[:i])
		}
		switch {
		case !space:
			b.WriteByte(c)
			last = c
		case last != ' ':
			b.WriteByte(' ')
			last = ' '
		}
	}
	if !copying {
		return s
	}
	out := b.String()
	return strings.TrimSuffix(out, " ")
}

func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

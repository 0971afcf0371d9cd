package extract

import (
	"context"
	"math"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/ctx-dev/ctx/graph"
)

// This file holds what the tree-sitter languages (rust.go, python.go,
// typescript.go) share: a pool of parsers per grammar, node helpers, and
// the collection of call and reference sites with the locals that shadow
// them. A language file is the mapping from its grammar's node types to
// the model.
//
// The languages walk the syntax tree rather than run S-expression queries:
// one pass gives each site its enclosing item and the names the body binds
// (which a query match does not see), and every node costs a cgo call
// either way.

// tsGrammar is a tree-sitter grammar and a pool of parsers for it: a
// parser is not safe for concurrent use, so each parse takes one from the
// pool and returns it. The grammar loads on first use, not at start: every
// command links the parsers, few run them.
type tsGrammar struct {
	load  func() *sitter.Language
	once  sync.Once
	lang  *sitter.Language
	types []string // node type names by symbol: Node.Type allocates
	pool  sync.Pool
}

func newTSGrammar(load func() *sitter.Language) *tsGrammar {
	return &tsGrammar{load: load}
}

func (g *tsGrammar) init() {
	g.lang = g.load()
	n := g.lang.SymbolCount()
	g.types = make([]string, n)
	for s := uint32(0); s < n; s++ {
		g.types[s] = g.lang.SymbolName(sitter.Symbol(s))
	}
}

// parse reads src into a tree, which the caller must close.
func (g *tsGrammar) parse(src []byte) (*tsTree, error) {
	g.once.Do(g.init)
	p, _ := g.pool.Get().(*sitter.Parser)
	if p == nil {
		p = sitter.NewParser()
		p.SetLanguage(g.lang)
	}
	tree, err := p.ParseCtx(context.Background(), nil, src)
	g.pool.Put(p)
	if err != nil {
		return nil, err
	}
	root := tree.RootNode()
	return &tsTree{g: g, tree: tree, root: root, src: src, lc: NewLineCol(src), cur: sitter.NewTreeCursor(root)}, nil
}

// tsTree is a parsed file. Like a parser, it belongs to one goroutine.
type tsTree struct {
	g    *tsGrammar
	tree *sitter.Tree
	root *sitter.Node
	src  []byte
	lc   *LineCol
	cur  *sitter.TreeCursor
}

// close frees the tree's C memory now rather than at a later GC.
func (t *tsTree) close() {
	t.cur.Close()
	t.tree.Close()
}

// typ returns a node's type ("function_item", "identifier", "ERROR").
func (t *tsTree) typ(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	s := n.Symbol()
	if s == math.MaxUint16 {
		return "ERROR"
	}
	if int(s) < len(t.g.types) {
		return t.g.types[s]
	}
	return ""
}

// text returns a node's source text.
func (t *tsTree) text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return string(t.src[n.StartByte():n.EndByte()])
}

// between returns the text from a's start to b's start, the declaration
// before a body.
func (t *tsTree) between(a, b *sitter.Node) string {
	if b == nil {
		return t.text(a)
	}
	s, e := a.StartByte(), b.StartByte()
	if e < s {
		return ""
	}
	return string(t.src[s:e])
}

// span returns a node's span.
func (t *tsTree) span(n *sitter.Node) graph.Span {
	if n == nil {
		return graph.Span{}
	}
	return t.spanOf(n.StartByte(), n.EndByte())
}

// same reports whether a and b are the same node; nil is no node.
func same(a, b *sitter.Node) bool {
	return a != nil && b != nil && a.Equal(b)
}

// spanFrom returns the span from a's start to b's end.
func (t *tsTree) spanFrom(a, b *sitter.Node) graph.Span {
	return t.spanOf(a.StartByte(), b.EndByte())
}

// spanOf returns the span of bytes [s, e) without the white space at
// either end, which some nodes include (tsx's JSX elements start after
// the previous tag).
func (t *tsTree) spanOf(s, e uint32) graph.Span {
	if e > uint32(len(t.src)) {
		e = uint32(len(t.src))
	}
	for s < e && isSpace(t.src[s]) {
		s++
	}
	for e > s && isSpace(t.src[e-1]) {
		e--
	}
	return t.lc.Span(int(s), int(e))
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// kids returns a node's children, named and anonymous, in order. The
// cursor makes this linear: Node.Child(i) walks from the first child.
func (t *tsTree) kids(n *sitter.Node) []*sitter.Node {
	if n == nil {
		return nil
	}
	t.cur.Reset(n)
	if !t.cur.GoToFirstChild() {
		return nil
	}
	out := make([]*sitter.Node, 0, 4)
	for {
		out = append(out, t.cur.CurrentNode())
		if !t.cur.GoToNextSibling() {
			return out
		}
	}
}

// field returns a node's child by field name, or nil.
func (t *tsTree) field(n *sitter.Node, name string) *sitter.Node {
	if n == nil {
		return nil
	}
	return n.ChildByFieldName(name)
}

// errors counts the ERROR and MISSING nodes, looking only into sub-trees
// that have one.
func (t *tsTree) errors() int {
	var count func(n *sitter.Node) int
	count = func(n *sitter.Node) int {
		if !n.HasError() {
			return 0
		}
		c := 0
		if n.IsMissing() || t.typ(n) == "ERROR" {
			c++
		}
		for _, k := range t.kids(n) {
			c += count(k)
		}
		return c
	}
	return count(t.root)
}

// tsSite is a call or reference site waiting for the end of its body,
// when the names the body binds are known.
type tsSite struct {
	// root is the identifier the site starts with: a local of that name
	// shadows whatever the file-level name meant.
	root         string
	call, member bool
	name, key    string
	span         graph.Span
}

// tsBody is the body of one item being read (or the module's top level):
// the names it binds and its sites. Nested functions and closures belong
// to the enclosing item's body.
type tsBody struct {
	from    string
	locals  map[string]bool
	globals map[string]bool // Python's global and nonlocal: not locals
	sites   []tsSite
}

// tsSites collects a file's call and reference sites, body by body.
type tsSites struct {
	r     *Result
	stack []*tsBody
}

// begin starts the body of item from ("" for the module).
func (c *tsSites) begin(from string) {
	c.stack = append(c.stack, &tsBody{from: from, locals: map[string]bool{}})
}

// end finishes the innermost body: sites whose root is a local are
// dropped (a call on a local value becomes a method call), the others
// recorded.
func (c *tsSites) end() {
	b := c.stack[len(c.stack)-1]
	c.stack = c.stack[:len(c.stack)-1]
	for _, s := range b.sites {
		if s.root != "" && b.locals[s.root] && !b.globals[s.root] {
			if s.call && s.member {
				c.r.Calls = append(c.r.Calls, Call{From: b.from, Name: s.name, Method: true, Span: s.span})
			}
			continue
		}
		if s.call {
			c.r.Calls = append(c.r.Calls, Call{From: b.from, Name: s.name, Key: s.key, Method: s.member && s.key == "", Span: s.span})
		} else {
			c.r.Refs = append(c.r.Refs, Ref{From: b.from, Name: s.name, Key: s.key, Span: s.span})
		}
	}
}

func (c *tsSites) top() *tsBody { return c.stack[len(c.stack)-1] }

// from is the key of the item whose body is being read.
func (c *tsSites) from() string { return c.top().from }

// bind declares a local of the innermost body.
func (c *tsSites) bind(name string) {
	if name != "" {
		c.top().locals[name] = true
	}
}

// global marks a name the body declares global (Python).
func (c *tsSites) global(name string) {
	b := c.top()
	if b.globals == nil {
		b.globals = map[string]bool{}
	}
	b.globals[name] = true
}

// isLocal reports whether the innermost body has bound name so far.
func (c *tsSites) isLocal(name string) bool {
	return len(c.stack) > 0 && c.top().locals[name]
}

// call records a call site: of name, with key when the syntax gives it;
// member marks a call through a value or path (x.f(), ns.f()).
func (c *tsSites) call(root, name, key string, member bool, sp graph.Span) {
	if name == "" {
		return // a syntax error's
	}
	b := c.top()
	b.sites = append(b.sites, tsSite{root: root, call: true, member: member, name: name, key: key, span: sp})
}

// ref records a reference site.
func (c *tsSites) ref(root, name, key string, sp graph.Span) {
	if name == "" {
		return
	}
	b := c.top()
	b.sites = append(b.sites, tsSite{root: root, name: name, key: key, span: sp})
}

// tsFinish tidies a Result: an item declared twice (overloads, getter and
// setter, an assignment repeated) is kept once; a key naming a member of
// one of the file's items that the file does not declare (an enum variant,
// an inherited or derived method) becomes a reference to that item; each
// reference is kept once per item, as the Go reader does.
func tsFinish(r *Result) {
	items := map[string]*Item{}
	kept := r.Items[:0]
	for _, it := range r.Items {
		if it.Key == "" || items[it.Key] != nil {
			continue
		}
		kept = append(kept, it)
		items[it.Key] = &kept[len(kept)-1]
	}
	r.Items = kept
	prefix := r.Module.Key + r.Sep
	// owner returns the item of the file that a key below the module
	// but naming no item belongs to.
	owner := func(key string) *Item {
		if key == "" || items[key] != nil || !strings.HasPrefix(key, prefix) {
			return nil
		}
		for k := key; len(k) > len(prefix); {
			i := strings.LastIndex(k, r.Sep)
			if i < len(prefix) {
				return nil
			}
			k = k[:i]
			if it := items[k]; it != nil {
				return it
			}
		}
		return nil
	}
	calls := r.Calls[:0]
	var refs []Ref
	for _, c := range r.Calls {
		if it := owner(c.Key); it != nil {
			refs = append(refs, Ref{From: c.From, Name: it.Name, Key: it.Key, Span: c.Span})
			continue
		}
		calls = append(calls, c)
	}
	r.Calls = calls
	seen := map[[3]string]bool{}
	out := make([]Ref, 0, len(r.Refs)+len(refs))
	for _, rf := range append(r.Refs, refs...) {
		if it := owner(rf.Key); it != nil {
			rf.Name, rf.Key = it.Name, it.Key
		}
		k := [3]string{rf.From, rf.Name, rf.Key}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, rf)
	}
	r.Refs = out
}

// cleanBlockDoc strips a /** … */ (or /*! … */) comment to its text: the
// markers and each line's leading " * ".
func cleanBlockDoc(s string) string {
	s = strings.TrimPrefix(s, "/**")
	s = strings.TrimPrefix(s, "/*!")
	s = strings.TrimSuffix(s, "*/")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "*") {
			l = strings.TrimPrefix(strings.TrimPrefix(l, "*"), " ")
		}
		lines[i] = l
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// isUpper reports whether s starts with an upper-case ASCII letter: by
// convention a type, variant or constant.
func isUpper(s string) bool {
	return s != "" && s[0] >= 'A' && s[0] <= 'Z'
}

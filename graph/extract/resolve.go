package extract

import (
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/graph"
)

// Edge is an edge of a file's code graph, its nodes named without the
// repository id. A zero Span (StartLine 0) means none.
type Edge struct {
	From, To   Node
	Label      graph.Label
	Span       graph.Span
	Confidence graph.Confidence
}

// ResolveOptions configure Resolve.
type ResolveOptions struct {
	// KeepLow keeps low-confidence edges, which are dropped by default:
	// a guess is only worth keeping when someone used it (design §16.4,
	// gate 3).
	KeepLow bool
}

// maxMethodCandidates is how many same-named methods a call on a value of
// unknown type may match before it is left unresolved.
const maxMethodCandidates = 3

// Resolve returns the edges of each file of one unit (Results of files
// that ModuleInfo.Unit groups), in the order given:
//
//   - the module contains the file; the file defines each of its items; an
//     item contains the items declared in it (a type its methods); a module
//     contains the modules a file declares;
//   - the file imports each import's target;
//   - an item (or the module, at top level) calls, references or uses the
//     type of what its call and reference sites name: exactly when the
//     syntax gives the full key or the name is declared once in the
//     module (high confidence; medium for a bare name that is not called,
//     which a local variable may shadow); for a call on a value whose type
//     the declarations say (Call.Recv), that type's method, following
//     Call.Path through the unit's struct fields (medium: a promoted
//     method or field may make it wrong; a type of the unit without the
//     method, or a chain that leaves the unit's structs, falls back to
//     the next rule); otherwise by name among the unit's methods for a
//     call on a value (medium when one method has the name, low when up
//     to three do);
//   - an item implements what its declaration says it implements.
//
// Names declared nowhere in the unit and not qualified (built-ins, local
// variables) give no edge. Every edge appears once per file (its first
// site of the highest confidence).
func Resolve(files []*Result, opts ResolveOptions) [][]Edge {
	type modName struct{ module, name string }
	items := map[string]*Item{}
	top := map[modName][]*Item{}
	methods := map[modName][]*Item{}
	for _, r := range files {
		for i := range r.Items {
			it := &r.Items[i]
			if _, dup := items[it.Key]; dup {
				continue // the same item in files for other platforms
			}
			items[it.Key] = it
			k := modName{r.Module.Key, it.Name}
			if it.Parent == "" {
				top[k] = append(top[k], it)
			} else if it.Kind == Method || it.Kind == Function {
				methods[k] = append(methods[k], it)
			}
		}
	}
	fields := map[[2]string]string{} // struct and field name → the field's type
	for _, r := range files {
		for _, f := range r.Fields {
			if k := [2]string{f.Struct, f.Name}; fields[k] == "" {
				fields[k] = f.Type
			}
		}
	}
	out := make([][]Edge, len(files))
	for fi, r := range files {
		file := Node{Kind: graph.NodeFile, Key: r.Path}
		// One flat map: this runs once per site, a million times over Go's
		// own tree, where a map per node pair cost a third of Resolve.
		sites := 1 + len(r.Submodules) + 2*len(r.Items) + len(r.Imports) + len(r.Calls) + len(r.Refs) + len(r.Impls)
		seen := make(map[edgeKey]int, sites) // → index in edges
		edges := make([]Edge, 0, sites)
		add := func(from, to Node, l graph.Label, sp graph.Span, c graph.Confidence) {
			if c == graph.Low && !opts.KeepLow || from == to {
				return
			}
			k := edgeKey{from, to, l}
			if i, ok := seen[k]; ok {
				if e := &edges[i]; confidenceRank(c) < confidenceRank(e.Confidence) {
					e.Span, e.Confidence = sp, c // a surer site: p.Close() after v.Close()
				}
				return
			}
			seen[k] = len(edges)
			edges = append(edges, Edge{From: from, To: to, Label: l, Span: sp, Confidence: c})
		}
		item := func(key string) Node { return Node{Kind: graph.NodeItem, Key: key} }
		from := func(key string) Node {
			if key == "" {
				return r.Module
			}
			return item(key)
		}
		add(r.Module, file, graph.Contains, graph.Span{}, graph.High)
		for _, sub := range r.Submodules {
			add(r.Module, sub, graph.Contains, graph.Span{}, graph.High)
		}
		for i := range r.Items {
			it := &r.Items[i]
			add(file, item(it.Key), graph.Defines, it.Span, graph.High)
			if it.Parent != "" {
				add(item(it.Parent), item(it.Key), graph.Contains, it.Span, graph.High)
			}
		}
		for _, im := range r.Imports {
			add(file, im.Target, graph.Imports, im.Span, graph.High)
		}
		// target finds what a site names: the items and the confidence.
		target := func(name, key string, method bool) ([]*Item, string, graph.Confidence) {
			if key != "" {
				if it := items[key]; it != nil {
					return []*Item{it}, "", graph.High
				}
				return nil, key, graph.High // another unit's: the syntax says so
			}
			if method {
				ms := methods[modName{r.Module.Key, name}]
				switch {
				case len(ms) == 1:
					return ms, "", graph.Medium
				case len(ms) > 1 && len(ms) <= maxMethodCandidates:
					return ms, "", graph.Low
				}
				return nil, "", ""
			}
			if ts := top[modName{r.Module.Key, name}]; len(ts) > 0 {
				return ts, "", graph.High
			}
			return nil, "", ""
		}
		link := func(fromKey, name, key string, method bool, sp graph.Span, l graph.Label) {
			its, other, c := target(name, key, method)
			if l == graph.References && key == "" && c == graph.High {
				c = graph.Medium // a local variable may shadow the name
			}
			if other != "" {
				add(from(fromKey), item(other), l, sp, c)
				return
			}
			for _, it := range its {
				label := l
				if it.Kind.IsType() {
					label = graph.UsesType
				}
				add(from(fromKey), item(it.Key), label, sp, c)
			}
		}
		// method returns the key of the method a call on a value of a
		// known type calls, or "" to look for it by name.
		method := func(c *Call) string {
			typ := c.Recv
			for _, f := range c.Path {
				if typ = fields[[2]string{typ, f}]; typ == "" {
					return "" // not a field of the unit's structs
				}
			}
			// A type's key is its package's and its name: no dot in the name.
			mod := typ[:max(strings.LastIndexByte(typ, '.'), 0)]
			for _, m := range methods[modName{mod, c.Name}] {
				if m.Parent == typ {
					return m.Key
				}
			}
			switch {
			case items[typ] != nil:
				return "" // the unit's type without the method: promoted?
			case mod == r.Module.Key:
				return "" // the package's type, declared nowhere (a file that did not parse?)
			}
			return typ + "." + c.Name // another unit's type
		}
		for i := range r.Calls {
			c := &r.Calls[i]
			if c.Recv != "" {
				if key := method(c); key != "" {
					add(from(c.From), item(key), graph.Calls, c.Span, graph.Medium)
					continue
				}
			}
			link(c.From, c.Name, c.Key, c.Method, c.Span, graph.Calls)
		}
		for _, rf := range r.Refs {
			link(rf.From, rf.Name, rf.Key, false, rf.Span, graph.References)
		}
		for _, im := range r.Impls {
			its, other, c := target(im.Name, im.Key, false)
			if other != "" {
				add(item(im.Type), item(other), graph.Implements, im.Span, c)
			}
			for _, it := range its {
				add(item(im.Type), item(it.Key), graph.Implements, im.Span, c)
			}
		}
		out[fi] = edges
	}
	return out
}

// edgeKey is what makes an edge of a file's code graph unique.
type edgeKey struct {
	from, to Node
	label    graph.Label
}

// confidenceRank orders confidences, the highest first.
func confidenceRank(c graph.Confidence) int { return slices.Index(graph.Confidences, c) }

package build

import (
	"cmp"
	"path"
	"slices"

	"github.com/ctx-dev/ctx/graph"
)

// edgeSet collects edges, one per (from, to, label), keeping the highest
// confidence, as the graph does (FORMAT.md §15.1).
type edgeSet struct {
	index map[graph.EdgeKey]int
	edges []graph.Edge
}

func (s *edgeSet) add(from graph.NodeID, label graph.Label, to graph.NodeID, conf graph.Confidence) {
	if from.ID == to.ID {
		return // no self edges: a package does not depend on itself
	}
	e := graph.Edge{From: from, To: to, Label: label, Evidence: graph.Evidence{Tool: graph.ToolBuild, Confidence: conf}}
	if s.index == nil {
		s.index = make(map[graph.EdgeKey]int)
	}
	if i, ok := s.index[e.Key()]; ok {
		if rank(conf) < rank(s.edges[i].Evidence.Confidence) {
			s.edges[i].Evidence.Confidence = conf
		}
		return
	}
	s.index[e.Key()] = len(s.edges)
	s.edges = append(s.edges, e)
}

func rank(c graph.Confidence) int { return slices.Index(graph.Confidences, c) }

// sorted returns the edges ordered by source (kind, key), label, then
// target (kind, key), so that equal snapshots give equal edge lists.
func (s *edgeSet) sorted() []graph.Edge {
	out := slices.Clone(s.edges)
	slices.SortFunc(out, func(a, b graph.Edge) int {
		return cmp.Or(
			cmp.Compare(a.From.Kind, b.From.Kind), cmp.Compare(a.From.Key, b.From.Key), a.From.ID.Compare(b.From.ID),
			cmp.Compare(a.Label, b.Label),
			cmp.Compare(a.To.Kind, b.To.Kind), cmp.Compare(a.To.Key, b.To.Key), a.To.ID.Compare(b.To.ID),
		)
	})
	return out
}

// GoEdges returns the edges of a Go build graph (package doc, "Edges"):
// module contains package, package contains file, package depends_on
// package, target target_of package, and test target depends_on package.
func GoEdges(repoID string, s *GoPackages) []graph.Edge {
	var set edgeSet
	pkg := func(importPath string) graph.NodeID { return graph.PackageNode(repoID, graph.EcosystemGo, importPath) }
	for i := range s.Packages {
		p := &s.Packages[i]
		pn := pkg(p.ImportPath)
		if p.Module != "" {
			set.add(graph.ModuleNode(repoID, p.Module), graph.Contains, pn, graph.High)
		}
		if !p.Project() {
			continue
		}
		for _, f := range slices.Concat(p.GoFiles, p.TestGoFiles, p.XTestGoFiles) {
			set.add(pn, graph.Contains, graph.FileNode(repoID, f), graph.High)
		}
		for _, imp := range p.Imports {
			set.add(pn, graph.DependsOn, pkg(imp), graph.High)
		}
		if p.Name == "main" {
			bin := graph.TargetNode(repoID, graph.EcosystemGo, p.ImportPath, "bin", execName(p.ImportPath))
			set.add(bin, graph.TargetOf, pn, graph.High)
		}
		if len(p.TestGoFiles)+len(p.XTestGoFiles) > 0 {
			test := graph.TargetNode(repoID, graph.EcosystemGo, p.ImportPath, "test", execName(p.ImportPath))
			set.add(test, graph.TargetOf, pn, graph.High)
			for _, imp := range slices.Concat(p.TestImports, p.XTestImports) {
				if imp != p.ImportPath { // the external test imports its package: target_of says that
					set.add(test, graph.DependsOn, pkg(imp), graph.High)
				}
			}
		}
	}
	return set.sorted()
}

// execName is the name go build gives the command of a main package (and
// go test -c, plus ".test", its test binary): the last element of the
// import path, or the one before a major-version suffix ("example.com/
// tool/v2" → "tool"), as cmd/go's load.DefaultExecName does in module
// mode.
func execName(importPath string) string {
	elem := path.Base(importPath)
	if elem != importPath && isVersionElement(elem) {
		elem = path.Base(path.Dir(importPath))
	}
	return elem
}

// isVersionElement reports whether s is a major-version suffix "v2",
// "v3", … (not "v0" or "v1").
func isVersionElement(s string) bool {
	if len(s) < 2 || s[0] != 'v' || s[1] == '0' || s[1] == '1' && len(s) == 2 {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || '9' < s[i] {
			return false
		}
	}
	return true
}

// CargoEdges returns the edges of a Cargo build graph (package doc,
// "Edges"): package depends_on package, target target_of package, package
// contains file, and crate crate_from_target target.
func CargoEdges(repoID string, s *CargoMetadataSnapshot) []graph.Edge {
	var set edgeSet
	pkg := func(name string) graph.NodeID { return graph.PackageNode(repoID, graph.EcosystemCargo, name) }
	names := make(map[string]string, len(s.Packages))
	for i := range s.Packages {
		p := &s.Packages[i]
		names[p.PackageID] = p.Name
		pn := pkg(p.Name)
		if p.ManifestPath != "" {
			set.add(pn, graph.Contains, graph.FileNode(repoID, p.ManifestPath), graph.High)
		}
		for j := range p.Targets {
			t := &p.Targets[j]
			if !p.WorkspaceMember && t.Kind != TargetLib && t.Kind != TargetProcMacro {
				continue
			}
			tn := graph.TargetNode(repoID, graph.EcosystemCargo, p.Name, string(t.Kind), t.Name)
			set.add(tn, graph.TargetOf, pn, graph.High)
			if t.SrcPath != "" {
				set.add(pn, graph.Contains, graph.FileNode(repoID, t.SrcPath), graph.High)
			}
			if t.Kind == TargetLib || t.Kind == TargetBin || t.Kind == TargetProcMacro {
				set.add(graph.CrateNode(repoID, crateName(t.Name)), graph.CrateFromTarget, tn, graph.High)
			}
		}
	}
	for i := range s.Resolve {
		d := &s.Resolve[i]
		from, okFrom := names[d.FromPackageID]
		to, okTo := names[d.ToPackageID]
		if !okFrom || !okTo {
			continue
		}
		conf := graph.High
		if d.DepKind == DepDev {
			conf = graph.Medium // only test, bench and example builds need it
		}
		set.add(pkg(from), graph.DependsOn, pkg(to), conf)
	}
	return set.sorted()
}

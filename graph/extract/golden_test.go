package extract

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/graph"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden reads every fixture project under testdata/ (one directory
// per language) and compares what it extracts and resolves with
// testdata/<name>.golden: every item with its key, kind, visibility and
// span, every struct field whose type is named, and every edge with its
// label, confidence and site.
func TestGolden(t *testing.T) {
	dirs, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "fuzz" { // fuzz holds go test's corpus
			continue
		}
		t.Run(d.Name(), func(t *testing.T) {
			got := dumpProject(t, filepath.Join("testdata", d.Name()))
			golden := filepath.Join("testdata", d.Name()+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update)", err)
			}
			if got != string(want) {
				t.Errorf("extraction of %s differs from %s (go test -run TestGolden -update rewrites it):\n%s", d.Name(), golden, diffLines(string(want), got))
			}
		})
	}
}

// extractProject extracts the files under root/dir with a DirProject of
// root, as ctx add code does, and returns their results by unit
// (language and unit name), in the order read, and their sources by path.
func extractProject(tb testing.TB, root, dir string) (map[string][]*Result, map[string][]byte) {
	tb.Helper()
	proj := &DirProject{Root: root}
	units := map[string][]*Result{}
	srcs := map[string][]byte{}
	err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		lang := ForPath(rel)
		if lang == nil {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		mi := lang.Module(proj, rel)
		r, err := lang.Extract(&File{Path: rel, Src: src, ModuleInfo: mi, Project: proj})
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		srcs[rel] = src
		u := lang.Name() + ":" + mi.Unit
		units[u] = append(units[u], r)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return units, srcs
}

// dumpProject extracts and resolves a project and writes the result as
// sorted text.
func dumpProject(t *testing.T, root string) string {
	t.Helper()
	units, _ := extractProject(t, root, ".")
	var unitNames []string
	for u := range units {
		unitNames = append(unitNames, u)
	}
	sort.Strings(unitNames)
	var b strings.Builder
	for _, u := range unitNames {
		rs := units[u]
		sort.Slice(rs, func(i, j int) bool { return rs[i].Path < rs[j].Path })
		edges := Resolve(rs, ResolveOptions{KeepLow: true})
		for i, r := range rs {
			fmt.Fprintf(&b, "== %s (%s, module %s %s", r.Path, r.Language, r.Module.Kind, r.Module.Key)
			if r.Module.Ecosystem != "" {
				fmt.Fprintf(&b, " %s", r.Module.Ecosystem)
			}
			fmt.Fprintf(&b, ", unit %s)\n", u)
			if r.SyntaxErrors > 0 {
				fmt.Fprintf(&b, "syntax errors: %d\n", r.SyntaxErrors)
			}
			for _, it := range r.Items {
				fmt.Fprintf(&b, "item %s %s %s %s", it.Kind, it.Key, it.Visibility, spanText(it.Span))
				if it.Parent != "" {
					fmt.Fprintf(&b, " parent=%s", it.Parent)
				}
				if it.Doc != "" {
					fmt.Fprintf(&b, " doc=%q", firstLine(it.Doc))
				}
				b.WriteString("\n")
			}
			for _, im := range r.Imports {
				fmt.Fprintf(&b, "import %q", im.Path)
				if im.Alias != "" {
					fmt.Fprintf(&b, " as %s", im.Alias)
				}
				fmt.Fprintf(&b, " -> %s:%s %s\n", im.Target.Kind, im.Target.Key, spanText(im.Span))
			}
			for _, f := range r.Fields {
				fmt.Fprintf(&b, "field %s.%s %s\n", f.Struct, f.Name, f.Type)
			}
			lines := make([]string, 0, len(edges[i]))
			for _, e := range edges[i] {
				lines = append(lines, fmt.Sprintf("edge %s:%s %s %s:%s %s %s", e.From.Kind, e.From.Key, e.Label, e.To.Kind, e.To.Key, e.Confidence, spanText(e.Span)))
			}
			sort.Strings(lines)
			for _, l := range lines {
				b.WriteString(l + "\n")
			}
		}
	}
	return b.String()
}

func spanText(s graph.Span) string {
	if s.StartLine == 0 {
		return "-"
	}
	return fmt.Sprintf("%d:%d-%d:%d", s.StartLine, s.StartCol, s.EndLine, s.EndCol)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// diffLines shows the lines only in want (-) and only in got (+).
func diffLines(want, got string) string {
	w := map[string]int{}
	for _, l := range strings.Split(want, "\n") {
		w[l]++
	}
	var b strings.Builder
	for _, l := range strings.Split(got, "\n") {
		if w[l] > 0 {
			w[l]--
			continue
		}
		b.WriteString("+ " + l + "\n")
	}
	for l, n := range w {
		for ; n > 0; n-- {
			b.WriteString("- " + l + "\n")
		}
	}
	return b.String()
}

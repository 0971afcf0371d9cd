package ignore

import (
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

var (
	gitCases = flag.Int("gitcases", 300, "random repositories TestGitRandom compares with git (40 with -short)")
	gitSeed  = flag.Uint64("gitseed", 1, "seed of the first random repository of TestGitRandom")
)

// TestGitTricky compares a Matcher with git on a hand-made repository:
// nested .gitignore files using every feature, and names that are
// themselves glob syntax, comments, negations or white space.
func TestGitTricky(t *testing.T) {
	needGit(t)
	names := []string{"a", "b.o", "keep.o", "#c", "!n", "t ", " s", "q?", "st*r", "[ab]", "b\\s", "é", "tab\t", "n\nl", "x.log", "build", "foo"}
	dirs := []string{"", "a/", "a/b/", "build/", "build/sub/", "foo/", "foo/bar/", "#c/", "[ab]/", "é/", "deep/x/y/z/"}
	tr := tree{
		".gitignore": "# comment\n\\#c\n*.o\n!keep.o\n/build/*\n!/build/sub/\nbuild/sub/b.o\n" +
			"foo/**\n!foo/**/\n**/q?\nst\\*r\n[!a-z]s\nt\\ \n!n\n\\!n\n" +
			"deep/**/z\n\\[ab]/\n[[:space:]]*\n",
		"a/.gitignore":         "!b.o\n/b/\n\xc3\xa9\n",
		"build/sub/.gitignore": "!*.o\r\nx.log  \r\n",
		"foo/bar/.gitignore":   "!keep.o/\n*\n!*.log\n",
		"deep/x/.gitignore":    "!y/\ny/**/a\n",
		".git/info/exclude":    "x.log\n!/deep/\n",
	}
	for _, d := range dirs {
		if d != "" {
			tr[d] = ""
		}
		for _, n := range names {
			if _, ok := tr[d+n+"/"]; !ok {
				tr[d+n] = ""
			}
		}
	}
	delete(tr, "build")
	delete(tr, "foo")
	delete(tr, "a")
	delete(tr, "#c")
	delete(tr, "[ab]")
	delete(tr, "é")
	compareWithGit(t, tr, []string{"!*.log", "foo/bar/a"})
}

// TestGitRandom compares a Matcher with git on random repositories: random
// trees of confusable names, with .gitignore files (and info/exclude,
// and extra patterns) drawn from a grammar of gitignore features.
func TestGitRandom(t *testing.T) {
	needGit(t)
	n := *gitCases
	if testing.Short() && n > 40 {
		n = 40
	}
	for i := range n {
		seed := *gitSeed + uint64(i)
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			g := &gen{r: rand.New(rand.NewPCG(seed, 0))}
			tr := g.repo()
			compareWithGit(t, tr, g.extras())
		})
	}
}

// compareWithGit builds the tree in a new repository and requires the
// Matcher to agree with git on every path: check-ignore's verdict and
// deciding pattern when asked in random order and concurrently, what
// ls-files lists, and, with the extra patterns, what ls-files --exclude
// lists and ignores.
func compareWithGit(t *testing.T, tr tree, extra []string) {
	root := t.TempDir()
	gitInit(t, root)
	tr.write(t, root)
	paths, isDir := pathsUnder(t, root)
	defer func() {
		if t.Failed() {
			t.Logf("ignore files:\n%s", describe(tr))
			t.Logf("extra patterns: %q", extra)
		}
	}()

	want := gitCheckIgnore(t, root, paths)

	// Arbitrary order, from several goroutines.
	m := New(root, nil)
	shuffled := slices.Clone(paths)
	rand.New(rand.NewPCG(uint64(len(paths)), 2)).Shuffle(len(shuffled), func(i, j int) {
		shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
	})
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < len(shuffled); i += 4 {
				p := shuffled[i]
				got := m.Ignored(p, isDir[p])
				d := m.explain(p, isDir[p])
				mu.Lock()
				if w := want[p]; got != w.ignored || !sameSource(d, w) {
					t.Errorf("%q (dir %v): ignored %v by %s, git: %v by %s:%d", p, isDir[p], got, describePattern(d), w.ignored, w.source, w.line)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()

	// The walk visits exactly what git does not ignore.
	var visited []string
	var files []string
	err := New(root, nil).Walk("", func(rel string, d fs.DirEntry) error {
		if rel == "." {
			return nil
		}
		visited = append(visited, rel)
		if !d.IsDir() {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var notIgnored []string
	for _, p := range paths {
		if !want[p].ignored {
			notIgnored = append(notIgnored, p)
		}
	}
	sort.Strings(notIgnored)
	if !sort.StringsAreSorted(visited) {
		// Lexical order per directory is not global byte order ("a/b"
		// vs "a.o"), so compare as sets.
		sort.Strings(visited)
	}
	if diff := diffSets(visited, notIgnored); diff != "" {
		t.Errorf("Walk visits what git check-ignore does not ignore:\n%s", diff)
	}
	sort.Strings(files)
	if diff := diffSets(files, gitLsFiles(t, root, nil, false)); diff != "" {
		t.Errorf("Walk files vs git ls-files -o --exclude-standard:\n%s", diff)
	}

	if len(extra) == 0 {
		return
	}
	mx := New(root, extra)
	files = files[:0]
	err = mx.Walk("", func(rel string, d fs.DirEntry) error {
		if !d.IsDir() {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if diff := diffSets(files, gitLsFiles(t, root, extra, false)); diff != "" {
		t.Errorf("Walk files with extra patterns vs git ls-files --exclude:\n%s", diff)
	}
	ignored := gitLsFiles(t, root, extra, true)
	for _, p := range paths {
		if isDir[p] {
			continue
		}
		_, w := slices.BinarySearch(ignored, p)
		if got := mx.Ignored(p, false); got != w {
			t.Errorf("with extra patterns: Ignored(%q) = %v, git ls-files -i --exclude: %v", p, got, w)
		}
	}
}

// sameSource reports whether the pattern is the one git reports.
func sameSource(p *pattern, v gitVerdict) bool {
	if p == nil {
		return v.source == ""
	}
	return p.source == v.source && p.line == v.line
}

func describePattern(p *pattern) string {
	if p == nil {
		return "nothing"
	}
	return fmt.Sprintf("%s:%d %q", p.source, p.line, p.text)
}

func describe(tr tree) string {
	var b strings.Builder
	keys := make([]string, 0, len(tr))
	for k := range tr {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.HasSuffix(k, ".gitignore") || strings.HasSuffix(k, "exclude") {
			fmt.Fprintf(&b, "--- %s\n%q\n", k, tr[k])
		}
	}
	fmt.Fprintf(&b, "--- paths\n%q\n", keys)
	return b.String()
}

// diffSets describes how two sorted lists differ, or returns "".
func diffSets(got, want []string) string {
	var b strings.Builder
	i, j := 0, 0
	for i < len(got) || j < len(want) {
		switch {
		case j == len(want) || i < len(got) && got[i] < want[j]:
			fmt.Fprintf(&b, "  extra   %q\n", got[i])
			i++
		case i == len(got) || want[j] < got[i]:
			fmt.Fprintf(&b, "  missing %q\n", want[j])
			j++
		default:
			i++
			j++
		}
	}
	return b.String()
}

// gen draws random repositories.
type gen struct {
	r *rand.Rand
}

// names are path components, chosen to collide with the patterns: glob
// syntax, comment and negation marks, spaces, non-ASCII.
var names = []string{
	"a", "b", "ab", "ba", "abc", "a.o", "b.o", "x.txt", "foo", "Foo", "bar", "foo.bar",
	"#c", "!n", "t ", " s", "q?", "st*r", "[ab]", "b\\s", "\\", "é", "tab\t", "-", "]",
	"a-b", "_", ".hidden", "a~", "n\nl", "[", "x y", "7", "A", "\xe9t", "\v", "\x7f",
}

// oddLines are whole lines that test the edges of the syntax.
var oddLines = []string{
	"*", "**", "/", "!", "\\", "*/", "/**", "**/", "**/*", "!*/", "[", "[]", "[!]", "#",
	"\\#c", "\\!n", " ", "  \\ ", "a\\", "!**/", "/*", "*/*", "**/a/**", "a/**", "\\ s",
	"t\\ ", "*.o", "!*.o", "b.o/", "!a/", "a/**/", "**/**", "/**/a", "!/a", "a/*/", "*/b",
	"[[:alpha:]]*", "*[[:digit:]]", "[!a-z]*", "*[", "a[", "[a-", "[[:bogus:]]", "\\\\",
}

func (g *gen) pick(s []string) string { return s[g.r.IntN(len(s))] }

// repo draws a tree of at most four levels with ignore files.
func (g *gen) repo() tree {
	tr := tree{}
	g.dir(tr, "", 0)
	if g.r.IntN(10) < 8 {
		tr[".gitignore"] = g.ignoreFile()
	}
	if g.r.IntN(4) == 0 {
		tr[".git/info/exclude"] = g.ignoreFile()
	}
	return tr
}

func (g *gen) dir(tr tree, dir string, depth int) {
	for range 1 + g.r.IntN(6) {
		p := dir + g.pick(names)
		if _, ok := tr[p]; ok {
			continue
		}
		if _, ok := tr[p+"/"]; ok {
			continue
		}
		if _, ok := tr[p+"@"]; ok {
			continue
		}
		switch {
		case depth < 3 && g.r.IntN(3) == 0:
			tr[p+"/"] = ""
			g.dir(tr, p+"/", depth+1)
			if g.r.IntN(2) == 0 {
				tr[p+"/.gitignore"] = g.ignoreFile()
			}
		case g.r.IntN(12) == 0:
			tr[p+"@"] = ""
		default:
			tr[p] = ""
		}
	}
}

func (g *gen) ignoreFile() string {
	var lines []string
	for range 1 + g.r.IntN(6) {
		lines = append(lines, g.line())
	}
	sep := "\n"
	if g.r.IntN(8) == 0 {
		sep = "\r\n"
	}
	s := strings.Join(lines, sep)
	if g.r.IntN(4) != 0 {
		s += sep
	}
	if g.r.IntN(20) == 0 {
		s = "\xef\xbb\xbf" + s
	}
	return s
}

// line draws one line: mostly a pattern of one to three segments, maybe
// negated, anchored, for directories only, with trailing spaces.
func (g *gen) line() string {
	switch g.r.IntN(20) {
	case 0:
		return "#" + g.literal()
	case 1:
		return ""
	case 2, 3:
		return g.pick(oddLines)
	}
	var b strings.Builder
	if g.r.IntN(4) == 0 {
		b.WriteString("!")
	}
	if g.r.IntN(4) == 0 {
		b.WriteString("/")
	}
	nseg := 1
	if g.r.IntN(2) == 0 {
		nseg += 1 + g.r.IntN(2)
	}
	for i := range nseg {
		if i > 0 {
			b.WriteString("/")
		}
		b.WriteString(g.segment())
	}
	if g.r.IntN(4) == 0 {
		b.WriteString("/")
	}
	switch g.r.IntN(12) {
	case 0:
		b.WriteString("  ")
	case 1:
		b.WriteString("\\ ")
	case 2:
		b.WriteString("\t")
	}
	return b.String()
}

func (g *gen) segment() string {
	if g.r.IntN(6) == 0 {
		return "**"
	}
	var b strings.Builder
	for range 1 + g.r.IntN(3) {
		switch g.r.IntN(12) {
		case 0, 1:
			b.WriteString("*")
		case 2:
			b.WriteString("?")
		case 3:
			b.WriteString(g.class())
		case 4:
			b.WriteString("**")
		case 5:
			b.WriteString("\\" + g.pick([]string{"*", "?", "[", "\\", "!", "#", " ", "a", "]"}))
		default:
			b.WriteString(g.literal())
		}
	}
	return b.String()
}

// literal draws a name, or part of one, sometimes with its glob syntax
// escaped.
func (g *gen) literal() string {
	s := strings.ReplaceAll(g.pick(names), "\n", "?")
	switch g.r.IntN(4) {
	case 0:
		s = s[:g.r.IntN(len(s)+1)]
	case 1:
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if isGlobSpecial(s[i]) {
				b.WriteByte('\\')
			}
			b.WriteByte(s[i])
		}
		s = b.String()
	}
	return s
}

func (g *gen) class() string {
	var b strings.Builder
	b.WriteString("[")
	switch g.r.IntN(4) {
	case 0:
		b.WriteString("!")
	case 1:
		b.WriteString("^")
	}
	if g.r.IntN(8) == 0 {
		b.WriteString("]")
	}
	items := []string{"a", "b", "o", "a-c", "x-z", "A-Z", "[:alpha:]", "[:digit:]", "[:space:]", "[:punct:]",
		"[:upper:]", "[:lower:]", "[:alnum:]", "\\]", "-", ".", " ", "\\\\", "[:bogus:]", "!", "^", "#", "?", "*",
		"\x80-\xff", "[:cntrl:]", "[:graph:]", "[:print:]", "[:xdigit:]", "[:blank:]"}
	for range 1 + g.r.IntN(3) {
		b.WriteString(g.pick(items))
	}
	if g.r.IntN(15) != 0 {
		b.WriteString("]")
	}
	return b.String()
}

// extras draws the extra patterns, none of them a line that git's
// --exclude (which takes a pattern as is) would read differently from a
// line of a file.
func (g *gen) extras() []string {
	if g.r.IntN(2) == 0 {
		return nil
	}
	var out []string
	for range 1 + g.r.IntN(3) {
		l := g.line()
		if l == "" || l[0] == '#' || trimTrailingSpaces(l) != l {
			continue
		}
		out = append(out, l)
	}
	return out
}

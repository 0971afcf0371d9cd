package ignore

import (
	"strings"
	"sync"
	"testing"
)

// A check is one question to a Matcher: is path (a directory if it ends
// in "/") ignored?
type check struct {
	path string
	want bool
}

var ignoredTests = []struct {
	name   string
	files  tree
	extra  []string
	checks []check
	// notGit marks cases git answers differently on purpose (built-in
	// ignores) or cannot be asked about (extra patterns).
	notGit bool
}{
	{
		name:  "comments and escaped hash",
		files: tree{".gitignore": "#c\n\\#d\n # e\n"},
		checks: []check{
			{"#c", false}, {"#d", true}, {" # e", true}, {"c", false},
		},
	},
	{
		name:  "trailing spaces trimmed unless escaped; tabs kept",
		files: tree{".gitignore": "a  \nb\\ \nc\\  \nd\t\n"},
		checks: []check{
			{"a", true}, {"a ", false}, {"b ", true}, {"b", false},
			{"c ", true}, {"c", false}, {"d\t", true}, {"d", false},
		},
	},
	{
		name:   "CRLF line ends and a byte order mark",
		files:  tree{".gitignore": "\xef\xbb\xbfa\r\nb  \r\n"},
		checks: []check{{"a", true}, {"b", true}, {"a\r", false}},
	},
	{
		name:  "negation",
		files: tree{".gitignore": "*.log\n!keep.log\n"},
		checks: []check{
			{"x.log", true}, {"keep.log", false}, {"d/keep.log", false}, {"d/y.log", true},
		},
	},
	{
		name:  "no re-including a file whose directory is excluded",
		files: tree{".gitignore": "build/\n!build/keep\n!keep2\n"},
		checks: []check{
			{"build/", true}, {"build/keep", true}, {"build/keep2", true}, {"build/sub/keep2", true},
		},
	},
	{
		name:   "re-including below an excluded directory's contents",
		files:  tree{".gitignore": "build/*\n!build/keep\n"},
		checks: []check{{"build/", false}, {"build/x", true}, {"build/keep", false}, {"build/other/y", true}},
	},
	{
		name:  "a .gitignore inside an excluded directory is not read",
		files: tree{".gitignore": "sub/\n", "sub/.gitignore": "!x\n"},
		checks: []check{
			{"sub/x", true}, {"sub/.gitignore", true},
		},
	},
	{
		name:  "a slash at the start or middle anchors; none matches at any depth",
		files: tree{".gitignore": "/top\na/b\nname\n"},
		checks: []check{
			{"top", true}, {"d/top", false}, {"a/b", true}, {"x/a/b", false},
			{"name", true}, {"x/y/name", true}, {"x/name/z", true},
		},
	},
	{
		name:  "anchored patterns in a deeper .gitignore are relative to it",
		files: tree{"sub/.gitignore": "/x\ny/z\n"},
		checks: []check{
			{"sub/x", true}, {"sub/d/x", false}, {"x", false},
			{"sub/y/z", true}, {"y/z", false}, {"sub/d/y/z", false},
		},
	},
	{
		name:   "a trailing slash matches only directories",
		files:  tree{".gitignore": "dir/\n*.d/\n"},
		checks: []check{{"dir/", true}, {"x/dir", false}, {"y/dir/", true}, {"a.d", false}, {"b.d/", true}},
	},
	{
		name:  "star and question mark do not match a slash",
		files: tree{".gitignore": "*.o\n?.c\nd/*.h\n"},
		checks: []check{
			{"a.o", true}, {"x/y/a.o", true}, {"a.c", true}, {"ab.c", false},
			{"d/a.h", true}, {"d/e/a.h", false},
		},
	},
	{
		name:  "character classes",
		files: tree{".gitignore": "[ab].txt\n[!ab].md\n[^x-z].go\n[a-c]*.h\n[[:digit:]]n\n[]]r\n"},
		checks: []check{
			{"a.txt", true}, {"c.txt", false}, {"a.md", false}, {"c.md", true},
			{"x.go", false}, {"w.go", true}, {"b1.h", true}, {"d1.h", false},
			{"7n", true}, {"xn", false}, {"]r", true},
		},
	},
	{
		name:  "leading **/",
		files: tree{".gitignore": "**/foo\n"},
		checks: []check{
			{"foo", true}, {"a/foo", true}, {"a/b/foo", true}, {"a/foox", false},
		},
	},
	{
		name:  "trailing /**",
		files: tree{".gitignore": "foo/**\n"},
		checks: []check{
			{"foo/", false}, {"foo/x", true}, {"foo/y/z", true}, {"a/foo/x", false},
		},
	},
	{
		name:  "middle /**/",
		files: tree{".gitignore": "a/**/b\n"},
		checks: []check{
			{"a/b", true}, {"a/x/b", true}, {"a/x/y/b", true}, {"x/a/b", false}, {"a/xb", false},
		},
	},
	{
		name:  "** elsewhere is a plain star",
		files: tree{".gitignore": "x**y\nfoo**/bar\n"},
		checks: []check{
			{"xy", true}, {"xaby", true}, {"foo/bar", true},
			// Git matches the literal "foo" first and the rest on its
			// own, so "**/" is then at the start.
			{"foox/y/bar", true},
		},
	},
	{
		name:  "backslash escapes",
		files: tree{".gitignore": "\\!important\n\\*\nq\\?\nb\\\\s\n"},
		checks: []check{
			{"!important", true}, {"important", false}, {"*", true}, {"x", false},
			{"q?", true}, {"qa", false}, {"b\\s", true},
		},
	},
	{
		name:  "deeper files take precedence",
		files: tree{".gitignore": "*.txt\n!x.md\n", "sub/.gitignore": "!*.txt\nx.md\n"},
		checks: []check{
			{"a.txt", true}, {"sub/a.txt", false}, {"sub/d/a.txt", false}, {"x.md", false}, {"sub/x.md", true},
		},
	},
	{
		name:  "the last matching line wins",
		files: tree{".gitignore": "a\n!a\na\nb\n!b\n"},
		checks: []check{
			{"a", true}, {"b", false},
		},
	},
	{
		name:  "info/exclude below every .gitignore",
		files: tree{".git/info/exclude": "secret\nother\n", ".gitignore": "!secret\n"},
		checks: []check{
			{"secret", false}, {"other", true}, {"d/other", true},
		},
	},
	{
		name:  "a symbolic link named .gitignore is not followed",
		files: tree{"a": "x\n", ".gitignore@": ""},
		checks: []check{
			{"x", false},
		},
	},
	{
		name:   "a trailing slash does not match a symbolic link to a directory",
		files:  tree{"a/": "", "lnk@": "", ".gitignore": "lnk/\n"},
		checks: []check{{"lnk", false}},
	},
	{
		name:   "a .gitignore that is a directory is no ignore file",
		files:  tree{"sub/.gitignore/": "", ".gitignore": "!x\n"},
		checks: []check{{"sub/x", false}, {"sub/.gitignore/", false}},
	},
	{
		name:  "** alone, and ignore files ignoring themselves",
		files: tree{"a/.gitignore": "**\n!b/\n", "c/.gitignore": "/*\n!x\n", "d/.gitignore": "/**\n"},
		checks: []check{
			{"a/.gitignore", true}, {"a/f", true}, {"a/b/", false}, {"a/b/f", true},
			{"c/.gitignore", true}, {"c/x", false}, {"c/y/", true}, {"c/e/x", true},
			{"d/.gitignore", true}, {"d/y/", true},
		},
	},
	{
		name:  "lines that match nothing",
		files: tree{".gitignore": "!\n/\n\\\n[\n"},
		checks: []check{
			{"x", false}, {"[", false}, {"\\", false},
		},
	},
	{
		name:   "extra patterns come before every file",
		files:  tree{".gitignore": "vendor/\n!keep.tmp\n"},
		extra:  []string{"*.tmp", "!vendor/", "#comment", "spaced  ", "sub/x"},
		notGit: true,
		checks: []check{
			{"a.tmp", true}, {"keep.tmp", true}, {"vendor/", false}, {"vendor/y", false},
			{"#comment", false}, {"spaced", true}, {"sub/x", true}, {"d/sub/x", false},
		},
	},
	{
		name:   "built-in ignores",
		files:  tree{".gitignore": "!.git\n!.ctx\n"},
		extra:  []string{"!.git/", "!.ctx/"},
		notGit: true,
		checks: []check{
			{".git/", true}, {".git/config", true}, {"sub/.git", true}, {"sub2/.git/", true}, {"sub2/.git/x", true},
			{".ctx/", true}, {".ctx/objects/x", true}, {"sub/.ctx/", true},
			{"sub3/.ctx", false}, {".gitx", false},
		},
	},
}

func TestIgnored(t *testing.T) {
	for _, tt := range ignoredTests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if !tt.notGit {
				needGit(t)
				gitInit(t, root)
			}
			tt.files.write(t, root)
			files := tree{}
			for _, c := range tt.checks {
				_, link := tt.files[c.path+"@"]
				if _, ok := tt.files[c.path]; !ok && !link && !strings.HasPrefix(c.path, ".git/") {
					files[c.path] = ""
				}
			}
			files.write(t, root)

			m := New(root, tt.extra)
			for _, c := range tt.checks {
				rel, isDir := strings.CutSuffix(c.path, "/")
				if got := m.Ignored(rel, isDir); got != c.want {
					t.Errorf("Ignored(%q, %v) = %v, want %v", rel, isDir, got, c.want)
				}
			}
			if tt.notGit {
				return
			}
			var paths []string
			for _, c := range tt.checks {
				paths = append(paths, strings.TrimSuffix(c.path, "/"))
			}
			verdicts := gitCheckIgnore(t, root, paths)
			for _, c := range tt.checks {
				if got := verdicts[strings.TrimSuffix(c.path, "/")].ignored; got != c.want {
					t.Errorf("git check-ignore %q: ignored = %v, the table says %v", c.path, got, c.want)
				}
			}
		})
	}
}

func TestIgnoredPaths(t *testing.T) {
	root := t.TempDir()
	tree{".gitignore": "x\n"}.write(t, root)
	m := New(root, nil)
	tests := []struct {
		rel  string
		want bool
	}{
		{"", false},
		{".", false},
		{"x", true},
		{"./x", true},
		{"a//x", true},
		{"a/x/", true},
		{"../x", false},
		{"/x", false},
		{"a/../../x", false},
		{"\xff/x", true},
		{"x/.", true},
	}
	for _, tt := range tests {
		if got := m.Ignored(tt.rel, false); got != tt.want {
			t.Errorf("Ignored(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
}

func TestIgnoredConcurrent(t *testing.T) {
	root := t.TempDir()
	tree{
		".gitignore":     "*.o\n!keep.o\n",
		"a/.gitignore":   "b/\n!y.o\n",
		"a/c/.gitignore": "!x.o\n/d\n",
	}.write(t, root)
	var paths []string
	for _, d := range []string{"", "a/", "a/b/", "a/c/", "a/c/d/", "a/c/e/", "f/"} {
		for _, f := range []string{"x.o", "y.o", "keep.o", "z", "d"} {
			paths = append(paths, d+f)
		}
	}
	want := map[string]bool{}
	seq := New(root, nil)
	for _, p := range paths {
		want[p] = seq.Ignored(p, false)
	}
	if !want["a/b/keep.o"] || want["a/c/x.o"] || !want["a/c/d"] || want["a/c/e/d"] {
		t.Fatalf("sequential answers are wrong: %v", want)
	}
	m := New(root, nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range paths {
				// Each goroutine asks in another order, deepest first
				// for some, so that lookups race to load the files.
				p := paths[(len(paths)-1-j+i*7)%len(paths)]
				if got := m.Ignored(p, false); got != want[p] {
					t.Errorf("concurrent Ignored(%q) = %v, want %v", p, got, want[p])
				}
			}
		})
	}
	wg.Wait()
}

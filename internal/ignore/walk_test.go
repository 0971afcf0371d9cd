package ignore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// walkTree is the tree most Walk tests use.
var walkTree = tree{
	".gitignore":       "*.o\nbuild/\n",
	"a.go":             "",
	"a.o":              "",
	"b/":               "",
	"b/c.go":           "",
	"b/d/":             "",
	"b/d/e.go":         "",
	"b/z.go":           "",
	"b.go":             "",
	"build/x.go":       "",
	".git/config":      "",
	".ctx/HEAD":        "",
	"link@":            "", // to "a"
	"sub/.gitignore":   "!keep.o\n",
	"sub/keep.o":       "",
	"sub/other.o":      "",
	"sub/.git":         "gitdir: ../.git/modules/sub\n",
	"sub/dir.o/":       "",
	"sub/dir.o/f.go":   "",
	"sub/.ctx":         "a file, not a store",
	"sub/linkdir@":     "",
	"sub/a/inside.go":  "",
	"sub/a/inside.txt": "",
}

// walkAll walks dir and returns what fn saw, as "rel" or "rel/" for a
// directory or "rel@" for a symbolic link.
func walkAll(t *testing.T, m *Matcher, dir string) []string {
	t.Helper()
	var got []string
	err := m.Walk(dir, func(rel string, d fs.DirEntry) error {
		switch {
		case d.IsDir():
			rel += "/"
		case d.Type()&fs.ModeSymlink != 0:
			rel += "@"
		}
		got = append(got, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestWalk(t *testing.T) {
	root := t.TempDir()
	walkTree.write(t, root)
	tests := []struct {
		dir  string
		want []string
	}{
		{"", []string{
			"./", ".gitignore", "a.go", "b/", "b/c.go", "b/d/", "b/d/e.go", "b/z.go", "b.go", "link@",
			"sub/", "sub/.ctx", "sub/.gitignore", "sub/a/", "sub/a/inside.go", "sub/a/inside.txt",
			"sub/keep.o", "sub/linkdir@",
		}},
		{".", nil}, // same as ""
		{"b", []string{"b/", "b/c.go", "b/d/", "b/d/e.go", "b/z.go"}},
		{"b/d/", []string{"b/d/", "b/d/e.go"}},
		{"sub/a", []string{"sub/a/", "sub/a/inside.go", "sub/a/inside.txt"}},
		{"build", nil},
		{"sub/dir.o", nil},
		{".git", nil},
		{"a.go", []string{"a.go"}},
		{"a.o", nil},
	}
	tests[1].want = tests[0].want
	for _, tt := range tests {
		// A fresh Matcher each time: walking from below the root must
		// load the ignore files above.
		if got := walkAll(t, New(root, nil), tt.dir); !slices.Equal(got, tt.want) {
			t.Errorf("Walk(%q) visits\n%q\nwant\n%q", tt.dir, got, tt.want)
		}
	}
}

func TestWalkSymlinks(t *testing.T) {
	root := t.TempDir()
	tree{"a/x": "", ".gitignore": "lnk/\n"}.write(t, root)
	if err := os.Symlink("a", filepath.Join(root, "lnk")); err != nil {
		t.Fatal(err)
	}
	// A link to a directory is not a directory: "lnk/" does not match
	// it, and the walk does not enter it.
	got := walkAll(t, New(root, nil), "")
	if want := []string{"./", ".gitignore", "a/", "a/x", "lnk@"}; !slices.Equal(got, want) {
		t.Errorf("Walk visits %q, want %q", got, want)
	}
	if got := walkAll(t, New(root, nil), "lnk"); !slices.Equal(got, []string{"lnk@"}) {
		t.Errorf("Walk(link) visits %q, want only the link", got)
	}
}

func TestWalkSkip(t *testing.T) {
	root := t.TempDir()
	walkTree.write(t, root)
	errStop := errors.New("stop")
	tests := []struct {
		name    string
		stopAt  string
		stopErr error
		want    []string
		wantErr error
	}{
		{"SkipDir on a directory skips it", "b", fs.SkipDir, []string{".", ".gitignore", "a.go", "b", "b.go", "link", "sub"}, nil},
		{"SkipDir on a file skips the rest of its directory", "b/c.go", fs.SkipDir, []string{".", ".gitignore", "a.go", "b", "b/c.go", "b.go", "link", "sub"}, nil},
		{"SkipDir on the start", ".", fs.SkipDir, []string{"."}, nil},
		{"SkipAll", "b/d", fs.SkipAll, []string{".", ".gitignore", "a.go", "b", "b/c.go", "b/d"}, nil},
		{"an error stops the walk", "b/d/e.go", errStop, []string{".", ".gitignore", "a.go", "b", "b/c.go", "b/d", "b/d/e.go"}, errStop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			err := New(root, nil).Walk("", func(rel string, d fs.DirEntry) error {
				if strings.HasPrefix(rel, "sub/") {
					return nil
				}
				got = append(got, rel)
				if rel == tt.stopAt {
					return tt.stopErr
				}
				return nil
			})
			if err != tt.wantErr {
				t.Errorf("Walk = %v, want %v", err, tt.wantErr)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Walk visits %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWalkErrors(t *testing.T) {
	root := t.TempDir()
	walkTree.write(t, root)
	m := New(root, nil)
	nop := func(string, fs.DirEntry) error { return nil }
	if err := m.Walk("../x", nop); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("Walk outside the root = %v, want fs.ErrInvalid", err)
	}
	if err := m.Walk("nope", nop); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Walk of a missing directory = %v, want fs.ErrNotExist", err)
	}
	if os.Geteuid() == 0 {
		t.Skip("root reads any file")
	}
	if err := os.Chmod(filepath.Join(root, "sub", ".gitignore"), 0); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"", "sub", "sub/a", "sub/a/inside.go"} {
		if err := New(root, nil).Walk(dir, nop); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("Walk(%q) over an unreadable .gitignore = %v, want fs.ErrPermission", dir, err)
		}
	}
	if err := New(root, nil).Walk("b", nop); err != nil {
		t.Errorf("Walk(%q) away from an unreadable .gitignore = %v", "b", err)
	}
	// Ignored counts the file as empty, as git does.
	if New(root, nil).Ignored("sub/keep.o", false) != true {
		t.Error("sub/keep.o is not ignored with its .gitignore unreadable")
	}
}

func TestInfoExclude(t *testing.T) {
	t.Run("git directory", func(t *testing.T) {
		root := t.TempDir()
		tree{".git/info/exclude": "x\n", "x": "", "y": ""}.write(t, root)
		if m := New(root, nil); !m.Ignored("x", false) || m.Ignored("y", false) {
			t.Error("info/exclude not applied")
		}
	})
	t.Run("submodule", func(t *testing.T) {
		root := t.TempDir()
		tree{
			"super/.git/modules/sub/info/exclude": "x\n",
			"super/sub/.git":                      "gitdir: ../.git/modules/sub\n",
		}.write(t, root)
		if m := New(filepath.Join(root, "super", "sub"), nil); !m.Ignored("x", false) {
			t.Error("info/exclude of the submodule's git directory not applied")
		}
	})
	t.Run("worktree", func(t *testing.T) {
		root := t.TempDir()
		main := filepath.Join(root, "main")
		tree{
			"main/.git/info/exclude":           "x\n",
			"main/.git/worktrees/wt/commondir": "../..\n",
			"wt/.git":                          "gitdir: " + filepath.Join(main, ".git", "worktrees", "wt") + "\n",
		}.write(t, root)
		if m := New(filepath.Join(root, "wt"), nil); !m.Ignored("x", false) {
			t.Error("info/exclude of the common git directory not applied")
		}
	})
	t.Run("real worktree", func(t *testing.T) {
		needGit(t)
		root := t.TempDir()
		main := filepath.Join(root, "main")
		if err := os.Mkdir(main, 0o755); err != nil {
			t.Fatal(err)
		}
		git(t, main, nil, "init", "-q", ".")
		tree{".git/info/exclude": "x\n", "f": ""}.write(t, main)
		git(t, main, nil, "add", "f")
		git(t, main, nil, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "m")
		git(t, main, nil, "worktree", "add", "-q", filepath.Join(root, "wt"))
		if m := New(filepath.Join(root, "wt"), nil); !m.Ignored("x", false) {
			t.Error("info/exclude not applied in a worktree git made")
		}
	})
}

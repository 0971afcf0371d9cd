package workset

import (
	"path"
	"reflect"
	"strings"
	"testing"
)

func TestFormatOf(t *testing.T) {
	tests := []struct {
		tool, args string
		want       Format
	}{
		{"bash", "ls -la src", FormatLs},
		{"Bash", "grep -rn foo .", FormatGrep},
		{"bash", "rg -n 'a b' | head", FormatGrep},
		{"bash", "find . -name '*.go'", FormatFind},
		{"bash", "/usr/bin/find .", FormatFind},
		{"bash", "git grep -n foo", FormatGrep},
		{"bash", "git ls-files", FormatFind},
		{"bash", "git status", FormatNone},
		{"bash", "", FormatNone},
		{"bash", "cat x", FormatNone},
		{"Grep", "", FormatGrep},
		{"Glob", "**/*.go", FormatFind},
		{"rg", "foo", FormatGrep},
		{"ls", "src", FormatLs},
		{"Read", "/a.go", FormatNone},
	}
	for _, tt := range tests {
		if got := FormatOf(tt.tool, tt.args); got != tt.want {
			t.Errorf("FormatOf(%q, %q) = %s, want %s", tt.tool, tt.args, got, tt.want)
		}
	}
}

// The outputs are recorded from GNU coreutils ls 9, GNU grep 3, GNU
// findutils find 4.9 and ripgrep 14 (piped and as a terminal shows it).
func TestPaths(t *testing.T) {
	tests := []struct {
		name   string
		tool   string
		args   string
		output string
		want   []string
	}{
		{"ls short", "bash", "ls", "README.md  go.mod\tmain.go\n", []string{"/p/README.md", "/p/go.mod", "/p/main.go"}},
		{"ls one per line, dir operand", "bash", "ls -1 src", "a.go\nb.go\n", []string{"/p/src/a.go", "/p/a.go", "/p/src/b.go", "/p/b.go"}},
		{"ls -F drops directories", "bash", "ls -F", "cmd/  main.go  run.sh*  link@\n", []string{"/p/main.go", "/p/run.sh", "/p/link"}},
		{"ls long", "bash", "ls -la",
			"total 16\ndrwxr-xr-x  3 u u 4096 Nov 22 10:00 .\ndrwxr-xr-x 10 u u 4096 Nov 22 10:00 ..\n-rw-r--r--  1 u u   12 Nov 22 10:00 my file.txt\nlrwxrwxrwx  1 u u    6 Nov 22 10:00 l.go -> a.go\ndrwxr-xr-x  2 u u 4096 Nov 22 10:00 src\n",
			[]string{"/p/my file.txt", "/p/l.go"}},
		{"ls several dirs", "bash", "ls a b", "a:\nx.go\n\nb:\ny.go  z.go\n", []string{"/p/a/x.go", "/p/b/y.go", "/p/b/z.go"}},
		{"ls errors", "bash", "ls nope", "ls: cannot access 'nope': No such file or directory\n", nil},
		{"grep -rn", "bash", "grep -rn func .", "./a.go:3:func A() {}\n./sub/b.go:10:func B() {}\n./a.go:7:func C() {}\n",
			[]string{"/p/a.go", "/p/sub/b.go"}},
		{"grep -l", "bash", "grep -rl func", "a.go\nsub/b.go\n", []string{"/p/a.go", "/p/sub/b.go"}},
		{"grep one file has no path", "bash", "grep -n func a.go", "3:func A() {}\n7:func C() {}\n", nil},
		{"grep context and binary", "bash", "grep -rn -C1 x .", "./a.go-2-package a\n./a.go:3:x\n--\nBinary file ./bin/tool matches\n",
			[]string{"/p/a.go-2-package a", "/p/a.go", "/p/bin/tool"}},
		{"grep absolute", "Grep", "", "/abs/x.go:1:y\n", []string{"/abs/x.go"}},
		{"rg piped", "rg", "-n foo", "src/a.rs:1:foo\nsrc/b.rs:2:foo\n", []string{"/p/src/a.rs", "/p/src/b.rs"}},
		{"rg heading", "bash", "rg foo", "src/a.rs\n1:foo\n3:  foo()\n\nsrc/b.rs\n2:foo\n", []string{"/p/src/a.rs", "/p/src/b.rs"}},
		{"find", "bash", "find . -type f", ".\n./a.go\n./sub/b.go\nfind: './x': Permission denied\n", []string{"/p", "/p/a.go", "/p/sub/b.go"}},
		{"find absolute and dotdot", "bash", "find /q ../r", "/q/a\n../r/b\n", []string{"/q/a", "/r/b"}},
		{"glob", "Glob", "**/*.go", "/p/a.go\n/p/b.go\n", []string{"/p/a.go", "/p/b.go"}},
		{"crlf", "bash", "find .", "./a.go\r\n./b.go\r\n", []string{"/p/a.go", "/p/b.go"}},
		{"other tools discover nothing", "bash", "cat a.go", "a.go\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Paths(FormatOf(tt.tool, tt.args), tt.output, "/p", tt.args)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Paths = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPathsBounded(t *testing.T) {
	out := strings.Repeat("x\n", 10) + strings.Repeat("a/b\n", 3)
	for i := range MaxDiscovered + 50 {
		out += "f" + string(rune('a'+i%26)) + "/" + strings.Repeat("z", i%7) + "\n"
	}
	if n := len(Paths(FormatFind, out, "/p", "find")); n > MaxDiscovered {
		t.Errorf("%d paths, more than %d", n, MaxDiscovered)
	}
}

func FuzzPaths(f *testing.F) {
	f.Add(0, "a.go\n", "ls")
	f.Add(1, "total 1\n-rw-r--r-- 1 u u 1 Nov 1 10:00 a b\n", "ls -l x")
	f.Add(2, "./a.go:1:x\nBinary file y matches\n--\n", "grep -rn x .")
	f.Add(3, "./a\n../b\n/c\n", "find")
	f.Add(1, "a:\nb\n\nc:\nd  e/  f*\n", "ls a c")
	f.Fuzz(func(t *testing.T, format int, output, args string) {
		for _, got := range Paths(Format(format&3), output, "/p", args) {
			if !path.IsAbs(got) || path.Clean(got) != got || got == "/" || strings.ContainsRune(got, 0) {
				t.Fatalf("path %q is not absolute and clean", got)
			}
		}
		_ = FormatOf("bash", args)
	})
}

func FuzzDecodeState(f *testing.F) {
	f.Add([]byte(`{"version":1,"session":"s","system":null,"mounts":[],"index":[],"pool":[],"active":[],"pinned":[],"turns":[],"toolcalls":[],"window":{"per_turn":5,"turns":3}}`))
	f.Add([]byte(`{"version":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := DecodeState(b)
		if err != nil {
			return
		}
		// What decodes is consistent: active ⊆ pool ⊆ index.
		for _, id := range st.Active {
			if !has(st.Pool, id) {
				t.Fatal("active not in pool")
			}
		}
		for _, id := range st.Pool {
			if !has(st.Index, id) {
				t.Fatal("pool not in index")
			}
		}
	})
}

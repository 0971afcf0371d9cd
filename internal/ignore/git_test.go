package ignore

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// This file runs the real git, the reference the tests compare against.

// gitVerdict is what git check-ignore -v says about a path.
type gitVerdict struct {
	ignored bool
	source  string // ignore file of the deciding pattern, "" if none
	line    int
}

// needGit skips the test when git is not installed.
func needGit(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git not installed")
	}
}

// git runs git in dir with a configuration that depends on nothing but
// the repository: no system or global config, no core.excludesFile.
func git(tb testing.TB, dir string, stdin []byte, args ...string) []byte {
	tb.Helper()
	home := tb.TempDir()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+home, "XDG_CONFIG_HOME="+home, "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	// check-ignore exits 1 when it ignores nothing.
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1 && args[0] == "check-ignore") {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// gitInit makes dir a repository: the least git recognizes as one
// (HEAD, objects/, refs/), which is much faster than git init.
func gitInit(tb testing.TB, dir string) {
	tb.Helper()
	tree{
		".git/HEAD":     "ref: refs/heads/main\n",
		".git/objects/": "",
		".git/refs/":    "",
	}.write(tb, dir)
}

// gitCheckIgnore asks git check-ignore about every path (each must
// exist, so that git sees which are directories).
func gitCheckIgnore(tb testing.TB, root string, paths []string) map[string]gitVerdict {
	tb.Helper()
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(p)
		in.WriteByte(0)
	}
	out := git(tb, root, in.Bytes(), "check-ignore", "--no-index", "-v", "-n", "-z", "--stdin")
	fields := strings.Split(string(out), "\x00")
	if len(fields) > 0 && fields[len(fields)-1] == "" {
		fields = fields[:len(fields)-1]
	}
	if len(fields) != 4*len(paths) {
		tb.Fatalf("git check-ignore: %d fields for %d paths: %q", len(fields), len(paths), out)
	}
	res := map[string]gitVerdict{}
	for i := 0; i < len(fields); i += 4 {
		v := gitVerdict{source: fields[i]}
		if v.source != "" {
			v.line, _ = strconv.Atoi(fields[i+1])
			v.ignored = !strings.HasPrefix(fields[i+2], "!")
		}
		res[fields[i+3]] = v
	}
	return res
}

// gitLsFiles returns the untracked files git lists with
// --exclude-standard and the extra patterns as --exclude options; with
// ignored set, those it ignores instead.
func gitLsFiles(tb testing.TB, root string, extra []string, ignored bool) []string {
	tb.Helper()
	args := []string{"ls-files", "-z", "-o", "--exclude-standard"}
	if ignored {
		args = append(args, "-i")
	}
	for _, e := range extra {
		args = append(args, "--exclude="+e)
	}
	out := strings.Split(string(git(tb, root, nil, args...)), "\x00")
	out = slices.DeleteFunc(out, func(s string) bool { return s == "" })
	slices.Sort(out)
	return out
}

// tree describes files to create: a path ending in "/" is a directory,
// one ending in "@" a symbolic link (to "a"), any other a file with
// the given content.
type tree map[string]string

// write creates the tree under root.
func (tr tree) write(tb testing.TB, root string) {
	tb.Helper()
	for p, content := range tr {
		full := filepath.Join(root, filepath.FromSlash(strings.TrimRight(p, "/@")))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		var err error
		switch {
		case strings.HasSuffix(p, "/"):
			err = os.MkdirAll(full, 0o755)
		case strings.HasSuffix(p, "@"):
			err = os.Symlink("a", full)
		default:
			err = os.WriteFile(full, []byte(content), 0o644)
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
}

// pathsUnder lists every path under root but .git, as root-relative
// slash paths, and which of them are directories.
func pathsUnder(tb testing.TB, root string) (paths []string, isDir map[string]bool) {
	tb.Helper()
	isDir = map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		if d.Name() == ".git" && filepath.Dir(p) == root {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		paths = append(paths, rel)
		isDir[rel] = d.IsDir()
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return paths, isDir
}

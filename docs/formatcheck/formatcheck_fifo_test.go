//go:build unix

package formatcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// mkfifo replaces the store file name (a path relative to the store) by
// a FIFO.
func mkfifo(t *testing.T, p, name string) {
	t.Helper()
	f := filepath.Join(storeOf(p), filepath.FromSlash(name))
	os.MkdirAll(filepath.Dir(f), 0o755)
	os.Remove(f)
	if err := unix.Mkfifo(f, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// moveAndLink moves the store file or directory name to name+".real" and
// puts a relative symbolic link to it in its place.
func moveAndLink(t *testing.T, p, name string) {
	t.Helper()
	f := filepath.Join(storeOf(p), filepath.FromSlash(name))
	if err := os.Rename(f, f+".real"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Base(f)+".real", f); err != nil {
		t.Skipf("symlink: %v", err)
	}
}

// TestNonRegularFiles: FIFOs where a file belongs, read by neither
// formatcheck nor ctx (a FIFO would block them), and symbolic links, which
// FORMAT.md does not mention: both follow a link to a file and to objects/
// or a shard, but take a link for no directory under refs/ (refs itself
// included).
func TestNonRegularFiles(t *testing.T) {
	a64 := strings.Repeat("a", 64)
	runDamage(t, []damageCase{
		{name: "config.toml is a FIFO", damage: func(t *testing.T, p string) { mkfifo(t, p, "config.toml") },
			want: codes("E016")}, // §8: not a regular file
		{name: "STAGE is a FIFO", damage: func(t *testing.T, p string) { mkfifo(t, p, "STAGE") },
			want: codes("E018")},
		{name: "head file is a FIFO", damage: func(t *testing.T, p string) { mkfifo(t, p, "refs/main/"+a64) },
			want: codes("E018")},
		{name: "object file is a FIFO", damage: func(t *testing.T, p string) { mkfifo(t, p, "objects/aa/"+a64) },
			want: codes("E002")},
		{name: "temporary FIFO in objects", damage: func(t *testing.T, p string) { mkfifo(t, p, "objects/aa.tmp") },
			want: codes()},
		// DERIVED/ holds no problems of the store, only warnings (§4.7).
		{name: "DERIVED/scc_latest is a FIFO", damage: func(t *testing.T, p string) { mkfifo(t, p, "DERIVED/scc_latest") },
			want: codes()},
		{name: "derived object file is a FIFO", damage: func(t *testing.T, p string) {
			mkfifo(t, p, "DERIVED/objects/aa/"+a64)
			setLatest(t, p, a64+"\n")
		}, want: codes()},
		// Symbolic links.
		{name: "config.toml is a link to a file", damage: func(t *testing.T, p string) { moveAndLink(t, p, "config.toml") },
			want: codes()},
		{name: "HEAD is a link to a file", damage: func(t *testing.T, p string) { moveAndLink(t, p, "HEAD") },
			want: codes()},
		{name: "head file is a link to a file", damage: func(t *testing.T, p string) {
			h := head(t, p)
			f := filepath.Join(storeOf(p), "refs", "main", h)
			os.Rename(f, filepath.Join(storeOf(p), "head.real"))
			if err := os.Symlink("../../head.real", f); err != nil {
				t.Skipf("symlink: %v", err)
			}
		}, want: codes("E005", "E018"), noCounts: true}, // a link is never a head (§2): main has none
		{name: "head file is a link to a directory", damage: func(t *testing.T, p string) {
			os.Symlink("..", filepath.Join(storeOf(p), "refs", "main", a64))
		}, want: codes("E018"), noCounts: true,
			note: "ctx lists a symbolic link to a directory, named by an ID in a ref directory, as a head of the ref (and reports it E018 " +
				"as not holding its name); formatcheck takes it for a directory, which §6.1 says a head never is (the text does not mention links)"},
		{name: "head file is a dangling link", damage: func(t *testing.T, p string) {
			os.Symlink("nowhere", filepath.Join(storeOf(p), "refs", "main", a64))
		}, want: codes("E018")},
		{name: "object file is a link to a file", damage: func(t *testing.T, p string) {
			moveAndLink(t, p, ObjectPath(head(t, p)))
		}, want: codes()},
		{name: "object file is a dangling link", damage: func(t *testing.T, p string) {
			os.MkdirAll(filepath.Join(storeOf(p), "objects", "aa"), 0o755)
			os.Symlink("nowhere", filepath.Join(storeOf(p), "objects", "aa", a64))
		}, want: codes("E001")},
		{name: "a shard is a link to a directory", damage: func(t *testing.T, p string) {
			// The .real directory left in objects/ is not a shard: a warning.
			moveAndLink(t, p, "objects/"+head(t, p)[:2])
		}, want: codes()},
		{name: "refs is a link to a directory", damage: func(t *testing.T, p string) { moveAndLink(t, p, "refs") },
			want: codes("E005", "E018"), ctxWant: codes("E018"), noCounts: true,
			note: "with refs a link to a directory, ctx reports \"refs is not a directory\" (E018) and lists no ref, yet finds HEAD's " +
				"refs/main through the link (no E005); formatcheck, for which no ref then exists, also reports E005 (§6.2)"},
		{name: "a ref directory is a link to a directory", damage: func(t *testing.T, p string) {
			os.Symlink("main", filepath.Join(storeOf(p), "refs", "x"))
		}, want: codes("E018")}, // a file directly in refs/
	})
}

//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestNeverBlocksOnFIFOs puts FIFOs where a store has regular files: a
// reader must report them, not wait forever for a writer.
func TestNeverBlocksOnFIFOs(t *testing.T) {
	ctx, _ := binaries(t)
	tests := []struct {
		name string
		path string // relative to .ctx
		args []string
		code int
		want string
	}{
		{"STAGE", "STAGE", []string{"verify"}, 38, "E018 RefCorrupt"},
		{"HEAD", "HEAD", []string{"verify"}, 31, "E011 StoreNotFound"},
		{"config.toml", "config.toml", []string{"verify"}, 36, "E016 ConfigInvalid"},
		{"object", "objects/7e/7eba9700e3290c9340f34103faa01a65ddc9e3ba47d976561a5b226de37abddf", []string{"verify"}, 22, "E002 HashMismatch"},
		{"object read", "objects/7e/7eba9700e3290c9340f34103faa01a65ddc9e3ba47d976561a5b226de37abddf", []string{"cat-object", "-p", "7eba9700"}, 22, "E002 HashMismatch"},
		{"head file", "refs/main/b2324ff3a1be72b011857ae6599338ba81b7ce88c8c74aab1ca5358124540de0", []string{"verify"}, 38, "E018 RefCorrupt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			must(t, dir, nil, "", ctx, "init")
			p := filepath.Join(dir, ".ctx", tt.path)
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			if err := unix.Mkfifo(p, 0o644); err != nil {
				t.Skip("no FIFOs here:", err)
			}
			c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(c, ctx, tt.args...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if c.Err() != nil {
				t.Fatalf("ctx %s blocked on a FIFO", strings.Join(tt.args, " "))
			}
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != tt.code || !strings.Contains(string(out), tt.want) {
				t.Fatalf("exit %d, want %d with %q:\n%s", code, tt.code, tt.want, out)
			}
		})
	}
}

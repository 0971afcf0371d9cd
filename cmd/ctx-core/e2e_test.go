package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/ctx-dev/ctx/internal/testutil"
)

// The tests in this file run the ctx binary as separate processes: crash
// injection, concurrent writers and git merges need real processes.

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds ctx twice into a temporary directory: plain, and with
// crash injection (the faultinject build tag).
func binaries(t *testing.T) (plain, faulty string) {
	t.Helper()
	testutil.DependOnSources(t)
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "ctx-e2e-bin-")
		if buildErr != nil {
			return
		}
		for _, b := range []struct{ name, tags string }{{"ctx", ""}, {"ctx-fault", "faultinject"}} {
			out, err := exec.Command("go", "build", "-tags="+b.tags, "-o", filepath.Join(binDir, b.name), ".").CombinedOutput()
			if err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", b.name, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, "ctx"), filepath.Join(binDir, "ctx-fault")
}

// result is the outcome of one process.
type result struct {
	stdout, stderr string
	code           int  // exit status; -1 when killed by a signal
	killed         bool // killed by SIGKILL (a crash point)
}

// run runs a program in dir with extra environment variables and stdin.
func run(t *testing.T, dir string, env []string, stdin string, prog string, args ...string) result {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CTX_DIR=", "CTX_FAULT=")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			r.killed = true
		}
	default:
		t.Fatalf("%s %v: %v", prog, args, err)
	}
	return r
}

// must runs a program and fails the test unless it exits 0.
func must(t *testing.T, dir string, env []string, stdin string, prog string, args ...string) string {
	t.Helper()
	r := run(t, dir, env, stdin, prog, args...)
	if r.code != 0 {
		t.Fatalf("%s %s: exit %d\nstdout: %s\nstderr: %s", filepath.Base(prog), strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return strings.TrimSpace(r.stdout)
}

// copyDir copies a directory tree, keeping file modes.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

package build

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// tool describes a build tool to run.
type tool struct {
	name    string   // the binary, looked up on PATH
	install string   // what to tell a user who lacks it
	drop    []string // environment variables to remove
	set     []string // KEY=VALUE pairs to add
}

// maxStderr bounds how much of a tool's standard error is kept, and
// stderrLines how many of its lines an error quotes.
const (
	maxStderr   = 64 << 10
	stderrLines = 10
)

// run runs t with args in dir and returns its standard output. A tool that
// exits non-zero but printed something on standard output has its output
// returned: tools run with -e-style flags report broken packages that way.
func (t tool) run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("build: %s: %w", t.name, err)
	}
	bin, err := exec.LookPath(t.name)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s is not on PATH: %s", ErrToolMissing, t.name, t.install)
		}
		return nil, fmt.Errorf("build: %s: %w", t.name, err)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = abs
	cmd.Env = t.environ(os.Environ(), abs)
	var stdout bytes.Buffer
	stderr := &limitedBuffer{max: maxStderr}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("build: %s %s: %w", t.name, args[0], ctx.Err())
	}
	if runErr == nil {
		return stdout.Bytes(), nil
	}
	var exit *exec.ExitError
	if !errors.As(runErr, &exit) {
		if errors.Is(runErr, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s: %v: %s", ErrToolMissing, t.name, runErr, t.install)
		}
		return nil, fmt.Errorf("build: %s %s: %w", t.name, args[0], runErr)
	}
	if len(bytes.TrimSpace(stdout.Bytes())) > 0 {
		return stdout.Bytes(), nil
	}
	return nil, fmt.Errorf("%w: %s %s in %s: %v%s", ErrToolFailed, t.name, args[0], abs, runErr, quote(stderr.String()))
}

// environ returns the environment to run t in: the caller's, without the
// variables t drops, with t's own settings and PWD naming dir so that the
// tool reports paths under the directory as given.
func (t tool) environ(env []string, dir string) []string {
	out := make([]string, 0, len(env)+len(t.set)+1)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k == "PWD" || containsKey(t.drop, k) || containsKey(t.set, k) {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, t.set...)
	return append(out, "PWD="+dir)
}

func containsKey(list []string, key string) bool {
	for _, s := range list {
		k, _, _ := strings.Cut(s, "=")
		if k == key {
			return true
		}
	}
	return false
}

// quote returns the first lines of a tool's standard error, indented, for
// an error message; "" when it printed nothing.
func quote(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	more := ""
	if len(lines) > stderrLines {
		more = fmt.Sprintf("\n\t… (%d more lines)", len(lines)-stderrLines)
		lines = lines[:stderrLines]
	}
	return "\n\t" + strings.Join(lines, "\n\t") + more
}

// limitedBuffer keeps the first max bytes written to it and drops the
// rest, so that a tool cannot make us hold an unbounded standard error.
type limitedBuffer struct {
	buf bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string { return b.buf.String() }

package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestInterrupt checks what SIGINT does (docs/CLI.md, exit status 130):
// a command that writes or runs something stops cleanly with status 130
// and records nothing; one that only reads dies of the signal at once.
func TestInterrupt(t *testing.T) {
	ctx, _ := binaries(t)
	dir := t.TempDir()
	must(t, dir, nil, "", ctx, "init")
	before := must(t, dir, nil, "", ctx, "log", "--json")

	// ctx run: the command it runs says it is ready, then waits for
	// input that never comes.
	cmd := exec.Command(ctx, "run", "--", "sh", "-c", "echo ready; exec cat")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CTX_DIR=")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, out)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("ctx run after SIGINT: %v, want exit status 130\nstderr: %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "nterrupt") {
		t.Errorf("stderr does not say it was interrupted: %q", stderr.String())
	}
	if after := must(t, dir, nil, "", ctx, "log", "--json"); after != before {
		t.Errorf("the interrupted run was recorded:\n%s", after)
	}

	// A reading command (hash-object --stdin without -w), waiting for
	// its input: the signal ends the process.
	cmd = exec.Command(ctx, "hash-object", "--stdin")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CTX_DIR=")
	if stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Fatalf("ctx hash-object --stdin after SIGINT: %v, want death by SIGINT", err)
	}
}

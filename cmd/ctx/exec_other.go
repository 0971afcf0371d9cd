//go:build !unix

package main

import (
	"errors"
	"os"
	"os/exec"
)

// run runs ctx-core with the arguments, the environment and the standard
// files as they are, and returns its exit status: this system cannot
// replace a process with another.
func run(core string, args []string) (int, error) {
	cmd := exec.Command(core, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return 1, err
	}
	return 0, nil
}

func lookPath(name string) (string, error) { return exec.LookPath(name) }

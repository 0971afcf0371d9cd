//go:build unix

package main

import (
	"os"
	"os/exec"
	"syscall"
)

// run replaces this process with ctx-core, which gets the arguments, the
// environment and the standard files as they are; it returns only when
// that fails.
func run(core string, args []string) (int, error) {
	return 1, syscall.Exec(core, append([]string{"ctx"}, args...), os.Environ())
}

func lookPath(name string) (string, error) { return exec.LookPath(name) }

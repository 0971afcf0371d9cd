package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"ctx": func() {
			os.Exit(Main(context.Background(), os.Args[1:], Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}))
		},
	})
}

// TestScript runs the txtar scripts in testdata/script: end-to-end tests of
// the ctx command as a user runs it.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: false,
		Setup: func(env *testscript.Env) error {
			env.Setenv("CTX_DATE", "1790000000")
			env.Setenv("HOME", env.WorkDir)
			// Toolchains the ingestion scripts run keep their caches and
			// installations outside the script's home.
			for k, v := range toolEnv() {
				env.Setenv(k, v)
			}
			return nil
		},
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") == "1",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits": cmdExits,
		},
	})
}

// cmdExits runs a command and checks its exit status: "exits N cmd args...".
// Its output can then be checked with stdout and stderr, as after exec.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits STATUS command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("%v", err)
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// toolEnv returns the variables go and cargo need once HOME is the
// script's work directory: their caches and installations as the test
// process sees them.
var toolEnv = sync.OnceValue(func() map[string]string {
	env := map[string]string{"GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod"}
	if out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output(); err == nil {
		vals := strings.Split(strings.TrimSpace(string(out)), "\n")
		for i, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
			if i < len(vals) && vals[i] != "" {
				env[k] = vals[i]
			}
		}
	}
	home := os.Getenv("HOME")
	for k, dir := range map[string]string{"CARGO_HOME": ".cargo", "RUSTUP_HOME": ".rustup"} {
		if v := os.Getenv(k); v != "" {
			env[k] = v
		} else if home != "" {
			if st, err := os.Stat(filepath.Join(home, dir)); err == nil && st.IsDir() {
				env[k] = filepath.Join(home, dir)
			}
		}
	}
	return env
})

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// FuzzArgs runs ctx in-process with arbitrary arguments and standard input
// on a small store: whatever the input, ctx must not panic, and on failure
// must print nothing on stdout but an error on stderr.
func FuzzArgs(f *testing.F) {
	for _, seed := range []string{
		"log", "log --oneline -n 1", "rev-parse main~1", "rev-parse main^2", "cat-object -p main",
		"cat-object -t b2324ff3", "ls-tree -r main", "show-ref --head", "verify", "--json verify",
		"update-ref main b2324ff3", "update-ref -d main", "commit-tree main -p main -m x",
		"hash-object --stdin", "hash-object -t typed --input json --stdin", "reconcile", "rev-parse main:a/b",
		"update-ref STAGE main", "init --force", "debug cat main", "version", "--help", "rev-parse ^^~~",
	} {
		f.Add(seed, `{"tree":{"entries":[]}}`)
	}
	f.Fuzz(func(t *testing.T, line, stdin string) {
		args := strings.Fields(line)
		for _, a := range args {
			// Keep the fuzzer inside its temporary directory: no paths.
			if strings.ContainsAny(a, "/\\") || strings.Contains(a, "..") || strings.HasPrefix(a, "--keep") || a == "demo" {
				return
			}
		}
		dir := t.TempDir()
		t.Chdir(dir)
		env := Env{Stdin: strings.NewReader(""), Stdout: new(bytes.Buffer), Stderr: new(bytes.Buffer), Getenv: func(string) string { return "" }, Wd: dir}
		if Main(context.Background(), []string{"init"}, env) != 0 {
			t.Fatal("init failed")
		}
		var out, errb bytes.Buffer
		env = Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
			Getenv: func(k string) string {
				if k == "CTX_DATE" {
					return "1790000000"
				}
				return ""
			}, Wd: dir}
		code := Main(context.Background(), args, env)
		if code != 0 && errb.Len() == 0 && !strings.Contains(line, "-e") {
			t.Fatalf("ctx %q: exit %d with nothing on stderr", line, code)
		}
		if code != 0 && out.Len() > 0 && !strings.Contains(line, "verify") && !strings.Contains(line, "help") {
			t.Fatalf("ctx %q: exit %d but printed on stdout: %q", line, code, out.String())
		}
	})
}

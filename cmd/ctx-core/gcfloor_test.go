package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestGCFloor(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, true},
		{map[string]string{"GOGC": "100"}, false},
		{map[string]string{"GOGC": "off"}, false},
		{map[string]string{"GOMEMLIMIT": "1GiB"}, false},
		{map[string]string{"CTX_DIR": "x"}, true},
	} {
		if got := gcFloor(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("gcFloor(%v) = %v, want %v", tc.env, got, tc.want)
		}
	}
}

// TestServingCalled checks that ctx mcp, which serves until its client
// leaves, undoes the one-shot process's settings, and that a one-shot
// command does not.
func TestServingCalled(t *testing.T) {
	dir := t.TempDir()
	ctxOK(t, dir, nil, "init")
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"mcp"}, true},
		{[]string{"status"}, false},
	} {
		served := false
		var out, errb bytes.Buffer
		e := Env{Stdout: &out, Stderr: &errb, Wd: dir, Stdin: strings.NewReader(""),
			Getenv: func(string) string { return "" }, Serving: func() { served = true }}
		if code := Main(context.Background(), tc.args, e); code != 0 {
			t.Fatalf("ctx %s: exit %d\n%s%s", strings.Join(tc.args, " "), code, out.String(), errb.String())
		}
		if served != tc.want {
			t.Errorf("ctx %s: Serving called = %v, want %v", strings.Join(tc.args, " "), served, tc.want)
		}
	}
}

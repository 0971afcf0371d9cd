package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gcfloor"
)

func TestGCFloor(t *testing.T) {
	mem := func() uint64 { return 24 << 30 }
	for _, tc := range []struct {
		env  map[string]string
		want uint64
	}{
		{nil, gcfloor.For(24 << 30)},
		{map[string]string{"GOGC": "100"}, 0},
		{map[string]string{"GOGC": "off"}, 0},
		{map[string]string{"GOMEMLIMIT": "1GiB"}, 0},
		{map[string]string{"CTX_DIR": "x"}, gcfloor.For(24 << 30)},
	} {
		got := gcFloor(func(k string) string { return tc.env[k] }, mem)
		if got != tc.want {
			t.Errorf("gcFloor(%v) = %d, want %d", tc.env, got, tc.want)
		}
	}
	if got := gcFloor(func(string) string { return "" }, func() uint64 { return 0 }); got != gcfloor.UnknownFloor {
		t.Errorf("gcFloor with the memory unknown = %d, want %d", got, gcfloor.UnknownFloor)
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

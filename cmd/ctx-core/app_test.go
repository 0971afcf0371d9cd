package main

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// TestCommandTags checks that the top-level commands' tags use only what
// commandOptions passes to kong.DynamicCommand: any other key (aliases,
// hidden, …) would be silently dropped.
func TestCommandTags(t *testing.T) {
	allowed := map[string]bool{"cmd": true, "name": true, "group": true, "help": true}
	typ := reflect.TypeOf(CLI{})
	for i := range typ.NumField() {
		f := typ.Field(i)
		if _, ok := f.Tag.Lookup("cmd"); !ok {
			t.Errorf("field %s is not a command (no cmd tag): CLI holds only commands", f.Name)
			continue
		}
		for _, k := range tagKeys(string(f.Tag)) {
			if !allowed[k] {
				t.Errorf("command %s: tag key %q is not passed to kong (only cmd, name, group, help)", f.Name, k)
			}
		}
	}
}

// tagKeys returns the keys of a struct tag in the conventional format.
func tagKeys(tag string) []string {
	var keys []string
	for tag != "" {
		tag = strings.TrimLeft(tag, " ")
		i := strings.Index(tag, `:"`)
		if i < 0 {
			break
		}
		keys = append(keys, tag[:i])
		tag = tag[i+2:]
		for j := 0; j < len(tag); j++ {
			if tag[j] == '\\' {
				j++
				continue
			}
			if tag[j] == '"' {
				tag = tag[j+1:]
				break
			}
		}
	}
	return keys
}

func TestCommandArg(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"--help"}, ""},
		{[]string{"search", "x"}, "search"},
		{[]string{"--json", "search", "x"}, "search"},
		{[]string{"--dir", "search", "add", "note"}, "add"},
		{[]string{"--dir=/tmp", "status"}, "status"},
		{[]string{"--lock-timeout", "3s", "commit"}, "commit"},
		{[]string{"--", "log"}, "log"},
		{[]string{"--"}, ""},
		{[]string{"--dir"}, ""},
	}
	for _, tt := range tests {
		if got := commandArg(tt.args); got != tt.want {
			t.Errorf("commandArg(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// TestPrunedModel checks that a model pruned to one command answers as
// the whole one does: the help of every command and subcommand, and the
// command a parse selects.
func TestPrunedModel(t *testing.T) {
	var paths [][]string
	var walk func(n *kong.Node, path []string)
	walk = func(n *kong.Node, path []string) {
		for _, c := range n.Children {
			if c.Type != kong.CommandNode {
				continue
			}
			p := append(append([]string(nil), path...), c.Name)
			paths = append(paths, p)
			walk(c, p)
		}
	}
	full, err := newParser(testApp(nil), &CLI{}, "")
	if err != nil {
		t.Fatal(err)
	}
	walk(full.Model.Node, nil)
	if len(paths) < 30 {
		t.Fatalf("found %d commands in the model; want them all", len(paths))
	}
	for _, p := range paths {
		args := append(p, "--help")
		whole, pruned := helpText(t, args, false), helpText(t, args, true)
		if whole != pruned {
			t.Errorf("ctx %s: pruned help differs:\n--- whole\n%s\n--- pruned\n%s", strings.Join(args, " "), whole, pruned)
		}
		if !strings.Contains(pruned, "Usage: ctx "+p[0]) {
			t.Errorf("ctx %s: help lacks its usage line:\n%s", strings.Join(args, " "), pruned)
		}
	}
}

func testApp(out *bytes.Buffer) *App {
	if out == nil {
		out = new(bytes.Buffer)
	}
	return &App{Env: Env{Stdout: out, Stderr: out, Getenv: func(string) string { return "" }}, Ctx: context.Background()}
}

// helpText returns what parsing args prints (they ask for help).
func helpText(t *testing.T, args []string, prune bool) string {
	t.Helper()
	var out bytes.Buffer
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(exitRequest); !ok {
					panic(r)
				}
			}
		}()
		if _, err := parse(testApp(&out), &CLI{}, args, prune); err != nil {
			t.Errorf("ctx %s: %v", strings.Join(args, " "), err)
		}
	}()
	return out.String()
}

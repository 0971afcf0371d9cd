package main

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/index/reader"
)

func TestParseSearch(t *testing.T) {
	opts := func(limit int, kinds, tags []string, sup bool) reader.SearchOptions {
		return reader.SearchOptions{Limit: limit, Kinds: kinds, Tags: tags, IncludeSuperseded: sup}
	}
	for _, tc := range []struct {
		args []string
		want *searchLine // nil: ctx-core reads it
	}{
		{[]string{"search", "retry"}, &searchLine{opts: opts(10, nil, nil, false), query: []string{"retry"}}},
		{[]string{"search", "retry", "backoff"}, &searchLine{opts: opts(10, nil, nil, false), query: []string{"retry", "backoff"}}},
		{[]string{"--json", "search", "-n", "3", "retry"}, &searchLine{json: true, opts: opts(3, nil, nil, false), query: []string{"retry"}}},
		{[]string{"search", "retry", "--json", "--limit=25"}, &searchLine{json: true, opts: opts(25, nil, nil, false), query: []string{"retry"}}},
		{[]string{"search", "-n", "3", "retry", "backoff"}, &searchLine{opts: opts(3, nil, nil, false), query: []string{"retry", "backoff"}}},
		{[]string{"search", "--type", "note", "--type=item", "-t", "net", "--tag=tier:working", "--include-superseded", "a:b"},
			&searchLine{opts: opts(10, []string{"note", "item"}, []string{"net", "tier:working"}, true), query: []string{"a:b"}}},
		{[]string{"--dir", "/p", "search", "--session", "s1", "x"}, &searchLine{dir: "/p", hasDir: true, session: "s1", hasSess: true, opts: opts(10, nil, nil, false), query: []string{"x"}}},
		{[]string{"--dir=/p", "--session=s1", "search", "x"}, &searchLine{dir: "/p", hasDir: true, session: "s1", hasSess: true, opts: opts(10, nil, nil, false), query: []string{"x"}}},
		{[]string{"search", "--", "-retry", "--json"}, &searchLine{opts: opts(10, nil, nil, false), query: []string{"-retry", "--json"}}},
		{[]string{"search", "\"deadline exceeded\" -retry"}, &searchLine{opts: opts(10, nil, nil, false), query: []string{"\"deadline exceeded\" -retry"}}},

		// ctx-core's: other commands, errors, forms a parser may read otherwise.
		{nil, nil},
		{[]string{"version"}, nil},
		{[]string{"query", "retry"}, nil},
		{[]string{"search"}, nil},
		{[]string{"search", "--"}, nil},
		{[]string{"search", "retry", "--", "backoff"}, nil},
		{[]string{"search", "retry", "--json", "--", "x"}, nil},
		{[]string{"search", "retry", "--json", "backoff"}, nil},
		{[]string{"search", "retry", "-n", "3", "backoff"}, nil},
		{[]string{"search", "-retry"}, nil},
		{[]string{"search", "-type:item", "x"}, nil},
		{[]string{"search", "-"}, nil},
		{[]string{"search", "--help"}, nil},
		{[]string{"search", "-h", "x"}, nil},
		{[]string{"--type", "note", "search", "x"}, nil},
		{[]string{"-n", "3", "search", "x"}, nil},
		{[]string{"search", "-n", "0", "x"}, nil},
		{[]string{"search", "-n", "010", "x"}, nil},
		{[]string{"search", "-n", "0x10", "x"}, nil},
		{[]string{"search", "-n", "-3", "x"}, nil},
		{[]string{"search", "-n3", "x"}, nil},
		{[]string{"search", "-n=3", "x"}, nil},
		{[]string{"search", "-n", "3", "-n", "4", "x"}, nil},
		{[]string{"search", "-n"}, nil},
		{[]string{"search", "x", "--type"}, nil},
		{[]string{"search", "--type", "-x", "y"}, nil},
		{[]string{"search", "-t=net", "x"}, nil},
		{[]string{"--json=false", "search", "x"}, nil},
		{[]string{"search", "--include-superseded=false", "x"}, nil},
		{[]string{"--dir", "/a", "--dir", "/b", "search", "x"}, nil},
		{[]string{"--lock-timeout", "1s", "search", "x"}, nil},
		{[]string{"search", "--limit", "99999999999", "x"}, nil},
	} {
		got, why := parseSearch(tc.args)
		if tc.want == nil {
			if got != nil {
				t.Errorf("%q: read as %+v, want it left to ctx-core", tc.args, got)
			}
			continue
		}
		if got == nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %+v (%s), want %+v", tc.args, got, why, tc.want)
		}
	}
}

// TestFrontLinksNoStore: the front end starts like an empty Go program
// only as long as it links none of what makes ctx-core slow to start.
func TestFrontLinksNoStore(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, heavy := range []string{
			"github.com/ctx-dev/ctx/object", "github.com/ctx-dev/ctx/repo", "github.com/ctx-dev/ctx/narrative",
			"github.com/ctx-dev/ctx/graph", "github.com/ctx-dev/ctx/index",
			"github.com/alecthomas/kong", "github.com/BurntSushi/toml", "github.com/fxamacker/cbor", "github.com/klauspost",
			"github.com/smacker/go-tree-sitter", "github.com/yuin/goldmark", "github.com/zeebo/blake3", "runtime/cgo", "net/http", "testing",
		} {
			if dep == heavy || strings.HasPrefix(dep, heavy+"/") && !strings.HasPrefix(dep, "github.com/ctx-dev/ctx/index/") && !strings.HasPrefix(dep, "github.com/ctx-dev/ctx/narrative/vocab") {
				t.Errorf("cmd/ctx links %s", dep)
			}
		}
	}
}

package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestIndexStatusE2E follows what ctx status says of the index and the
// graph through a project's life: built by a search, the graph by a
// query, both brought up to date by delta segments after an edit, and
// folded by a full rebuild.
func TestIndexStatusE2E(t *testing.T) {
	ctx, _ := binaries(t)
	dir := t.TempDir()
	env := []string{"CTX_DATE=1790000000"}
	writeFiles(t, dir, map[string]string{
		"go.mod":      "module example.com/p\n\ngo 1.22\n",
		"p/dial.go":   "package p\n\n// Dial connects.\nfunc Dial() { Retry() }\n",
		"p/retry.go":  "package p\n\n// Retry waits.\nfunc Retry() {}\n",
		"cmd/main.go": "package main\n\nfunc main() {}\n",
		"README.md":   "# p\n",
	})
	must(t, dir, env, "", ctx, "init")
	must(t, dir, env, "", ctx, "add", "code", "-q", ".")
	status := func() (string, map[string]any) {
		t.Helper()
		var st struct {
			Index map[string]any `json:"index"`
		}
		if err := json.Unmarshal([]byte(must(t, dir, env, "", ctx, "status", "--json")), &st); err != nil {
			t.Fatal(err)
		}
		return must(t, dir, env, "", ctx, "status"), st.Index
	}
	line := func(out, prefix string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, prefix) {
				return l
			}
		}
		t.Fatalf("no %q line in:\n%s", prefix, out)
		return ""
	}

	must(t, dir, env, "", ctx, "search", "Dial")
	// A query with no word to match is a usage error, not "no hits".
	for _, q := range []string{"", "type:item", "the"} {
		if r := run(t, dir, env, "", ctx, "search", q); r.code != 2 || !strings.Contains(r.stderr, "E015") || !strings.Contains(r.stderr, "search for") || r.stdout != "" {
			t.Errorf("search %q: exit %d, stdout %q, stderr %q; want E015 (exit 2)", q, r.code, r.stdout, r.stderr)
		}
	}
	// An unknown type is E015 too, and so is a -type: word the flags
	// took for -t.
	for _, args := range [][]string{{"Dial", "--type", "fucntion"}, {"Dial", "-type:item"}} {
		if r := run(t, dir, env, "", ctx, append([]string{"search"}, args...)...); r.code != 2 || !strings.Contains(r.stderr, "E015") || r.stdout != "" {
			t.Errorf("search %q: exit %d, stderr %q; want E015 (exit 2)", args, r.code, r.stderr)
		}
	}
	if out := must(t, dir, env, "", ctx, "search", "Dial -type:file"); !strings.Contains(out, "item") {
		t.Errorf("search \"Dial -type:file\": %s", out)
	}
	out, _ := status()
	if l := line(out, "graph:"); !strings.Contains(l, "not built yet; the first query builds it") {
		t.Errorf("before a query: %s", l)
	}
	must(t, dir, env, "", ctx, "query", "how does Dial retry")
	out, js := status()
	if l := line(out, "graph:"); !strings.Contains(l, "graph:  fresh (") || strings.Contains(l, "delta") {
		t.Errorf("after a query: %s", l)
	}
	if g := js["graph"].(map[string]any); g["fresh"] != true || g["nodes"].(float64) == 0 {
		t.Errorf("JSON after a query: %v", g)
	}

	writeFiles(t, dir, map[string]string{"p/retry.go": "package p\n\n// Retry waits.\nfunc Retry() { Backoff() }\n\n// Backoff sleeps.\nfunc Backoff() {}\n"})
	must(t, dir, env, "", ctx, "add", "code", "-q", "p/retry.go")
	out, _ = status()
	if l := line(out, "graph:"); !strings.Contains(l, "the code changed; the next query updates it") {
		t.Errorf("after an edit: %s", l)
	}
	if l := line(out, "index:"); !strings.Contains(l, "the code snapshot changed") {
		t.Errorf("after an edit: %s", l)
	}
	must(t, dir, env, "", ctx, "query", "how does Dial retry")
	out, js = status()
	if l := line(out, "index:"); !strings.Contains(l, "fresh (") || !strings.Contains(l, "a delta segment adds") {
		t.Errorf("after the query: %s", l)
	}
	if l := line(out, "graph:"); !strings.Contains(l, "fresh (") || !strings.Contains(l, "a delta segment adds 1 node,") {
		t.Errorf("after the query: %s", l)
	}
	if d, ok := js["graph_delta"].(map[string]any); !ok || d["nodes"].(float64) != 1 {
		t.Errorf("JSON graph_delta after the query: %v", js["graph_delta"])
	}

	must(t, dir, env, "", ctx, "rebuild", "-q")
	out, js = status()
	if l := line(out, "graph:"); !strings.Contains(l, "fresh (") || strings.Contains(l, "delta") {
		t.Errorf("after a full rebuild: %s", l)
	}
	if _, ok := js["graph_delta"]; ok {
		t.Errorf("JSON after a full rebuild: %v", js)
	}
}

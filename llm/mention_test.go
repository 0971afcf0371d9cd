package llm

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/index"
)

// memIndex is an in-memory Resolver over a list of documents, looked up
// the way the index's keys tables are: path, stable key, and last name in
// lower case.
type memIndex []index.Doc

func (m memIndex) Lookup(ns, key string) ([]uint32, error) {
	var out []uint32
	for i, d := range m {
		var ok bool
		switch ns {
		case "path":
			ok = d.Path == key
		case "key":
			ok = d.Kind == index.DocItem && d.Node.Key == key
		case "name":
			ok = d.Kind == index.DocItem && strings.ToLower(index.LastName(d.Node.Key)) == key
		}
		if ok {
			out = append(out, uint32(i))
		}
	}
	return out, nil
}

func (m memIndex) DocMeta(n uint32) (index.Doc, error) { return m[n], nil }

func item(key, path string) index.Doc {
	return index.Doc{Kind: index.DocItem, Node: graph.ItemNode("r", key), Path: path, Title: key}
}

func file(path string) index.Doc {
	return index.Doc{Kind: index.DocFile, Node: graph.FileNode("r", path), Path: path, Title: path}
}

func TestResolve(t *testing.T) {
	ix := memIndex{
		file("net/client.go"), item("example.com/m/net.Client", "net/client.go"), item("example.com/m/net.Client.Connect", "net/client.go"),
		file("pool/pool.go"), item("example.com/m/pool.Connect", "pool/pool.go"), item("example.com/m/pool.Pool", "pool/pool.go"),
		item("core::net::Client", "src/net.rs"), item("example.com/m/net.NewClient", "net/client.go"),
	}
	project := t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, "docs", "img"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "docs", "README.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cands := []Candidate{
		{"net/client.go", true},
		{"Client", true},             // net.Client and core::net::Client: ambiguous
		{"net.Client.Connect", true}, // ends a key
		{"Connect", true},            // net.Client.Connect and pool.Connect: ambiguous
		{"Pool", false},
		{"docs/README.md", true}, // on disk, not in the index
		{"docs/img", true},       // a directory
		{"missing.go", true},
		{"e.g", false}, // prose that names nothing: dropped silently
		{"../outside.go", true},
		{".ctx/config.toml", true},
		{"net/client.go", true}, // twice: one mention
		{"core::net::Client", true},
		{"lient", true}, // a suffix that is not after a separator
	}
	ms, un, err := Resolve(cands, ResolveOptions{Index: ix, Project: project, RepoID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Node.Name()+" "+string(m.Confidence))
	}
	want := []string{
		"file:net/client.go medium",
		"item:example.com/m/net.Client.Connect low",
		"item:example.com/m/pool.Pool low",
		"file:docs/README.md medium",
		"directory:docs/img medium",
		"item:core::net::Client low",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mentions\n%q\nwant\n%q", got, want)
	}
	var ungot []string
	for _, u := range un {
		ungot = append(ungot, u.Text+": "+u.Reason)
	}
	wantUn := []string{
		"Client: ambiguous: 2 symbols (example.com/m/net.Client, …)",
		"Connect: ambiguous: 2 symbols (example.com/m/net.Client.Connect, …)",
		"missing.go: no file or symbol of the project",
		"../outside.go: no file or symbol of the project",
		".ctx/config.toml: no file or symbol of the project",
		"lient: no file or symbol of the project",
	}
	if !reflect.DeepEqual(ungot, wantUn) {
		t.Errorf("unresolved\n%q\nwant\n%q", ungot, wantUn)
	}
	for _, m := range ms {
		if m.Node.Kind == graph.NodeFile && m.Node != graph.FileNode("r", m.Node.Key) {
			t.Errorf("file node %v does not derive from repo.id", m.Node)
		}
	}
}

func TestResolveLimit(t *testing.T) {
	var ix memIndex
	var cands []Candidate
	for i := 0; i < MaxMentions+20; i++ {
		p := "f" + strings.Repeat("x", i) + ".go"
		ix = append(ix, file(p))
		cands = append(cands, Candidate{p, true})
	}
	ms, _, err := Resolve(cands, ResolveOptions{Index: ix, RepoID: "r"})
	if err != nil || len(ms) != MaxMentions {
		t.Fatalf("%d mentions, %v; want %d", len(ms), err, MaxMentions)
	}
}

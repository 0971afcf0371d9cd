package formatcheck

import (
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// ---------------------------------------------------------------- a store with ingestion objects

// ingestedProject is made once by ingested and copied per test.
var ingestedProject string

// writeFiles writes files (path → content) below dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		f := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// ingested returns a copy of a project that ctx ingested with every kind
// of ingestion object it writes from the command line: code of several
// languages and a binary file (`ctx add code`), a file stored without
// reading it (`ctx add file`), the Go build graph (`ctx add go`) and,
// when cargo is installed, a Cargo one (`ctx add cargo`). ctx has no
// command that records a command run (`ctx add command` is not in its
// help), so command_run and diagnostics_snapshot objects are built from
// the spec in the tests below.
func ingested(t *testing.T) string {
	t.Helper()
	if ingestedProject == "" {
		dir := filepath.Join(filepath.Dir(ctxBin), "ingested")
		os.RemoveAll(dir)
		os.MkdirAll(dir, 0o755)
		writeFiles(t, dir, map[string]string{
			"go.mod": "module example.com/demo\n\ngo 1.21\n",
			"main.go": "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/demo/net\"\n)\n\n" +
				"func main() {\n\tc := &net.Client{Name: \"x\"}\n\tfmt.Println(c.Connect())\n}\n",
			"net/client.go": "package net\n\nimport \"strings\"\n\n// Client talks.\ntype Client struct{ Name string }\n\n" +
				"// Connect connects.\nfunc (c *Client) Connect() string { return strings.ToUpper(c.Name) }\n",
			"net/client_test.go": "package net\n\nimport \"testing\"\n\nfunc TestConnect(t *testing.T) {\n" +
				"\tif (&Client{Name: \"a\"}).Connect() != \"A\" {\n\t\tt.Fatal(\"no\")\n\t}\n}\n",
			"py/app.py":     "import os\n\n\nclass App:\n    def run(self):\n        return os.getcwd()\n",
			"README.md":     "# Demo\n",
			"data.bin":      "\x00\x01\x02binary",
			"notes.txt":     "first\n",
			"rs/src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
			"rs/Cargo.toml": "[package]\nname = \"rs-demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
		})
		mustCtx(t, dir, "init")
		mustCtx(t, dir, "add", "code")
		mustCtx(t, dir, "add", "go")
		if _, err := exec.LookPath("cargo"); err == nil {
			lock := exec.Command("cargo", "generate-lockfile", "--offline")
			lock.Dir = filepath.Join(dir, "rs")
			if out, err := lock.CombinedOutput(); err != nil {
				t.Logf("no cargo_metadata in the ingested store: cargo generate-lockfile: %v\n%s", err, out)
			} else {
				mustCtx(t, dir, "add", "cargo", "rs")
			}
		}
		// A file stored without reading it: its version is dropped.
		writeFiles(t, dir, map[string]string{"notes.txt": "second\n"})
		mustCtx(t, dir, "add", "file", "notes.txt")
		ingestedProject = dir
	}
	return copyTree(t, ingestedProject)
}

// headCommit returns the body of the head commit of refs/main.
func headCommit(t *testing.T, p string) Value {
	t.Helper()
	return body(t, readTyped(t, p, head(t, p)), "commit")
}

// withField returns the map m with key set to x (nil: removed).
func withField(m Value, key string, x *Value) Value {
	out := Value{Kind: KMap, M: []Pair{}}
	for _, pr := range m.M {
		if pr.K.S != key {
			out.M = append(out.M, pr)
		}
	}
	if x != nil {
		out.M = append(out.M, Pair{Text(key), *x})
	}
	return out
}

// ptr returns a pointer to v, for withField.
func ptr(v Value) *Value { return &v }

// recommit makes refs/main name a new commit: the head commit with fields
// replaced by kv (a Value, or nil to remove the field), and the old head
// as its parent.
func recommit(t *testing.T, p string, kv ...any) string {
	t.Helper()
	old := head(t, p)
	c := withField(headCommit(t, p), "parents", ptr(Array(Bytes(idBytes(t, old)))))
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == nil {
			c = withField(c, kv[i].(string), nil)
		} else {
			c = withField(c, kv[i].(string), ptr(kv[i+1].(Value)))
		}
	}
	id := writeTyped(t, p, Encode(Map("commit", c)))
	setHead(t, p, id)
	return id
}

// entriesOf returns the entries of the tree id, by name.
func entriesOf(t *testing.T, p, id string) map[string]Value {
	t.Helper()
	es := map[string]Value{}
	for _, e := range mustGet(t, body(t, readTyped(t, p, id), "tree"), "entries").A {
		es[mustGet(t, e, "name").S] = e
	}
	return es
}

// writeTree stores a tree of the entries (sorted by name, §4.3).
func writeTree(t *testing.T, p string, es map[string]Value) string {
	t.Helper()
	names := make([]string, 0, len(es))
	for n := range es {
		names = append(names, n)
	}
	sort.Strings(names)
	var vs []Value
	for _, n := range names {
		vs = append(vs, es[n])
	}
	return writeTyped(t, p, Encode(treeOf(vs...)))
}

// semantic returns the ID of the head commit's semantic snapshot.
func semantic(t *testing.T, p string) string {
	t.Helper()
	return idOf(t, mustGet(t, headCommit(t, p), "semantic_snapshot"))
}

// editSemantic makes a new head commit whose semantic snapshot is the
// head's with its top-level entries changed by edit.
func editSemantic(t *testing.T, p string, edit func(es map[string]Value)) {
	t.Helper()
	es := entriesOf(t, p, semantic(t, p))
	edit(es)
	recommit(t, p, "semantic_snapshot", Bytes(idBytes(t, writeTree(t, p, es))))
}

// entryID returns the id of a tree entry.
func entryID(t *testing.T, e Value) string { return idOf(t, mustGet(t, e, "id")) }

// buildEntries returns the entries of the head's build snapshot.
func buildEntries(t *testing.T, p string) []Value {
	t.Helper()
	bs := idOf(t, mustGet(t, headCommit(t, p), "build_snapshot"))
	return mustGet(t, body(t, readTyped(t, p, bs), "build_snapshot"), "entries").A
}

// ---------------------------------------------------------------- valid stores

func TestIngestedStores(t *testing.T) {
	t.Run("ingested", func(t *testing.T) {
		p := ingested(t)
		rep, _ := requireClean(t, p)
		for _, typ := range []string{"file_version", "build_snapshot", "go_packages"} {
			if rep.Typed[typ] == 0 {
				t.Errorf("no %s in the ingested store: %v", typ, rep.Typed)
			}
		}
		t.Logf("typed objects: %v", rep.Typed)
		// What ctx wrote follows §4.8: a version per file it read, typed
		// entries, no version for the file stored without reading it.
		es := entriesOf(t, p, semantic(t, p))
		for _, name := range []string{"README.md", "data.bin", "go.mod", "main.go", "net", "py"} {
			if _, ok := es[name]; !ok {
				t.Errorf("semantic snapshot lacks %s: %v", name, es)
			}
		}
		if _, ok := es["notes.txt"]; ok {
			t.Error("semantic snapshot keeps a version of notes.txt, stored after without reading it")
		}
		bin := body(t, readTyped(t, p, entryID(t, es["data.bin"])), "file_version")
		if b, ok := bin.Get("binary"); !ok || b.U != 21 {
			t.Errorf("data.bin: binary = %+v, want true", b)
		}
		if _, ok := bin.Get("language"); ok {
			t.Error("data.bin: a binary file has a language")
		}
		mg := body(t, readTyped(t, p, entryID(t, es["main.go"])), "file_version")
		if l, _ := mg.Get("language"); l.S != "go" {
			t.Errorf("main.go: language %q", l.S)
		}
	})
	t.Run("merge of two ingestions", func(t *testing.T) {
		// Two clones ingest different changes; git merges the head files;
		// ctx reconcile writes the merge commit of §6.4, whose semantic
		// snapshot must still follow §4.8.
		a := ingested(t)
		b := copyTree(t, a)
		writeFiles(t, a, map[string]string{"net/client.go": "package net\n\n// Client talks.\ntype Client struct{ Name string }\n\n" +
			"// Connect connects.\nfunc (c *Client) Connect() string { return c.Name }\n"})
		mustCtx(t, a, "add", "code")
		writeFiles(t, b, map[string]string{"main.go": "package main\n\nfunc main() {}\n", "README.md": "# Demo B\n"})
		mustCtx(t, b, "add", "code", "main.go")
		mustCtx(t, b, "add", "file", "README.md")
		// Both changed notes.txt differently: a conflict, with versions.
		writeFiles(t, a, map[string]string{"notes.txt": "from a\n"})
		mustCtx(t, a, "add", "code", "notes.txt")
		writeFiles(t, b, map[string]string{"notes.txt": "from b\n"})
		mustCtx(t, b, "add", "code", "notes.txt")
		hb := head(t, b)
		err := filepathWalkFiles(filepath.Join(storeOf(b), "objects"), func(rel string, data []byte) {
			f := filepath.Join(storeOf(a), "objects", rel)
			if _, err := os.Stat(f); err != nil {
				os.MkdirAll(filepath.Dir(f), 0o755)
				os.WriteFile(f, data, 0o444)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		putHead(t, a, "main", hb)
		mustCtx(t, a, "reconcile")
		rep, _ := requireClean(t, a)
		if r := rep.Refs[0]; len(r.Heads) != 1 {
			t.Fatalf("refs/main after reconcile: %+v", r)
		}
		m := headCommit(t, a)
		if ps := mustGet(t, m, "parents"); len(ps.A) != 2 {
			t.Fatalf("not a merge: %+v", ps)
		}
		t.Logf("merge commit: %q", mustGet(t, m, "message").S)
		if _, ok := m.Get("build_snapshot"); !ok {
			t.Error("the merge commit lost the build snapshot (§6.4: the newest head's)")
		}
	})
	t.Run("stat cache deleted", func(t *testing.T) {
		// §16.2: deleting the cache is always safe; the next ingestion of
		// unchanged files records the same snapshot, so no commit.
		p := ingested(t)
		mustCtx(t, p, "add", "code") // reads notes.txt, which has no version yet
		before := head(t, p)
		os.Remove(filepath.Join(storeOf(p), "local", "stat-cache"))
		mustCtx(t, p, "add", "code")
		if got := head(t, p); got != before {
			t.Errorf("ingesting unchanged files without the stat cache made commit %s", got)
		}
		requireClean(t, p)
	})
	t.Run("ctx's frozen command_run", func(t *testing.T) {
		// The first command_run ctx wrote (graph/diag's golden payload)
		// follows §4.12.
		data, err := os.ReadFile(filepath.Join("..", "..", "graph", "diag", "testdata", "golden", "command_run_v1.hex"))
		if err != nil {
			t.Skipf("ctx's golden command_run: %v", err)
		}
		pl, err := hex.DecodeString(strings.TrimSpace(string(data)))
		if err != nil {
			t.Fatal(err)
		}
		v, err := DecodeStrict(pl)
		if err != nil {
			t.Fatal(err)
		}
		tn, refs, warns, err := checkSchema(v)
		if err != nil || tn != "command_run" || len(warns) > 0 {
			t.Fatalf("schema: %q %v %v", tn, warns, err)
		}
		if len(refs) != 1 || refs[0].want != "blob" {
			t.Errorf("references %+v, want the output blob", refs)
		}
	})
}

// filepathWalkFiles calls fn with the path (relative to root) and content
// of every regular file below root.
func filepathWalkFiles(root string, fn func(rel string, data []byte)) error {
	return filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fn(rel, data)
		return nil
	})
}

// ---------------------------------------------------------------- damaged ingestion stores

func TestIngestionDamage(t *testing.T) {
	B := func(id string) Value { return Bytes(idBytes(t, id)) }
	typedEntry := func(name, id string) Value { return treeEntry(t, name, "typed", id) }
	// version writes a file_version built from the spec.
	version := func(t *testing.T, p, path, blob string) string {
		return writeTyped(t, p, Encode(Map("file_version", Map("path", Text(path), "blob", B(blob),
			"bytes", Uint(1), "lines", Uint(1)))))
	}
	blobAt := func(t *testing.T, p, path string) string {
		return mustCtx(t, p, "rev-parse", "main:"+path)
	}
	runDamage(t, []damageCase{
		{name: "missing file_version", base: ingested, damage: func(t *testing.T, p string) {
			os.Remove(objFile(p, entryID(t, entriesOf(t, p, semantic(t, p))["main.go"])))
		}, want: codes("E001")},
		{name: "flipped byte in a file_version", base: ingested, damage: func(t *testing.T, p string) {
			f := objFile(p, entryID(t, entriesOf(t, p, semantic(t, p))["main.go"]))
			b, _ := os.ReadFile(f)
			b[len(b)/2] ^= 0x10
			os.WriteFile(f, b, 0o444)
		}, want: codes("E002")},
		{name: "missing go_packages", base: ingested, damage: func(t *testing.T, p string) {
			for _, e := range buildEntries(t, p) {
				if mustGet(t, e, "ecosystem").S == "go" {
					os.Remove(objFile(p, idOf(t, mustGet(t, e, "snapshot"))))
				}
			}
		}, want: codes("E001")},
		{name: "missing build_snapshot", base: ingested, damage: func(t *testing.T, p string) {
			os.Remove(objFile(p, idOf(t, mustGet(t, headCommit(t, p), "build_snapshot"))))
		}, want: codes("E001")},
		{name: "semantic_snapshot names a blob", base: ingested, damage: func(t *testing.T, p string) {
			recommit(t, p, "semantic_snapshot", B(firstOf(t, p, "blob")))
		}, want: codes("E004")},
		{name: "semantic_snapshot names a commit", base: ingested, damage: func(t *testing.T, p string) {
			recommit(t, p, "semantic_snapshot", B(head(t, p)))
		}, want: codes("E004")},
		{name: "semantic_snapshot names a file_version", base: ingested, damage: func(t *testing.T, p string) {
			recommit(t, p, "semantic_snapshot", B(firstOf(t, p, "file_version")))
		}, want: codes("E004")},
		{name: "build_snapshot names a go_packages", base: ingested, damage: func(t *testing.T, p string) {
			recommit(t, p, "build_snapshot", B(firstOf(t, p, "go_packages")))
		}, want: codes("E004")},
		{name: "diagnostics_snapshot names a tree", base: ingested, damage: func(t *testing.T, p string) {
			recommit(t, p, "diagnostics_snapshot", B(emptyTreeID))
		}, want: codes("E004")},
		{name: "diagnostics_snapshot missing", base: ingested, damage: func(t *testing.T, p string) {
			recommit(t, p, "diagnostics_snapshot", B(strings.Repeat("3", 64)))
		}, want: codes("E001")},
		{name: "semantic_snapshot the empty tree", base: ingested, damage: func(t *testing.T, p string) {
			recommit(t, p, "semantic_snapshot", B(emptyTreeID))
		}, want: codes()}, // writers leave the field out instead (§4.8), a rule of writing
		{name: "semantic snapshot entry names a commit", base: ingested, damage: func(t *testing.T, p string) {
			editSemantic(t, p, func(es map[string]Value) { es["README.md"] = typedEntry("README.md", head(t, p)) })
		}, want: codes("E004")},
		{name: "semantic snapshot entry of kind blob", base: ingested, damage: func(t *testing.T, p string) {
			editSemantic(t, p, func(es map[string]Value) {
				es["README.md"] = treeEntry(t, "README.md", "blob", blobAt(t, p, "README.md"))
			})
		}, want: codes("E004")},
		{name: "semantic snapshot entry names a blob as typed", base: ingested, damage: func(t *testing.T, p string) {
			editSemantic(t, p, func(es map[string]Value) { es["README.md"] = typedEntry("README.md", blobAt(t, p, "README.md")) })
		}, want: codes("E004")}, // §4.6: a typed entry names a typed object
		{name: "version of another path", base: ingested, damage: func(t *testing.T, p string) {
			editSemantic(t, p, func(es map[string]Value) { es["README.md"] = typedEntry("README.md", entryID(t, es["go.mod"])) })
		}, want: codes("E004")},
		{name: "version of other content", base: ingested, damage: func(t *testing.T, p string) {
			v := version(t, p, "README.md", blobAt(t, p, "go.mod"))
			editSemantic(t, p, func(es map[string]Value) { es["README.md"] = typedEntry("README.md", v) })
		}, want: codes("E004")},
		{name: "version of a file the root tree lacks", base: ingested, damage: func(t *testing.T, p string) {
			v := version(t, p, "ghost.txt", blobAt(t, p, "go.mod"))
			editSemantic(t, p, func(es map[string]Value) { es["ghost.txt"] = typedEntry("ghost.txt", v) })
		}, want: codes("E004")},
		{name: "version in a subtree of another path", base: ingested, damage: func(t *testing.T, p string) {
			editSemantic(t, p, func(es map[string]Value) {
				sub := entriesOf(t, p, entryID(t, es["net"]))
				sub["client.go"] = typedEntry("client.go", entryID(t, es["main.go"]))
				es["net"] = treeEntry(t, "net", "tree", writeTree(t, p, sub))
			})
		}, want: codes("E004")},
		{name: "version without the file of the root tree", base: ingested, damage: func(t *testing.T, p string) {
			// The root tree loses README.md; the semantic snapshot keeps its version.
			es := entriesOf(t, p, idOf(t, mustGet(t, headCommit(t, p), "root_tree")))
			delete(es, "README.md")
			recommit(t, p, "root_tree", B(writeTree(t, p, es)))
		}, want: codes("E004")},
		{name: "root tree with a typed entry", base: ingested, damage: func(t *testing.T, p string) {
			sem := entriesOf(t, p, semantic(t, p))
			es := entriesOf(t, p, idOf(t, mustGet(t, headCommit(t, p), "root_tree")))
			es["README.md"] = typedEntry("README.md", entryID(t, sem["README.md"]))
			recommit(t, p, "root_tree", B(writeTree(t, p, es)))
		}, want: codes("E004")},
		{name: "root tree with a missing subtree", base: ingested, damage: func(t *testing.T, p string) {
			// The versions below net/ have no file to compare with: only
			// the missing tree is reported.
			es := entriesOf(t, p, idOf(t, mustGet(t, headCommit(t, p), "root_tree")))
			es["net"] = treeEntry(t, "net", "tree", strings.Repeat("4", 64))
			recommit(t, p, "root_tree", B(writeTree(t, p, es)))
		}, want: codes("E001")},
		{name: "build_snapshot go entry names a cargo_metadata", base: ingested, damage: func(t *testing.T, p string) {
			cm := writeTyped(t, p, Encode(Map("cargo_metadata", Map("workspace_root", Text("."),
				"packages", Array(), "resolve", Array()))))
			bs := writeTyped(t, p, Encode(Map("build_snapshot", Map("entries", Array(
				Map("ecosystem", Text("go"), "root", Text("."), "snapshot", B(cm)))))))
			recommit(t, p, "build_snapshot", B(bs))
		}, want: codes("E004")},
		{name: "build_snapshot entries out of order", base: ingested, damage: func(t *testing.T, p string) {
			gp := firstOf(t, p, "go_packages")
			bs := writeTyped(t, p, Encode(Map("build_snapshot", Map("entries", Array(
				Map("ecosystem", Text("go"), "root", Text("b"), "snapshot", B(gp)),
				Map("ecosystem", Text("go"), "root", Text("a"), "snapshot", B(gp)))))))
			recommit(t, p, "build_snapshot", B(bs))
		}, want: codes("E004")},
		{name: "stat cache garbage", base: ingested, damage: func(t *testing.T, p string) {
			writeStoreFile(t, p, "local/stat-cache", "not a stat cache\n\x00\xff")
		}, want: codes()},
		{name: "stat cache naming missing blobs", base: ingested, damage: func(t *testing.T, p string) {
			f := filepath.Join(storeOf(p), "local", "stat-cache")
			b, _ := os.ReadFile(f)
			lines := strings.Split(string(b), "\n")
			for i := 2; i < len(lines); i++ {
				if fs := strings.Split(lines[i], "\t"); len(fs) == 6 {
					fs[5] = strings.Repeat("5", 64)
					lines[i] = strings.Join(fs, "\t")
				}
			}
			os.WriteFile(f, []byte(strings.Join(lines, "\n")), 0o644)
		}, want: codes()}, // §16.2: local, never checked
	})
}

// ---------------------------------------------------------------- schemas

// schemaProject is a store with one blob, made once by schemaBase.
var schemaProject string

func schemaBase(t *testing.T) string {
	t.Helper()
	if schemaProject == "" {
		dir := filepath.Join(filepath.Dir(ctxBin), "schemas")
		os.RemoveAll(dir)
		os.MkdirAll(dir, 0o755)
		mustCtx(t, dir, "init")
		schemaProject = dir
	}
	return copyTree(t, schemaProject)
}

// ids are objects of a schema test's store that cases refer to.
type ids struct {
	blob, commit, tree, run, goPkgs, cargo, version, diags, build string
}

// override returns base (alternating keys and values) with kv applied:
// each key set to its Value, or removed when its value is nil.
func override(base []any, kv ...any) []any {
	out := append([]any(nil), base...)
	for i := 0; i < len(kv); i += 2 {
		var next []any
		for j := 0; j < len(out); j += 2 {
			if out[j] != kv[i] {
				next = append(next, out[j], out[j+1])
			}
		}
		if kv[i+1] != nil {
			next = append(next, kv[i], kv[i+1])
		}
		out = next
	}
	return out
}

func TestIngestionSchemas(t *testing.T) {
	const missing = "1111111111111111111111111111111111111111111111111111111111111111"
	B := func(id string) Value { return Bytes(idBytes(t, id)) }
	null := Value{Kind: KSimple, U: 22}
	True, False := Value{Kind: KSimple, U: 21}, Value{Kind: KSimple, U: 20}
	span := func(a, b, c, d uint64) Value {
		return Map("start_line", Uint(a), "start_col", Uint(b), "end_line", Uint(c), "end_col", Uint(d))
	}
	texts := func(ss ...string) Value {
		var vs []Value
		for _, s := range ss {
			vs = append(vs, Text(s))
		}
		return Array(vs...)
	}
	node := func(kind, key string, kv ...any) Value {
		return Map(append([]any{"kind", Text(kind), "key", Text(key)}, kv...)...)
	}
	goPkg := node("package", "example.com/a", "ecosystem", Text("go"))

	// file_version (§4.8).
	item := func(kv ...any) Value {
		return Map(override([]any{"kind", Text("function"), "name", Text("F"), "key", Text("example.com/a.F"),
			"visibility", Text("public"), "span", span(3, 1, 5, 1), "signature_hash", Bytes(make([]byte, 16)),
			"doc", Text("F does.")}, kv...)...)
	}
	imp := func(kv ...any) Value {
		return Map(override([]any{"path", Text("fmt"), "target", node("package", "fmt", "ecosystem", Text("go")),
			"span", span(1, 8, 1, 12)}, kv...)...)
	}
	cedge := func(kv ...any) Value {
		return Map(override([]any{"from", Uint(0), "to", Uint(1), "label", Text("defines"),
			"span", span(3, 1, 5, 1), "confidence", Text("high")}, kv...)...)
	}
	fv := func(x ids, kv ...any) Value {
		return Map("file_version", Map(override([]any{"path", Text("a.go"), "blob", B(x.blob),
			"bytes", Uint(6), "lines", Uint(1), "language", Text("go"), "module", goPkg,
			"items", Array(item()), "imports", Array(imp()),
			"nodes", Array(node("file", "a.go"), node("item", "example.com/a.F")),
			"edges", Array(cedge())}, kv...)...))
	}
	// build_snapshot (§4.9), go_packages (§4.10), cargo_metadata (§4.11).
	bentry := func(eco, root, snap string) Value {
		return Map("ecosystem", Text(eco), "root", Text(root), "snapshot", B(snap))
	}
	bsnap := func(es ...Value) Value { return Map("build_snapshot", Map("entries", Array(es...))) }
	gmod := func(kv ...any) Value {
		return Map(override([]any{"path", Text("example.com/a"), "main", True, "dir", Text("."),
			"go_version", Text("1.21")}, kv...)...)
	}
	gpkg := func(kv ...any) Value {
		return Map(override([]any{"import_path", Text("example.com/a"), "name", Text("a"), "dir", Text("."),
			"module", Text("example.com/a"), "go_files", texts("a.go", "b.go"), "test_go_files", texts("a_test.go"),
			"imports", texts("fmt", "os"), "test_imports", texts("testing")}, kv...)...)
	}
	gext := Map("import_path", Text("fmt"), "standard", True)
	gps := func(mods []Value, pkgs ...Value) Value {
		return Map("go_packages", Map("modules", Array(mods...), "packages", Array(pkgs...)))
	}
	ctarget := func(kv ...any) Value {
		return Map(override([]any{"name", Text("rs_demo"), "kind", Text("lib"), "src_path", Text("src/lib.rs"),
			"crate_types", texts("lib")}, kv...)...)
	}
	cpkg := func(kv ...any) Value {
		return Map(override([]any{"package_id", Text("path+file:.#rs-demo@0.1.0"), "name", Text("rs-demo"),
			"version", Text("0.1.0"), "manifest_path", Text("Cargo.toml"), "edition", Text("2021"),
			"workspace_member", True, "targets", Array(ctarget())}, kv...)...)
	}
	serde := Map("package_id", Text("registry+https://github.com/rust-lang/crates.io-index#serde@1.0.0"),
		"name", Text("serde"), "version", Text("1.0.0"), "edition", Text("2018"),
		"source", Text("registry+https://github.com/rust-lang/crates.io-index"), "features", texts("default", "std"),
		"targets", Array(ctarget("name", Text("serde"), "src_path", nil)))
	dep := func(kv ...any) Value {
		return Map(override([]any{"from_package_id", Text("path+file:.#rs-demo@0.1.0"),
			"to_package_id", Text("registry+https://github.com/rust-lang/crates.io-index#serde@1.0.0"),
			"dep_kind", Text("normal"), "features_enabled", texts("default")}, kv...)...)
	}
	cm := func(kv ...any) Value {
		return Map("cargo_metadata", Map(override([]any{"workspace_root", Text("."),
			"packages", Array(cpkg(), serde), "resolve", Array(dep())}, kv...)...))
	}
	// command_run (§4.12), diagnostics_snapshot (§4.13).
	summary := func(kv ...any) Value {
		return Map(override([]any{"tool", Text("go test"), "passed", Int(3), "failed", Int(1), "skipped", Int(-1),
			"errors", Uint(1), "warnings", Uint(0), "text", Text("go test: 1 failed, 3 passed")}, kv...)...)
	}
	diag := func(kv ...any) Value {
		return Map(override([]any{"severity", Text("error"), "code", Text("E0433"), "message", Text("failed to resolve"),
			"detail", Text("got 1\nwant 2"), "path", Text("src/lib.rs"), "line", Uint(3), "col", Uint(5),
			"end_line", Uint(3), "end_col", Uint(9), "test", Text("tests::adds"), "tool", Text("cargo")}, kv...)...)
	}
	run := func(x ids, kv ...any) Value {
		return Map("command_run", Map(override([]any{"name", Text("go test ./..."), "argv", texts("go", "test", "./..."),
			"exit_code", Int(1), "started_at", Int(1795361182), "duration_ms", Uint(1234), "output", B(x.blob),
			"truncated", True, "summary", summary(), "diagnostics", Array(diag())}, kv...)...))
	}
	runRef := func(name, id string) Value { return Map("name", Text(name), "run", B(id)) }
	dsnap := func(rs ...Value) Value { return Map("diagnostics_snapshot", Map("runs", Array(rs...))) }

	type sc struct {
		name    string
		value   func(x ids) Value
		want    []string
		ctxWant []string
		note    string
	}
	ok, bad := codes(), codes("E004")
	cases := []sc{
		// file_version
		{"valid file_version", func(x ids) Value { return fv(x) }, ok, nil, ""},
		{"file_version of a file not read", func(x ids) Value {
			return Map("file_version", Map("path", Text("README.md"), "blob", B(x.blob), "bytes", Uint(6), "lines", Uint(1)))
		}, ok, nil, ""},
		{"file_version of a binary file", func(x ids) Value {
			return fv(x, "binary", True, "language", nil, "module", nil, "items", nil, "imports", nil, "nodes", nil, "edges", nil)
		}, ok, nil, ""},
		{"file_version binary false", func(x ids) Value { return fv(x, "binary", False) }, bad, nil, ""},
		{"file_version binary 1", func(x ids) Value { return fv(x, "binary", Uint(1)) }, bad, nil, ""},
		{"file_version syntax_errors 2", func(x ids) Value { return fv(x, "syntax_errors", Uint(2)) }, ok, nil, ""},
		{"file_version syntax_errors 0", func(x ids) Value { return fv(x, "syntax_errors", Uint(0)) }, bad, nil, ""},
		{"file_version bytes 0", func(x ids) Value { return fv(x, "bytes", Uint(0), "lines", Uint(0)) }, ok, nil, ""},
		{"file_version bytes -1", func(x ids) Value { return fv(x, "bytes", Int(-1)) }, bad, nil, ""},
		{"file_version lines 2^63", func(x ids) Value { return fv(x, "lines", Uint(1<<63)) }, bad, nil, ""},
		{"file_version without lines", func(x ids) Value { return fv(x, "lines", nil) }, bad, nil, ""},
		{"file_version without blob", func(x ids) Value { return fv(x, "blob", nil) }, bad, nil, ""},
		{"file_version blob missing", func(x ids) Value { return fv(x, "blob", B(missing)) }, codes("E001"), nil, ""},
		{"file_version blob names a tree", func(x ids) Value { return fv(x, "blob", B(emptyTreeID)) }, bad, nil, ""},
		{"file_version blob zero", func(x ids) Value { return fv(x, "blob", B(zeroID)) }, bad, nil, ""},
		{"file_version path ../a.go", func(x ids) Value { return fv(x, "path", Text("../a.go")) }, bad, nil, ""},
		{"file_version path /a.go", func(x ids) Value { return fv(x, "path", Text("/a.go")) }, bad, nil, ""},
		{"file_version path a//b.go", func(x ids) Value { return fv(x, "path", Text("a//b.go")) }, bad, nil, ""},
		{"file_version path a\\b.go", func(x ids) Value { return fv(x, "path", Text("a\\b.go")) }, bad, nil, ""},
		{"file_version empty language", func(x ids) Value { return fv(x, "language", Text("")) }, bad, nil, ""},
		{"file_version null module", func(x ids) Value { return fv(x, "module", null) }, bad, nil, ""},
		{"file_version empty items", func(x ids) Value { return fv(x, "items", Array()) }, bad, nil, ""},
		{"file_version empty nodes and edges", func(x ids) Value { return fv(x, "nodes", Array(), "edges", nil) }, bad, nil, ""},
		{"file_version edges without nodes", func(x ids) Value { return fv(x, "nodes", nil) }, bad, nil, ""},
		{"file_version with an unknown field", func(x ids) Value { return fv(x, "zz", Uint(1)) }, ok, nil, ""},
		{"item kind func", func(x ids) Value { return fv(x, "items", Array(item("kind", Text("func")))) }, bad, nil, ""},
		{"item visibility exported", func(x ids) Value { return fv(x, "items", Array(item("visibility", Text("exported")))) }, bad, nil, ""},
		{"item without key", func(x ids) Value { return fv(x, "items", Array(item("key", nil))) }, bad, nil, ""},
		{"item with an empty name", func(x ids) Value { return fv(x, "items", Array(item("name", Text("")))) }, ok, nil, ""},
		{"item with a parent", func(x ids) Value { return fv(x, "items", Array(item("parent", Text("example.com/a.T")))) }, ok, nil, ""},
		{"item with an empty parent", func(x ids) Value { return fv(x, "items", Array(item("parent", Text("")))) }, bad, nil, ""},
		{"item span all 0", func(x ids) Value { return fv(x, "items", Array(item("span", span(0, 0, 0, 0)))) }, ok, nil, ""},
		{"item span ending before it starts", func(x ids) Value { return fv(x, "items", Array(item("span", span(5, 1, 3, 1)))) }, ok, nil, ""},
		{"item span with a column of 2^32", func(x ids) Value { return fv(x, "items", Array(item("span", span(1, 1<<32, 1, 1)))) }, bad, nil, ""},
		{"item span without end_col", func(x ids) Value {
			return fv(x, "items", Array(item("span", Map("start_line", Uint(1), "start_col", Uint(1), "end_line", Uint(1)))))
		}, bad, nil, ""},
		{"item without span", func(x ids) Value { return fv(x, "items", Array(item("span", nil))) }, bad, nil, ""},
		{"item signature_hash of 15 bytes", func(x ids) Value { return fv(x, "items", Array(item("signature_hash", Bytes(make([]byte, 15))))) }, bad, nil, ""},
		{"item signature_hash empty", func(x ids) Value { return fv(x, "items", Array(item("signature_hash", Bytes(nil)))) }, bad, nil, ""},
		{"item signature_hash as text", func(x ids) Value {
			return fv(x, "items", Array(item("signature_hash", Text("0123456789abcdef"))))
		}, bad, nil, ""},
		{"item without signature_hash", func(x ids) Value { return fv(x, "items", Array(item("signature_hash", nil))) }, ok, nil, ""},
		{"import with an alias", func(x ids) Value { return fv(x, "imports", Array(imp("alias", Text("f")))) }, ok, nil, ""},
		{"import without target", func(x ids) Value { return fv(x, "imports", Array(imp("target", nil))) }, bad, nil, ""},
		{"import of a package without ecosystem", func(x ids) Value {
			return fv(x, "imports", Array(imp("target", node("package", "fmt"))))
		}, bad, nil, ""},
		{"import of a module", func(x ids) Value { return fv(x, "imports", Array(imp("target", node("module", "pkg.mod")))) }, ok, nil, ""},
		{"node of kind blob", func(x ids) Value { return fv(x, "nodes", Array(node("blob", "a.go"), node("item", "k"))) }, bad, nil, ""},
		{"node without key", func(x ids) Value { return fv(x, "nodes", Array(Map("kind", Text("file")), node("item", "k"))) }, bad, nil, ""},
		{"node with an empty key", func(x ids) Value { return fv(x, "nodes", Array(node("file", ""), node("item", "k"))) }, ok, nil, ""},
		{"node package of ecosystem maven", func(x ids) Value {
			return fv(x, "nodes", Array(node("package", "a:b", "ecosystem", Text("maven")), node("item", "k")))
		}, ok, nil, ""},
		{"node with an empty ecosystem", func(x ids) Value {
			return fv(x, "nodes", Array(node("file", "a.go", "ecosystem", Text("")), node("item", "k")))
		}, bad, nil, ""},
		{"module of kind open-question", func(x ids) Value { return fv(x, "module", node("open-question", "x")) }, bad, nil, ""},
		{"edge to index 2 of 2 nodes", func(x ids) Value { return fv(x, "edges", Array(cedge("to", Uint(2)))) }, bad, nil, ""},
		{"edge from index -1", func(x ids) Value { return fv(x, "edges", Array(cedge("from", Int(-1)))) }, bad, nil, ""},
		{"edge from index 2^32", func(x ids) Value { return fv(x, "edges", Array(cedge("from", Uint(1<<32)))) }, bad, nil, ""},
		{"edge label likes", func(x ids) Value { return fv(x, "edges", Array(cedge("label", Text("likes")))) }, bad, nil, ""},
		{"edge confidence certain", func(x ids) Value { return fv(x, "edges", Array(cedge("confidence", Text("certain")))) }, bad, nil, ""},
		{"edge without confidence", func(x ids) Value { return fv(x, "edges", Array(cedge("confidence", nil))) }, bad, nil, ""},
		{"edge span start_line 0", func(x ids) Value { return fv(x, "edges", Array(cedge("span", span(0, 0, 0, 0)))) }, bad, nil, ""},
		{"edge span ending before it starts", func(x ids) Value { return fv(x, "edges", Array(cedge("span", span(5, 1, 4, 1)))) }, bad, nil, ""},
		{"edge without span", func(x ids) Value { return fv(x, "edges", Array(cedge("span", nil))) }, ok, nil, ""},
		{"edge from a node to itself", func(x ids) Value { return fv(x, "edges", Array(cedge("to", Uint(0)))) }, ok, nil, ""},

		// tree entries of kind typed (§4.3): any typed object, in a tree no commit reaches.
		{"tree typed entry naming a commit", func(x ids) Value { return treeOf(treeEntry(t, "a", "typed", x.commit)) }, ok, nil, ""},
		{"tree typed entry naming a file_version", func(x ids) Value { return treeOf(treeEntry(t, "a.go", "typed", x.version)) }, ok, nil, ""},
		{"tree typed entry naming a blob", func(x ids) Value { return treeOf(treeEntry(t, "a", "typed", x.blob)) }, bad, nil, ""},
		{"tree typed entry missing", func(x ids) Value { return treeOf(treeEntry(t, "a", "typed", missing)) }, codes("E001"), nil, ""},
		{"tree entry kind Typed", func(x ids) Value { return treeOf(treeEntry(t, "a", "Typed", x.version)) }, bad, nil, ""},

		// build_snapshot
		{"valid build_snapshot", func(x ids) Value {
			return bsnap(bentry("cargo", ".", x.cargo), bentry("go", ".", x.goPkgs), bentry("go", "svc/api", x.goPkgs))
		}, ok, nil, ""},
		{"build_snapshot without entries", func(x ids) Value { return Map("build_snapshot", Map()) }, bad, nil, ""},
		{"build_snapshot with no entry", func(x ids) Value { return bsnap() }, ok, nil, ""},
		{"build_snapshot entries not sorted by ecosystem", func(x ids) Value {
			return bsnap(bentry("go", ".", x.goPkgs), bentry("cargo", ".", x.cargo))
		}, bad, nil, ""},
		{"build_snapshot entries not sorted by root", func(x ids) Value {
			return bsnap(bentry("go", "b", x.goPkgs), bentry("go", "a", x.goPkgs))
		}, bad, nil, ""},
		{"build_snapshot entry repeated", func(x ids) Value {
			return bsnap(bentry("go", ".", x.goPkgs), bentry("go", ".", x.goPkgs))
		}, bad, nil, ""},
		{"build_snapshot ecosystem npm", func(x ids) Value { return bsnap(bentry("npm", ".", x.goPkgs)) }, bad, nil, ""},
		{"build_snapshot root empty", func(x ids) Value { return bsnap(bentry("go", "", x.goPkgs)) }, bad, nil, ""},
		{"build_snapshot root absolute", func(x ids) Value { return bsnap(bentry("go", "/src/a", x.goPkgs)) }, bad, nil, ""},
		{"build_snapshot root with a trailing slash", func(x ids) Value { return bsnap(bentry("go", "a/", x.goPkgs)) }, bad, nil, ""},
		{"build_snapshot root ./a", func(x ids) Value { return bsnap(bentry("go", "./a", x.goPkgs)) }, bad, nil, ""},
		{"build_snapshot root a/..", func(x ids) Value { return bsnap(bentry("go", "a/..", x.goPkgs)) }, bad, nil, ""},
		{"build_snapshot go entry naming a cargo_metadata", func(x ids) Value { return bsnap(bentry("go", ".", x.cargo)) }, bad, nil, ""},
		{"build_snapshot cargo entry naming a go_packages", func(x ids) Value { return bsnap(bentry("cargo", ".", x.goPkgs)) }, bad, nil, ""},
		{"build_snapshot entry naming a blob", func(x ids) Value { return bsnap(bentry("go", ".", x.blob)) }, bad, nil, ""},
		{"build_snapshot entry missing", func(x ids) Value { return bsnap(bentry("go", ".", missing)) }, codes("E001"), nil, ""},
		{"build_snapshot entry zero", func(x ids) Value { return bsnap(bentry("go", ".", zeroID)) }, bad, nil, ""},

		// go_packages
		{"valid go_packages", func(x ids) Value {
			return gps([]Value{gmod(), gmod("path", Text("golang.org/x/text"), "main", nil, "dir", nil, "version", Text("v0.3.0"))},
				gpkg(), gpkg("import_path", Text("example.com/a/cmd"), "name", Text("main"), "dir", Text("cmd"),
					"go_files", texts("cmd/main.go"), "test_go_files", nil, "xtest_go_files", texts("cmd/x_test.go"),
					"xtest_imports", texts("example.com/a/cmd"), "test_imports", nil, "error", Text("cmd/main.go:3:1: expected"),
					"deps_errors", texts("a", "b"), "test_errors", texts("c")),
				gext, Map("import_path", Text("golang.org/x/text/unicode"), "module", Text("golang.org/x/text")))
		}, ok, nil, ""},
		{"go_packages with nothing", func(x ids) Value { return gps(nil) }, ok, nil, ""},
		{"go_packages without modules", func(x ids) Value { return Map("go_packages", Map("packages", Array())) }, bad, nil, ""},
		{"go_packages modules not sorted", func(x ids) Value {
			return gps([]Value{gmod("path", Text("b")), gmod("path", Text("a"))})
		}, bad, nil, ""},
		{"go_packages module path empty", func(x ids) Value { return gps([]Value{gmod("path", Text(""))}) }, bad, nil, ""},
		{"go_packages module main false", func(x ids) Value { return gps([]Value{gmod("main", False)}) }, bad, nil, ""},
		{"go_packages module dir ..", func(x ids) Value { return gps([]Value{gmod("dir", Text(".."))}) }, bad, nil, ""},
		{"go_packages module version empty", func(x ids) Value { return gps([]Value{gmod("version", Text(""))}) }, bad, nil, ""},
		{"go_packages packages repeated", func(x ids) Value { return gps(nil, gpkg(), gpkg()) }, bad, nil, ""},
		{"go_packages packages not sorted", func(x ids) Value { return gps(nil, gext, gpkg()) }, bad, nil, ""},
		{"go_packages import_path empty", func(x ids) Value { return gps(nil, gpkg("import_path", Text(""))) }, bad, nil, ""},
		{"go_packages package with files without dir", func(x ids) Value { return gps(nil, gpkg("dir", nil, "name", nil)) }, bad, nil, ""},
		{"go_packages package with a name without dir", func(x ids) Value {
			return gps(nil, Map("import_path", Text("fmt"), "name", Text("fmt")))
		}, bad, nil, ""},
		{"go_packages go_files not sorted", func(x ids) Value { return gps(nil, gpkg("go_files", texts("b.go", "a.go"))) }, bad, nil, ""},
		{"go_packages go_files repeated", func(x ids) Value { return gps(nil, gpkg("go_files", texts("a.go", "a.go"))) }, bad, nil, ""},
		{"go_packages go_files with .", func(x ids) Value { return gps(nil, gpkg("go_files", texts("."))) }, bad, nil, ""},
		{"go_packages go_files with an absolute path", func(x ids) Value { return gps(nil, gpkg("go_files", texts("/a.go"))) }, bad, nil, ""},
		{"go_packages go_files present but empty", func(x ids) Value { return gps(nil, gpkg("go_files", Array())) }, bad, nil, ""},
		{"go_packages imports with an empty path", func(x ids) Value { return gps(nil, gpkg("imports", texts("", "fmt"))) }, bad, nil, ""},
		{"go_packages standard false", func(x ids) Value { return gps(nil, Map("import_path", Text("fmt"), "standard", False)) }, bad, nil, ""},
		{"go_packages error empty", func(x ids) Value { return gps(nil, gpkg("error", Text(""))) }, bad, nil, ""},

		// cargo_metadata
		{"valid cargo_metadata", func(x ids) Value {
			return cm("resolve", Array(dep("dep_kind", Text("dev"), "optional", True),
				dep("dep_kind", Text("dev"), "target", Text("cfg(unix)")), dep()))
		}, ok, nil, ""},
		{"cargo_metadata with nothing", func(x ids) Value { return cm("packages", Array(), "resolve", Array()) }, ok, nil, ""},
		{"cargo_metadata workspace_root empty", func(x ids) Value { return cm("workspace_root", Text("")) }, bad, nil, ""},
		{"cargo_metadata workspace_root absolute", func(x ids) Value { return cm("workspace_root", Text("/home/x/ws")) }, ok, nil, ""},
		{"cargo_metadata without resolve", func(x ids) Value { return cm("resolve", nil) }, bad, nil, ""},
		{"cargo_metadata packages not sorted", func(x ids) Value { return cm("packages", Array(serde, cpkg())) }, bad, nil, ""},
		{"cargo_metadata package name empty", func(x ids) Value { return cm("packages", Array(cpkg("name", Text("")), serde)) }, bad, nil, ""},
		{"cargo_metadata package without version", func(x ids) Value { return cm("packages", Array(cpkg("version", nil), serde)) }, bad, nil, ""},
		{"cargo_metadata package with an empty edition", func(x ids) Value { return cm("packages", Array(cpkg("edition", Text("")), serde)) }, ok, nil, ""},
		{"cargo_metadata manifest_path .", func(x ids) Value { return cm("packages", Array(cpkg("manifest_path", Text(".")), serde)) }, bad, nil, ""},
		{"cargo_metadata workspace_member false", func(x ids) Value { return cm("packages", Array(cpkg("workspace_member", False), serde)) }, bad, nil, ""},
		{"cargo_metadata features not sorted", func(x ids) Value { return cm("packages", Array(cpkg("features", texts("std", "default")), serde)) }, bad, nil, ""},
		{"cargo_metadata targets sorted by kind", func(x ids) Value {
			return cm("packages", Array(cpkg("targets", Array(ctarget("kind", Text("bin"), "name", Text("z")), ctarget())), serde))
		}, ok, nil, ""},
		{"cargo_metadata targets not sorted", func(x ids) Value {
			return cm("packages", Array(cpkg("targets", Array(ctarget(), ctarget("kind", Text("bin")))), serde))
		}, bad, nil, ""},
		{"cargo_metadata target kind proc-macro", func(x ids) Value {
			return cm("packages", Array(cpkg("targets", Array(ctarget("kind", Text("proc-macro")))), serde))
		}, bad, nil, ""},
		{"cargo_metadata target name empty", func(x ids) Value {
			return cm("packages", Array(cpkg("targets", Array(ctarget("name", Text("")))), serde))
		}, bad, nil, ""},
		{"cargo_metadata target without crate_types", func(x ids) Value {
			return cm("packages", Array(cpkg("targets", Array(ctarget("crate_types", nil))), serde))
		}, bad, nil, ""},
		{"cargo_metadata target with no crate type", func(x ids) Value {
			return cm("packages", Array(cpkg("targets", Array(ctarget("crate_types", Array()))), serde))
		}, ok, nil, ""},
		{"cargo_metadata crate_types not sorted", func(x ids) Value {
			return cm("packages", Array(cpkg("targets", Array(ctarget("crate_types", texts("rlib", "cdylib")))), serde))
		}, bad, nil, ""},
		{"cargo_metadata target src_path ../x.rs", func(x ids) Value {
			return cm("packages", Array(cpkg("targets", Array(ctarget("src_path", Text("../x.rs")))), serde))
		}, bad, nil, ""},
		{"cargo_metadata dependency on an unlisted package", func(x ids) Value {
			return cm("resolve", Array(dep("to_package_id", Text("nope"))))
		}, bad, nil, ""},
		{"cargo_metadata dep_kind runtime", func(x ids) Value { return cm("resolve", Array(dep("dep_kind", Text("runtime")))) }, bad, nil, ""},
		{"cargo_metadata resolve repeated", func(x ids) Value { return cm("resolve", Array(dep(), dep())) }, bad, nil, ""},
		{"cargo_metadata resolve not sorted", func(x ids) Value {
			return cm("resolve", Array(dep("dep_kind", Text("normal")), dep("dep_kind", Text("dev"))))
		}, bad, nil, ""},
		{"cargo_metadata resolve target before no target", func(x ids) Value {
			return cm("resolve", Array(dep("target", Text("cfg(unix)")), dep()))
		}, bad, nil, ""},
		{"cargo_metadata optional false", func(x ids) Value { return cm("resolve", Array(dep("optional", False))) }, bad, nil, ""},
		{"cargo_metadata features_enabled empty", func(x ids) Value { return cm("resolve", Array(dep("features_enabled", Array()))) }, bad, nil, ""},

		// command_run
		{"valid command_run", func(x ids) Value { return run(x) }, ok, nil, ""},
		{"command_run without output", func(x ids) Value { return run(x, "output", nil, "truncated", nil, "argv", nil) }, ok, nil, ""},
		{"command_run without diagnostics", func(x ids) Value { return run(x, "diagnostics", nil) }, bad, nil, ""},
		{"command_run with no diagnostic", func(x ids) Value { return run(x, "diagnostics", Array()) }, ok, nil, ""},
		{"command_run name empty", func(x ids) Value { return run(x, "name", Text("")) }, bad, nil, ""},
		{"command_run name of two lines", func(x ids) Value { return run(x, "name", Text("go test\n./...")) }, bad, nil, ""},
		{"command_run exit_code -1", func(x ids) Value { return run(x, "exit_code", Int(-1)) }, ok, nil, ""},
		{"command_run started_at as a float", func(x ids) Value { return run(x, "started_at", Float(1.5)) }, bad, nil, ""},
		{"command_run duration_ms -1", func(x ids) Value { return run(x, "duration_ms", Int(-1)) }, bad, nil, ""},
		{"command_run duration_ms 0", func(x ids) Value { return run(x, "duration_ms", Uint(0)) }, ok, nil, ""},
		{"command_run output names a tree", func(x ids) Value { return run(x, "output", B(emptyTreeID)) }, bad, nil, ""},
		{"command_run output missing", func(x ids) Value { return run(x, "output", B(missing)) }, codes("E001"), nil, ""},
		{"command_run output zero", func(x ids) Value { return run(x, "output", B(zeroID)) }, bad, nil, ""},
		{"command_run truncated without output", func(x ids) Value { return run(x, "output", nil) }, bad, nil, ""},
		{"command_run truncated false", func(x ids) Value { return run(x, "truncated", False) }, bad, nil, ""},
		{"command_run argv empty", func(x ids) Value { return run(x, "argv", Array()) }, bad, nil, ""},
		{"command_run argv with an empty argument", func(x ids) Value { return run(x, "argv", texts("echo", "")) }, ok, nil, ""},
		{"command_run without summary", func(x ids) Value { return run(x, "summary", nil) }, bad, nil, ""},
		{"summary passed -2", func(x ids) Value { return run(x, "summary", summary("passed", Int(-2))) }, bad, nil, ""},
		{"summary errors -1", func(x ids) Value { return run(x, "summary", summary("errors", Int(-1))) }, bad, nil, ""},
		{"summary text of two lines", func(x ids) Value { return run(x, "summary", summary("text", Text("a\nb"))) }, bad, nil, ""},
		{"summary with an empty tool and text", func(x ids) Value { return run(x, "summary", summary("tool", Text(""), "text", Text(""))) }, ok, nil, ""},
		{"summary without skipped", func(x ids) Value { return run(x, "summary", summary("skipped", nil)) }, bad, nil, ""},
		{"diagnostic severity fatal", func(x ids) Value { return run(x, "diagnostics", Array(diag("severity", Text("fatal")))) }, bad, nil, ""},
		{"diagnostic of message only", func(x ids) Value {
			return run(x, "diagnostics", Array(Map("severity", Text("hint"), "message", Text("consider this"))))
		}, ok, nil, ""},
		{"diagnostic message empty", func(x ids) Value { return run(x, "diagnostics", Array(diag("message", Text("")))) }, bad, nil, ""},
		{"diagnostic message of two lines", func(x ids) Value { return run(x, "diagnostics", Array(diag("message", Text("a\nb")))) }, bad, nil, ""},
		{"diagnostic message of 2048 bytes", func(x ids) Value {
			return run(x, "diagnostics", Array(diag("message", Text(strings.Repeat("m", 2048)))))
		}, ok, nil, ""},
		{"diagnostic message of 2049 bytes", func(x ids) Value {
			return run(x, "diagnostics", Array(diag("message", Text(strings.Repeat("m", 2049)))))
		}, bad, nil, ""},
		{"diagnostic detail of 40 lines", func(x ids) Value {
			return run(x, "diagnostics", Array(diag("detail", Text(strings.Repeat("d\n", 39)+"d"))))
		}, ok, nil, ""},
		{"diagnostic detail of 41 lines", func(x ids) Value {
			return run(x, "diagnostics", Array(diag("detail", Text(strings.Repeat("d\n", 40)+"d"))))
		}, bad, nil, ""},
		{"diagnostic detail of 8193 bytes", func(x ids) Value {
			return run(x, "diagnostics", Array(diag("detail", Text(strings.Repeat("d", 8193)))))
		}, bad, nil, ""},
		{"diagnostic code with a CR", func(x ids) Value { return run(x, "diagnostics", Array(diag("code", Text("E1\r")))) }, bad, nil, ""},
		{"diagnostic test empty", func(x ids) Value { return run(x, "diagnostics", Array(diag("test", Text("")))) }, bad, nil, ""},
		{"diagnostic path ./a.go", func(x ids) Value { return run(x, "diagnostics", Array(diag("path", Text("./a.go")))) }, bad, nil, ""},
		{"diagnostic path a/../b.go", func(x ids) Value { return run(x, "diagnostics", Array(diag("path", Text("a/../b.go")))) }, bad, nil, ""},
		{"diagnostic path .", func(x ids) Value { return run(x, "diagnostics", Array(diag("path", Text(".")))) }, bad, nil, ""},
		{"diagnostic external absolute path", func(x ids) Value {
			return run(x, "diagnostics", Array(diag("path", Text("/usr/lib/go/src/fmt/print.go"), "external", True)))
		}, ok, nil, ""},
		{"diagnostic external ../x", func(x ids) Value {
			return run(x, "diagnostics", Array(diag("path", Text("../x.go"), "external", True)))
		}, ok, nil, ""},
		{"diagnostic external without path", func(x ids) Value {
			return run(x, "diagnostics", Array(diag("path", nil, "external", True, "line", nil, "col", nil, "end_line", nil, "end_col", nil)))
		}, bad, nil, ""},
		{"diagnostic external false", func(x ids) Value { return run(x, "diagnostics", Array(diag("external", False))) }, bad, nil, ""},
		{"diagnostic line 0", func(x ids) Value {
			return run(x, "diagnostics", Array(diag("line", Uint(0), "col", nil, "end_line", nil, "end_col", nil)))
		}, bad, nil, ""},
		{"diagnostic line -1", func(x ids) Value {
			return run(x, "diagnostics", Array(diag("line", Int(-1), "col", nil, "end_line", nil, "end_col", nil)))
		}, bad, nil, ""},
		{"diagnostic col without line", func(x ids) Value {
			return run(x, "diagnostics", Array(diag("line", nil, "end_line", nil, "end_col", nil)))
		}, bad, nil, ""},
		{"diagnostic end_line without line", func(x ids) Value { return run(x, "diagnostics", Array(diag("line", nil, "col", nil))) }, bad, nil, ""},
		{"diagnostic end_line before line", func(x ids) Value { return run(x, "diagnostics", Array(diag("end_line", Uint(2)))) }, bad, nil, ""},
		{"diagnostic end_col before col on one line", func(x ids) Value { return run(x, "diagnostics", Array(diag("end_col", Uint(4)))) }, bad, nil, ""},
		{"diagnostic end_col before col on a later line", func(x ids) Value {
			return run(x, "diagnostics", Array(diag("end_line", Uint(4), "end_col", Uint(1))))
		}, ok, nil, ""},
		{"diagnostic end_col without end_line", func(x ids) Value { return run(x, "diagnostics", Array(diag("end_line", nil))) }, bad, nil, ""},
		{"diagnostic line only", func(x ids) Value {
			return run(x, "diagnostics", Array(diag("col", nil, "end_line", nil, "end_col", nil)))
		}, ok, nil, ""},

		// diagnostics_snapshot
		{"valid diagnostics_snapshot", func(x ids) Value {
			return dsnap(runRef("cargo test", x.run), runRef("go test ./...", x.run))
		}, ok, nil, ""},
		{"diagnostics_snapshot with no run", func(x ids) Value { return dsnap() }, ok, nil, ""},
		{"diagnostics_snapshot without runs", func(x ids) Value { return Map("diagnostics_snapshot", Map()) }, bad, nil, ""},
		{"diagnostics_snapshot runs not sorted", func(x ids) Value {
			return dsnap(runRef("go test ./...", x.run), runRef("cargo test", x.run))
		}, bad, nil, ""},
		{"diagnostics_snapshot run repeated", func(x ids) Value { return dsnap(runRef("a", x.run), runRef("a", x.run)) }, bad, nil, ""},
		{"diagnostics_snapshot name empty", func(x ids) Value { return dsnap(runRef("", x.run)) }, bad, nil, ""},
		{"diagnostics_snapshot run names a blob", func(x ids) Value { return dsnap(runRef("a", x.blob)) }, bad, nil, ""},
		{"diagnostics_snapshot run names a tree", func(x ids) Value { return dsnap(runRef("a", emptyTreeID)) }, bad, nil, ""},
		{"diagnostics_snapshot run missing", func(x ids) Value { return dsnap(runRef("a", missing)) }, codes("E001"), nil, ""},
		{"diagnostics_snapshot run zero", func(x ids) Value { return dsnap(runRef("a", zeroID)) }, bad, nil, ""},

		// Commits naming the new snapshots (§4.2, §4.6).
		{"commit with all three snapshots", func(x ids) Value {
			return commitOf(t, nil, 1, "m", emptyTreeID, "build_snapshot", B(x.build), "diagnostics_snapshot", B(x.diags))
		}, ok, nil, ""},
		{"commit diagnostics_snapshot names a command_run", func(x ids) Value {
			return commitOf(t, nil, 1, "m", emptyTreeID, "diagnostics_snapshot", B(x.run))
		}, bad, nil, ""},
		{"commit build_snapshot names a cargo_metadata", func(x ids) Value {
			return commitOf(t, nil, 1, "m", emptyTreeID, "build_snapshot", B(x.cargo))
		}, bad, nil, ""},
		{"commit semantic_snapshot names a diagnostics_snapshot", func(x ids) Value {
			return commitOf(t, nil, 1, "m", emptyTreeID, "semantic_snapshot", B(x.diags))
		}, bad, nil, ""},
	}
	var dcs []damageCase
	for _, c := range cases {
		c := c
		dcs = append(dcs, damageCase{name: c.name, base: schemaBase, want: c.want, ctxWant: c.ctxWant, note: c.note,
			noCounts: c.ctxWant != nil,
			damage: func(t *testing.T, p string) {
				var x ids
				x.blob = writeCanon(t, p, Canonical(KindBlob, []byte("hello\n")))
				x.commit = head(t, p)
				x.tree = emptyTreeID
				x.run = writeTyped(t, p, Encode(run(x, "output", nil, "truncated", nil)))
				x.goPkgs = writeTyped(t, p, Encode(gps([]Value{gmod()}, gpkg(), gext)))
				x.cargo = writeTyped(t, p, Encode(cm()))
				x.version = writeTyped(t, p, Encode(fv(x)))
				x.diags = writeTyped(t, p, Encode(dsnap(runRef("go test ./...", x.run))))
				x.build = writeTyped(t, p, Encode(bsnap(bentry("go", ".", x.goPkgs))))
				pl := Encode(c.value(x))
				if _, err := DecodeStrict(pl); errors.Is(err, errNonCanonical) {
					t.Fatalf("not canonical: %v", err)
				}
				writeTyped(t, p, pl)
			}})
	}
	runDamage(t, dcs)
}

// TestThirdPartySnapshots writes, from the spec alone, a commit with every
// snapshot of §4.8–§4.13, and checks that ctx reads them: the graph at
// the commit has the file's code edges, its build edges and the edge of
// the diagnostic that names it (§15.1, §15.4).
func TestThirdPartySnapshots(t *testing.T) {
	p := initProject(t)
	st := storeOf(p)
	B := func(id string) Value { return Bytes(idBytes(t, id)) }
	src := "package a\n\nfunc F() {}\n"
	writeFiles(t, p, map[string]string{"a.go": src})
	must := func(id string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	blob := must(WriteObject(st, KindBlob, []byte(src)))
	root := must(WriteObject(st, KindTyped, Encode(treeOf(treeEntry(t, "a.go", "blob", blob)))))
	span := func(a, b, c, d uint64) Value {
		return Map("start_line", Uint(a), "start_col", Uint(b), "end_line", Uint(c), "end_col", Uint(d))
	}
	pkg := Map("kind", Text("package"), "key", Text("example.com/a"), "ecosystem", Text("go"))
	fv := must(WriteObject(st, KindTyped, Encode(Map("file_version", Map(
		"path", Text("a.go"), "blob", B(blob), "bytes", Uint(uint64(len(src))), "lines", Uint(3),
		"language", Text("go"), "module", pkg,
		"items", Array(Map("kind", Text("function"), "name", Text("F"), "key", Text("example.com/a.F"),
			"visibility", Text("public"), "span", span(3, 1, 3, 11))),
		"nodes", Array(pkg, Map("kind", Text("file"), "key", Text("a.go")),
			Map("kind", Text("item"), "key", Text("example.com/a.F"))),
		"edges", Array(
			Map("from", Uint(0), "to", Uint(1), "label", Text("contains"), "confidence", Text("high")),
			Map("from", Uint(1), "to", Uint(2), "label", Text("defines"), "span", span(3, 1, 3, 11),
				"confidence", Text("high"))))))))
	sem := must(WriteObject(st, KindTyped, Encode(treeOf(treeEntry(t, "a.go", "typed", fv)))))
	gp := must(WriteObject(st, KindTyped, Encode(Map("go_packages", Map(
		"modules", Array(Map("path", Text("example.com/a"), "main", Value{Kind: KSimple, U: 21}, "dir", Text("."))),
		"packages", Array(Map("import_path", Text("example.com/a"), "name", Text("a"), "dir", Text("."),
			"module", Text("example.com/a"), "go_files", Array(Text("a.go")), "imports", Array(Text("fmt"))),
			Map("import_path", Text("fmt"), "standard", Value{Kind: KSimple, U: 21})))))))
	bs := must(WriteObject(st, KindTyped, Encode(Map("build_snapshot", Map("entries", Array(
		Map("ecosystem", Text("go"), "root", Text("."), "snapshot", B(gp))))))))
	out := must(WriteObject(st, KindBlob, []byte("a.go:3:6: F is unused\n")))
	run := must(WriteObject(st, KindTyped, Encode(Map("command_run", Map(
		"name", Text("go vet ./..."), "exit_code", Int(1), "started_at", Int(1700000000), "duration_ms", Uint(20),
		"output", B(out),
		"summary", Map("tool", Text("go vet"), "passed", Int(-1), "failed", Int(-1), "skipped", Int(-1),
			"errors", Uint(1), "warnings", Uint(0), "text", Text("go vet: 1 error")),
		"diagnostics", Array(Map("severity", Text("error"), "message", Text("F is unused"),
			"path", Text("a.go"), "line", Uint(3), "col", Uint(6), "tool", Text("go vet"))))))))
	ds := must(WriteObject(st, KindTyped, Encode(Map("diagnostics_snapshot", Map("runs", Array(
		Map("name", Text("go vet ./..."), "run", B(run))))))))
	commit := must(WriteObject(st, KindTyped, Encode(commitOf(t, []string{head(t, p)}, 1700000001, "snapshots",
		root, "semantic_snapshot", B(sem), "build_snapshot", B(bs), "diagnostics_snapshot", B(ds)))))
	setHead(t, p, commit)
	rep, _ := requireClean(t, p)
	for _, typ := range []string{"file_version", "build_snapshot", "go_packages", "command_run", "diagnostics_snapshot"} {
		if rep.Typed[typ] != 1 {
			t.Errorf("%s: %d, want 1", typ, rep.Typed[typ])
		}
	}
	edges := mustCtx(t, p, "edges", "a.go")
	t.Logf("ctx edges a.go:\n%s", edges)
	for _, want := range []string{"defines", "example.com/a.F", "contains", "references", "diagnostic"} {
		if !strings.Contains(edges, want) {
			t.Errorf("ctx edges a.go lacks %q", want)
		}
	}
	// Ingesting the project again finds the file unchanged and the
	// version current (§16.1): no new commit.
	mustCtx(t, p, "add", "code")
	if got := head(t, p); got != commit {
		t.Errorf("ctx add code over a spec-written snapshot made commit %s", got)
	}
}

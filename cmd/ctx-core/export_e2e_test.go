package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportImportE2E runs the built binary: a store with every kind of
// state is exported, imported into an empty store and exported again
// (equal bytes); a second import fails with E015 and writes nothing;
// --merge skips everything; ingest makes a source node and refuses a
// binary file.
func TestExportImportE2E(t *testing.T) {
	ctx, _ := binaries(t)
	env := []string{"CTX_DATE=2026-03-01T10:00:00Z"}
	src, dst := t.TempDir(), t.TempDir()
	must(t, src, env, "", ctx, "init")
	must(t, dst, env, "", ctx, "init")
	dec := must(t, src, env, "", ctx, "add", "decision", "Retry with jitter ✓", "--body", "Café — 日本語\n\n    indented", "-t", "tier:reference", "--meta", "owner=Zoë")
	old := must(t, src, env, "", ctx, "add", "fact", "Old fact")
	must(t, src, env, "", ctx, "supersede", old, dec)
	gone := must(t, src, env, "", ctx, "add", "note", "Gone")
	must(t, src, env, "", ctx, "delete", gone)
	must(t, src, env, "", ctx, "add", "summary", "Sum", "--from", dec)
	must(t, src, env, "", ctx, "relate", dec, "relates_to", gone, "--evidence", "why")
	if err := os.WriteFile(filepath.Join(src, "README.md"), []byte("# Read me\n\nAbout ✓.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := must(t, src, env, "", ctx, "ingest", "README.md", "-t", "type:documentation")
	if show := must(t, src, env, "", ctx, "show", id); !strings.Contains(show, "Read me") || !strings.Contains(show, "About ✓.") {
		t.Errorf("ingested node:\n%s", show)
	}

	first := must(t, src, env, "", ctx, "export", "--include-deleted", "--include-superseded")
	file := filepath.Join(t.TempDir(), "export.json")
	if err := os.WriteFile(file, []byte(first+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := must(t, dst, env, "", ctx, "import", file)
	if !strings.Contains(out, "5 added") {
		t.Errorf("import: %s", out)
	}
	second := must(t, dst, env, "", ctx, "export", "--include-deleted", "--include-superseded")
	if first != second {
		t.Fatalf("round trip differs:\n%s\n---\n%s", first, second)
	}
	must(t, dst, env, "", ctx, "verify")

	// Again without --merge: refused, nothing written.
	r := run(t, dst, env, first, ctx, "import")
	if r.code != 2 || !strings.Contains(r.stderr, "E015") || !strings.Contains(r.stderr, "--merge") {
		t.Errorf("second import: exit %d\n%s", r.code, r.stderr)
	}
	var rep struct {
		Added, Updated []string
		Skipped        []struct{ ID, Reason string }
	}
	if err := json.Unmarshal([]byte(must(t, dst, env, first, ctx, "import", "--merge", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Added)+len(rep.Updated) != 0 || len(rep.Skipped) != 5 {
		t.Errorf("merge report %+v", rep)
	}

	// A bad file names the entry and exits 2.
	bad := strings.Replace(first, `"type": "fact"`, `"type": "gossip"`, 1)
	empty := t.TempDir()
	must(t, empty, env, "", ctx, "init")
	r = run(t, empty, env, bad, ctx, "import")
	if r.code != 2 || !strings.Contains(r.stderr, "gossip") || !strings.Contains(r.stderr, "nodes[") {
		t.Errorf("bad import: exit %d\n%s", r.code, r.stderr)
	}
	if list := must(t, empty, env, "", ctx, "list", "--include-deleted"); list != "" {
		t.Errorf("a failed import left nodes:\n%s", list)
	}

	// Query: only the source node (and its edge to its file).
	q := must(t, src, env, "", ctx, "export", "--query", "type:source")
	if !strings.Contains(q, `"type": "source"`) || strings.Contains(q, `"type": "decision"`) || !strings.Contains(q, `"key": "README.md"`) {
		t.Errorf("export --query type:source:\n%s", q)
	}

	// Binary refused.
	if err := os.WriteFile(filepath.Join(src, "x.bin"), []byte("a\x00b"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, src, env, "", ctx, "ingest", "x.bin")
	if r.code != 2 || !strings.Contains(r.stderr, "binary") {
		t.Errorf("ingest of a binary file: exit %d\n%s", r.code, r.stderr)
	}
}

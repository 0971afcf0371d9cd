package repo

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/object"
)

// FuzzParseStatCache checks that any stat cache file decodes without
// panicking, to an empty cache or to entries that survive a round trip.
func FuzzParseStatCache(f *testing.F) {
	id := object.Sum(object.KindBlob, []byte("x"))
	f.Add([]byte(statCacheVersion + "\nwritten 12\na.go\t3\t4\t5\t6\t" + id.String() + "\n"))
	f.Add([]byte(statCacheVersion + "\nwritten x\n"))
	f.Add([]byte(statCacheVersion + "\nwritten 1\na\t1\t2\n"))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := parseStatCache(data)
		if c == nil || c.entries == nil {
			t.Fatal("nil cache")
		}
		var b bytes.Buffer
		if err := c.encode(&b); err != nil {
			t.Fatal(err)
		}
		again := parseStatCache(b.Bytes())
		if len(again.entries) != len(c.entries) || again.written != c.written && len(c.entries) > 0 {
			t.Fatalf("round trip: %d entries written %d, then %d written %d", len(c.entries), c.written, len(again.entries), again.written)
		}
		for p, e := range c.entries {
			if again.entries[p] != e {
				t.Fatalf("entry %q: %+v, then %+v", p, e, again.entries[p])
			}
		}
	})
}

// FuzzDecodeRegistry decodes arbitrary payloads as every typed object
// ctx defines (commits, trees, edge batches, file versions, build and
// diagnostics snapshots, command runs): errors, never panics, and what
// decodes re-encodes to bytes that decode and re-encode unchanged.
func FuzzDecodeRegistry(f *testing.F) {
	reg, err := Registry()
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range ingestedPayloads(f) {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		v, err := reg.Decode(p)
		if err != nil {
			return
		}
		again, err := object.Encode(v)
		if err != nil {
			t.Fatalf("decoded %T does not encode: %v", v, err)
		}
		// Unknown fields are skipped (FORMAT §4.1), so the bytes may
		// differ once; what ctx writes decodes to the same bytes.
		v2, err := reg.Decode(again)
		if err != nil {
			t.Fatalf("%T: re-encoded payload does not decode: %v", v, err)
		}
		if third, err := object.Encode(v2); err != nil || !bytes.Equal(third, again) {
			t.Fatalf("%T: encoding is not stable: %v", v, err)
		}
	})
}

// ingestedPayloads ingests a small Go project with semantics and records
// a failing command, and returns the payloads of every typed object.
func ingestedPayloads(tb testing.TB) [][]byte {
	r := NewTestRepo(tb)
	root := r.ProjectRoot()
	for name, content := range map[string]string{
		"go.mod":       "module example.com/m\n\ngo 1.22\n",
		"a/a.go":       "// Package a is a.\npackage a\n\n// T is a type.\ntype T struct{ N int }\n\n// Get returns N.\nfunc (t T) Get() int { return t.N }\n",
		"b/b.go":       "package b\n\nimport \"example.com/m/a\"\n\nfunc F() int { return a.T{N: 1}.Get() }\n",
		"README.md":    "# m\n",
		"data/bin.dat": "\x00\x01\x02",
	} {
		full := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	w, err := r.Lock(context.Background(), LockOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Unlock()
	if _, err := w.Ingest(context.Background(), IngestOptions{Semantics: true}); err != nil {
		tb.Fatal(err)
	}
	if _, err := w.RecordCommand(context.Background(), CommandOptions{Name: "go vet ./...", Output: []byte("# example.com/m/b\nb/b.go:5:1: something odd\n"), ExitCode: 1}); err != nil {
		tb.Fatal(err)
	}
	var out [][]byte
	err = filepath.WalkDir(filepath.Join(r.Root, "objects"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		id, err := object.ParseID(d.Name())
		if err != nil {
			return nil
		}
		if k, payload, err := r.Objects.Get(id); err == nil && k == object.KindTyped {
			out = append(out, payload)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

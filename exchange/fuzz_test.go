package exchange

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzImport feeds arbitrary bytes to Decode and, when they decode, to
// Import into an empty store: neither may panic, and an import either
// fails or leaves a store whose export imports again.
func FuzzImport(f *testing.F) {
	golden, err := os.ReadFile(filepath.Join("testdata", "export.golden.json"))
	if err == nil {
		f.Add(golden)
	}
	f.Add([]byte(`{"format":"ctx-export","version":1,"nodes":[],"edges":[]}`))
	f.Add([]byte(`{"format":"ctx-export","version":1,"nodes":[{"id":"abcdefgh12","type":"fact","stream":"main","title":"T","body":"b","tags":["tier:pinned"],"meta":{"k":"v"},"created":"2026-01-01T00:00:00Z","updated":"2026-01-02T00:00:00Z","deleted":true}],"edges":[{"from":{"node":"abcdefgh12"},"label":"mentions","to":{"kind":"file","key":"a.go"},"evidence":{"tool":"human","confidence":"high","note":"n"}}]}`))
	f.Add([]byte(`{"format":"ctx-export","version":2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		r := newStore(t, "fuzz")
		w := lock(t, r)
		if _, err := Import(context.Background(), w, file, ImportOptions{AllowSecrets: true}); err != nil {
			return
		}
		_ = w.Unlock()
		out := export(t, r, all)
		if _, err := importBytes(t, newStore(t, "again"), out, ImportOptions{AllowSecrets: true}); err != nil {
			t.Fatalf("the export of an import does not import: %v\n%s", err, out)
		}
	})
}

package table

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden table files in testdata")

// goldenRecords are the records of testdata/v1.table: shared prefixes,
// binary and empty keys and values, and enough records for several groups.
func goldenRecords() []kv {
	kvs := []kv{{"", "empty key"}, {"\x00", ""}, {"a", "1"}, {"ab", "2"}, {"abc", "3"}}
	for _, r := range manyKVs(40, 6) {
		kvs = append(kvs, kv{"p/" + r.k, r.v})
	}
	return append(kvs, kv{"z\xff", "\x00\x01\x02"})
}

// TestGolden checks that the writer still produces the frozen version-1
// file byte for byte, and that the frozen file still reads. When the format
// changes, keep v1.table, bump Version and add a file for the new version.
func TestGolden(t *testing.T) {
	path := filepath.Join("testdata", "v1.table")
	got := build(t, WriterOptions{Kind: "golden", RestartInterval: 4, SummaryInterval: 2}, goldenRecords())
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the writer no longer produces %s (rerun with -update only if the format version changed)", path)
	}
	tab, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close()
	if err := tab.Verify(); err != nil {
		t.Fatal(err)
	}
	if tab.Kind() != "golden" {
		t.Errorf("Kind = %q", tab.Kind())
	}
	if recs := collect(t, tab.All()); !equalKVs(recs, goldenRecords()) {
		t.Errorf("%s reads as %v", path, recs)
	}
}

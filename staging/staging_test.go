package staging

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/object"
)

func TestValidID(t *testing.T) {
	for _, ok := range []string{"a", "retry-feature-001", "x.y_z", strings.Repeat("a", 64)} {
		if err := ValidID(ok); err != nil {
			t.Errorf("ValidID(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-a", ".a", "A", "a/b", "a b", "..", strings.Repeat("a", 65), "é", "con", "nul.txt", "com1", "lpt9"} {
		if ValidID(bad) == nil {
			t.Errorf("ValidID(%q) accepted", bad)
		}
	}
}

func TestNewID(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	id, err := NewID("Add connection retry with exponential backoff!", now, bytes.NewReader([]byte{0x3f, 0x9a, 0x1c}))
	if err != nil || id != "add-connection-retry-with-expone-20261122-3f9a1c" {
		t.Errorf("NewID = %q, %v", id, err)
	}
	if err := ValidID(id); err != nil {
		t.Error(err)
	}
	id, _ = NewID("日本語", now, bytes.NewReader([]byte{1, 2, 3}))
	if id != "20261122-010203" {
		t.Errorf("NewID of a task without ASCII words = %q", id)
	}
}

func TestJournal(t *testing.T) {
	root := t.TempDir()
	a, b := object.Sum(object.KindBlob, []byte("a")), object.Sum(object.KindBlob, []byte("b"))
	if _, err := ReadJournal(root, "s"); !os.IsNotExist(err) && err == nil {
		t.Errorf("no journal: %v", err)
	}
	for _, id := range []object.ID{a, b} {
		if err := Append(root, "s", id); err != nil {
			t.Fatal(err)
		}
	}
	j, err := ReadJournal(root, "s")
	if err != nil || len(j.States) != 2 || j.Torn || j.Damaged != 0 {
		t.Fatalf("journal = %+v, %v", j, err)
	}
	// A crash mid-append leaves a torn line; the next append cuts it.
	f, _ := os.OpenFile(Path(root, "s"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(a.String()[:10])
	f.Close()
	j, _ = ReadJournal(root, "s")
	if last, _ := j.Last(); !j.Torn || last != b {
		t.Errorf("torn journal = %+v", j)
	}
	if err := Append(root, "s", a); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(Path(root, "s"))
	if want := a.String() + "\n" + b.String() + "\n" + a.String() + "\n"; string(data) != want {
		t.Errorf("after append = %q", data)
	}
	ids, err := List(root)
	if err != nil || len(ids) != 1 || ids[0] != "s" {
		t.Errorf("List = %v %v", ids, err)
	}
	if err := Remove(root, "s"); err != nil {
		t.Fatal(err)
	}
	if ids, _ := List(root); len(ids) != 0 {
		t.Errorf("List after Remove = %v", ids)
	}
}

func FuzzParseJournal(f *testing.F) {
	id := object.Sum(object.KindBlob, nil).String()
	f.Add([]byte(id + "\n"))
	f.Add([]byte(id + "\nxyz\n" + id[:5]))
	f.Add([]byte("\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		j := ParseJournal(data)
		lines := bytes.Count(data, []byte{'\n'})
		if len(j.States)+j.Damaged != lines {
			t.Errorf("%d states + %d damaged != %d lines", len(j.States), j.Damaged, lines)
		}
		if j.Torn != (len(data) > 0 && data[len(data)-1] != '\n') {
			t.Errorf("torn = %v for %q", j.Torn, data)
		}
	})
}

func TestSummaryLines(t *testing.T) {
	s := &Summary{
		Session: "retry", Message: "feat: retry\n\nbody",
		Steps:     []KindCount{{"file_write", 3}, {"command_run", 2}},
		Created:   []FileChange{{Path: "src/retry/mod.rs", Names: []string{"Backoff"}}},
		Modified:  []FileChange{{Path: "src/net/client.rs"}, {Path: "src/lib.rs"}},
		Decisions: []NodeRef{{ID: "d1", Title: "Exponential\nbackoff"}},
		Runs: []RunOutcome{{Name: "cargo test", ExitCode: 101, Summary: "1 error", FirstError: "E0433 could not find `retry`"},
			{Name: "cargo test", ExitCode: 0, Summary: "15 passed"}},
	}
	want := []string{
		"session retry compacted: feat: retry (5 steps: 3 file write, 2 command run)",
		"session retry changed: created src/retry/mod.rs (Backoff); modified src/net/client.rs, src/lib.rs",
		"session retry decided: Exponential backoff [d1]",
		"session retry tested: `cargo test` failed (exit 101: 1 error; E0433 could not find `retry`); `cargo test` passed (exit 0: 15 passed)",
	}
	got := s.Lines()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Lines =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	ab := &Summary{Session: "x", Aborted: true, Message: "gave up", Steps: []KindCount{{"note", 1}}}
	if got := ab.Lines(); len(got) != 1 || got[0] != "session x aborted: gave up (discarded 1 step: 1 note)" {
		t.Errorf("abort lines = %q", got)
	}
	many := &Summary{Session: "m", Message: "m"}
	for i := 0; i < 25; i++ {
		many.Created = append(many.Created, FileChange{Path: "f" + strings.Repeat("x", i)})
	}
	many.Removed = []FileChange{{Path: "gone"}}
	if got := many.Lines()[1]; !strings.HasSuffix(got, "and 5 more; removed 1 more file(s)") {
		t.Errorf("capped line = %q", got)
	}
}

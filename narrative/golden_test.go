package narrative

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenDir holds the Markdown the package writes. A change to one of these
// files is a change of the narrative format (docs/FORMAT.md §14): existing
// files must still parse the same.
const goldenDir = "testdata/golden"

// goldenFiles builds a narrative space through the API at fixed times with
// fixed IDs and returns the files it produces, by golden file name.
func goldenFiles(t *testing.T) map[string]string {
	t.Helper()
	s := newSpace(t, "9x2k4m7qab", "5tq8w2hzn1", "2n0t3q6v8r", "6r7p1z4k0m")
	at := func(hhmm string) *Space {
		tm, err := time.Parse("2006-01-02 15:04", "2026-11-22 "+hhmm)
		if err != nil {
			t.Fatal(err)
		}
		return s.at(tm)
	}
	out := map[string]string{}

	d := mustAdd(t, at("11:30"), NewNode{
		Type: Decision,
		Content: "Retry strategy: exponential backoff with jitter\n\n" +
			"## Context\n\nThe upstream API rate-limits bursts; `net/client.go` retried at once.\n\n" +
			"## Decision\n\nBack off exponentially from 100 ms, with full jitter, at most 5 tries.\n\n" +
			"```go\ndelay := base << attempt\n```\n\nSee [the RFC](https://example.com/rfc).",
		Tags: []string{"project:netlib", "tier:reference"},
		Meta: map[string]string{"confidence": "high", "owner": "ana"},
	})
	out["decision.md"] = readFile(t, s, d.Path)

	task := mustAdd(t, at("11:35"), NewNode{
		Type:    Task,
		Content: "Add retries to the upload path\n\n- [ ] wrap `Upload`\n- [ ] test with a flaky server",
		Tags:    []string{"task:upload", "tier:working"},
	})
	out["task.md"] = readFile(t, s, task.Path)

	note := mustAdd(t, at("11:40"), NewNode{
		Type:        Observation,
		Content:     "The CI runner has 2 CPUs",
		DerivedFrom: []ID{d.ID},
	})
	out["note.md"] = readFile(t, s, note.Path)

	d2 := mustAdd(t, at("11:45"), NewNode{Type: Decision, Content: "Retry with a token bucket"})

	mustChange(t, at("12:00"), d, OpTag, "tier:pinned")
	mustChange(t, at("12:05"), d, OpUntag, "project:netlib")
	mustChange(t, at("12:10"), d, OpSupersede, string(d2.ID))
	out["events.md"] = readFile(t, s, d.Path)

	if err := at("12:20").Edit(d, "Retry strategy: backoff with jitter (superseded)\n\nSee the token bucket decision."); err != nil {
		t.Fatal(err)
	}
	out["edited.md"] = readFile(t, s, d.Path)

	mustChange(t, at("12:30"), note, OpDelete, "")
	out["log.md"] = readFile(t, s, "log/2026-11-22.md")
	out["decisions.md"] = readFile(t, s, "decisions.md")
	return out
}

func TestGolden(t *testing.T) {
	files := goldenFiles(t)
	if *update {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(goldenDir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(goldenDir, name))
			if err != nil {
				t.Fatalf("%v (run go test ./narrative -update)", err)
			}
			if got := files[name]; got != string(want) {
				t.Errorf("%s differs from the golden file (run go test ./narrative -update if the change is intended)\n%s",
					name, firstDiff(got, string(want)))
			}
		})
	}
}

// TestGoldenParse reads the checked-in golden node files back: files
// written by this format version must parse the same forever.
func TestGoldenParse(t *testing.T) {
	tests := []struct {
		file  string
		check func(*Node) bool
	}{
		{"decision.md", func(n *Node) bool {
			return n.ID == "9x2k4m7qab" && n.Type == Decision &&
				n.Title == "Retry strategy: exponential backoff with jitter" &&
				strings.HasSuffix(n.Content, "See [the RFC](https://example.com/rfc).") &&
				slices.Equal(n.Tags, []string{"project:netlib", "tier:reference"}) &&
				n.Meta["confidence"] == "high" && n.Meta["owner"] == "ana" &&
				slices.Equal(n.Mentions, []string{"net/client.go", "https://example.com/rfc"}) &&
				n.Created.Equal(t0) && n.Active()
		}},
		{"task.md", func(n *Node) bool {
			return n.Type == Task && n.Tier() == Working && slices.Equal(n.Mentions, []string{"Upload"})
		}},
		{"note.md", func(n *Node) bool {
			return n.Type == Observation && n.Content == "The CI runner has 2 CPUs" &&
				slices.Equal(n.DerivedFrom, []ID{"9x2k4m7qab"}) && len(n.Tags) == 0
		}},
		{"events.md", func(n *Node) bool {
			return slices.Equal(n.Tags, []string{"tier:pinned"}) && n.SupersededBy == "6r7p1z4k0m" &&
				len(n.Events) == 3 && n.Updated.Equal(t0.Add(40*time.Minute))
		}},
		{"edited.md", func(n *Node) bool {
			return n.Content == "Retry strategy: backoff with jitter (superseded)\n\nSee the token bucket decision." &&
				slices.Equal(n.Tags, []string{"tier:pinned"}) && n.SupersededBy == "6r7p1z4k0m" &&
				len(n.Events) == 4 && n.Events[3].Op == OpEdit && n.Updated.Equal(t0.Add(50*time.Minute))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(goldenDir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			n, probs := ParseNode("decisions/"+tt.file, src)
			if n == nil || len(probs) > 0 {
				t.Fatalf("ParseNode: %v", probs)
			}
			if !tt.check(n) {
				t.Errorf("%+v\nmentions %q, events %+v", stateOf(n), n.Mentions, n.Events)
			}
		})
	}
	for _, journal := range []string{"log.md", "decisions.md"} {
		t.Run(journal, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(goldenDir, journal))
			if err != nil {
				t.Fatal(err)
			}
			if n, probs := ParseNode(journal, src); n != nil || len(probs) > 0 {
				t.Errorf("a journal parses as a node: %v, %v", n, probs)
			}
		})
	}
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		if i >= len(g) || i >= len(w) || g[i] != w[i] {
			line := func(l []string) string {
				if i < len(l) {
					return fmt.Sprintf("%q", l[i])
				}
				return "(end of file)"
			}
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, line(g), line(w))
		}
	}
	return "(no line differs)"
}

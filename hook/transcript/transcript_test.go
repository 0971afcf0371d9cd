package transcript

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestText(t *testing.T) {
	session := read(t, "session.jsonl")
	tests := []struct {
		name, file, cursor string
		want               string
		last               string
		entries            int
	}{
		{
			name: "last turn: text blocks of every assistant line, no thinking, tool results, sidechains or meta",
			file: "session.jsonl",
			want: "Let me read the client.\n\nUploads retry with exponential backoff.\n\n<ctx:remember type=\"decision\" tags=\"tier:reference,project:netlib\">\nUploads retry with exponential backoff and jitter.\n</ctx:remember>\n\n<ctx:recall query=\"tag:project:netlib\"/>",
			last: "a0000000-0000-4000-8000-000000000009", entries: 3,
		},
		{
			name: "after a cursor on the chain", file: "session.jsonl", cursor: "a0000000-0000-4000-8000-000000000008",
			want: "<ctx:recall query=\"tag:project:netlib\"/>", last: "a0000000-0000-4000-8000-000000000009", entries: 1,
		},
		{
			name: "cursor at the end: nothing new", file: "session.jsonl", cursor: "a0000000-0000-4000-8000-000000000009",
			last: "a0000000-0000-4000-8000-000000000009",
		},
		{
			name: "a cursor not on the chain is ignored", file: "session.jsonl", cursor: "s0000000-0000-4000-8000-000000000001",
			want: "Let me read the client.\n\nUploads retry with exponential backoff.\n\n<ctx:remember type=\"decision\" tags=\"tier:reference,project:netlib\">\nUploads retry with exponential backoff and jitter.\n</ctx:remember>\n\n<ctx:recall query=\"tag:project:netlib\"/>",
			last: "a0000000-0000-4000-8000-000000000009", entries: 3,
		},
		{
			name: "an abandoned branch is not on the chain; a block repeated under one message id counts once",
			file: "branch.jsonl", want: "new answer", last: "sys1", entries: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := session
			if tt.file != "session.jsonl" {
				data = read(t, tt.file)
			}
			got := Text(data, tt.cursor)
			if got.Text != tt.want || got.Last != tt.last || got.Entries != tt.entries {
				t.Errorf("Text = %+v\nwant text %q, last %q, entries %d", got, tt.want, tt.last, tt.entries)
			}
			f, err := ReadFile(filepath.Join("testdata", tt.file), tt.cursor)
			if err != nil {
				t.Fatal(err)
			}
			if f != got {
				t.Errorf("ReadFile = %+v, want %+v", f, got)
			}
		})
	}
	t.Run("empty and garbage", func(t *testing.T) {
		for _, in := range []string{"", "\n\n", "garbage", `{"type":"assistant"}`, "[1,2]"} {
			if got := Text([]byte(in), ""); got != (Turn{}) {
				t.Errorf("Text(%q) = %+v, want nothing", in, got)
			}
		}
	})
}

// TestReadFileLarge checks that a transcript far larger than the first
// window is read correctly from its end, including a turn that starts
// before the first window.
func TestReadFileLarge(t *testing.T) {
	var b bytes.Buffer
	parent := "null"
	line := func(uuid, typ, content string) {
		fmt.Fprintf(&b, `{"parentUuid":%s,"isSidechain":false,"type":%q,"message":{"id":"id-%s","role":%q,"content":%s},"uuid":%q}`+"\n", parent, typ, uuid, typ, content, uuid)
		parent = fmt.Sprintf("%q", uuid)
	}
	pad := strings.Repeat("x", 2000)
	for i := range 300 {
		line(fmt.Sprintf("p%d", i), "user", fmt.Sprintf("%q", "prompt "+pad))
		line(fmt.Sprintf("a%d", i), "assistant", fmt.Sprintf(`[{"type":"text","text":"answer %d"}]`, i))
	}
	line("last-prompt", "user", `"go"`)
	for i := range 400 { // a long turn: tool calls and results
		line(fmt.Sprintf("t%d", i), "assistant", `[{"type":"tool_use","id":"x","name":"Bash","input":{"command":"`+pad+`"}}]`)
		line(fmt.Sprintf("r%d", i), "user", `[{"type":"tool_result","tool_use_id":"x","content":"ok"}]`)
	}
	line("final", "assistant", `[{"type":"text","text":"<ctx:status/>"}]`)
	p := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(p, "")
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "<ctx:status/>" || got.Last != "final" {
		t.Errorf("ReadFile = %+v", got)
	}
	if want := Text(b.Bytes(), ""); got != want {
		t.Errorf("ReadFile = %+v, Text = %+v", got, want)
	}
}

// FuzzText checks that Text never panics and that what it returns comes
// from the input.
func FuzzText(f *testing.F) {
	for _, name := range []string{"session.jsonl", "branch.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "")
		f.Add(b, "a0000000-0000-4000-8000-000000000008")
	}
	f.Add([]byte(`{"uuid":"a","parentUuid":"a","type":"assistant","message":{"content":"loop"}}`), "")
	f.Fuzz(func(t *testing.T, data []byte, cursor string) {
		got := Text(data, cursor)
		if got.Last != "" && !bytes.Contains(data, []byte(got.Last)) {
			t.Fatalf("Last %q is not in the input", got.Last)
		}
		if got.Text == "" && got.Entries != 0 {
			t.Fatalf("%d entries but no text", got.Entries)
		}
	})
}

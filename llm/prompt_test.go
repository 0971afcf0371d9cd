package llm

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/pack"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// golden compares got with testdata/golden/name, or rewrites it with
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./llm -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs (run with -update if intended):\n--- got\n%s\n--- want\n%s", p, got, want)
	}
}

func readPack(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "pack.json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestComposeGolden(t *testing.T) {
	p, err := Read(readPack(t), PromptConfig{})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "prompt.txt", []byte(p.Text()))
	if p.Task != "Explain the Client struct" {
		t.Errorf("task = %q", p.Task)
	}
	if !strings.HasPrefix(p.Head, "ab12cd34") {
		t.Errorf("head = %q", p.Head)
	}
	var names []string
	for _, s := range p.Sections {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "system,task,context,notes,instruction" {
		t.Errorf("sections = %s", got)
	}
	// The snippet holds a run of three backticks: its fence is longer.
	if !strings.Contains(p.Text(), "````\nRetry connections") {
		t.Errorf("a snippet with ``` is not fenced with ````:\n%s", p.Text())
	}
}

func TestComposeDeterministic(t *testing.T) {
	data := readPack(t)
	a, _ := Read(data, PromptConfig{})
	b, _ := Read(data, PromptConfig{})
	if a.Text() != b.Text() {
		t.Fatal("the same pack composed twice differs")
	}
	am, bm := a.Marks(), b.Marks()
	for i := range am {
		if am[i] != bm[i] {
			t.Fatalf("marks differ at %d: %+v %+v", i, am[i], bm[i])
		}
	}
}

func TestComposeConfig(t *testing.T) {
	p, err := Read(readPack(t), PromptConfig{SystemPrefix: "SYSTEM\n\n", ResponseInstruction: "ANSWER BRIEFLY\n"})
	if err != nil {
		t.Fatal(err)
	}
	text := p.Text()
	if !strings.HasPrefix(text, "SYSTEM\n\n## Task\n\nExplain the Client struct\n\n") || !strings.HasSuffix(text, "ANSWER BRIEFLY\n") {
		t.Errorf("config texts not used:\n%s", text)
	}
	if p.System() != "SYSTEM\n\n" || !strings.HasPrefix(p.User(), "## Task") {
		t.Errorf("System/User = %q / %q", p.System(), p.User()[:20])
	}
}

func TestRead(t *testing.T) {
	tests := []struct {
		name     string
		input    string
		sections string
		task     string
		err      error
	}{
		{"json pack", string(readPack(t)), "system,task,context,notes,instruction", "Explain the Client struct", nil},
		{"pack without notes", `{"task":"Why?","retrieved":[],"recent_narrative":""}`, "system,task,context,instruction", "Why?", nil},
		{"markdown pack", "<!-- ctx: prompt pack, head x -->\n\n# Task\n\nExplain the Client struct\n\n## Retrieved\n", "system,input,instruction", "Explain the Client struct", nil},
		{"plain text", "\n\n## How does retry work?\nsome context\n", "system,input,instruction", "How does retry work?", nil},
		{"json that is not a pack", `{"hello": "world"}`, "system,input,instruction", `{"hello": "world"}`, nil},
		{"json array", `[1, 2]`, "system,input,instruction", `[1, 2]`, nil},
		{"empty", "", "", "", ErrInvalidInput},
		{"blank", " \n\t\n", "", "", ErrInvalidInput},
		{"not utf-8", "task \xff\xfe", "", "", ErrInvalidInput},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Read([]byte(tc.input), PromptConfig{})
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("Read = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, s := range p.Sections {
				names = append(names, s.Name)
			}
			if got := strings.Join(names, ","); got != tc.sections {
				t.Errorf("sections = %s, want %s", got, tc.sections)
			}
			if p.Task != tc.task {
				t.Errorf("task = %q, want %q", p.Task, tc.task)
			}
		})
	}
	if _, err := Read(make([]byte, MaxInputBytes+1), PromptConfig{}); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("Read of %d bytes = %v, want ErrInvalidInput", MaxInputBytes+1, err)
	}
}

// Prompts that share their first sections share their first marks, and
// only those.
func TestMarks(t *testing.T) {
	a := Compose(mustPack(t, `{"task":"Explain the Client struct","retrieved":[{"title":"t","snippet":"x"}]}`), PromptConfig{})
	b := Compose(mustPack(t, `{"task":"Explain the Client struct","retrieved":[{"title":"t","snippet":"y"}]}`), PromptConfig{})
	c := Compose(mustPack(t, `{"task":"Other","retrieved":[{"title":"t","snippet":"x"}]}`), PromptConfig{})
	am, bm, cm := a.Marks(), b.Marks(), c.Marks()
	if len(am) != 4 {
		t.Fatalf("%d marks, want 4 (system, task, context, instruction)", len(am))
	}
	shared := func(x, y []Mark) int {
		n := 0
		for n < len(x) && n < len(y) && x[n] == y[n] {
			n++
		}
		return n
	}
	if n := shared(am, bm); n != 2 {
		t.Errorf("same system and task: %d marks shared, want 2", n)
	}
	if n := shared(am, cm); n != 1 {
		t.Errorf("same system only: %d marks shared, want 1", n)
	}
	last := am[len(am)-1]
	if last.Tokens != a.Tokens() || am[0].Tokens >= last.Tokens {
		t.Errorf("tokens of the marks: %+v, prompt %d", am, a.Tokens())
	}
}

func mustPack(t *testing.T, s string) *pack.Pack {
	t.Helper()
	p, ok := parsePack([]byte(s))
	if !ok {
		t.Fatalf("not a pack: %s", s)
	}
	return p
}

func TestEndpoint(t *testing.T) {
	tests := []struct {
		server string
		api    API
		want   string
		ok     bool
	}{
		{"http://127.0.0.1:8080", LlamaCPP, "http://127.0.0.1:8080/completion", true},
		{"http://127.0.0.1:8080/", LlamaCPP, "http://127.0.0.1:8080/completion", true},
		{"http://h/completion", LlamaCPP, "http://h/completion", true},
		{"http://127.0.0.1:8080", OpenAI, "http://127.0.0.1:8080/v1/chat/completions", true},
		{"https://api.openai.com/v1", OpenAI, "https://api.openai.com/v1/chat/completions", true},
		{"http://localhost:11434/v1/", OpenAI, "http://localhost:11434/v1/chat/completions", true},
		{"https://h/openai/v1/chat/completions", OpenAI, "https://h/openai/v1/chat/completions", true},
		{"ftp://h", LlamaCPP, "", false},
		{"localhost:8080", LlamaCPP, "", false},
		{"http://h", API("grpc"), "", false},
	}
	for _, tc := range tests {
		u, err := Endpoint(tc.server, tc.api)
		if (err == nil) != tc.ok {
			t.Errorf("Endpoint(%q, %s) error %v, want ok %v", tc.server, tc.api, err, tc.ok)
			continue
		}
		if err == nil && u.String() != tc.want {
			t.Errorf("Endpoint(%q, %s) = %s, want %s", tc.server, tc.api, u, tc.want)
		}
	}
	u, _ := Endpoint("https://user:secret@h:8443/v1?key=k#x", OpenAI)
	if got := Display(u); got != "https://h:8443/v1/chat/completions" {
		t.Errorf("Display = %s: it must drop credentials and the query", got)
	}
}

func TestParseAPI(t *testing.T) {
	for in, want := range map[string]API{"llamacpp": LlamaCPP, "llama.cpp": LlamaCPP, "OpenAI": OpenAI} {
		if got, err := ParseAPI(in); err != nil || got != want {
			t.Errorf("ParseAPI(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseAPI("anthropic"); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("ParseAPI(anthropic) = %v", err)
	}
}

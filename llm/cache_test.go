package llm

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/llm/llmtest"
)

func packPrompt(t *testing.T, task, snippet string) Prompt {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"task": task, "retrieved": []any{map[string]any{"title": "t", "snippet": snippet}}})
	p, err := Read(b, PromptConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// idSlot returns the id_slot of a recorded llama.cpp request.
func idSlot(t *testing.T, r llmtest.Request) int {
	t.Helper()
	var v struct {
		IDSlot int `json:"id_slot"`
	}
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatal(err)
	}
	return v.IDSlot
}

// TestAskReusesSlot: the second prompt about the same task goes to the
// slot that holds the first, whose prefix the server then reuses; without
// the state the server's least-recently-used choice misses it.
func TestAskReusesSlot(t *testing.T) {
	first := packPrompt(t, "Explain the Client struct", strings.Repeat("type Client struct{}\n", 40))
	second := packPrompt(t, "Explain the Client struct", "something else")

	srv := llmtest.New(t, llmtest.Reply{Text: "ok"})
	state := filepath.Join(t.TempDir(), "local", "llm-cache")
	o := AskOptions{Options: testOptions(srv.URL, LlamaCPP, true), CachePath: state}
	x1, err := Ask(context.Background(), first, o)
	if err != nil {
		t.Fatal(err)
	}
	if x1.Cache.Slot != -1 || x1.Cache.Sections != 0 || x1.Response.Slot != 0 {
		t.Errorf("first exchange: cache %+v, served by slot %d", x1.Cache, x1.Response.Slot)
	}
	x2, err := Ask(context.Background(), second, o)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if idSlot(t, reqs[0]) != -1 || idSlot(t, reqs[1]) != 0 {
		t.Errorf("id_slot sent: %d then %d, want -1 then 0", idSlot(t, reqs[0]), idSlot(t, reqs[1]))
	}
	if x2.Cache.Slot != 0 || x2.Cache.Sections != 2 || x2.Cache.Tokens != second.Marks()[1].Tokens {
		t.Errorf("second exchange: cache %+v", x2.Cache)
	}
	if u := x2.Response.Usage; u.CachedTokens < second.Marks()[1].Tokens-1 || u.NewTokens != u.PromptTokens-u.CachedTokens {
		t.Errorf("the server reused %d tokens of %d; the shared prefix is about %d", u.CachedTokens, u.PromptTokens, second.Marks()[1].Tokens)
	}

	// Without the state, the server's own choice (its least recently used
	// slot) misses the cache.
	blind := llmtest.New(t, llmtest.Reply{Text: "ok"})
	bo := AskOptions{Options: testOptions(blind.URL, LlamaCPP, true)}
	if _, err := Ask(context.Background(), first, bo); err != nil {
		t.Fatal(err)
	}
	x3, err := Ask(context.Background(), second, bo)
	if err != nil {
		t.Fatal(err)
	}
	if x3.Response.Usage.CachedTokens != 0 || x3.Response.Slot != 1 {
		t.Errorf("without the state: slot %d, %d cached tokens", x3.Response.Slot, x3.Response.Usage.CachedTokens)
	}

	// The state file: versioned JSON, one entry per slot, nothing left
	// over from the atomic write.
	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	var c Cache
	if err := json.Unmarshal(data, &c); err != nil || c.Version != 1 || len(c.Slots) != 1 {
		t.Fatalf("state %s: %v", data, err)
	}
	e := c.Slots[0]
	if e.Server != srv.URL+"/completion" || e.API != LlamaCPP || e.Slot != 0 || len(e.Prefix) != len(second.Marks()) || e.Prefix[len(e.Prefix)-1] != second.Marks()[len(second.Marks())-1] {
		t.Errorf("entry %+v", e)
	}
	if e.Updated != 1790000000 || e.PromptTokens != x2.Response.Usage.PromptTokens {
		t.Errorf("entry time %d, prompt tokens %d", e.Updated, e.PromptTokens)
	}
	entries, _ := os.ReadDir(filepath.Dir(state))
	if len(entries) != 1 {
		t.Errorf("local/ holds %d files", len(entries))
	}
}

// A failed request leaves the state as it was.
func TestAskFailureKeepsState(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Text: "ok"})
	state := filepath.Join(t.TempDir(), "llm-cache")
	o := AskOptions{Options: testOptions(srv.URL, LlamaCPP, false), CachePath: state}
	if _, err := Ask(context.Background(), testPrompt(t), o); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(state)
	srv.SetReplies(llmtest.Reply{Status: 500, Message: "boom"})
	if _, err := Ask(context.Background(), packPrompt(t, "other", "x"), o); err == nil {
		t.Fatal("no error from a 500")
	}
	after, _ := os.ReadFile(state)
	if string(before) != string(after) {
		t.Errorf("a failed request changed the state:\n%s\n%s", before, after)
	}
}

func TestLoadCache(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		content string // "" means no file
		damaged bool
		entries int
	}{
		{"missing", "", false, 0},
		{"garbage", "{not json", true, 0},
		{"other version", `{"version": 2, "slots": []}`, true, 0},
		{"ok", `{"version": 1, "slots": [{"server": "http://h/completion", "api": "llamacpp", "slot": 1, "prefix": []}, {"server": "", "slot": 0}]}`, false, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			if tc.content != "" {
				if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			c, damaged, err := LoadCache(p)
			if err != nil || damaged != tc.damaged || len(c.Slots) != tc.entries {
				t.Errorf("LoadCache = %+v, %v, %v", c, damaged, err)
			}
		})
	}
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, damaged, err := LoadCache(filepath.Join(dir, "adir")); err != nil || !damaged {
		t.Errorf("a directory: damaged %v, %v", damaged, err)
	}
}

func TestCacheRecordAndMatch(t *testing.T) {
	m := func(hashes ...string) []Mark {
		var out []Mark
		for i, h := range hashes {
			out = append(out, Mark{Section: "s", Hash: h, Tokens: 10 * (i + 1)})
		}
		return out
	}
	c := &Cache{}
	c.Record("http://a", LlamaCPP, 0, m("x", "y"), Usage{}, 10)
	c.Record("http://a", LlamaCPP, 1, m("x", "z", "w"), Usage{}, 20)
	c.Record("http://b", LlamaCPP, 0, m("x", "z", "w"), Usage{}, 30)
	c.Record("http://a", OpenAI, -1, m("x", "z", "w"), Usage{}, 40)
	for _, tc := range []struct {
		marks []Mark
		want  CacheMatch
	}{
		{m("x", "y", "q"), CacheMatch{Slot: 0, Sections: 2, Tokens: 20}},
		{m("x", "z", "w"), CacheMatch{Slot: 1, Sections: 3, Tokens: 30}},
		{m("x", "q"), CacheMatch{Slot: 1, Sections: 1, Tokens: 10}}, // a tie: the most recent
		{m("q"), CacheMatch{Slot: -1}},
	} {
		if got := c.Match("http://a", LlamaCPP, tc.marks); got != tc.want {
			t.Errorf("Match(%v) = %+v, want %+v", tc.marks, got, tc.want)
		}
	}
	// Recording a slot again replaces its entry.
	c.Record("http://a", LlamaCPP, 1, m("q"), Usage{}, 50)
	if got := c.Match("http://a", LlamaCPP, m("x", "z")); got.Slot != 0 {
		t.Errorf("after slot 1 moved on: %+v", got)
	}
	// Only the most recent entries are kept.
	for i := 0; i < maxCacheEntries+5; i++ {
		c.Record("http://many", LlamaCPP, i, m("x"), Usage{}, int64(100+i))
	}
	if len(c.Slots) != maxCacheEntries {
		t.Errorf("%d entries kept", len(c.Slots))
	}
	for i := 1; i < len(c.Slots); i++ {
		a, b := c.Slots[i-1], c.Slots[i]
		if a.Server > b.Server || a.Server == b.Server && a.Slot >= b.Slot && a.API == b.API {
			t.Fatalf("entries not sorted: %+v before %+v", a, b)
		}
	}
}

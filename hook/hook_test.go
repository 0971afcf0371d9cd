package hook

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/repo"
)

func TestStateKey(t *testing.T) {
	for in, want := range map[string]string{
		"5b0d7c1e-2f4a-4c8e-9a61-3d2f7e9b8a10": "5b0d7c1e-2f4a-4c8e-9a61-3d2f7e9b8a10",
		"":                                     "unknown",
		"../etc":                               "h-",
		".hidden":                              "h-",
		"a/b":                                  "h-",
		strings.Repeat("a", 101):               "h-",
	} {
		if got := StateKey(in); got != want && !(want == "h-" && strings.HasPrefix(got, "h-") && len(got) == 34) {
			t.Errorf("StateKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestClaimOnce checks that racing claimers get every item exactly once.
func TestClaimOnce(t *testing.T) {
	st := OpenState(t.TempDir(), "s")
	now := time.Unix(1_700_000_000, 0)
	var items []Item
	for i := range 50 {
		items = append(items, Item{Kind: KindNotice, Text: strings.Repeat("x", i+1)})
	}
	if err := st.Push(now, "abcd0123", items...); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, bad, err := st.Claim()
			if err != nil || len(bad) > 0 {
				t.Errorf("Claim: %v %v", bad, err)
			}
			mu.Lock()
			for _, it := range got {
				seen[it.Text]++
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(seen) != 50 {
		t.Errorf("claimed %d distinct items, want 50", len(seen))
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("item %d claimed %d times", len(k), n)
		}
	}
	if st.HasPending() {
		t.Error("items left after claiming")
	}
}

func TestTaskState(t *testing.T) {
	st := OpenState(t.TempDir(), "s")
	if v, err := st.Task(); v != "" || err != nil {
		t.Fatalf("Task of a new session = %q, %v", v, err)
	}
	if err := st.SetTask("auth"); err != nil {
		t.Fatal(err)
	}
	if v, _ := st.Task(); v != "auth" {
		t.Errorf("Task = %q", v)
	}
	if err := st.SetTask("a\nb"); err == nil {
		t.Error("a two-line task was accepted")
	}
	if err := st.SetTask(""); err != nil {
		t.Fatal(err)
	}
	if v, _ := st.Task(); v != "" {
		t.Errorf("Task after clearing = %q", v)
	}
}

func TestTaskTag(t *testing.T) {
	for in, want := range map[string]string{"Implement Auth": "task:implement-auth", " x:y ": "task:x-y", "v2.1": "task:v2.1"} {
		if got, err := TaskTag(in); got != want || err != nil {
			t.Errorf("TaskTag(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "  ", "!!!"} {
		if _, err := TaskTag(in); err == nil {
			t.Errorf("TaskTag(%q): no error", in)
		}
	}
}

func TestFit(t *testing.T) {
	parts := []string{strings.Repeat("a", 400), strings.Repeat("b", 400), strings.Repeat("c", 400)}
	got := fit("head", parts, 1000)
	if len(got) > 1000 || !strings.Contains(got, "aaaa") || !strings.Contains(got, "1 more result(s) left out") {
		t.Errorf("fit = %d chars:\n%s", len(got), got)
	}
	if got := fit("head", parts[:1], 1000); got != "head\n\n"+parts[0] {
		t.Errorf("fit of what fits = %q", got)
	}
}

// TestRun drives the hooks through the library, as an agent host
// linking ctx would.
func TestRun(t *testing.T) {
	r := repo.NewTestRepo(t)
	ctx := context.Background()
	run := func(ev Event, session string, response *string) *Output {
		t.Helper()
		out, err := Run(ctx, r, Options{Event: ev, Input: Input{SessionID: session}, Response: response})
		if err != nil {
			t.Fatalf("%s: %v", ev, err)
		}
		return out
	}
	resp := `<ctx:remember type="fact" tags="tier:pinned">Go 1.24 is required.</ctx:remember><ctx:status/>`
	if out := run(Stop, "a", &resp); out.SystemMessage != "" || out.Specific != nil {
		t.Fatalf("stop = %+v", out)
	}
	if out := run(PromptSubmit, "b", nil); out.Context() != "" {
		t.Errorf("session b received a's results: %s", out.Context())
	}
	out := run(PromptSubmit, "a", nil)
	if c := out.Context(); !strings.Contains(c, "## ctx status") || !strings.Contains(c, "pinned 1") || out.Specific.HookEventName != "UserPromptSubmit" {
		t.Errorf("prompt-submit = %+v", out)
	}
	if c := run(SessionStart, "c", nil).Context(); !strings.Contains(c, "## Pinned") || !strings.Contains(c, "Go 1.24 is required.") {
		t.Errorf("session-start:\n%s", c)
	}
	if _, err := Run(ctx, r, Options{}); err == nil {
		t.Error("Run without an event: no error")
	}
	if string((&Output{}).JSON()) != "{}\n" {
		t.Errorf("empty output = %s", (&Output{}).JSON())
	}
}

func TestReadInput(t *testing.T) {
	in, err := ReadInput(strings.NewReader(`{"session_id":"x","stop_hook_active":true,"unknown":[1]}`))
	if err != nil || in.SessionID != "x" || !in.StopHookActive {
		t.Errorf("ReadInput = %+v, %v", in, err)
	}
	if _, err := ReadInput(strings.NewReader("  ")); err != nil {
		t.Errorf("empty input: %v", err)
	}
	if _, err := ReadInput(strings.NewReader("{")); err == nil {
		t.Error("truncated input: no error")
	}
	for _, s := range []string{"session-start", "UserPromptSubmit", "stop", "pre-compact", "SessionEnd"} {
		if _, err := ParseEvent(s); err != nil {
			t.Errorf("ParseEvent(%q): %v", s, err)
		}
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The end-to-end tests of the Claude Code integration (docs/CLAUDE_CODE.md):
// recorded hook payloads (testdata/hooks/*.json) and transcripts in
// Claude Code's JSONL shape (testdata/hooks/*.jsonl, turn.jsonl.tmpl),
// replayed through the built binary.

// hookOutput is a hook's answer.
type hookOutput struct {
	SystemMessage      string `json:"systemMessage"`
	HookSpecificOutput *struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

func (o hookOutput) context() string {
	if o.HookSpecificOutput == nil {
		return ""
	}
	return o.HookSpecificOutput.AdditionalContext
}

// hookEnv is a project with a store, driven like Claude Code drives it.
type hookEnv struct {
	t           *testing.T
	bin, dir    string
	env         []string
	transcripts map[string]string // session → transcript path
	turns       map[string]int
	last        map[string]string // session → uuid of the last entry
}

func newHookEnv(t *testing.T) *hookEnv {
	t.Helper()
	bin, _ := binaries(t)
	dir := t.TempDir()
	h := &hookEnv{t: t, bin: bin, dir: dir, transcripts: map[string]string{}, turns: map[string]int{}, last: map[string]string{},
		env: []string{"CTX_DATE=2025-09-01T10:00:00Z", "HOME=" + t.TempDir(), "CTX_SESSION="}}
	h.ctx("init")
	return h
}

// ctx runs a ctx command that must succeed.
func (h *hookEnv) ctx(args ...string) string {
	h.t.Helper()
	return must(h.t, h.dir, h.env, "", h.bin, args...)
}

// payload fills in a recorded hook input.
func (h *hookEnv) payload(name, session string) string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "hooks", name))
	if err != nil {
		h.t.Fatal(err)
	}
	tr := h.transcript(session)
	r := strings.NewReplacer("{{SESSION}}", session, "{{CWD}}", jsonInner(h.dir), "{{TRANSCRIPT}}", jsonInner(tr))
	return r.Replace(string(b))
}

func (h *hookEnv) transcript(session string) string {
	if p, ok := h.transcripts[session]; ok {
		return p
	}
	p := filepath.Join(h.t.TempDir(), session+".jsonl")
	h.transcripts[session] = p
	return p
}

// jsonInner returns s as the inside of a JSON string.
func jsonInner(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// turn appends a user prompt and the assistant's turn, whose text is
// text, to the session's transcript (turn.jsonl.tmpl).
func (h *hookEnv) turn(session, prompt, text string) {
	h.t.Helper()
	tmpl, err := os.ReadFile(filepath.Join("testdata", "hooks", "turn.jsonl.tmpl"))
	if err != nil {
		h.t.Fatal(err)
	}
	h.turns[session]++
	id := fmt.Sprintf("%s-t%d", session, h.turns[session])
	parent := "null"
	if l := h.last[session]; l != "" {
		parent = fmt.Sprintf("%q", l)
	}
	p, _ := json.Marshal(prompt)
	x, _ := json.Marshal(text)
	r := strings.NewReplacer("{{PARENT}}", parent, "{{ID}}", id, "{{PROMPT}}", string(p), "{{TEXT}}", string(x),
		"{{SESSION}}", session, "{{CWD}}", jsonInner(h.dir))
	f, err := os.OpenFile(h.transcript(session), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		h.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(r.Replace(string(tmpl))); err != nil {
		h.t.Fatal(err)
	}
	h.last[session] = id + "-a3"
}

// hook runs `ctx hook EVENT` with the recorded payload of the event; it
// must print one JSON object and exit 0.
func (h *hookEnv) hook(event, session string, args ...string) hookOutput {
	h.t.Helper()
	files := map[string]string{"session-start": "session-start.json", "prompt-submit": "user-prompt-submit.json",
		"stop": "stop.json", "pre-compact": "pre-compact.json", "session-end": "session-end.json"}
	return h.hookInput(event, h.payload(files[event], session), args...)
}

func (h *hookEnv) hookInput(event, stdin string, args ...string) hookOutput {
	h.t.Helper()
	r := run(h.t, h.dir, h.env, stdin, h.bin, append([]string{"hook", event}, args...)...)
	if r.code != 0 {
		h.t.Fatalf("ctx hook %s: exit %d\nstdout: %s\nstderr: %s", event, r.code, r.stdout, r.stderr)
	}
	return decodeHook(h.t, event, r.stdout)
}

func decodeHook(t *testing.T, event, stdout string) hookOutput {
	t.Helper()
	var o hookOutput
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil || dec.More() {
		t.Fatalf("ctx hook %s: stdout is not one JSON object (%v): %q", event, err, stdout)
	}
	return o
}

// listIDs returns the ids `ctx list` prints, with the rest of each line.
func (h *hookEnv) list(args ...string) map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(h.ctx(append([]string{"list"}, args...)...)), "\n") {
		if id, rest, ok := strings.Cut(l, " "); ok {
			out[id] = rest
		}
	}
	return out
}

// findID returns the id of the node whose list line contains s.
func (h *hookEnv) findID(s string, args ...string) string {
	h.t.Helper()
	for id, rest := range h.list(args...) {
		if strings.Contains(rest, s) {
			return id
		}
	}
	h.t.Fatalf("no node %q in ctx list %v", s, args)
	return ""
}

func TestHookRememberRecall(t *testing.T) {
	h := newHookEnv(t)
	const s = "5b0d7c1e-2f4a-4c8e-9a61-3d2f7e9b8a10"
	// The recorded transcript: a remember and a recall in the last turn,
	// thinking, a tool call, a subagent's sidechain and meta lines around.
	data, err := os.ReadFile(filepath.Join("testdata", "hooks", "transcript-remember.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.transcript(s), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if o := h.hook("session-start", s); !strings.Contains(o.context(), "<!-- ctx: 0 nodes") {
		t.Errorf("session-start on an empty store: %+v", o)
	}
	if o := h.hook("stop", s); o.SystemMessage != "" || o.HookSpecificOutput != nil {
		t.Errorf("stop = %+v, want {}", o)
	}
	nodes := h.list()
	if len(nodes) != 1 {
		t.Fatalf("ctx list after stop: %v, want the one remembered node (not the subagent's)", nodes)
	}
	id := h.findID("Uploads retry with exponential backoff and jitter.")
	if !strings.Contains(nodes[id], "decision") || !strings.Contains(nodes[id], "tier:reference") {
		t.Errorf("node line %q: want a decision tagged tier:reference", nodes[id])
	}
	// The recall's results and the new node's id come with the next
	// prompt, once.
	o := h.hook("prompt-submit", s)
	ctx := o.context()
	for _, want := range []string{"## Recall Results", "Query: `tag:project:netlib`", "[decision:" + id + "]", "remembered [decision:" + id + "]"} {
		if !strings.Contains(ctx, want) {
			t.Errorf("prompt-submit context lacks %q:\n%s", want, ctx)
		}
	}
	if o.HookSpecificOutput.HookEventName != "UserPromptSubmit" {
		t.Errorf("hookEventName = %q", o.HookSpecificOutput.HookEventName)
	}
	if o := h.hook("prompt-submit", s); o.HookSpecificOutput != nil || o.SystemMessage != "" {
		t.Errorf("second prompt-submit = %+v, want {} (results are injected once)", o)
	}
	// Stop again on the same transcript: the cursor keeps the commands
	// from running twice.
	h.hook("stop", s)
	if n := len(h.list()); n != 1 {
		t.Errorf("after a second stop: %d nodes, want 1", n)
	}
	// The next session starts with the remembered decision.
	if o := h.hook("session-start", "next-session"); !strings.Contains(o.context(), "Uploads retry with exponential backoff and jitter.") {
		t.Errorf("session-start of the next session lacks the decision:\n%s", o.context())
	}
}

func TestHookTaskRetiers(t *testing.T) {
	h := newHookEnv(t)
	const s = "sess-task"
	h.ctx("add", "observation", "Untasked working note", "-t", "tier:working")
	h.turn(s, "Start the auth work", `Starting. <ctx:task name="Implement Auth" action="start"/>
<ctx:remember type="observation" tags="tier:working">Tokens expire after an hour.</ctx:remember>
<ctx:remember type="decision" tags='tier:working'>Refresh tokens stay server-side.</ctx:remember>`)
	h.hook("stop", s)
	obs := h.findID("Tokens expire after an hour.")
	dec := h.findID("Refresh tokens stay server-side.")
	old := h.findID("Untasked working note")
	for _, id := range []string{obs, dec, old} {
		if !strings.Contains(h.list()[id], "task:implement-auth") {
			t.Errorf("%s: %q lacks task:implement-auth", id, h.list()[id])
		}
	}
	if o := h.hook("prompt-submit", s); !strings.Contains(o.context(), "Current task: implement-auth") {
		t.Errorf("prompt-submit lacks the current task:\n%s", o.context())
	}
	h.turn(s, "Done?", `Done. <ctx:task name="implement-auth" action="end" summarize="true"/>`)
	h.hook("stop", s)
	nodes := h.list()
	if !strings.Contains(nodes[obs], "tier:off-context") || !strings.Contains(nodes[dec], "tier:reference") {
		t.Errorf("after task end: observation %q (want tier:off-context), decision %q (want tier:reference)", nodes[obs], nodes[dec])
	}
	ctx := h.hook("prompt-submit", s).context()
	if !strings.Contains(ctx, "ended task implement-auth") || !strings.Contains(ctx, "<ctx:summarize nodes=") || strings.Contains(ctx, "Current task:") {
		t.Errorf("prompt-submit after task end:\n%s", ctx)
	}
	// A working node remembered without a current task gets no task tag.
	h.turn(s, "note", `<ctx:remember type="observation" tags="tier:working">Free note.</ctx:remember>`)
	h.hook("stop", s)
	if line := h.list()[h.findID("Free note.")]; strings.Contains(line, "task:") {
		t.Errorf("a note after the task ended: %q", line)
	}
}

func TestHookSummarizeExpandSupersede(t *testing.T) {
	h := newHookEnv(t)
	const s = "sess-sum"
	a := strings.TrimSpace(h.ctx("add", "fact", "Client retries 3 times", "-t", "tier:working"))
	b := strings.TrimSpace(h.ctx("add", "fact", "Backoff doubles each time", "-t", "tier:reference"))
	h.turn(s, "Summarize", fmt.Sprintf(`<ctx:summarize nodes="%s, fact:%s" archive="true">
Retries: 3 attempts with doubling backoff.
</ctx:summarize>`, a[:6], b))
	h.hook("stop", s)
	sum := h.findID("Retries: 3 attempts with doubling backoff.")
	nodes := h.list()
	if !strings.Contains(nodes[sum], "summary") || !strings.Contains(nodes[sum], "tier:reference") {
		t.Errorf("summary line %q: want a summary with its sources' highest tier, tier:reference", nodes[sum])
	}
	for _, id := range []string{a, b} {
		if !strings.Contains(nodes[id], "tier:off-context") {
			t.Errorf("source %s not archived: %q", id, nodes[id])
		}
	}
	edges := h.ctx("edges", sum)
	if strings.Count(edges, "derived_from") != 2 || !strings.Contains(edges, a) || !strings.Contains(edges, b) {
		t.Errorf("ctx edges %s: want derived_from edges to %s and %s:\n%s", sum, a, b, edges)
	}
	h.hook("prompt-submit", s) // the notice
	// Expand: the sources come with the next prompt only.
	h.turn(s, "Details?", fmt.Sprintf(`<ctx:expand node="%s"/>`, sum))
	h.hook("stop", s)
	ctx := h.hook("prompt-submit", s).context()
	if !strings.Contains(ctx, "## Expanded:") || !strings.Contains(ctx, "Client retries 3 times") || !strings.Contains(ctx, "Backoff doubles each time") {
		t.Errorf("expansion:\n%s", ctx)
	}
	if o := h.hook("prompt-submit", s); o.context() != "" {
		t.Errorf("expansion injected twice:\n%s", o.context())
	}
	if ctx := h.hook("session-start", s).context(); strings.Contains(ctx, "Client retries 3 times") {
		t.Errorf("session-start after the expansion still shows an archived source:\n%s", ctx)
	}
	// Supersede: the old node leaves listings and the default view.
	c := strings.TrimSpace(h.ctx("add", "fact", "Timeout is 5s", "-t", "tier:reference"))
	d := strings.TrimSpace(h.ctx("add", "fact", "Timeout is 10s", "-t", "tier:reference"))
	h.turn(s, "Fix it", fmt.Sprintf(`<ctx:supersede old='%s' new='%s'/> and <ctx:remember type="fact" tags="tier:reference" supersedes="%s">Timeout is 30s.</ctx:remember>`, c, d, d))
	h.hook("stop", s)
	nodes = h.list()
	if _, ok := nodes[c]; ok {
		t.Errorf("superseded %s still listed", c)
	}
	if _, ok := nodes[d]; ok {
		t.Errorf("superseded %s still listed", d)
	}
	if _, ok := h.list("--include-superseded")[c]; !ok {
		t.Errorf("superseded %s gone from --include-superseded", c)
	}
	ctx = h.hook("session-start", "other").context()
	if strings.Contains(ctx, "Timeout is 5s") || strings.Contains(ctx, "Timeout is 10s") || !strings.Contains(ctx, "Timeout is 30s.") {
		t.Errorf("default view after supersede:\n%s", ctx)
	}
}

func TestHookSessionsIsolated(t *testing.T) {
	h := newHookEnv(t)
	h.ctx("add", "fact", "Alpha fact", "-t", "tier:reference", "-t", "project:alpha")
	h.ctx("add", "fact", "Beta fact", "-t", "tier:reference", "-t", "project:beta")
	h.turn("agent-a", "a?", `<ctx:recall query="tag:project:alpha"/>`)
	h.turn("agent-b", "b?", `<ctx:recall query="tag:project:beta"/> <ctx:task name="b-work" action="start"/>`)
	h.hook("stop", "agent-a")
	h.hook("stop", "agent-b")
	a := h.hook("prompt-submit", "agent-a").context()
	b := h.hook("prompt-submit", "agent-b").context()
	if !strings.Contains(a, "Alpha fact") || strings.Contains(a, "Beta fact") || strings.Contains(a, "b-work") {
		t.Errorf("agent-a received:\n%s", a)
	}
	if !strings.Contains(b, "Beta fact") || strings.Contains(b, "Alpha fact") || !strings.Contains(b, "b-work") {
		t.Errorf("agent-b received:\n%s", b)
	}
	// The state is local: under .ctx/local/, which git ignores.
	if _, err := os.Stat(filepath.Join(h.dir, ".ctx", "local", "hooks", "agent-b", "task")); err != nil {
		t.Errorf("agent-b's task file: %v", err)
	}
}

func TestHookPreCompactThenStop(t *testing.T) {
	h := newHookEnv(t)
	const s = "sess-compact"
	h.turn(s, "go", `<ctx:remember type="fact" tags="tier:reference">Saved before compaction.</ctx:remember>`)
	if o := h.hook("pre-compact", s); o.HookSpecificOutput != nil {
		t.Errorf("pre-compact = %+v: PreCompact takes no context", o)
	}
	h.turn(s, "more", `<ctx:remember type="fact" tags="tier:reference">Said after it.</ctx:remember>`)
	h.hook("stop", s)
	nodes := h.list()
	if len(nodes) != 2 {
		t.Errorf("nodes %v: want each fact once", nodes)
	}
	if o := h.hook("session-end", s); o.HookSpecificOutput != nil || o.SystemMessage != "" {
		t.Errorf("session-end = %+v, want {}", o)
	}
}

func TestHookStagingStep(t *testing.T) {
	h := newHookEnv(t)
	h.ctx("stage", "start", "hook work")
	h.turn("s", "go", `<ctx:remember type="fact" tags="tier:reference">Recorded as a step.</ctx:remember>`)
	h.hook("stop", "s")
	if out := h.ctx("stage", "status"); !strings.Contains(out, "ctx hook stop") {
		t.Errorf("ctx stage status lacks the hook's step:\n%s", out)
	}
}

func TestHookMalformedInput(t *testing.T) {
	h := newHookEnv(t)
	for _, event := range []string{"session-start", "prompt-submit", "stop", "pre-compact", "session-end"} {
		for name, stdin := range map[string]string{
			"garbage":   "not json {",
			"truncated": `{"session_id":"x","cwd":`,
			"array":     `[1,2,3]`,
			"wrong":     `{"session_id":42}`,
			"binary":    "\x00\xff\xfe",
			"huge":      `{"session_id":"x","prompt":"` + strings.Repeat("a", 1<<20) + `"}`,
			"empty":     "",
			"no-file":   `{"session_id":"x","transcript_path":"/nonexistent/t.jsonl"}`,
		} {
			t.Run(event+"/"+name, func(t *testing.T) {
				h.hookInput(event, stdin) // exit 0 and one JSON object
			})
		}
	}
	t.Run("malformed commands", func(t *testing.T) {
		o := h.hookInput("stop", `{"session_id":"m"}`, "--response",
			"<ctx:remember type=\"fact\">   </ctx:remember> <ctx:remember type=\"rumour\">x</ctx:remember> <ctx:link from=\"zzzz\" to=\"yyyy\"/> <ctx:nope/> `<ctx:status/>`")
		if !strings.Contains(o.SystemMessage, "4 of 4") {
			t.Errorf("systemMessage = %q, want 4 of 4 commands failed", o.SystemMessage)
		}
		ctx := h.hookInput("prompt-submit", `{"session_id":"m"}`).context()
		for _, want := range []string{"empty content", "rumour", "zzzz", "unknown command <ctx:nope>"} {
			if !strings.Contains(ctx, want) {
				t.Errorf("the agent is not told %q:\n%s", want, ctx)
			}
		}
		if strings.Contains(ctx, "## ctx status") {
			t.Errorf("a command in inline code ran:\n%s", ctx)
		}
	})
	t.Run("no store", func(t *testing.T) {
		dir := t.TempDir()
		r := run(t, dir, h.env, `{"session_id":"x","cwd":"`+jsonInner(dir)+`"}`, h.bin, "hook", "session-start")
		if r.code != 0 || strings.TrimSpace(r.stdout) != "{}" {
			t.Errorf("session-start without a store: exit %d, stdout %q", r.code, r.stdout)
		}
	})
}

func TestHookContextBudget(t *testing.T) {
	h := newHookEnv(t)
	body := strings.Repeat("word ", 400) // 2,000 characters
	for i := range 40 {
		h.ctx("add", "fact", fmt.Sprintf("Fact %d", i), "--body", body, "-t", "tier:reference")
	}
	ctx := h.hook("session-start", "b").context()
	if len(ctx) > 10000 || len(ctx) < 5000 {
		t.Errorf("session-start injected %d characters, want the default 10,000 at most (and most of it used)", len(ctx))
	}
	if !strings.Contains(ctx, "omitted") {
		t.Errorf("the rendering does not say nodes were left out:\n%.300s", ctx)
	}
	cfg := filepath.Join(h.dir, ".ctx", "config.toml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(data, "\n[hooks]\nmax_context_chars = 3000\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := len(h.hook("session-start", "b").context()); n > 3000 {
		t.Errorf("with hooks.max_context_chars = 3000: %d characters", n)
	}
}

func TestInstallUninstallE2E(t *testing.T) {
	h := newHookEnv(t)
	settings := filepath.Join(h.dir, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	const mine = `{"permissions": {"deny": ["Read(.env)"]}, "hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "say done"}]}]}}`
	if err := os.WriteFile(settings, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	out := h.ctx("install")
	if !strings.Contains(out, `"ctx-core hook session-start"`) || !strings.Contains(out, "--write-settings") {
		t.Errorf("ctx install without --write-settings should print the snippet:\n%s", out)
	}
	if b, _ := os.ReadFile(settings); string(b) != mine {
		t.Errorf("settings.json changed without --write-settings:\n%s", b)
	}
	h.ctx("install", "--write-settings")
	b, _ := os.ReadFile(settings)
	for _, want := range []string{"say done", "Read(.env)", "ctx-core hook stop", "ctx-core hook session-start", "ctx-core hook prompt-submit", "ctx-core hook pre-compact", "ctx-core hook session-end"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("settings.json lacks %q:\n%s", want, b)
		}
	}
	if out := h.ctx("install", "--write-settings"); !strings.Contains(out, "has them all") {
		t.Errorf("second install:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(h.dir, ".claude", "skills", "ctx", "SKILL.md")); err != nil {
		t.Error(err)
	}
	// --user writes under HOME.
	var home string
	for _, e := range h.env {
		if v, ok := strings.CutPrefix(e, "HOME="); ok {
			home = v
		}
	}
	h.ctx("install", "--user", "--write-settings")
	if _, err := os.Stat(filepath.Join(home, ".claude", "settings.json")); err != nil {
		t.Errorf("ctx install --user: %v", err)
	}
	if r := run(t, h.dir, h.env, "", h.bin, "install", "--user", "--project"); r.code != 2 {
		t.Errorf("--user --project: exit %d, want 2", r.code)
	}
	h.ctx("uninstall", "--write-settings")
	b, _ = os.ReadFile(settings)
	if strings.Contains(string(b), "ctx-core hook") || !strings.Contains(string(b), "say done") || !strings.Contains(string(b), "Read(.env)") {
		t.Errorf("settings.json after uninstall:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(h.dir, ".claude", "skills", "ctx", "SKILL.md")); !os.IsNotExist(err) {
		t.Errorf("SKILL.md after uninstall: %v", err)
	}
}

// TestHookPostToolUse: PostToolUse feeds the session's working set —
// a Read makes the file active, an ls through Bash leaves [unread] stubs,
// an Edit adds a version — and answers {} every time; another session's
// working set is untouched, and a tool the working set does not follow
// changes nothing.
func TestHookPostToolUse(t *testing.T) {
	h := newHookEnv(t)
	writeFiles(t, h.dir, map[string]string{"src/app.go": "package src\n", "src/util.go": "package src\n\nvar a = 1\n"})
	post := func(fixture, session string) {
		t.Helper()
		if out := h.hookInput("post-tool-use", h.payload(fixture, session)); out.context() != "" || out.SystemMessage != "" {
			t.Fatalf("%s: %+v", fixture, out)
		}
	}
	type item struct {
		Type     string `json:"type"`
		Path     string `json:"path"`
		Level    string `json:"level"`
		State    string `json:"state"`
		Versions int    `json:"versions"`
	}
	show := func(session string) map[string]item {
		t.Helper()
		var res struct {
			Objects []item `json:"objects"`
		}
		out := h.ctx("--json", "context", "show", "--agent", session)
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("context show: %v\n%s", err, out)
		}
		m := map[string]item{}
		for _, it := range res.Objects {
			if it.Type == "file" {
				m[filepath.Base(it.Path)] = it
			} else {
				m[it.Type] = it
			}
		}
		return m
	}
	post("post-tool-use-read.json", "s1")
	post("post-tool-use-bash.json", "s1")
	got := show("s1")
	if got["app.go"].Level != "active" || got["app.go"].State == "unread" {
		t.Errorf("app.go after Read: %+v (all: %+v)", got["app.go"], got)
	}
	if got["util.go"].State != "unread" || got["toolcall"].Type != "toolcall" {
		t.Errorf("util.go after ls: %+v, want an [unread] stub and the call (all: %+v)", got["util.go"], got)
	}
	writeFiles(t, h.dir, map[string]string{"src/util.go": "package src\n\nvar b = 1\n"})
	post("post-tool-use-edit.json", "s1")
	if it := show("s1")["util.go"]; it.State == "unread" || it.Versions < 2 {
		t.Errorf("util.go after Edit: %+v, want a version with content after the stub", it)
	}
	post("post-tool-use-other.json", "s1")
	if len(show("s2")) != 0 {
		t.Errorf("session s2 has a working set: %+v", show("s2"))
	}
}

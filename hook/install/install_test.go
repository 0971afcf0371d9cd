package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/hook"
)

// TestSkill checks the frontmatter and trigger words of hooks design §12
// and that the skill teaches every command.
func TestSkill(t *testing.T) {
	front, body, ok := strings.Cut(strings.TrimPrefix(Skill, "---\n"), "\n---\n")
	if !strings.HasPrefix(Skill, "---\n") || !ok {
		t.Fatal("SKILL.md does not start with a --- frontmatter block")
	}
	if !strings.Contains(front, "name: ctx\n") {
		t.Error("frontmatter lacks name: ctx")
	}
	for _, bad := range []string{"disable-model-invocation", "user-invocable", "allowed-tools"} {
		if strings.Contains(front, bad) {
			t.Errorf("frontmatter sets %s (design §12: do not)", bad)
		}
	}
	desc := strings.ToLower(front[strings.Index(front, "description:"):])
	for _, w := range []string{"remember", "recall", "past knowledge", "past discussions", "what do you remember", "context", "memory"} {
		if !strings.Contains(desc, w) {
			t.Errorf("description lacks the trigger %q", w)
		}
	}
	for _, c := range []string{"<ctx:remember", "<ctx:recall", "<ctx:summarize", "<ctx:link", "<ctx:status/>", "<ctx:task", "<ctx:expand", "<ctx:supersede", "tier:reference", "ctx list"} {
		if !strings.Contains(body, c) {
			t.Errorf("the skill does not teach %s", c)
		}
	}
}

func TestMerge(t *testing.T) {
	existing := `{
  "model": "opus",
  "permissions": {"allow": ["Bash(go test:*)"]},
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "check && log > /tmp/x"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    "SessionStart": [{"matcher": "", "hooks": [{"type": "command", "command": "/opt/bin/ctx hook session-start"}]}]
  },
  "zeta": 1
}`
	out, added, err := Merge([]byte(existing), "ctx")
	if err != nil {
		t.Fatal(err)
	}
	if want := "UserPromptSubmit PostToolUse Stop PreCompact SessionEnd"; strings.Join(added, " ") != want {
		t.Errorf("added %v, want %s (SessionStart has ctx at another path)", added, want)
	}
	s := string(out)
	if !strings.Contains(s, `"matcher": "`+toolMatcher+`"`) {
		t.Errorf("PostToolUse is not limited to the tools it follows:\n%s", s)
	}
	for _, want := range []string{`"check && log > /tmp/x"`, `"notify-send done"`, `"/opt/bin/ctx hook session-start"`, `"ctx hook stop"`, `"ctx hook prompt-submit"`, `"ctx hook pre-compact"`, `"ctx hook session-end"`, `"ctx hook post-tool-use"`, `"model": "opus"`} {
		if !strings.Contains(s, want) {
			t.Errorf("merged settings lack %s:\n%s", want, s)
		}
	}
	if strings.Index(s, `"model"`) > strings.Index(s, `"permissions"`) || strings.Index(s, `"hooks"`) > strings.Index(s, `"zeta"`) {
		t.Errorf("key order changed:\n%s", s)
	}
	var v struct {
		Hooks map[string][]group `json:"hooks"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	if n := len(v.Hooks["Stop"]); n != 2 {
		t.Errorf("Stop has %d groups, want the user's and ctx's", n)
	}
	again, added2, err := Merge(out, "ctx")
	if err != nil || len(added2) != 0 || string(again) != s {
		t.Errorf("Merge is not idempotent: added %v, err %v", added2, err)
	}
	removed, which, err := Remove(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(which) != len(hook.Events) {
		t.Errorf("removed from %v, want all %d events", which, len(hook.Events))
	}
	r := string(removed)
	if strings.Contains(r, "ctx hook") || !strings.Contains(r, "notify-send done") || !strings.Contains(r, "check && log") || strings.Contains(r, "SessionEnd") {
		t.Errorf("after Remove:\n%s", r)
	}
	if _, which, _ := Remove(removed); len(which) != 0 {
		t.Errorf("Remove is not idempotent: %v", which)
	}
}

func TestMergeErrors(t *testing.T) {
	for _, in := range []string{`[1]`, `{"hooks": []}`, `{"hooks": {"Stop": {}}}`, `{`, `{} {}`} {
		if _, _, err := Merge([]byte(in), "ctx"); err == nil {
			t.Errorf("Merge(%s): no error", in)
		}
	}
	out, added, err := Merge(nil, "ctx")
	if err != nil || len(added) != len(hook.Events) {
		t.Fatalf("Merge(nil) = %v, %v", added, err)
	}
	if !json.Valid(out) {
		t.Errorf("Merge(nil) is not JSON: %s", out)
	}
}

func TestInstallUninstall(t *testing.T) {
	dir := t.TempDir()
	o := Options{Scope: Project, ProjectDir: dir}
	res, err := Install(o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.SkillChanged || res.SettingsWritten || res.Snippet == "" || len(res.Added) != len(hook.Events) {
		t.Errorf("install without --write-settings: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, ".claude", "settings.json")); !os.IsNotExist(err) {
		t.Errorf("settings.json written without WriteSettings: %v", err)
	}
	o.WriteSettings = true
	if res, err = Install(o); err != nil || res.SkillChanged || !res.SettingsWritten {
		t.Fatalf("install --write-settings: %+v, %v", res, err)
	}
	if res, err = Install(o); err != nil || len(res.Added) != 0 || res.SettingsWritten {
		t.Errorf("second install: %+v, %v", res, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".claude", "skills", "ctx", "SKILL.md"))
	if err != nil || string(b) != Skill {
		t.Errorf("SKILL.md: %v", err)
	}
	if res, err = Uninstall(o); err != nil || !res.SkillChanged || len(res.Removed) != len(hook.Events) || !res.SettingsWritten {
		t.Errorf("uninstall: %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".claude", "skills", "ctx")); !os.IsNotExist(err) {
		t.Errorf("skill directory left: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".claude", "settings.json")); strings.Contains(string(b), "ctx hook") {
		t.Errorf("settings after uninstall:\n%s", b)
	}
	if _, err := Install(Options{Scope: User}); err == nil {
		t.Error("user install without a home: no error")
	}
}

// TestBothNamesAreCtx: a hook running ctx or ctx-core (by any path) is
// ctx's, so that an install made before the hooks ran ctx-core adds none
// again, and uninstall takes either out.
func TestBothNamesAreCtx(t *testing.T) {
	for _, program := range []string{"ctx", "/opt/bin/ctx", "ctx-core", "/usr/local/bin/ctx-core", "ctx-core.exe"} {
		in, _, err := Merge(nil, program)
		if err != nil {
			t.Fatal(err)
		}
		out, added, err := Merge(in, "ctx-core")
		if err != nil || len(added) != 0 || string(out) != string(in) {
			t.Errorf("%s: merging ctx-core added %v (%v)", program, added, err)
		}
	}
	if _, added, _ := Merge([]byte(`{"hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "ctxd hook stop"}]}]}}`), "ctx-core"); !slices.Contains(added, "Stop") {
		t.Errorf("ctxd's hook counted as ctx's: added %v", added)
	}
}
